"""Helpers that transformations share for their arguments (`jax.api_util`): static and
dynamic arguments, donation per flat argument, per-leaf axes, debug information."""

from __future__ import annotations

import inspect
import operator
from typing import Any, Callable, NamedTuple, Sequence

from jax._src import core
from jax._src import dtypes
from jax._src import linear_util as lu
from jax._src import tree_util
from jax._src.util import safe_map

__all__ = ["safe_map"]


def shaped_abstractify(x) -> core.ShapedArray:
  """The abstract value (shape, dtype, weak type) of an array-like `x`."""
  if hasattr(x, "shape") and hasattr(x, "dtype") and not hasattr(x, "aval"):
    return core.ShapedArray(tuple(x.shape), dtypes.canonicalize_dtype(x.dtype))
  aval = core.get_aval(x)
  return aval.update(dtype=dtypes.canonicalize_dtype(aval.dtype))


def argnums_partial(f: Callable, dyn_argnums, args: Sequence,
                    require_static_args_hashable: bool = True):
  """(g, dyn_args): g(*dyn_args) == f(*args), the other arguments held fixed."""
  n = len(args)
  dyn_argnums = tuple(sorted({operator.index(i) % n if n else operator.index(i)
                              for i in (dyn_argnums if isinstance(dyn_argnums, (tuple, list))
                                        else (dyn_argnums,))}))
  static = {i: a for i, a in enumerate(args) if i not in dyn_argnums}
  if require_static_args_hashable:
    for i, a in static.items():
      try:
        hash(a)
      except TypeError:
        raise ValueError(f"Non-hashable static arguments are not supported. An error occurred "
                         f"while trying to hash an object of type {type(a)}, {a}.") from None
  dyn_args = tuple(args[i] for i in dyn_argnums)

  def g(*dyn):
    if len(dyn) != len(dyn_argnums):
      raise TypeError(f"expected {len(dyn_argnums)} dynamic arguments, got {len(dyn)}")
    full = dict(static)
    full.update(zip(dyn_argnums, dyn))
    return f(*(full[i] for i in range(n)))

  return g, dyn_args


def rebase_donate_argnums(donate_argnums, static_argnums) -> tuple[int, ...]:
  """Donated argument numbers counted among the arguments left once the static ones are
  removed."""
  static = sorted(set(static_argnums))
  donate = sorted(set(donate_argnums))
  out = []
  for d in donate:
    if d in static:
      raise ValueError(f"Static arguments cannot be donated: argument {d} is static")
    out.append(d - sum(1 for s in static if s < d))
  return tuple(out)


def donation_vector(donate_argnums, donate_argnames, in_tree, kws: bool = True) -> tuple:
  """One bool per flat argument of `in_tree` (the treedef of (args, kwargs), or of args
  alone with kws=False): whether that leaf is donated."""
  donate_argnums = set(donate_argnums)
  donate_argnames = {donate_argnames} if isinstance(donate_argnames, str) else set(
      donate_argnames or ())
  if kws:
    args_tree, kwargs_tree = in_tree.children()
  else:
    args_tree, kwargs_tree = in_tree, None
  out: list[bool] = []
  for i, child in enumerate(args_tree.children()):
    out.extend([i in donate_argnums] * child.num_leaves)
  if kwargs_tree is not None:
    keys = kwargs_tree.node_data()[1] or ()
    for key, child in zip(keys, kwargs_tree.children()):
      out.extend([key in donate_argnames] * child.num_leaves)
  return tuple(out)


class _Slot:
  __slots__ = ("index",)

  def __init__(self, index: int):
    self.index = index


