"""Slicing with traced start indices, gather and scatter: one block per primitive.

dynamic_slice, dynamic_update_slice; plus dynamic_index_in_dim /
dynamic_update_index_in_dim built from them. Their start indices are scalar
operands (one per dimension); like XLA, the ops clamp them so the slice stays in
bounds. The user functions also wrap negative indices (`i + size`), as lax does.

gather and the scatter family (scatter, scatter-add/mul/min/max) take JAX's
dimension numbers and a GatherScatterMode for out-of-bounds indices; the modes
that XLA does not implement natively (clip, and fill for gather) are lowered as
explicit clamping or masking around the HLO op.
"""

from __future__ import annotations

import enum
from typing import NamedTuple, Sequence

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.core import ShapedArray
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lax import elementwise as ew
from jax._src.lax import shape as lax_shape
from jax._src.lax.precision import EnumMeta
from jax._src.lax.utils import derived_primitive, late_op, standard_primitive
from jax._src.lowering import hlo
from jax._src.interpreters import partial_eval as pe
from jax._src.lax import reductions


def _index_dtype(indices):
  """int32 unless an index is 64-bit (then int64), as XLA needs one index type."""
  kinds = [core.get_aval(i).dtype for i in indices]
  return np.dtype(np.int64) if any(k.itemsize == 8 for k in kinds) else np.dtype(np.int32)


def _normalize_indices(shape, indices, allow_negative_indices=True) -> list:
  """Wrap negative start indices and convert them all to one integer type.

  `allow_negative_indices` is a bool or one bool per dimension; where False a
  negative index is left to the clamping every dynamic slice does.
  """
  if len(indices) != len(shape):
    raise TypeError(f"dynamic slicing needs {len(shape)} start indices, got {len(indices)}")
  dt = _index_dtype(indices) if indices else np.dtype(np.int32)
  if isinstance(allow_negative_indices, (bool, np.bool_)):
    allow_negative_indices = [bool(allow_negative_indices)] * len(shape)
  elif len(allow_negative_indices) != len(shape):
    raise TypeError(f"allow_negative_indices needs {len(shape)} entries, got "
                    f"{len(allow_negative_indices)}")
  out = []
  for i, size, wrap in zip(indices, shape, allow_negative_indices):
    aval = core.get_aval(i)
    if aval.shape != ():
      raise TypeError(f"start indices must be scalars, got {aval.str_short(short_dtypes=True)}")
    if not dtypes.is_integer(aval.dtype):
      raise TypeError(f"start indices must be integers, got {aval.dtype.name}")
    value = core.concrete_value(i)
    if value is not None and not isinstance(i, core.Tracer):
      v = int(value)
      out.append(ew.convert_element_type(v + size if v < 0 and wrap else v, dt))
      continue
    i = ew.convert_element_type(i, dt)
    if aval.dtype.kind == "i" and wrap:
      i = ew.select(ew.lt(i, 0), ew.add(i, size), i)
    out.append(i)
  return out


# ----------------------------------------------------------------------------- dynamic_slice


def _dynamic_slice_abstract_eval(x, *indices, slice_sizes):
  if len(indices) != x.ndim or len(slice_sizes) != x.ndim:
    raise TypeError(f"dynamic_slice: {x.str_short(short_dtypes=True)} needs {x.ndim} indices and sizes")
  if any(not 0 <= s <= d for s, d in zip(slice_sizes, x.shape)):
    raise TypeError(f"dynamic_slice: slice_sizes {slice_sizes} do not fit {x.str_short(short_dtypes=True)}")
  return ShapedArray(slice_sizes, x.dtype, x.weak_type)


dynamic_slice_p = standard_primitive("dynamic_slice", _dynamic_slice_abstract_eval)


def dynamic_slice(operand, start_indices: Sequence, slice_sizes: Sequence[int], *,
                  allow_negative_indices=True):
  x = operand
  shape = core.get_aval(x).shape
  indices = _normalize_indices(shape, list(start_indices), allow_negative_indices)
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
  moved = [batching.bdim_at_front(v, d, axis.size) for v, d in zip(vals, dims)]
  return late_op("map")(lambda args: fun(*args), tuple(moved)), 0


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
    raise TypeError(f"dynamic_update_slice: cannot put {update.str_short(short_dtypes=True)} into {x.str_short(short_dtypes=True)}")
  if any(u > d for u, d in zip(update.shape, x.shape)):
    raise TypeError(f"dynamic_update_slice: {update.str_short(short_dtypes=True)} is larger than {x.str_short(short_dtypes=True)}")
  return x


dynamic_update_slice_p = standard_primitive("dynamic_update_slice",
                                            _dynamic_update_slice_abstract_eval)


def dynamic_update_slice(operand, update, start_indices: Sequence, *,
                         allow_negative_indices=True):
  x = operand
  shape = core.get_aval(x).shape
  indices = _normalize_indices(shape, list(start_indices), allow_negative_indices)
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


def dynamic_index_in_dim(operand, index, axis: int = 0, keepdims: bool = True, *,
                         allow_negative_indices: bool = True):
  x = operand
  aval = core.get_aval(x)
  starts = [0] * aval.ndim
  starts[axis] = index
  sizes = list(aval.shape)
  sizes[axis] = 1
  out = dynamic_slice(x, starts, sizes, allow_negative_indices=allow_negative_indices)
  return out if keepdims else lax_shape.squeeze(out, (axis,))


