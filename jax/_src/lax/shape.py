"""Shape and data-movement primitives: one block per primitive.

broadcast_in_dim, reshape, transpose, squeeze, rev, slice, concatenate, pad, iota;
plus the user functions built from them (full, broadcast, expand_dims...).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.core import ShapedArray
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lax.utils import late_op, place, standard_primitive, takes_out_sharding
from jax._src.sharding import reshape_split
from jax._src.lowering import hlo


def _shape_tuple(shape) -> tuple[int, ...]:
  return tuple(int(d) for d in (shape if isinstance(shape, (tuple, list)) else (shape,)))


# ----------------------------------------------------------------------------- broadcast_in_dim


def _broadcast_in_dim_abstract_eval(x, *, shape, broadcast_dimensions):
  if len(broadcast_dimensions) != x.ndim:
    raise TypeError(f"broadcast_in_dim: operand rank {x.ndim} but {len(broadcast_dimensions)} dims")
  for i, d in enumerate(broadcast_dimensions):
    if not 0 <= d < len(shape) or x.shape[i] not in (1, shape[d]):
      raise TypeError(f"broadcast_in_dim: cannot broadcast {x.str_short(short_dtypes=True)} to {shape} "
                      f"with broadcast_dimensions={broadcast_dimensions}")
  return ShapedArray(shape, x.dtype, x.weak_type)


broadcast_in_dim_p = standard_primitive("broadcast_in_dim", _broadcast_in_dim_abstract_eval)


@takes_out_sharding
def broadcast_in_dim(operand, shape, broadcast_dimensions):
  x = operand
  shape, dims = _shape_tuple(shape), tuple(int(d) for d in broadcast_dimensions)
  aval = core.get_aval(x)
  if aval.shape == shape and dims == tuple(range(len(shape))):
    return x
  return broadcast_in_dim_p.bind(x, shape=shape, broadcast_dimensions=dims)


def _broadcast_in_dim_transpose(ct, x, *, shape, broadcast_dimensions):
  in_shape = x.aval.shape
  summed = [d for d in range(len(shape)) if d not in broadcast_dimensions]
  expanded = [d for i, d in enumerate(broadcast_dimensions) if in_shape[i] == 1 and shape[d] != 1]
  out = late_op("reduce_sum")(ct, tuple(sorted(summed + expanded))) if summed + expanded else ct
  return [reshape(out, in_shape)]


def _broadcast_in_dim_batch(axis, vals, dims, *, shape, broadcast_dimensions):
  x = batching.moveaxis(vals[0], dims[0], 0)
  out_shape = (core.get_aval(x).shape[0], *shape)
  return broadcast_in_dim(x, out_shape, (0, *(d + 1 for d in broadcast_dimensions))), 0


def _broadcast_in_dim_lowering(ctx, x, *, shape, broadcast_dimensions):
  return ctx.broadcast_in_dim(x, ctx.avals_out[0], broadcast_dimensions)


ad.deflinear2(broadcast_in_dim_p, _broadcast_in_dim_transpose)
batching.batch_rules[broadcast_in_dim_p] = _broadcast_in_dim_batch
hlo.lowering_rules[broadcast_in_dim_p] = _broadcast_in_dim_lowering


@takes_out_sharding
def broadcast(operand, sizes):
  """Add leading dimensions of the given sizes."""
  x = operand
  aval = core.get_aval(x)
  sizes = _shape_tuple(sizes)
  return broadcast_in_dim(x, sizes + aval.shape, tuple(range(len(sizes), len(sizes) + aval.ndim)))


def broadcast_to_rank(x, rank: int):
  aval = core.get_aval(x)
  return broadcast(x, (1,) * (rank - aval.ndim)) if aval.ndim < rank else x


def full(shape, fill_value, dtype=None, weak_type: bool = False, *, sharding=None):
  """An array of `shape` filled with `fill_value` (a scalar), as broadcast(constant)."""
  return place(_full(shape, fill_value, dtype, weak_type), sharding)


def _full(shape, fill_value, dtype, weak_type):
  shape = _shape_tuple(shape)
  dtype = dtypes.canonicalize_dtype(dtype if dtype is not None else dtypes.dtype(fill_value))
  value = late_op("convert_element_type")(fill_value, dtype, weak_type)
  if core.get_aval(value).shape != ():
    raise TypeError(f"full: fill_value must be a scalar, got {core.get_aval(value).str_short(short_dtypes=True)}")
  if shape == ():
    return value
  return broadcast_in_dim_p.bind(value, shape=shape, broadcast_dimensions=())


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
  aval = core.get_aval(x)
  weak = aval.weak_type if dtype is None else False
  return full(aval.shape if shape is None else shape, fill_value,
              aval.dtype if dtype is None else dtype, weak, sharding=sharding)


def zeros_like_array(x):
  return full_like(x, 0)


# ----------------------------------------------------------------------------- reshape


def _reshape_abstract_eval(x, *, new_sizes, dimensions):
  if int(np.prod(new_sizes, dtype=np.int64)) != x.size:
    raise TypeError(f"reshape: cannot reshape {x.str_short(short_dtypes=True)} to {new_sizes}")
  return ShapedArray(new_sizes, x.dtype, x.weak_type)


reshape_p = standard_primitive("reshape", _reshape_abstract_eval)


def reshape(operand, new_sizes, dimensions=None, *, out_sharding=None):
  x = operand
  new_sizes = _shape_tuple(new_sizes)
  if dimensions is not None:
    x = transpose(x, tuple(dimensions))
  if core.get_aval(x).shape == new_sizes:
    return place(x, out_sharding)
  if out_sharding is None:
    _check_reshape_split(core.get_aval(x), new_sizes)
  return place(reshape_p.bind(x, new_sizes=new_sizes, dimensions=None), out_sharding)


def _check_reshape_split(aval, new_sizes) -> None:
  """A split operand whose split has no counterpart in the new shape: where the result
  lives is the caller's choice (`out_sharding`), as in JAX."""
  s = core.explicit_sharding(aval)
  if s is None or aval.size != int(np.prod(new_sizes, dtype=np.int64)):
    return
  if reshape_split(aval.shape, s.spec.axes_by_dim(aval.ndim), new_sizes, s.mesh.shape) is None:
    raise core.ShardingTypeError(
        "This reshape is not supported. Please specify the sharding of the output via the "
        f"`out_sharding` argument of jax.lax.reshape. Got operand type: {aval.str_short(short_dtypes=True)}, "
        f"new sizes: {new_sizes}")