def flatten_axes(name: str, treedef, axis_tree, *, kws: bool = False,
                 tupled_args: bool = False) -> list:
  """One axis per leaf of `treedef`, from `axis_tree` (a tree prefix of it; None entries
  count as leaves)."""
  proxy = treedef.unflatten([_Slot(i) for i in range(treedef.num_leaves)])
  if kws:
    axis_tree = (axis_tree, {})
  axes, axis_def = tree_util.tree_flatten(axis_tree, is_leaf=lambda x: x is None)
  try:
    subtrees = axis_def.flatten_up_to(proxy)
  except (ValueError, TypeError) as e:
    hint = (" (in_axes of a function of one argument must be a tuple, e.g. (0,))"
            if tupled_args else "")
    raise ValueError(f"{name} specification must be a tree prefix of the corresponding "
                     f"value, got specification {axis_tree} for value tree {treedef}"
                     f"{hint}.") from e
  out: list[Any] = [None] * treedef.num_leaves
  for axis, sub in zip(axes, subtrees):
    for slot in tree_util.tree_leaves(sub):
      out[slot.index] = axis
  return out


class DebugInfo(NamedTuple):
  """What a transformation knows of the function it traces, for error messages."""
  traced_for: str
  func_src_info: str | None
  arg_names: tuple[str, ...]
  result_paths: Any = None

  @property
  def func_name(self) -> str:
    return (self.func_src_info or "<unknown>").split(" ")[0]


def _src_info(fun: Callable) -> str:
  name = getattr(fun, "__qualname__", getattr(fun, "__name__", type(fun).__name__))
  try:
    file = inspect.getsourcefile(fun)
    line = inspect.getsourcelines(fun)[1]
    return f"{name} at {file}:{line}"
  except (TypeError, OSError):
    return name


def debug_info(traced_for: str, fun: Callable, args, kwargs, *, static_argnums=(),
               static_argnames=(), result_paths_thunk=None, sourceinfo=None,
               signature=None) -> DebugInfo:
  """The DebugInfo of tracing `fun(*args, **kwargs)` for `traced_for` ("jit", ...): its
  source, and the names of its non-static arguments (flattened, with key paths)."""
  try:
    sig = signature if signature is not None else inspect.signature(fun)
    bound = sig.bind(*args, **kwargs)
    named = list(bound.arguments.items())
  except (TypeError, ValueError):
    named = [(f"args[{i}]", a) for i, a in enumerate(args)] + list(kwargs.items())
  static_names = set(static_argnames)
  static_pos = {operator.index(i) for i in static_argnums}
  names = []
  for pos, (name, value) in enumerate(named):
    if name in static_names or pos in static_pos:
      continue
    for path, _ in tree_util.tree_flatten_with_path(value)[0]:
      names.append(name + tree_util.keystr(path))
  result_paths = result_paths_thunk() if callable(result_paths_thunk) else None
  return DebugInfo(traced_for, sourceinfo or _src_info(fun), tuple(names), result_paths)


def _flatten_fun(in_tree, *flat_args):
  args, kwargs = tree_util.tree_unflatten(in_tree, flat_args)
  out = yield args, kwargs
  flat_out, out_tree = tree_util.tree_flatten(out)
  yield flat_out, out_tree


def flatten_fun(f: lu.WrappedFun, in_tree) -> tuple[lu.WrappedFun, Callable]:
  """`f` taking `(args, kwargs)` as one flat list of leaves laid out by `in_tree`,
  and returning a flat list; the thunk gives the output's treedef after a call."""
  return lu.transformation_with_aux(_flatten_fun, f, in_tree)


def _flatten_fun_nokwargs(in_tree, *flat_args):
  args = tree_util.tree_unflatten(in_tree, flat_args)
  out = yield args, {}
  flat_out, out_tree = tree_util.tree_flatten(out)
  yield flat_out, out_tree


def flatten_fun_nokwargs(f: lu.WrappedFun, in_tree) -> tuple[lu.WrappedFun, Callable]:
  """Like flatten_fun for positional arguments only: `in_tree` lays out the tuple of
  arguments."""
  return lu.transformation_with_aux(_flatten_fun_nokwargs, f, in_tree)