def dynamic_slice_in_dim(operand, start_index, slice_size: int, axis: int = 0, *,
                         allow_negative_indices: bool = True):
  x = operand
  aval = core.get_aval(x)
  starts = [0] * aval.ndim
  starts[axis] = start_index
  sizes = list(aval.shape)
  sizes[axis] = int(slice_size)
  return dynamic_slice(x, starts, sizes, allow_negative_indices=allow_negative_indices)


def dynamic_update_index_in_dim(operand, update, index, axis: int = 0, *,
                                allow_negative_indices: bool = True):
  x = operand
  aval = core.get_aval(x)
  uaval = core.get_aval(update)
  if uaval.ndim == aval.ndim - 1:
    update = lax_shape.expand_dims(update, (axis,))
  starts = [0] * aval.ndim
  starts[axis] = index
  return dynamic_update_slice(x, update, starts, allow_negative_indices=allow_negative_indices)


def dynamic_update_slice_in_dim(operand, update, start_index, axis: int = 0, *,
                                allow_negative_indices: bool = True):
  starts = [0] * core.get_aval(operand).ndim
  starts[axis] = start_index
  return dynamic_update_slice(operand, update, starts,
                              allow_negative_indices=allow_negative_indices)


# ----------------------------------------------------------------------------- gather / scatter
#
# Indices always carry the index vector in their last dimension (JAX's convention),
# so `index_vector_dim` is `indices.ndim - 1` in the HLO.


class GatherDimensionNumbers(NamedTuple):
  """How a gather maps index vectors and slices onto the operand and the output.

  offset_dims: output dimensions that hold the slice dimensions (those not collapsed);
  collapsed_slice_dims: operand dimensions of slice size 1 that the output drops;
  start_index_map: operand dimension each entry of an index vector starts;
  operand_batching_dims / start_indices_batching_dims: paired operand and index
  dimensions that act as a batch (element i of the index batch reads batch i).
  """
  offset_dims: tuple[int, ...]
  collapsed_slice_dims: tuple[int, ...]
  start_index_map: tuple[int, ...]
  operand_batching_dims: tuple[int, ...] = ()
  start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
  """How a scatter maps index vectors and update windows onto the operand."""
  update_window_dims: tuple[int, ...]
  inserted_window_dims: tuple[int, ...]
  scatter_dims_to_operand_dims: tuple[int, ...]
  operand_batching_dims: tuple[int, ...] = ()
  scatter_indices_batching_dims: tuple[int, ...] = ()


class GatherScatterMode(enum.Enum, metaclass=EnumMeta):
  """What out-of-bounds indices do.

  CLIP: clamp each start index so the whole slice/window is in bounds.
  FILL_OR_DROP: a gather returns `fill_value` for slices that are not fully in
    bounds; a scatter skips those updates.
  PROMISE_IN_BOUNDS: the caller promises in-bounds indices; a gather clamps and a
    scatter drops (what XLA does natively).
  ONE_HOT: accepted for API compatibility; not supported by these lowerings.
  """
  CLIP = 1
  FILL_OR_DROP = 2
  PROMISE_IN_BOUNDS = 3
  ONE_HOT = 4

  @staticmethod
  def from_any(s) -> GatherScatterMode:
    if isinstance(s, GatherScatterMode):
      return s
    if s == "clip":
      return GatherScatterMode.CLIP
    if s is None or s == "fill" or s == "drop":
      return GatherScatterMode.FILL_OR_DROP
    if s == "promise_in_bounds":
      return GatherScatterMode.PROMISE_IN_BOUNDS
    if s == "one_hot":
      return GatherScatterMode.ONE_HOT
    raise ValueError(f'Unknown gather mode "{s}"')


def _tuple_ints(xs) -> tuple[int, ...]:
  return tuple(int(x) for x in xs)


def _gather_dnums(dn) -> GatherDimensionNumbers:
  if not isinstance(dn, GatherDimensionNumbers):
    raise TypeError(f"dimension_numbers must be a GatherDimensionNumbers, got {type(dn).__name__}")
  return GatherDimensionNumbers(*(_tuple_ints(f) for f in dn))


def _scatter_dnums(dn) -> ScatterDimensionNumbers:
  if not isinstance(dn, ScatterDimensionNumbers):
    raise TypeError(f"dimension_numbers must be a ScatterDimensionNumbers, got {type(dn).__name__}")
  return ScatterDimensionNumbers(*(_tuple_ints(f) for f in dn))


def _check_dims(name: str, what: str, dims, rank: int, sorted_: bool = False) -> None:
  if any(not 0 <= d < rank for d in dims) or len(set(dims)) != len(dims):
    raise TypeError(f"{name}: {what} {dims} must be distinct dimensions in [0, {rank})")
  if sorted_ and tuple(sorted(dims)) != tuple(dims):
    raise TypeError(f"{name}: {what} {dims} must be sorted")


def _check_indices(name: str, indices: ShapedArray, n_index: int) -> None:
  if not dtypes.is_integer(indices.dtype):
    raise TypeError(f"{name}: indices must have an integer type, got {indices.dtype.name}")
  if indices.ndim < 1 or indices.shape[-1] != n_index:
    raise TypeError(f"{name}: the last dimension of the indices {indices.str_short(short_dtypes=True)} must be "
                    f"the index vector of size {n_index}")


