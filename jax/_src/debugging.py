"""`jax.debug`: side-effecting host callbacks that survive jit, vmap and grad.

`debug_callback` is a primitive with no results. It is listed in
`partial_eval.effectful_primitives`, so dead-code elimination keeps it although
nothing uses its (absent) outputs, and in `callback.callback_primitives`, so jit
knows the program calls back into Python. Under `vmap` the callback runs once
per batch element (in order); under differentiation it sees the primal values
only, and its tangent is nothing.
"""

from __future__ import annotations

import functools
import logging
import string
import sys
from typing import Any, Callable

import numpy as np

from jax._src import callback as callback_lib
from jax._src import core
from jax._src import tree_util
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.interpreters import partial_eval as pe
from jax._src.interpreters import physical
from jax._src.lowering import hlo
from jax._src.lax import shape as lax_shape

debug_callback_p = core.Primitive("debug_callback", multiple_results=True)


class _DebugCallback:
  """The user callback over flat numpy leaves; returns no results."""

  def __init__(self, callback: Callable, in_tree):
    self.callback_func, self.in_tree = callback, in_tree

  def __call__(self, *flat_args):
    args, kwargs = self.in_tree.unflatten(flat_args)
    self.callback_func(*args, **kwargs)
    return []

  def __repr__(self):
    return f"{getattr(self.callback_func, '__name__', 'callback')}"


def _impl(*args, callback: _DebugCallback):
  # Values of extended dtypes (typed keys) have no numpy form: they are passed as they are.
  callback(*(x if physical.to_physical(x) is not x else np.asarray(x) for x in args))
  return []


debug_callback_p.def_impl(_impl)
physical.rules[debug_callback_p] = physical.callback_rule(debug_callback_p)
debug_callback_p.def_abstract_eval(lambda *avals, callback: [])


def _jvp(primals, tangents, *, callback):
  return debug_callback_p.bind(*primals, callback=callback), []


ad.jvp_rules[debug_callback_p] = _jvp
# Linear-tangent evaluation never reaches the callback (it only sees primals), but
# transposition may meet it among the known equations; it has no cotangents.
ad.transpose_rules[debug_callback_p] = lambda cts, *args, callback: [None] * len(args)


def index_in_axis(x, i: int, axis: int):
  shape = core.get_aval(x).shape
  start = tuple(i if k == axis else 0 for k in range(len(shape)))
  limit = tuple(i + 1 if k == axis else d for k, d in enumerate(shape))
  return lax_shape.reshape(lax_shape.slice(x, start, limit), shape[:axis] + shape[axis + 1:])


def _batch(axis, vals, dims, *, callback):
  for i in range(axis.size):
    sliced = [x if d is batching.not_mapped else index_in_axis(x, i, d) for x, d in zip(vals, dims)]
    debug_callback_p.bind(*sliced, callback=callback)
  return [], []


batching.batch_rules[debug_callback_p] = _batch
hlo.lowering_rules[debug_callback_p] = (
    lambda ctx, *args, callback: callback_lib.emit_host_call(ctx, args, callback, ()))
pe.effectful_primitives.add(debug_callback_p)
callback_lib.callback_primitives.add(debug_callback_p)


def debug_callback(callback: Callable[..., Any], *args, ordered: bool = False,
                   partitioned: bool = False, **kwargs) -> None:
  """Call `callback(*args, **kwargs)` on host values when the computation runs.

  `args` may be pytrees of arrays; the callback gets numpy arrays and must return
  None. Unlike `pure_callback` it is never dropped for being unused.
  """
  del ordered, partitioned  # a single device runs callbacks in program order
  if not callable(callback):
    raise TypeError(f"jax.debug.callback expects a callable, got {callback!r}")
  leaves, in_tree = tree_util.tree_flatten((args, kwargs))
  for x in leaves:
    if not core.is_valid_jaxval(x):
      raise TypeError(f"jax.debug.callback arguments must be arrays or scalars, got "
                      f"{type(x).__name__}: {x!r}")
  debug_callback_p.bind(*leaves, callback=_DebugCallback(_checked(callback), in_tree))


