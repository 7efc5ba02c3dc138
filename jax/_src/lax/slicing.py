"""Slicing with traced start indices: one block per primitive.

dynamic_slice, dynamic_update_slice; plus dynamic_index_in_dim /
dynamic_update_index_in_dim built from them. Start indices are scalar operands
(one per dimension); like XLA, the ops clamp them so the slice stays in bounds.
The user functions also wrap negative indices (`i + size`), as lax does.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.core import ShapedArray
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lax import elementwise as ew
from jax._src.lax import shape as lax_shape
from jax._src.lax.utils import standard_primitive
from jax._src.lowering import hlo


def _index_dtype(indices):
  """int32 unless an index is 64-bit (then int64), as XLA needs one index type."""
  kinds = [core.get_aval(i).dtype for i in indices]
  return np.dtype(np.int64) if any(k.itemsize == 8 for k in kinds) else np.dtype(np.int32)


def _normalize_indices(shape, indices) -> list:
  """Wrap negative start indices and convert them all to one integer type."""
  if len(indices) != len(shape):
    raise TypeError(f"dynamic slicing needs {len(shape)} start indices, got {len(indices)}")
  dt = _index_dtype(indices) if indices else np.dtype(np.int32)
  out = []
  for i, size in zip(indices, shape):
    aval = core.get_aval(i)
    if aval.shape != ():
      raise TypeError(f"start indices must be scalars, got {aval.str_short()}")
    if not dtypes.is_integer(aval.dtype):
      raise TypeError(f"start indices must be integers, got {aval.dtype.name}")
    value = core.concrete_value(i)
    if value is not None and not isinstance(i, core.Tracer):
      v = int(value)
      out.append(ew.convert_element_type(v + size if v < 0 else v, dt))
      continue
    i = ew.convert_element_type(i, dt)
    if aval.dtype.kind == "i":
      i = ew.select(ew.lt(i, 0), ew.add(i, size), i)
    out.append(i)
  return out


# ----------------------------------------------------------------------------- dynamic_slice


def _dynamic_slice_abstract_eval(x, *indices, slice_sizes):
  if len(indices) != x.ndim or len(slice_sizes) != x.ndim:
    raise TypeError(f"dynamic_slice: {x.str_short()} needs {x.ndim} indices and sizes")
  if any(not 0 <= s <= d for s, d in zip(slice_sizes, x.shape)):
    raise TypeError(f"dynamic_slice: slice_sizes {slice_sizes} do not fit {x.str_short()}")
  return ShapedArray(slice_sizes, x.dtype, x.weak_type)


dynamic_slice_p = standard_primitive("dynamic_slice", _dynamic_slice_abstract_eval)


def dynamic_slice(x, start_indices: Sequence, slice_sizes: Sequence[int]):
  shape = core.get_aval(x).shape
  indices = _normalize_indices(shape, list(start_indices))
  return dynamic_slice_p.bind(x, *indices, slice_sizes=tuple(int(s) for s in slice_sizes))


def _dynamic_slice_jvp(primals, tangents, *, slice_sizes):
  x, *idx = primals
  return (dynamic_slice_p.bind(x, *idx, slice_sizes=slice_sizes),
          dynamic_slice_p.bind(tangents[0], *idx, slice_sizes=slice_sizes))


def _dynamic_slice_transpose(ct, x, *idx, slice_sizes):
  zeros = ad.zeros_like_aval(x.aval)
  return [dynamic_update_slice_p.bind(zeros, ct, *idx)] + [None] * len(idx)


def _batch_by_map(fun, axis, vals, dims):
  """Run `fun` once per batch element with a scan (for batched start indices)."""
  from jax._src.lax import control_flow
  moved = [batching.bdim_at_front(v, d, axis.size) for v, d in zip(vals, dims)]
  return control_flow.map(lambda args: fun(*args), tuple(moved)), 0


def _dynamic_slice_batch(axis, vals, dims, *, slice_sizes):
  x, *idx = vals
  xd, *idims = dims
  if all(d is batching.not_mapped for d in idims):
    x = batching.moveaxis(x, xd, 0)
    zero = ew.convert_element_type(0, core.get_aval(idx[0]).dtype if idx else np.int32)
    return dynamic_slice_p.bind(x, zero, *idx, slice_sizes=(axis.size, *slice_sizes)), 0
  return _batch_by_map(lambda x, *i: dynamic_slice_p.bind(x, *i, slice_sizes=slice_sizes),
                       axis, vals, dims)


def _dynamic_slice_lowering(ctx, x, *idx, slice_sizes):
  sizes = ",".join(map(str, slice_sizes))
  return ctx.op("dynamic-slice", ctx.avals_out[0], x, *idx,
                attrs=f"dynamic_slice_sizes={{{sizes}}}")


ad.jvp_rules[dynamic_slice_p] = _dynamic_slice_jvp
ad.transpose_rules[dynamic_slice_p] = _dynamic_slice_transpose
batching.batch_rules[dynamic_slice_p] = _dynamic_slice_batch
hlo.lowering_rules[dynamic_slice_p] = _dynamic_slice_lowering


# ----------------------------------------------------------------------------- dynamic_update_slice


def _dynamic_update_slice_abstract_eval(x, update, *indices):
  if update.ndim != x.ndim or len(indices) != x.ndim or update.dtype != x.dtype:
    raise TypeError(f"dynamic_update_slice: cannot put {update.str_short()} into {x.str_short()}")
  if any(u > d for u, d in zip(update.shape, x.shape)):
    raise TypeError(f"dynamic_update_slice: {update.str_short()} is larger than {x.str_short()}")
  return x


dynamic_update_slice_p = standard_primitive("dynamic_update_slice",
                                            _dynamic_update_slice_abstract_eval)


def dynamic_update_slice(x, update, start_indices: Sequence):
  shape = core.get_aval(x).shape
  indices = _normalize_indices(shape, list(start_indices))
  update = ew.convert_element_type(update, core.get_aval(x).dtype, core.get_aval(x).weak_type)
  return dynamic_update_slice_p.bind(x, update, *indices)


def _dynamic_update_slice_jvp(primals, tangents):
  x, update, *idx = primals
  tx, tu = tangents[:2]
  return (dynamic_update_slice_p.bind(x, update, *idx),
          dynamic_update_slice_p.bind(tx, tu, *idx))


def _dynamic_update_slice_transpose(ct, x, update, *idx):
  update_aval = update.aval if ad.is_undefined_primal(update) else core.get_aval(update)
  outs = [None, None] + [None] * len(idx)
  if ad.is_undefined_primal(x):
    outs[0] = dynamic_update_slice_p.bind(ct, ad.zeros_like_aval(update_aval), *idx)
  if ad.is_undefined_primal(update):
    outs[1] = dynamic_slice_p.bind(ct, *idx, slice_sizes=update_aval.shape)
  return outs


def _dynamic_update_slice_batch(axis, vals, dims):
  x, update, *idx = vals
  if all(d is batching.not_mapped for d in dims[2:]):
    x = batching.bdim_at_front(x, dims[0], axis.size)
    update = batching.bdim_at_front(update, dims[1], axis.size)
    zero = ew.convert_element_type(0, core.get_aval(idx[0]).dtype if idx else np.int32)
    return dynamic_update_slice_p.bind(x, update, zero, *idx), 0
  return _batch_by_map(lambda *a: dynamic_update_slice_p.bind(*a), axis, vals, dims)


ad.jvp_rules[dynamic_update_slice_p] = _dynamic_update_slice_jvp
ad.transpose_rules[dynamic_update_slice_p] = _dynamic_update_slice_transpose
batching.batch_rules[dynamic_update_slice_p] = _dynamic_update_slice_batch
hlo.lowering_rules[dynamic_update_slice_p] = lambda ctx, x, u, *idx: ctx.op(
    "dynamic-update-slice", ctx.avals_out[0], x, u, *idx)


# ----------------------------------------------------------------------------- helpers


def dynamic_index_in_dim(x, index, axis: int = 0, keepdims: bool = True):
  aval = core.get_aval(x)
  starts = [0] * aval.ndim
  starts[axis] = index
  sizes = list(aval.shape)
  sizes[axis] = 1
  out = dynamic_slice(x, starts, sizes)
  return out if keepdims else lax_shape.squeeze(out, (axis,))


def dynamic_slice_in_dim(x, start_index, slice_size: int, axis: int = 0):
  aval = core.get_aval(x)
  starts = [0] * aval.ndim
  starts[axis] = start_index
  sizes = list(aval.shape)
  sizes[axis] = int(slice_size)
  return dynamic_slice(x, starts, sizes)


def dynamic_update_index_in_dim(x, update, index, axis: int = 0):
  aval = core.get_aval(x)
  uaval = core.get_aval(update)
  if uaval.ndim == aval.ndim - 1:
    update = lax_shape.expand_dims(update, (axis,))
  starts = [0] * aval.ndim
  starts[axis] = index
  return dynamic_update_slice(x, update, starts)


def dynamic_update_slice_in_dim(x, update, start_index, axis: int = 0):
  starts = [0] * core.get_aval(x).ndim
  starts[axis] = start_index
  return dynamic_update_slice(x, update, starts)