def _gather_shape(operand: ShapedArray, indices: ShapedArray, dn: GatherDimensionNumbers,
                  slice_sizes) -> tuple[int, ...]:
  _check_indices("gather", indices, len(dn.start_index_map))
  if len(slice_sizes) != operand.ndim:
    raise TypeError(f"gather: slice_sizes {slice_sizes} must have one entry per dimension "
                    f"of the operand {operand.str_short(short_dtypes=True)}")
  for s, d in zip(slice_sizes, operand.shape):
    if not 0 <= s <= d:
      raise TypeError(f"gather: slice_sizes {slice_sizes} do not fit in {operand.str_short(short_dtypes=True)}")
  _check_dims("gather", "start_index_map", dn.start_index_map, operand.ndim)
  _check_dims("gather", "collapsed_slice_dims", dn.collapsed_slice_dims, operand.ndim, True)
  _check_dims("gather", "operand_batching_dims", dn.operand_batching_dims, operand.ndim, True)
  _check_dims("gather", "start_indices_batching_dims", dn.start_indices_batching_dims,
              indices.ndim - 1)
  if len(dn.operand_batching_dims) != len(dn.start_indices_batching_dims):
    raise TypeError("gather: operand_batching_dims and start_indices_batching_dims must have "
                    "the same length")
  dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
  if len(dropped) != len(dn.collapsed_slice_dims) + len(dn.operand_batching_dims):
    raise TypeError("gather: collapsed_slice_dims and operand_batching_dims must be disjoint")
  if any(slice_sizes[d] > 1 for d in dropped):
    raise TypeError(f"gather: slice_sizes {slice_sizes} must be at most 1 in the collapsed "
                    f"and batching dimensions {sorted(dropped)}")
  batch_shape = indices.shape[:-1]
  for od, idim in zip(dn.operand_batching_dims, dn.start_indices_batching_dims):
    if operand.shape[od] != batch_shape[idim]:
      raise TypeError(f"gather: batching dimension {od} of {operand.str_short(short_dtypes=True)} and {idim} of "
                      f"the indices {indices.str_short(short_dtypes=True)} have different sizes")
  offset_sizes = [s for d, s in enumerate(slice_sizes) if d not in dropped]
  out_rank = len(batch_shape) + len(offset_sizes)
  if len(dn.offset_dims) != len(offset_sizes):
    raise TypeError(f"gather: offset_dims {dn.offset_dims} must have one entry per slice "
                    f"dimension that is not collapsed ({len(offset_sizes)})")
  _check_dims("gather", "offset_dims", dn.offset_dims, out_rank, True)
  offsets, batch = iter(offset_sizes), iter(batch_shape)
  return tuple(next(offsets) if d in dn.offset_dims else next(batch) for d in range(out_rank))


def _gather_abstract_eval(operand, indices, *, dimension_numbers, slice_sizes,
                          indices_are_sorted, unique_indices, mode, fill_value):
  shape = _gather_shape(operand, indices, dimension_numbers, slice_sizes)
  return ShapedArray(shape, operand.dtype, operand.weak_type)


gather_p = standard_primitive("gather", _gather_abstract_eval)


def gather(operand, start_indices, dimension_numbers: GatherDimensionNumbers, slice_sizes,
           *, unique_indices: bool = False, indices_are_sorted: bool = False, mode=None,
           fill_value=None):
  """XLA's gather: slices of `operand` starting at the index vectors of `start_indices`.

  Without `mode`, indices are promised in bounds (XLA clamps them).
  """
  mode = (GatherScatterMode.PROMISE_IN_BOUNDS if mode is None
          else GatherScatterMode.from_any(mode))
  if mode is GatherScatterMode.ONE_HOT:
    raise NotImplementedError("gather: mode='one_hot' is not supported")
  return gather_p.bind(operand, start_indices, dimension_numbers=_gather_dnums(dimension_numbers),
                       slice_sizes=_tuple_ints(slice_sizes), indices_are_sorted=bool(indices_are_sorted),
                       unique_indices=bool(unique_indices), mode=mode,
                       fill_value=None if fill_value is None else _scalar_param(fill_value))


def _scalar_param(v):
  """A hashable Python scalar for a fill value given as a number or 0-d array."""
  value = core.concrete_value(v)
  if value is None or np.ndim(value) != 0:
    raise TypeError(f"fill_value must be a concrete scalar, got {v!r}")
  return np.asarray(value).item()


def default_fill_value(dtype):
  """What FILL_OR_DROP gathers produce out of bounds: NaN, the minimum int, or True."""
  dtype = np.dtype(dtype)
  if dtypes.is_inexact(dtype):
    return np.nan
  if dtype == dtypes.bool_:
    return True
  if dtype.kind == "u":
    return int(np.iinfo(dtype).max)
  return int(np.iinfo(dtype).min)


def _in_bounds_upper(operand_shape, window_sizes, index_map) -> list[int]:
  """Largest start index along each index-vector entry that keeps the window inside."""
  return [operand_shape[d] - window_sizes[d] for d in index_map]


def _clamp_indices(indices, upper: list[int]):
  """Clamp every index vector entry k into [0, upper[k]]."""
  aval = core.get_aval(indices)
  hi = lax_shape.broadcast_in_dim(np.asarray(upper, aval.dtype), aval.shape, (aval.ndim - 1,))
  lo = lax_shape.full(aval.shape, 0, aval.dtype)
  return ew.min(ew.max(indices, lo), hi)


def _indices_in_bounds(indices, upper: list[int]):
  """bool over the batch dimensions: is the whole index vector inside [0, upper]?"""
  aval = core.get_aval(indices)
  hi = lax_shape.broadcast_in_dim(np.asarray(upper, aval.dtype), aval.shape, (aval.ndim - 1,))
  lo = lax_shape.full(aval.shape, 0, aval.dtype)
  ok = ew.bitwise_and(ew.ge(indices, lo), ew.le(indices, hi))
  return reductions.reduce_and(ok, (aval.ndim - 1,))