def _checked(callback: Callable) -> Callable:
  @functools.wraps(callback)
  def run(*args, **kwargs):
    out = callback(*args, **kwargs)
    if out is not None:
      raise TypeError(f"jax.debug.callback functions must return None, got {out!r}")

  return run


class _ArrayFormatter(string.Formatter):
  """Formats numpy values the way their str() reads ("[1. 2.]"), not their repr."""

  def format_field(self, value, format_spec):
    if isinstance(value, np.ndarray) and not format_spec:
      return str(value)
    return super().format_field(value, format_spec)


def _format_print(fmt: str, *args, **kwargs) -> None:
  sys.stdout.write(_ArrayFormatter().format(fmt, *args, **kwargs) + "\n")


def debug_print(fmt: str, *args, ordered: bool = False, **kwargs) -> None:
  """Print `fmt.format(*args, **kwargs)` with the runtime values of traced arrays."""
  if not isinstance(fmt, str):
    raise TypeError(f"jax.debug.print expects a format string first, got {fmt!r}")
  debug_callback(functools.partial(_format_print, fmt), *args, ordered=ordered, **kwargs)


class DebugEffect:
  """The effect of a jax.debug callback (unordered: calls may run in any order)."""


class OrderedDebugEffect(DebugEffect):
  """The effect of an ordered jax.debug callback."""


def _format_log(fmt: str, level: int, *args, **kwargs) -> None:
  logging.getLogger("jax").log(level, _ArrayFormatter().format(fmt, *args, **kwargs))


def debug_log(fmt: str, *args, level: int = logging.INFO, **kwargs) -> None:
  """Like jax.debug.print, but the message goes to the "jax" logger at `level`."""
  if not isinstance(fmt, str):
    raise TypeError(f"jax.debug.log expects a format string first, got {fmt!r}")
  debug_callback(functools.partial(_format_log, fmt, level), *args, **kwargs)


def breakpoint(*, backend=None, filter_frames: bool = True, num_frames=None,
               ordered: bool = False, token=None, **kwargs):
  """Interactive debugging inside traced code is not available in this jax."""
  del backend, filter_frames, num_frames, ordered, token, kwargs
  raise NotImplementedError(
      "jax.debug.breakpoint is not supported: it needs an interactive debugger attached to "
      "a running computation. Use jax.debug.print or jax.debug.callback to inspect values.")


def visualize_sharding(shape, sharding, *, use_color: bool = False, scale: float = 1.,
                       min_width: int = 9, max_width: int = 80, color_map=None) -> None:
  """Print which device holds which slice of an array of `shape` under `sharding`."""
  del use_color, scale, min_width, max_width, color_map  # plain-text output only
  index_map = getattr(sharding, "devices_indices_map", None)
  if index_map is None:
    raise TypeError(f"visualize_sharding expects a Sharding, got {sharding!r}")
  rows = [(_index_str(idx), str(dev)) for dev, idx in index_map(tuple(shape)).items()]
  width = max(len(r[0]) for r in rows)
  for index, device in rows:
    sys.stdout.write(f"{index.ljust(width)}  {device}\n")


def _index_str(idx) -> str:
  parts = []
  for s in idx:
    if isinstance(s, slice):
      parts.append(f"{'' if s.start is None else s.start}:{'' if s.stop is None else s.stop}")
    else:
      parts.append(str(s))
  return "[" + ", ".join(parts) + "]"


def visualize_array_sharding(arr, **kwargs) -> None:
  """Print which device holds which slice of the concrete array `arr`."""
  sharding = getattr(arr, "sharding", None)
  if isinstance(arr, core.Tracer) or sharding is None:
    raise ValueError("visualize_array_sharding needs a concrete jax Array (it cannot "
                     "inspect a traced value)")
  visualize_sharding(arr.shape, sharding, **kwargs)


def inspect_array_sharding(value, *, callback: Callable) -> None:
  """Call `callback(sharding)` with the sharding of a concrete array."""
  sharding = getattr(value, "sharding", None)
  if isinstance(value, core.Tracer) or sharding is None:
    raise ValueError("inspect_array_sharding needs a concrete jax Array (outside jit, the "
                     "array's own sharding is what it reports)")
  callback(sharding)
