"""Helpers transformations share for their arguments (`jax.api_util`): flattening a
wrapped function's inputs and outputs, and describing where a traced function
came from."""

from __future__ import annotations

import inspect
from typing import Any, Callable, Sequence

from jax._src import linear_util as lu
from jax._src import tree_util
from jax._src.extend_core import DebugInfo


def _flatten_fun(in_tree, *flat_args):
  args, kwargs = tree_util.tree_unflatten(in_tree, flat_args)
  out = yield args, kwargs
  flat_out, out_tree = tree_util.tree_flatten(out)
  yield flat_out, out_tree


def flatten_fun(f: lu.WrappedFun, in_tree) -> tuple[lu.WrappedFun, Callable]:
  """`f` taking `(args, kwargs)` as one flat list of leaves laid out by `in_tree`,
  and returning a flat list; the thunk gives the output's treedef after a call."""
  return lu.transformation_with_aux(_flatten_fun, f, in_tree)


def _src_info(fun: Callable) -> str | None:
  name = getattr(fun, "__name__", None) or type(fun).__name__
  try:
    filename = inspect.getsourcefile(fun)
    _, line = inspect.getsourcelines(fun)
  except (TypeError, OSError):
    return name
  return f"{name} at {filename}:{line}"


def _arg_names(fun: Callable, args: Sequence, kwargs: dict, static_argnums: Sequence[int],
               static_argnames: Sequence[str]) -> tuple[str, ...] | None:
  try:
    bound = inspect.signature(fun).bind(*args, **kwargs)
  except (TypeError, ValueError):
    return None
  static_names = set(static_argnames)
  params = list(inspect.signature(fun).parameters)
  static_names |= {params[i] for i in static_argnums if -len(params) <= i < len(params)}
  names = []
  for name, value in bound.arguments.items():
    if name in static_names:
      continue
    for path, _ in tree_util.tree_flatten_with_path(value)[0]:
      names.append(name + tree_util.keystr(path))
  return tuple(names)


def debug_info(traced_for: str, fun: Callable, args: Sequence, kwargs: dict[str, Any], *,
               static_argnums: Sequence[int] = (), static_argnames: Sequence[str] = (),
               result_paths_thunk=None, sourceinfo: str | None = None,
               signature: inspect.Signature | None = None) -> DebugInfo:
  """What a transformation records about `fun`: what traced it, its name and source
  location, and the names of its (non-static) argument leaves."""
  del result_paths_thunk, signature
  return DebugInfo(traced_for, sourceinfo or _src_info(fun),
                   _arg_names(fun, args, kwargs, static_argnums, static_argnames))