def _gather_fill(operand, indices, *, dimension_numbers, slice_sizes, indices_are_sorted,
                 unique_indices, mode, fill_value):
  dn = dimension_numbers
  aval = core.get_aval(operand)
  out = gather_p.bind(operand, indices, dimension_numbers=dn, slice_sizes=slice_sizes,
                      indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                      mode=GatherScatterMode.PROMISE_IN_BOUNDS, fill_value=None)
  out_shape = core.get_aval(out).shape
  ok = _indices_in_bounds(indices, _in_bounds_upper(aval.shape, slice_sizes, dn.start_index_map))
  batch_dims = tuple(d for d in range(len(out_shape)) if d not in dn.offset_dims)
  mask = lax_shape.broadcast_in_dim(ok, out_shape, batch_dims)
  fill = default_fill_value(aval.dtype) if fill_value is None else fill_value
  return ew.select(mask, out, lax_shape.full(out_shape, fill, aval.dtype, aval.weak_type))


def _gather_clip(operand, indices, *, dimension_numbers, slice_sizes, mode, **params):
  dn = dimension_numbers
  shape = core.get_aval(operand).shape
  indices = _clamp_indices(indices, _in_bounds_upper(shape, slice_sizes, dn.start_index_map))
  return gather_p.bind(operand, indices, dimension_numbers=dn, slice_sizes=slice_sizes,
                       mode=GatherScatterMode.PROMISE_IN_BOUNDS, **params)


def _dims_attr(name: str, dims) -> str:
  return f"{name}={{{','.join(map(str, dims))}}}"


def _gather_lowering(ctx, operand, indices, *, dimension_numbers, slice_sizes,
                     indices_are_sorted, unique_indices, mode, fill_value):
  params = dict(dimension_numbers=dimension_numbers, slice_sizes=slice_sizes,
                indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                mode=mode, fill_value=fill_value)
  if mode is GatherScatterMode.FILL_OR_DROP:
    return hlo.lower_fun(_gather_fill)(ctx, operand, indices, **params)
  if mode is GatherScatterMode.CLIP:
    return hlo.lower_fun(_gather_clip)(ctx, operand, indices, **params)
  dn = dimension_numbers
  attrs = [_dims_attr("offset_dims", dn.offset_dims),
           _dims_attr("collapsed_slice_dims", dn.collapsed_slice_dims),
           _dims_attr("start_index_map", dn.start_index_map)]
  if dn.operand_batching_dims:
    attrs += [_dims_attr("operand_batching_dims", dn.operand_batching_dims),
              _dims_attr("start_indices_batching_dims", dn.start_indices_batching_dims)]
  attrs += [f"index_vector_dim={indices.aval.ndim - 1}", _dims_attr("slice_sizes", slice_sizes)]
  if indices_are_sorted:
    attrs.append("indices_are_sorted=true")
  return ctx.op("gather", ctx.avals_out[0], operand, indices, attrs=", ".join(attrs))


def _gather_jvp(primals, tangents, **params):
  operand, indices = primals
  out = gather_p.bind(operand, indices, **params)
  # Slices that are filled have a zero derivative.
  tparams = dict(params, fill_value=0) if params["mode"] is GatherScatterMode.FILL_OR_DROP else params
  return out, gather_p.bind(tangents[0], indices, **tparams)


def _scatter_dnums_for_gather(dn: GatherDimensionNumbers) -> ScatterDimensionNumbers:
  return ScatterDimensionNumbers(
      update_window_dims=dn.offset_dims, inserted_window_dims=dn.collapsed_slice_dims,
      scatter_dims_to_operand_dims=dn.start_index_map,
      operand_batching_dims=dn.operand_batching_dims,
      scatter_indices_batching_dims=dn.start_indices_batching_dims)


def _gather_dnums_for_scatter(dn: ScatterDimensionNumbers) -> GatherDimensionNumbers:
  return GatherDimensionNumbers(
      offset_dims=dn.update_window_dims, collapsed_slice_dims=dn.inserted_window_dims,
      start_index_map=dn.scatter_dims_to_operand_dims,
      operand_batching_dims=dn.operand_batching_dims,
      start_indices_batching_dims=dn.scatter_indices_batching_dims)


def _gather_transpose(ct, operand, indices, *, dimension_numbers, slice_sizes,
                      indices_are_sorted, unique_indices, mode, fill_value):
  if ad.is_undefined_primal(indices):
    raise TypeError("gather is not linear in its indices")
  aval = operand.aval
  zeros = lax_shape.full(aval.shape, 0, aval.dtype)
  # A clamped gather reads the clamped slice, so its transpose adds there too.
  scatter_mode = mode if mode is GatherScatterMode.CLIP else GatherScatterMode.FILL_OR_DROP
  out = scatter_add_p.bind(zeros, indices, ct,
                           dimension_numbers=_scatter_dnums_for_gather(dimension_numbers),
                           indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                           mode=scatter_mode, update_jaxpr=None)
  return [out, None]


def _shift(dims, k: int = 1) -> tuple[int, ...]:
  return tuple(d + k for d in dims)