ad.deflinear2(reshape_p, lambda ct, x, **_: [reshape(ct, x.aval.shape)])
batching.batch_rules[reshape_p] = lambda axis, vals, dims, *, new_sizes, dimensions: (
    reshape(batching.moveaxis(vals[0], dims[0], 0), (axis.size, *new_sizes)), 0)
hlo.lowering_rules[reshape_p] = lambda ctx, x, **_: ctx.op("reshape", ctx.avals_out[0], x)


# ----------------------------------------------------------------------------- transpose


def _transpose_abstract_eval(x, *, permutation):
  if sorted(permutation) != list(range(x.ndim)):
    raise TypeError(f"transpose: permutation {permutation} is not valid for {x.str_short(short_dtypes=True)}")
  return ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type)


transpose_p = standard_primitive("transpose", _transpose_abstract_eval)


def transpose(operand, permutation):
  x = operand
  permutation = tuple(int(p) for p in permutation)
  if permutation == tuple(range(len(permutation))):
    return x
  return transpose_p.bind(x, permutation=permutation)


ad.deflinear2(transpose_p, lambda ct, x, *, permutation: [
    transpose(ct, tuple(np.argsort(permutation)))])
batching.batch_rules[transpose_p] = lambda axis, vals, dims, *, permutation: (
    transpose(batching.moveaxis(vals[0], dims[0], 0), (0, *(p + 1 for p in permutation))), 0)
hlo.lowering_rules[transpose_p] = lambda ctx, x, *, permutation: ctx.op(
    "transpose", ctx.avals_out[0], x, attrs=f"dimensions={{{','.join(map(str, permutation))}}}")


# ----------------------------------------------------------------------------- squeeze


def _squeeze_abstract_eval(x, *, dimensions):
  if any(x.shape[d] != 1 for d in dimensions):
    raise TypeError(f"squeeze: dimensions {dimensions} of {x.str_short(short_dtypes=True)} are not all size 1")
  return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i not in dimensions),
                     x.dtype, x.weak_type)


