"""`jax.pure_callback`: call a Python function on host values from inside a computation.

Eagerly the callback is simply called on numpy copies of the arguments. Under
`jit` the call is staged as the primitive `pure_callback` and lowered to an HLO
`custom-call` with the reserved target `xla_ffi_python_cpu_callback` whose
`backend_config={index = N : ui64}` names a callback registered with the plugin
through the C API host-callback extension: at run time the compiled program
calls back into jaxlib, which takes the GIL and runs the Python function on the
operand buffers, writing its results into the custom-call's result buffers.
A backend without that extension runs jaxprs containing callbacks equation by
equation instead (see `jit_primitive._jit_impl`).

Under `vmap`, `vmap_method` says how the callback sees the batch:
"sequential" calls it once per batch element, "expand_dims" calls it once with
unbatched arguments given a leading axis of size 1, "broadcast_all" calls it
once with every argument broadcast to the batch size. The callback must be
pure (it may be called any number of times, or dropped if its result is unused),
so it has no derivative: use `jax.custom_jvp`/`custom_vjp` around it.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np

from jax._src import compilation_cache
from jax._src import core
from jax._src import execution
from jax._src import dtypes
from jax._src import tree_util
from jax._src.array import host_array
from jax._src.core import ShapedArray
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.interpreters import physical
from jax._src.lax import shape as lax_shape
from jax._src.lowering import hlo

CALLBACK_TARGET = "xla_ffi_python_cpu_callback"
compilation_cache.register_uncacheable_target(CALLBACK_TARGET)
_VMAP_METHODS = ("sequential", "expand_dims", "broadcast_all", "legacy_vectorized")


class FlatCallback:
  """The user function over flat leaves: unflattens arguments, flattens results."""

  def __init__(self, callback: Callable, in_tree, result_avals, out_tree):
    self.callback_func, self.in_tree = callback, in_tree
    self.result_avals, self.out_tree = tuple(result_avals), out_tree

  def __call__(self, *flat_args):
    args, kwargs = self.in_tree.unflatten(flat_args)
    out = self.callback_func(*args, **kwargs)
    leaves, tree = tree_util.tree_flatten(out)
    if tree != self.out_tree:
      raise TypeError(f"pure_callback: the callback returned a value of structure {tree}, "
                      f"but result_shape_dtypes has structure {self.out_tree}")
    return [_check_result(np.asarray(x), a, i)
            for i, (x, a) in enumerate(zip(leaves, self.result_avals))]

  def __repr__(self):
    return f"FlatCallback(callback_func={self.callback_func!r}, in_tree={self.in_tree})"


def _check_result(x: np.ndarray, aval: ShapedArray, i: int) -> np.ndarray:
  if x.shape != aval.shape:
    raise RuntimeError(f"pure_callback: result {i} has shape {x.shape}, but "
                       f"result_shape_dtypes says {aval.shape}")
  if x.dtype != aval.dtype:
    raise RuntimeError(f"pure_callback: result {i} has dtype {x.dtype}, but "
                       f"result_shape_dtypes says {aval.dtype}. Convert it in the callback "
                       f"(e.g. .astype(np.{aval.dtype.name})).")
  return x


# ----------------------------------------------------------------------------- the primitive

pure_callback_p = core.Primitive("pure_callback", multiple_results=True)


def _impl(*args, callback: FlatCallback, result_avals, vmap_method):
  outs = callback(*(np.array(x) for x in args))
  return [host_array(o) for o in outs]


pure_callback_p.def_impl(_impl)
physical.rules[pure_callback_p] = physical.callback_rule(pure_callback_p)
pure_callback_p.def_abstract_eval(lambda *avals, result_avals, **_: list(result_avals))


def _jvp(primals, tangents, **params):
  raise ValueError("Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use "
                   "callbacks while taking gradients.")


ad.jvp_rules[pure_callback_p] = _jvp


def _batched_avals(result_avals, size: int) -> tuple:
  return tuple(a.update(shape=(size, *a.shape)) for a in result_avals)


def _index(x, i: int, axis: int):
  """x[..., i, ...] along `axis`, the axis removed."""
  shape = core.get_aval(x).shape
  start = tuple(i if k == axis else 0 for k in range(len(shape)))
  limit = tuple(i + 1 if k == axis else d for k, d in enumerate(shape))
  part = lax_shape.slice(x, start, limit)
  return lax_shape.reshape(part, shape[:axis] + shape[axis + 1:])


def _sequential(args, dims, size, params) -> list:
  per_elem = []
  for i in range(size):
    sliced = [x if d is batching.not_mapped else _index(x, i, d) for x, d in zip(args, dims)]
    per_elem.append(pure_callback_p.bind(*sliced, **params))
  outs = []
  for k, aval in enumerate(params["result_avals"]):
    rows = [lax_shape.broadcast_in_dim(r[k], (1, *aval.shape), tuple(range(1, aval.ndim + 1)))
            for r in per_elem]
    outs.append(lax_shape.concatenate(rows, 0))
  return outs


def _batch(axis, vals, dims, *, callback, result_avals, vmap_method):
  params = dict(callback=callback, result_avals=result_avals, vmap_method=vmap_method)
  size = axis.size
  if vmap_method is None:
    raise NotImplementedError("vmap is only supported for pure_callback when the vmap_method "
                              "argument is set (\"sequential\", \"expand_dims\" or "
                              "\"broadcast_all\").")
  if vmap_method == "sequential":
    return _sequential(vals, dims, size, params), [0] * len(result_avals)
  if vmap_method in ("expand_dims", "legacy_vectorized"):
    args = [batching.moveaxis(x, d, 0) if d is not batching.not_mapped else
            lax_shape.broadcast_in_dim(x, (1, *core.get_aval(x).shape),
                                       tuple(range(1, core.get_aval(x).ndim + 1)))
            for x, d in zip(vals, dims)]
  else:  # broadcast_all
    args = [batching.bdim_at_front(x, d, size) for x, d in zip(vals, dims)]
  new = dict(params, result_avals=_batched_avals(result_avals, size))
  # The callback sees whole batches: its flat results get the batch axis too.
  new["callback"] = FlatCallback(callback.callback_func, callback.in_tree,
                                  new["result_avals"], callback.out_tree)
  return pure_callback_p.bind(*args, **new), [0] * len(result_avals)


batching.batch_rules[pure_callback_p] = _batch


# ----------------------------------------------------------------------------- lowering


class _Registration:
  """A callback registered with a backend; kept alive as long as the process may call it."""

  def __init__(self, callback: FlatCallback, in_avals, out_avals):
    self.callback, self.in_avals, self.out_avals = callback, tuple(in_avals), tuple(out_avals)

  def __call__(self, operands, results):
    """Called by jaxlib with memoryviews over the operand and result buffers."""
    args = [np.frombuffer(m, dtype=a.dtype).reshape(a.shape).copy()
            for m, a in zip(operands, self.in_avals)]
    outs = self.callback(*args)
    for m, o, a in zip(results, outs, self.out_avals):
      np.frombuffer(m, dtype=a.dtype).reshape(a.shape)[...] = o


_registry_lock = threading.Lock()
_registered: dict[Any, tuple[int, _Registration]] = {}


_support_cache: dict[int, bool] = {}


def supports_host_callbacks(client) -> bool:
  """Whether compiled programs of `client` can call back into Python."""
  hit = _support_cache.get(id(client))
  if hit is None:
    query = getattr(client, "host_callbacks_supported", None)
    hit = _support_cache[id(client)] = bool(callable(query) and query())
  return hit


def _register(callback: FlatCallback, in_avals, out_avals) -> int:
  client = execution.get_backend()
  if not supports_host_callbacks(client):
    raise NotImplementedError(f"the {client.platform} backend does not support host callbacks "
                              "(its plugin has no host-callback extension)")
  key = (id(client), id(callback), tuple(in_avals), tuple(out_avals))
  with _registry_lock:
    hit = _registered.get(key)
    if hit is None:
      reg = _Registration(callback, in_avals, out_avals)
      index = client.register_host_callback(
          reg, [int(a.size * a.dtype.itemsize) for a in in_avals],
          [int(a.size * a.dtype.itemsize) for a in out_avals])
      # The registration holds the callback; the key's ids stay valid as long as it lives.
      hit = _registered[key] = (int(index), reg)
  return hit[0]


def _lowering(ctx: hlo.LoweringContext, *args, callback, result_avals, vmap_method):
  return emit_host_call(ctx, args, callback, result_avals)


def emit_host_call(ctx: hlo.LoweringContext, args, callback: Callable, result_avals) -> list:
  """A custom-call running `callback(*numpy operands) -> list of results` on the host."""
  index = _register(callback, [a.aval for a in args], result_avals)
  avals = list(result_avals)
  shape = (hlo.shape_str(avals[0]) if len(avals) == 1
           else hlo.tuple_str([hlo.shape_str(a) for a in avals]))
  layouts = ", ".join(hlo.shape_str(a.aval) for a in args)
  attrs = (f'custom_call_target="{CALLBACK_TARGET}", operand_layout_constraints={{{layouts}}}, '
           f"api_version=API_VERSION_TYPED_FFI, backend_config={{index = {index} : ui64}}")
  name = ctx.comp.emit(ctx.prefix, shape, "custom-call", [a.name for a in args], attrs)
  if len(avals) == 1:
    return [hlo.HloValue(name, avals[0])]
  return [hlo.HloValue(ctx.comp.emit(ctx.prefix, hlo.shape_str(a), "get-tuple-element", [name],
                                     f"index={i}"), a) for i, a in enumerate(avals)]


hlo.lowering_rules[pure_callback_p] = _lowering


# Primitives that call back into Python at run time (jax.debug adds its own).
callback_primitives: set = {pure_callback_p}


def contains_callback(jaxpr: core.Jaxpr) -> bool:
  """Whether `jaxpr`, or any jaxpr nested in it (jit, cond, while...), calls back to Python."""
  return core.any_eqn(jaxpr, lambda eqn: eqn.primitive in callback_primitives)


# ----------------------------------------------------------------------------- user API


def result_aval(x) -> ShapedArray:
  shape, dtype = getattr(x, "shape", None), getattr(x, "dtype", None)
  if shape is None or dtype is None:
    raise ValueError(f"pure_callback: result_shape_dtypes leaves must have .shape and .dtype "
                     f"(e.g. jax.ShapeDtypeStruct), got {x!r}")
  return ShapedArray(tuple(shape), dtypes.canonicalize_dtype(dtype))


def pure_callback(callback: Callable, result_shape_dtypes, *args, sharding=None,
                  vmap_method: str | None = None, **kwargs):
  """Call the host function `callback(*args, **kwargs)`; its results must match
  `result_shape_dtypes` (a pytree of objects with `.shape` and `.dtype`)."""
  del sharding  # callbacks run where the computation runs
  if vmap_method is not None and vmap_method not in _VMAP_METHODS:
    raise ValueError(f"vmap_method must be one of {_VMAP_METHODS} or None, got {vmap_method!r}")
  leaves, in_tree = tree_util.tree_flatten((args, kwargs))
  res_leaves, out_tree = tree_util.tree_flatten(result_shape_dtypes)
  result_avals = tuple(result_aval(x) for x in res_leaves)
  flat = FlatCallback(callback, in_tree, result_avals, out_tree)
  outs = pure_callback_p.bind(*leaves, callback=flat, result_avals=result_avals,
                              vmap_method=vmap_method)
  return out_tree.unflatten(outs)