def _gather_batch(axis, vals, dims, *, dimension_numbers, slice_sizes, **params):
  operand, indices = vals
  op_dim, idx_dim = dims
  dn = dimension_numbers
  if idx_dim is batching.not_mapped:
    # The batch becomes the first slice dimension, taken whole.
    operand = batching.moveaxis(operand, op_dim, 0)
    new = GatherDimensionNumbers(
        offset_dims=(0, *_shift(dn.offset_dims)), collapsed_slice_dims=_shift(dn.collapsed_slice_dims),
        start_index_map=_shift(dn.start_index_map), operand_batching_dims=_shift(dn.operand_batching_dims),
        start_indices_batching_dims=dn.start_indices_batching_dims)
    return gather_p.bind(operand, indices, dimension_numbers=new,
                         slice_sizes=(core.get_aval(operand).shape[0], *slice_sizes), **params), 0
  indices = batching.moveaxis(indices, idx_dim, 0)
  if op_dim is batching.not_mapped:
    # A new leading index batch dimension reads the same operand for every element.
    new = dn._replace(offset_dims=_shift(dn.offset_dims),
                      start_indices_batching_dims=_shift(dn.start_indices_batching_dims))
    return gather_p.bind(operand, indices, dimension_numbers=new, slice_sizes=slice_sizes,
                         **params), 0
  operand = batching.moveaxis(operand, op_dim, 0)
  new = GatherDimensionNumbers(
      offset_dims=_shift(dn.offset_dims), collapsed_slice_dims=_shift(dn.collapsed_slice_dims),
      start_index_map=_shift(dn.start_index_map),
      operand_batching_dims=(0, *_shift(dn.operand_batching_dims)),
      start_indices_batching_dims=(0, *_shift(dn.start_indices_batching_dims)))
  # One element per batch entry, none of an empty batch (a slice of 1 would not fit).
  batch_slice = min(1, core.get_aval(operand).shape[0])
  return gather_p.bind(operand, indices, dimension_numbers=new,
                       slice_sizes=(batch_slice, *slice_sizes), **params), 0


ad.jvp_rules[gather_p] = _gather_jvp
ad.transpose_rules[gather_p] = _gather_transpose
batching.batch_rules[gather_p] = _gather_batch
hlo.lowering_rules[gather_p] = _gather_lowering


# ----------------------------------------------------------------------------- scatter family


def _scatter_window_sizes(operand_shape, updates_shape, dn: ScatterDimensionNumbers) -> list[int]:
  """The size of the update window along each operand dimension (1 where inserted/batched)."""
  windows = iter(updates_shape[d] for d in dn.update_window_dims)
  inserted = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
  return [1 if d in inserted else next(windows) for d in range(len(operand_shape))]


def _scatter_abstract_eval(name):
  def rule(operand, indices, updates, *, dimension_numbers, indices_are_sorted, unique_indices,
           mode, update_jaxpr):
    dn = dimension_numbers
    _check_indices(name, indices, len(dn.scatter_dims_to_operand_dims))
    if updates.dtype != operand.dtype:
      raise TypeError(f"{name}: updates {updates.str_short(short_dtypes=True)} must have the dtype of the "
                      f"operand {operand.str_short(short_dtypes=True)}")
    _check_dims(name, "scatter_dims_to_operand_dims", dn.scatter_dims_to_operand_dims, operand.ndim)
    _check_dims(name, "inserted_window_dims", dn.inserted_window_dims, operand.ndim, True)
    _check_dims(name, "operand_batching_dims", dn.operand_batching_dims, operand.ndim, True)
    _check_dims(name, "update_window_dims", dn.update_window_dims, updates.ndim, True)
    batch_shape = indices.shape[:-1]
    n_window = operand.ndim - len(dn.inserted_window_dims) - len(dn.operand_batching_dims)
    if len(dn.update_window_dims) != n_window or updates.ndim != n_window + len(batch_shape):
      raise TypeError(f"{name}: updates {updates.str_short(short_dtypes=True)} do not match operand "
                      f"{operand.str_short(short_dtypes=True)} and indices {indices.str_short(short_dtypes=True)} for {dn}")
    scatter_dims = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
    if tuple(updates.shape[d] for d in scatter_dims) != batch_shape:
      raise TypeError(f"{name}: the scatter dimensions of updates {updates.str_short(short_dtypes=True)} must "
                      f"match the batch dimensions of the indices {indices.str_short(short_dtypes=True)}")
    sizes = _scatter_window_sizes(operand.shape, updates.shape, dn)
    # Only the windows' own dimensions must fit: an inserted (size-1) dimension of an
    # empty operand takes no update at all, so scattering nothing into it is valid.
    inserted = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    if any(s > d for k, (s, d) in enumerate(zip(sizes, operand.shape)) if k not in inserted):
      raise TypeError(f"{name}: update windows of {updates.str_short(short_dtypes=True)} are larger than the "
                      f"operand {operand.str_short(short_dtypes=True)}")
    return operand
  return rule


scatter_p = standard_primitive("scatter", _scatter_abstract_eval("scatter"))
scatter_add_p = standard_primitive("scatter-add", _scatter_abstract_eval("scatter_add"))
scatter_mul_p = standard_primitive("scatter-mul", _scatter_abstract_eval("scatter_mul"))
scatter_min_p = standard_primitive("scatter-min", _scatter_abstract_eval("scatter_min"))
scatter_max_p = standard_primitive("scatter-max", _scatter_abstract_eval("scatter_max"))