squeeze_p = standard_primitive("squeeze", _squeeze_abstract_eval)


def squeeze(array, dimensions):
  x = array
  ndim = core.get_aval(x).ndim
  dimensions = tuple(sorted(int(d) % ndim for d in dimensions)) if ndim else ()
  if not dimensions:
    return x
  return squeeze_p.bind(x, dimensions=dimensions)


def _squeeze_batch(axis, vals, dims, *, dimensions):
  x = batching.moveaxis(vals[0], dims[0], 0)
  return squeeze(x, tuple(d + 1 for d in dimensions)), 0


ad.deflinear2(squeeze_p, lambda ct, x, **_: [reshape(ct, x.aval.shape)])
batching.batch_rules[squeeze_p] = _squeeze_batch
hlo.lowering_rules[squeeze_p] = lambda ctx, x, **_: ctx.op("reshape", ctx.avals_out[0], x)


def expand_dims(array, dimensions):
  x = array
  aval = core.get_aval(x)
  ndim_out = aval.ndim + len(dimensions)
  dims = sorted(int(d) % ndim_out for d in dimensions)
  shape = list(aval.shape)
  for d in dims:
    shape.insert(d, 1)
  kept = [i for i in range(ndim_out) if i not in dims]
  return broadcast_in_dim(x, tuple(shape), tuple(kept))


# ----------------------------------------------------------------------------- rev


rev_p = standard_primitive("rev", lambda x, *, dimensions: x)


def rev(operand, dimensions):
  x = operand
  return rev_p.bind(x, dimensions=tuple(int(d) for d in dimensions))


ad.deflinear2(rev_p, lambda ct, x, *, dimensions: [rev(ct, dimensions)])
batching.batch_rules[rev_p] = lambda axis, vals, dims, *, dimensions: (
    rev(batching.moveaxis(vals[0], dims[0], 0), tuple(d + 1 for d in dimensions)), 0)
hlo.lowering_rules[rev_p] = lambda ctx, x, *, dimensions: ctx.op(
    "reverse", ctx.avals_out[0], x, attrs=f"dimensions={{{','.join(map(str, dimensions))}}}")


# ----------------------------------------------------------------------------- slice


