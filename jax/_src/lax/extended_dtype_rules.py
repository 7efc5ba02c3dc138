"""How lax's structural operations act on arrays of extended dtypes in physical form.

An array of shape S whose dtype has a physical element of shape K (a threefry key:
uint32[2]) is held as an array of shape S + K. Each rule here is the same operation on
that data, its parameters extended by the trailing K dimensions, which no operation
splits, moves or indexes into. Rules are registered in `physical.rules`; operations not
listed here are not defined on such arrays (arithmetic on keys is an error).
"""

from __future__ import annotations

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.interpreters import physical
from jax._src.lax import elementwise as ew
from jax._src.lax import placement_ops
from jax._src.lax import shape as lax_shape
from jax._src.lax import slicing


def _element_shape(aval) -> tuple:
  """K: the trailing dimensions an element of `aval`'s dtype adds in physical form."""
  if not core.has_physical_form(aval.dtype):
    return ()
  return tuple(dtypes.physical_element_aval(aval.dtype).shape)


def _trailing(start: int, k: int) -> tuple:
  return tuple(range(start, start + k))


def _broadcast_in_dim(ctx, x, *, shape, broadcast_dimensions, **params):
  K = _element_shape(ctx.avals_out[0])
  return lax_shape.broadcast_in_dim_p.bind(
      x, shape=tuple(shape) + K,
      broadcast_dimensions=tuple(broadcast_dimensions) + _trailing(len(shape), len(K)), **params)


def _reshape(ctx, x, *, new_sizes, dimensions, **params):
  K = _element_shape(ctx.avals_out[0])
  return lax_shape.reshape_p.bind(x, new_sizes=tuple(new_sizes) + K, dimensions=dimensions,
                                  **params)


def _transpose(ctx, x, *, permutation):
  k = len(_element_shape(ctx.avals_in[0]))
  n = len(permutation)
  return lax_shape.transpose_p.bind(x, permutation=tuple(permutation) + _trailing(n, k))


def _same_params(prim):
  """Operations whose parameters name only leading dimensions (squeeze, rev, concatenate)
  or none (copies and placement): the same parameters act on the data."""
  return lambda ctx, *xs, **params: prim.bind(*xs, **params)


def _slice(ctx, x, *, start_indices, limit_indices, strides):
  K = _element_shape(ctx.avals_in[0])
  return lax_shape.slice_p.bind(
      x, start_indices=tuple(start_indices) + (0,) * len(K),
      limit_indices=tuple(limit_indices) + K,
      strides=None if strides is None else tuple(strides) + (1,) * len(K))


def _zero_indices(indices, k: int) -> list:
  dtype = core.get_aval(indices[0]).dtype if indices else np.dtype(np.int32)
  return [lax_shape.full((), 0, dtype) for _ in range(k)]


def _dynamic_slice(ctx, x, *indices, slice_sizes):
  K = _element_shape(ctx.avals_in[0])
  return slicing.dynamic_slice_p.bind(x, *indices, *_zero_indices(indices, len(K)),
                                      slice_sizes=tuple(slice_sizes) + K)


def _dynamic_update_slice(ctx, x, update, *indices):
  k = len(_element_shape(ctx.avals_in[0]))
  return slicing.dynamic_update_slice_p.bind(x, update, *indices, *_zero_indices(indices, k))


def _gather(ctx, operand, indices, *, dimension_numbers, slice_sizes, **params):
  K = _element_shape(ctx.avals_in[0])
  out_rank = ctx.avals_out[0].ndim
  dn = dimension_numbers._replace(
      offset_dims=tuple(dimension_numbers.offset_dims) + _trailing(out_rank, len(K)))
  return slicing.gather_p.bind(operand, indices, dimension_numbers=dn,
                               slice_sizes=tuple(slice_sizes) + K, **params)


def _scatter(ctx, operand, indices, updates, *, dimension_numbers, **params):
  K = _element_shape(ctx.avals_in[0])
  updates_rank = ctx.avals_in[2].ndim
  dn = dimension_numbers._replace(update_window_dims=tuple(
      dimension_numbers.update_window_dims) + _trailing(updates_rank, len(K)))
  return slicing.scatter_p.bind(operand, indices, updates, dimension_numbers=dn, **params)


def _select_n(ctx, which, *cases):
  aval = ctx.avals_out[0]
  if ctx.avals_in[0].shape:  # an elementwise choice applies to each element's whole data
    which = lax_shape.broadcast_in_dim_p.bind(
        which, shape=core.physical_aval(aval).shape,
        broadcast_dimensions=tuple(range(aval.ndim)))
  return ew.select_n_p.bind(which, *cases)


def _convert_element_type(ctx, x, *, new_dtype, weak_type, **params):
  if ctx.avals_in[0].dtype != ctx.avals_out[0].dtype:
    raise TypeError(f"cannot convert {ctx.avals_in[0].dtype} to {ctx.avals_out[0].dtype}")
  return x


physical.rules.update({
    lax_shape.broadcast_in_dim_p: _broadcast_in_dim,
    lax_shape.reshape_p: _reshape,
    lax_shape.transpose_p: _transpose,
    lax_shape.squeeze_p: _same_params(lax_shape.squeeze_p),
    lax_shape.rev_p: _same_params(lax_shape.rev_p),
    lax_shape.concatenate_p: _same_params(lax_shape.concatenate_p),
    lax_shape.slice_p: _slice,
    slicing.dynamic_slice_p: _dynamic_slice,
    slicing.dynamic_update_slice_p: _dynamic_update_slice,
    slicing.gather_p: _gather,
    slicing.scatter_p: _scatter,
    ew.select_n_p: _select_n,
    ew.convert_element_type_p: _convert_element_type,
    placement_ops.copy_p: _same_params(placement_ops.copy_p),
    placement_ops.device_put_p: _same_params(placement_ops.device_put_p),
    placement_ops.sharding_constraint_p: _same_params(placement_ops.sharding_constraint_p),
    placement_ops.pcast_p: _same_params(placement_ops.pcast_p),
})