def _bind_scatter(prim, operand, indices, updates, dimension_numbers, indices_are_sorted,
                  unique_indices, mode, update_jaxpr=None):
  mode = GatherScatterMode.from_any(mode)
  if mode is GatherScatterMode.ONE_HOT:
    raise NotImplementedError("scatter: mode='one_hot' is not supported")
  op_aval, upd_aval = core.get_aval(operand), core.get_aval(updates)
  if upd_aval.dtype != op_aval.dtype and upd_aval.weak_type:
    updates = ew.convert_element_type(updates, op_aval.dtype, op_aval.weak_type)
  return prim.bind(operand, indices, updates, dimension_numbers=_scatter_dnums(dimension_numbers),
                   indices_are_sorted=bool(indices_are_sorted), unique_indices=bool(unique_indices),
                   mode=mode, update_jaxpr=update_jaxpr)


def _scatter_function(prim, name: str, doc: str):
  """The public function of one scatter primitive (they differ only in how
  updates combine)."""
  def fn(operand, scatter_indices, updates, dimension_numbers: ScatterDimensionNumbers, *,
         indices_are_sorted: bool = False, unique_indices: bool = False, mode=None):
    return _bind_scatter(prim, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)
  fn.__name__ = fn.__qualname__ = name
  fn.__doc__ = doc
  return fn


scatter = _scatter_function(
    scatter_p, "scatter", "Replace windows of `operand` by `updates` (with duplicates, one of them wins).")
scatter_add = _scatter_function(scatter_add_p, "scatter_add", "Add `updates` into windows of `operand`.")
scatter_mul = _scatter_function(scatter_mul_p, "scatter_mul",
                                "Multiply windows of `operand` by `updates`.")
scatter_min = _scatter_function(scatter_min_p, "scatter_min",
                                "Elementwise minimum of windows of `operand` and `updates`.")
scatter_max = _scatter_function(scatter_max_p, "scatter_max",
                                "Elementwise maximum of windows of `operand` and `updates`.")


def scatter_sub(operand, scatter_indices, updates, dimension_numbers: ScatterDimensionNumbers, *,
                indices_are_sorted: bool = False, unique_indices: bool = False, mode=None):
  return scatter_sub_p.bind(operand, scatter_indices, updates, dimension_numbers=dimension_numbers,
                            indices_are_sorted=bool(indices_are_sorted),
                            unique_indices=bool(unique_indices), mode=mode)


def _scatter_sub(operand, scatter_indices, updates, **params):
  return scatter_add(operand, scatter_indices, ew.neg(updates), **params)


scatter_sub_p = derived_primitive("scatter-sub", _scatter_sub)


def scatter_apply(operand, scatter_indices, func, dimension_numbers: ScatterDimensionNumbers, *,
                  update_shape=(), indices_are_sorted: bool = False, unique_indices: bool = False,
                  mode=None):
  """Apply the scalar function `func` at every scattered position (repeatedly for duplicates)."""
  aval = core.get_aval(operand)
  scalar = ShapedArray((), aval.dtype)
  jaxpr, consts = pe.trace_to_jaxpr_dynamic(
      lambda x, _: [ew.convert_element_type(func(x), aval.dtype)], [scalar, scalar])
  closed, hoisted = pe.close_jaxpr(jaxpr, consts)
  if hoisted:
    raise TypeError("scatter_apply: func must not close over traced values")
  dummy = lax_shape.full(tuple(update_shape), 0, aval.dtype)
  return _bind_scatter(scatter_p, operand, scatter_indices, dummy, dimension_numbers,
                       indices_are_sorted, unique_indices, mode, update_jaxpr=closed)


_COMBINERS = {  # primitive -> (HLO opcode, opcode for bool)
    scatter_add_p: ("add", "or"), scatter_mul_p: ("multiply", "and"),
    scatter_min_p: ("minimum", "and"), scatter_max_p: ("maximum", "or"),
}


def _scatter_region(ctx, prim, dtype, update_jaxpr) -> str:
  """The `(T[], T[]) -> T[]` computation that combines the old value and an update."""
  if prim in _COMBINERS:
    opcode, bool_opcode = _COMBINERS[prim]
    return ctx.scalar_region(bool_opcode if dtype == dtypes.bool_ else opcode, dtype)
  name = ctx.module.region_name()
  sub = hlo.ComputationBuilder(ctx.module, name)
  aval = ShapedArray((), dtype)
  old = sub.parameter(0, aval, ctx.prefix)
  new = sub.parameter(1, aval, ctx.prefix)
  if update_jaxpr is None:  # plain scatter: the update replaces the old value
    root = new
  else:
    root, = hlo.lower_jaxpr_into(sub, update_jaxpr.jaxpr, update_jaxpr.consts, [old, new])
  ctx.module.computations.append(sub.finish(root))
  return name