def _slice_abstract_eval(x, *, start_indices, limit_indices, strides):
  strides = strides or (1,) * x.ndim
  shape = []
  for size, lo, hi, st in zip(x.shape, start_indices, limit_indices, strides):
    if not 0 <= lo <= hi <= size or st < 1:
      raise TypeError(f"slice: invalid start {start_indices} / limit {limit_indices} / "
                      f"strides {strides} for {x.str_short(short_dtypes=True)}")
    shape.append((hi - lo + st - 1) // st)
  return ShapedArray(tuple(shape), x.dtype, x.weak_type)


slice_p = standard_primitive("slice", _slice_abstract_eval)


def slice(operand, start_indices, limit_indices, strides=None):  # noqa: A001 (lax name)
  strides = None if strides is None or all(s == 1 for s in strides) else tuple(map(int, strides))
  return slice_p.bind(operand, start_indices=tuple(map(int, start_indices)),
                      limit_indices=tuple(map(int, limit_indices)), strides=strides)


def _slice_transpose(ct, x, *, start_indices, limit_indices, strides):
  shape = x.aval.shape
  strides = strides or (1,) * len(shape)
  ct_shape = core.get_aval(ct).shape
  config = []
  for size, lo, st, n in zip(shape, start_indices, strides, ct_shape):
    real_hi = lo + (n - 1) * st + 1 if n else lo
    config.append((lo, size - real_hi, st - 1 if n else 0))
  zero = full((), 0, x.aval.dtype)
  return [pad(ct, zero, tuple(config))]


def _slice_batch(axis, vals, dims, *, start_indices, limit_indices, strides):
  x = batching.moveaxis(vals[0], dims[0], 0)
  strides = None if strides is None else (1, *strides)
  return slice(x, (0, *start_indices), (axis.size, *limit_indices), strides), 0


def _slice_lowering(ctx, x, *, start_indices, limit_indices, strides):
  strides = strides or (1,) * len(start_indices)
  parts = [f"[{lo}:{hi}]" if st == 1 else f"[{lo}:{hi}:{st}]"
           for lo, hi, st in zip(start_indices, limit_indices, strides)]
  return ctx.op("slice", ctx.avals_out[0], x, attrs=f"slice={{{', '.join(parts)}}}")


ad.deflinear2(slice_p, _slice_transpose)
batching.batch_rules[slice_p] = _slice_batch
hlo.lowering_rules[slice_p] = _slice_lowering


# ----------------------------------------------------------------------------- concatenate


def _concatenate_abstract_eval(*xs, dimension):
  first = xs[0]
  for x in xs[1:]:
    if x.ndim != first.ndim or x.dtype != first.dtype or any(
        a != b for i, (a, b) in enumerate(zip(x.shape, first.shape)) if i != dimension):
      raise TypeError(f"concatenate: incompatible operands "
                      f"{', '.join(a.str_short(short_dtypes=True) for a in xs)} along dimension {dimension}")
  shape = list(first.shape)
  shape[dimension] = sum(x.shape[dimension] for x in xs)
  return ShapedArray(tuple(shape), first.dtype, all(x.weak_type for x in xs))


concatenate_p = standard_primitive("concatenate", _concatenate_abstract_eval)


def concatenate(operands: Sequence, dimension: int):
  if len(operands) == 1:
    return operands[0]
  return concatenate_p.bind(*operands, dimension=int(dimension))


def _concatenate_transpose(ct, *xs, dimension):
  outs, start = [], 0
  ct_shape = core.get_aval(ct).shape
  for x in xs:
    size = (x.aval if ad.is_undefined_primal(x) else core.get_aval(x)).shape[dimension]
    if ad.is_undefined_primal(x):
      lo = [0] * len(ct_shape)
      hi = list(ct_shape)
      lo[dimension], hi[dimension] = start, start + size
      outs.append(slice(ct, lo, hi))
    else:
      outs.append(None)
    start += size
  return outs


def _concatenate_batch(axis, vals, dims, *, dimension):
  moved = [batching.bdim_at_front(v, d, axis.size) for v, d in zip(vals, dims)]
  return concatenate(moved, dimension + 1), 0


ad.jvp_rules[concatenate_p] = lambda primals, tangents, *, dimension: (
    concatenate(primals, dimension), concatenate(tangents, dimension))
ad.transpose_rules[concatenate_p] = _concatenate_transpose
batching.batch_rules[concatenate_p] = _concatenate_batch
hlo.lowering_rules[concatenate_p] = lambda ctx, *xs, dimension: ctx.op(
    "concatenate", ctx.avals_out[0], *xs, attrs=f"dimensions={{{dimension}}}")


# ----------------------------------------------------------------------------- pad


def _pad_abstract_eval(x, padding_value, *, padding_config):
  if padding_value.shape != () or padding_value.dtype != x.dtype:
    raise TypeError("pad: padding_value must be a scalar of the operand's dtype")
  shape = []
  for size, (lo, hi, interior) in zip(x.shape, padding_config):
    core_size = size + max(size - 1, 0) * interior
    shape.append(max(lo + hi + core_size, 0))
  # As in JAX, a strongly typed padding value makes the result strongly typed.
  return ShapedArray(tuple(shape), x.dtype, x.weak_type and padding_value.weak_type)


pad_p = standard_primitive("pad", _pad_abstract_eval)


def pad(operand, padding_value, padding_config):
  x = operand
  config = tuple((int(lo), int(hi), int(i)) for lo, hi, i in padding_config)
  return pad_p.bind(x, padding_value, padding_config=config)


def _pad_transpose(ct, x, padding_value, *, padding_config):
  outs = [None, None]
  if ad.is_undefined_primal(x):
    shape = x.aval.shape
    unpadded = ct
    # Negative padding cropped the operand: pad the cotangent back first.
    if any(lo < 0 or hi < 0 for lo, hi, _ in padding_config):
      zero = full((), 0, x.aval.dtype)
      unpadded = pad(ct, zero, tuple((max(-lo, 0), max(-hi, 0), 0) for lo, hi, _ in padding_config))
      config = tuple((max(lo, 0), max(hi, 0), i) for lo, hi, i in padding_config)
    else:
      config = padding_config
    ushape = core.get_aval(unpadded).shape
    starts = [lo for lo, _, _ in config]
    limits = [n - hi for n, (_, hi, _) in zip(ushape, config)]
    outs[0] = slice(unpadded, starts, limits, [i + 1 for _, _, i in config])
    del shape
  if ad.is_undefined_primal(padding_value):
    total = late_op("reduce_sum")(ct, tuple(range(core.get_aval(ct).ndim)))
    if outs[0] is not None:
      total = late_op("sub")(total, late_op("reduce_sum")(
          outs[0], tuple(range(core.get_aval(outs[0]).ndim))))
    outs[1] = total
  return outs


def _pad_batch(axis, vals, dims, *, padding_config):
  x, pv = vals
  if dims[1] is not batching.not_mapped:
    raise NotImplementedError("vmap of pad with a batched padding value")
  x = batching.moveaxis(x, dims[0], 0)
  return pad(x, pv, ((0, 0, 0), *padding_config)), 0


def _pad_lowering(ctx, x, pv, *, padding_config):
  text = "x".join(f"{lo}_{hi}" + (f"_{i}" if i else "") for lo, hi, i in padding_config)
  return ctx.op("pad", ctx.avals_out[0], x, pv, attrs=f"padding={text}")


ad.jvp_rules[pad_p] = lambda primals, tangents, *, padding_config: (
    pad(*primals, padding_config), pad(*tangents, padding_config))
ad.transpose_rules[pad_p] = _pad_transpose
batching.batch_rules[pad_p] = _pad_batch
hlo.lowering_rules[pad_p] = _pad_lowering


# ----------------------------------------------------------------------------- iota


def _iota_abstract_eval(*, dtype, shape, dimension):
  return ShapedArray(shape, dtype)


iota_p = standard_primitive("iota", _iota_abstract_eval)


@takes_out_sharding
def broadcasted_iota(dtype, shape, dimension: int):
  return iota_p.bind(dtype=dtypes.canonicalize_dtype(dtype), shape=_shape_tuple(shape),
                     dimension=int(dimension))


def iota(dtype, size: int):
  return broadcasted_iota(dtype, (int(size),), 0)


def _iota_lowering(ctx, *, dtype, shape, dimension):
  out = ctx.avals_out[0]
  line = ctx.op("iota", out.update(shape=(shape[dimension],)), attrs="iota_dimension=0")
  if len(shape) == 1:
    return line
  return ctx.op("broadcast", out, line, attrs=f"dimensions={{{dimension}}}")


ad.defjvp_zero(iota_p)
hlo.lowering_rules[iota_p] = _iota_lowering


def collapse(operand, start_dimension: int, stop_dimension: int | None = None):
  """Merge dimensions [start_dimension, stop_dimension) into one (a reshape)."""
  shape = core.get_aval(operand).shape
  ndim = len(shape)
  lo = int(start_dimension) + (ndim if start_dimension < 0 else 0)
  hi = ndim if stop_dimension is None else int(stop_dimension) + (ndim if stop_dimension < 0 else 0)
  if not 0 <= lo <= hi <= ndim:
    raise ValueError(f"collapse: invalid dimensions [{start_dimension}, {stop_dimension}) "
                     f"for an operand of rank {ndim}")
  size = int(np.prod(shape[lo:hi], dtype=np.int64))
  return reshape(operand, (*shape[:lo], size, *shape[hi:]))


def broadcast_shapes(*shapes) -> tuple[int, ...]:
  """The shape numpy-style broadcasting gives operands of `shapes` (ranks are padded on
  the left with 1s; every other size must agree or be 1)."""
  shapes = [tuple(int(d) for d in s) for s in shapes]
  ndim = max((len(s) for s in shapes), default=0)
  out = []
  for dims in zip(*((1,) * (ndim - len(s)) + s for s in shapes)):
    sizes = {d for d in dims if d != 1}
    if len(sizes) > 1:
      raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}")
    out.append(sizes.pop() if sizes else 1)
  return tuple(out)


# The interpreters, a layer below, build zeros and move batch axes with these.
ad.register_full(full)
batching.register_shape_ops(transpose=transpose, broadcast_in_dim=broadcast_in_dim)