def _scatter_lowering(prim):
  def raw(ctx, operand, indices, updates, *, dimension_numbers, indices_are_sorted,
          unique_indices, mode, update_jaxpr):
    dn = dimension_numbers
    region = _scatter_region(ctx, prim, operand.aval.dtype, update_jaxpr)
    attrs = [_dims_attr("update_window_dims", dn.update_window_dims),
             _dims_attr("inserted_window_dims", dn.inserted_window_dims),
             _dims_attr("scatter_dims_to_operand_dims", dn.scatter_dims_to_operand_dims)]
    if dn.operand_batching_dims:
      attrs += [_dims_attr("input_batching_dims", dn.operand_batching_dims),
                _dims_attr("scatter_indices_batching_dims", dn.scatter_indices_batching_dims)]
    attrs.append(f"index_vector_dim={indices.aval.ndim - 1}")
    if indices_are_sorted:
      attrs.append("indices_are_sorted=true")
    if unique_indices:
      attrs.append("unique_indices=true")
    attrs.append(f"to_apply={region}")
    return ctx.op("scatter", ctx.avals_out[0], operand, indices, updates, attrs=", ".join(attrs))

  def clipped(operand, indices, updates, *, dimension_numbers, mode, **params):
    dn = dimension_numbers
    op_shape, upd_shape = core.get_aval(operand).shape, core.get_aval(updates).shape
    sizes = _scatter_window_sizes(op_shape, upd_shape, dn)
    indices = _clamp_indices(indices, _in_bounds_upper(op_shape, sizes, dn.scatter_dims_to_operand_dims))
    return prim.bind(operand, indices, updates, dimension_numbers=dn,
                     mode=GatherScatterMode.PROMISE_IN_BOUNDS, **params)

  def rule(ctx, operand, indices, updates, **params):
    # XLA's scatter already skips windows that are not fully in bounds (FILL_OR_DROP).
    if params["mode"] is GatherScatterMode.CLIP:
      return hlo.lower_fun(clipped)(ctx, operand, indices, updates, **params)
    return raw(ctx, operand, indices, updates, **params)
  return rule


def _gather_for_scatter(x, indices, updates_shape, params, fill_value=None):
  """Read, for every update element, the value of `x` at the position it scatters to."""
  dn = params["dimension_numbers"]
  sizes = _scatter_window_sizes(core.get_aval(x).shape, updates_shape, dn)
  mode = params["mode"]
  return gather_p.bind(x, indices, dimension_numbers=_gather_dnums_for_scatter(dn),
                       slice_sizes=tuple(sizes), indices_are_sorted=params["indices_are_sorted"],
                       unique_indices=params["unique_indices"],
                       mode=mode if mode is GatherScatterMode.CLIP else GatherScatterMode.FILL_OR_DROP,
                       fill_value=fill_value)


def _zeros(x):
  aval = core.get_aval(x)
  return lax_shape.full(aval.shape, 0, aval.dtype)


def _scatter_add_jvp(primals, tangents, **params):
  operand, indices, updates = primals
  t_op, _, t_upd = tangents
  return (scatter_add_p.bind(operand, indices, updates, **params),
          scatter_add_p.bind(t_op, indices, t_upd, **params))


def _scatter_add_transpose(ct, operand, indices, updates, **params):
  if ad.is_undefined_primal(indices):
    raise TypeError("scatter_add is not linear in its indices")
  ct_op = ct if ad.is_undefined_primal(operand) else None
  ct_upd = None
  if ad.is_undefined_primal(updates):
    ct_upd = _gather_for_scatter(ct, indices, updates.aval.shape, params, fill_value=0)
  return [ct_op, None, ct_upd]


def _scatter_jvp(primals, tangents, *, update_jaxpr, **params):
  """Which update wins at each position is found by scattering update ids, then the
  tangent is a scatter-add of the winners' tangents into the untouched operand tangent."""
  if update_jaxpr is not None:
    raise NotImplementedError("differentiation of scatter_apply is not implemented")
  operand, indices, updates = primals
  t_op, _, t_upd = tangents
  out = scatter_p.bind(operand, indices, updates, update_jaxpr=None, **params)
  if params["unique_indices"]:
    return out, scatter_p.bind(t_op, indices, t_upd, update_jaxpr=None, **params)
  upd_shape = core.get_aval(updates).shape
  dn = params["dimension_numbers"]
  scatter_dims = [d for d in range(len(upd_shape)) if d not in dn.update_window_dims]
  n_ids = int(np.prod([upd_shape[d] for d in scatter_dims], dtype=np.int64))
  id_dtype = np.int64 if n_ids >= 2**31 - 1 else np.int32
  ids = _update_ids(upd_shape, scatter_dims, id_dtype)
  op_shape = core.get_aval(operand).shape
  scattered_ids = scatter_p.bind(lax_shape.full(op_shape, 0, id_dtype), indices, ids,
                                 update_jaxpr=None, **params)
  won = ew.eq(_gather_for_scatter(scattered_ids, indices, upd_shape, params, fill_value=-1), ids)
  untouched = ew.eq(scattered_ids, lax_shape.full(op_shape, 0, id_dtype))
  t_out = scatter_add_p.bind(ew.select(untouched, t_op, _zeros(t_op)), indices,
                             ew.select(won, t_upd, _zeros(t_upd)), update_jaxpr=None, **params)
  return out, t_out


def _update_ids(upd_shape, scatter_dims, dtype):
  """1, 2, ... numbering the scatter positions of the updates, broadcast over windows."""
  batch_shape = tuple(upd_shape[d] for d in scatter_dims)
  n = int(np.prod(batch_shape, dtype=np.int64))
  flat = ew.add(lax_shape.iota(dtype, n), lax_shape.full((n,), 1, dtype))
  return lax_shape.broadcast_in_dim(lax_shape.reshape(flat, batch_shape), tuple(upd_shape),
                                    tuple(scatter_dims))


def _scatter_transpose(ct, operand, indices, updates, *, update_jaxpr, **params):
  # Only reached with unique indices (the JVP uses scatter-add otherwise).
  if ad.is_undefined_primal(indices):
    raise TypeError("scatter is not linear in its indices")
  outs = [None, None, None]
  if ad.is_undefined_primal(operand):
    upd_aval = updates.aval if ad.is_undefined_primal(updates) else core.get_aval(updates)
    outs[0] = scatter_p.bind(ct, indices, lax_shape.full(upd_aval.shape, 0, upd_aval.dtype),
                             update_jaxpr=None, **params)
  if ad.is_undefined_primal(updates):
    outs[2] = _gather_for_scatter(ct, indices, updates.aval.shape, params, fill_value=0)
  return outs


def _scatter_mul_jvp(primals, tangents, **params):
  operand, indices, updates = primals
  t_op, _, t_upd = tangents
  out = scatter_mul_p.bind(operand, indices, updates, **params)
  t_out = scatter_mul_p.bind(t_op, indices, updates, **params)
  upd_shape = core.get_aval(updates).shape
  add = dict(params, update_jaxpr=None)
  if params["unique_indices"]:
    spread = scatter_p.bind(_zeros(operand), indices, t_upd, **add)
  else:
    others = _product_of_others(operand, indices, updates, params)
    spread = scatter_add_p.bind(_zeros(operand), indices, ew.mul(t_upd, others), **add)
  return out, ew.add(t_out, ew.mul(operand, spread))


def _product_of_others(operand, indices, updates, params):
  """For each update, the product of the other updates that hit the same position.

  Computed from the product of the nonzero updates and the count of zeros per
  position, so no update is divided by zero.
  """
  aval = core.get_aval(updates)
  add = dict(params, update_jaxpr=None)
  zero, one = lax_shape.full(aval.shape, 0, aval.dtype), lax_shape.full(aval.shape, 1, aval.dtype)
  is_zero = ew.eq(updates, zero)
  nonzero_prod = scatter_mul_p.bind(lax_shape.full(core.get_aval(operand).shape, 1, aval.dtype),
                                    indices, ew.select(is_zero, one, updates), **add)
  zeros_count = scatter_add_p.bind(_zeros(operand), indices,
                                   ew.convert_element_type(is_zero, aval.dtype), **add)
  prod_at = _gather_for_scatter(nonzero_prod, indices, aval.shape, params, fill_value=0)
  count_at = _gather_for_scatter(zeros_count, indices, aval.shape, params, fill_value=0)
  safe = ew.select(is_zero, one, updates)
  when_nonzero = ew.select(ew.eq(count_at, zero), ew.div(prod_at, safe), zero)
  when_zero = ew.select(ew.eq(count_at, one), prod_at, zero)
  return ew.select(is_zero, when_zero, when_nonzero)


def _scatter_mul_transpose(ct, operand, indices, updates, **params):
  if ad.is_undefined_primal(updates) or ad.is_undefined_primal(indices):
    raise NotImplementedError("scatter_mul is only linear in its operand")
  return [scatter_mul_p.bind(ct, indices, updates, **params), None, None]


def _scatter_extremum_jvp(prim):
  """Ties share the derivative equally, like JAX's reductions by max/min."""
  def rule(primals, tangents, **params):
    operand, indices, updates = primals
    t_op, _, t_upd = tangents
    out = prim.bind(operand, indices, updates, **params)
    aval = core.get_aval(operand)
    if not dtypes.is_inexact(aval.dtype):
      return out, _zeros(out)
    upd_shape = core.get_aval(updates).shape
    add = dict(params, update_jaxpr=None)
    op_won = ew.eq(operand, out)
    upd_won = ew.eq(updates, _gather_for_scatter(out, indices, upd_shape, params))
    one = lambda m: ew.convert_element_type(m, aval.dtype)
    count = ew.add(one(op_won), scatter_add_p.bind(_zeros(operand), indices, one(upd_won), **add))
    total = ew.add(ew.select(op_won, t_op, _zeros(t_op)),
                   scatter_add_p.bind(_zeros(t_op), indices,
                                      ew.select(upd_won, t_upd, _zeros(t_upd)), **add))
    return out, ew.div(total, count)
  return rule


def _scatter_batch(prim):
  def rule(axis, vals, dims, *, dimension_numbers, **params):
    operand, indices, updates = (batching.bdim_at_front(v, d, axis.size) for v, d in zip(vals, dims))
    dn = dimension_numbers
    new = ScatterDimensionNumbers(
        update_window_dims=_shift(dn.update_window_dims),
        inserted_window_dims=_shift(dn.inserted_window_dims),
        scatter_dims_to_operand_dims=_shift(dn.scatter_dims_to_operand_dims),
        operand_batching_dims=(0, *_shift(dn.operand_batching_dims)),
        scatter_indices_batching_dims=(0, *_shift(dn.scatter_indices_batching_dims)))
    return prim.bind(operand, indices, updates, dimension_numbers=new, **params), 0
  return rule


for _prim in (scatter_p, scatter_add_p, scatter_mul_p, scatter_min_p, scatter_max_p):
  batching.batch_rules[_prim] = _scatter_batch(_prim)
  hlo.lowering_rules[_prim] = _scatter_lowering(_prim)
ad.jvp_rules[scatter_add_p] = _scatter_add_jvp
ad.transpose_rules[scatter_add_p] = _scatter_add_transpose
ad.jvp_rules[scatter_p] = _scatter_jvp
ad.transpose_rules[scatter_p] = _scatter_transpose
ad.jvp_rules[scatter_mul_p] = _scatter_mul_jvp
ad.transpose_rules[scatter_mul_p] = _scatter_mul_transpose
ad.jvp_rules[scatter_min_p] = _scatter_extremum_jvp(scatter_min_p)
ad.jvp_rules[scatter_max_p] = _scatter_extremum_jvp(scatter_max_p)
