"""Grouped matrix products: `ragged_dot` (rows of lhs in consecutive groups, each group
multiplied by its own rhs matrix), its general form, and `scaled_dot` (block-scaled
operands, as microscaling formats store them).

Each group's product is computed for every row and the row keeps its group's result;
derivatives, batching and lowering come from the primitives this is written with.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.lax import elementwise as ew
from jax._src.lax import linalg
from jax._src.lax import reductions
from jax._src.lax import shape as lax_shape
from jax._src.lax.utils import derived_primitive, place


class RaggedDotDimensionNumbers(NamedTuple):
  """dot_dimension_numbers ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch)), the lhs
  dimension cut into groups, and the rhs dimension indexing the groups."""
  dot_dimension_numbers: tuple
  lhs_ragged_dimensions: Sequence[int]
  rhs_group_dimensions: Sequence[int]


def _ragged_dot(lhs, rhs, group_sizes, *, precision, preferred_element_type):
  m = core.get_aval(lhs).shape[0]
  g = core.get_aval(rhs).shape[0]
  # [m, k] x [g, k, n] -> [m, g, n]: every group's product for every row.
  full = linalg.dot_general(lhs, rhs, (((1,), (1,)), ((), ())), precision,
                            preferred_element_type)
  ends = reductions.cumsum(ew.convert_element_type(group_sizes, np.int32), 0)
  rows = lax_shape.broadcasted_iota(np.int32, (m, g), 0)
  ends_b = lax_shape.broadcast_in_dim(ends, (m, g), (1,))
  starts_b = ew.sub(ends_b, lax_shape.broadcast_in_dim(
      ew.convert_element_type(group_sizes, np.int32), (m, g), (1,)))
  # Row r belongs to the group whose [start, end) holds it; rows past the end get zeros.
  mine = ew.bitwise_and(ew.ge(rows, starts_b), ew.lt(rows, ends_b))
  out_dtype = core.get_aval(full).dtype
  mask = lax_shape.broadcast_in_dim(ew.convert_element_type(mine, out_dtype),
                                    core.get_aval(full).shape, (0, 1))
  return reductions.reduce_sum(ew.mul(full, mask), (1,))


ragged_dot_p = derived_primitive("ragged_dot", _ragged_dot)


def ragged_dot(lhs, rhs, group_sizes, precision=None, preferred_element_type=None,
               group_offset=None, out_sharding=None):
  """out[i] = lhs[i] @ rhs[j] where row i is in group j: groups are consecutive rows of
  lhs with sizes `group_sizes` (lhs [m, k], rhs [g, k, n], group_sizes int [g] -> [m, n]).
  Rows after the last group are zero."""
  if group_offset is not None:
    raise NotImplementedError("ragged_dot: group_offset (a shard of the groups) is not "
                              "supported yet")
  la, ra, ga = (core.get_aval(v) for v in (lhs, rhs, group_sizes))
  if la.ndim != 2 or ra.ndim != 3:
    raise TypeError(f"ragged_dot expects lhs of rank 2 and rhs of rank 3, got "
                    f"{la.str_short(short_dtypes=True)} and {ra.str_short(short_dtypes=True)}")
  if la.shape[1] != ra.shape[1]:
    raise TypeError(f"ragged_dot: contracting dimensions differ: lhs {la.shape} and rhs "
                    f"{ra.shape}")
  if ga.shape != (ra.shape[0],) or not dtypes.is_integer(ga.dtype):
    raise TypeError(f"ragged_dot: group_sizes must be an integer array of shape "
                    f"({ra.shape[0]},), got {ga.str_short(short_dtypes=True)}")
  out = ragged_dot_p.bind(lhs, rhs, group_sizes, precision=precision,
                          preferred_element_type=(None if preferred_element_type is None
                                                  else np.dtype(preferred_element_type)))
  return place(out, out_sharding)


def ragged_dot_general(lhs, rhs, group_sizes, ragged_dot_dimension_numbers,
                       precision=None, preferred_element_type=None, group_offset=None,
                       out_sharding=None):
  """ragged_dot with explicit dimension numbers. Supported: one ragged lhs non-contracting
  dimension grouped by one rhs dimension, one contracting dimension, no batch dimensions;
  the operands are transposed to ragged_dot's layout."""
  dn = ragged_dot_dimension_numbers
  (lc, rc), (lb, rb) = dn.dot_dimension_numbers
  ragged, group = tuple(dn.lhs_ragged_dimensions), tuple(dn.rhs_group_dimensions)
  la, ra = core.get_aval(lhs), core.get_aval(rhs)
  if (lb or rb or len(lc) != 1 or len(rc) != 1 or len(ragged) != 1 or len(group) != 1
      or la.ndim != 2 or ra.ndim != 3 or ragged[0] in lc):
    raise NotImplementedError(
        f"ragged_dot_general supports a rank-2 lhs ragged in its non-contracting dimension "
        f"and a rank-3 rhs with one group dimension; got {dn}")
  lhs = lax_shape.transpose(lhs, (ragged[0], lc[0]))
  rest = [d for d in range(3) if d not in (group[0], rc[0])]
  rhs = lax_shape.transpose(rhs, (group[0], rc[0], rest[0]))
  return ragged_dot(lhs, rhs, group_sizes, precision, preferred_element_type, group_offset,
                    out_sharding)


def _dequantize(x, scale, contract: int):
  """x with each block of its contracting dimension multiplied by that block's scale."""
  xa, sa = core.get_aval(x), core.get_aval(scale)
  k, blocks = xa.shape[contract], sa.shape[contract]
  if blocks == 0 or k % blocks or sa.ndim != xa.ndim or any(
      a != b for i, (a, b) in enumerate(zip(xa.shape, sa.shape)) if i != contract):
    raise TypeError(f"scaled_dot: scale {sa.str_short(short_dtypes=True)} does not tile operand "
                    f"{xa.str_short(short_dtypes=True)} in blocks along dimension {contract}")
  size = k // blocks
  # Repeat each scale `size` times along the contracting dimension.
  big = list(sa.shape)
  big.insert(contract + 1, size)
  dims = tuple(i if i <= contract else i + 1 for i in range(sa.ndim))
  rep = lax_shape.reshape(lax_shape.broadcast_in_dim(scale, tuple(big), dims), xa.shape)
  wide = np.promote_types(xa.dtype, np.float32) if not dtypes.is_inexact(xa.dtype) else \
      np.promote_types(xa.dtype, core.get_aval(rep).dtype)
  return ew.mul(ew.convert_element_type(x, wide), ew.convert_element_type(rep, wide))


def scaled_dot(lhs, rhs, *, lhs_scale=None, rhs_scale=None, dimension_numbers=None,
               preferred_element_type=None):
  """dot_general of block-scaled operands: each block of the contracting dimension of an
  operand is multiplied by its entry of the scale (whose contracting extent is the number
  of blocks). Default layout: lhs [B, M, K], rhs [B, N, K] -> [B, M, N]."""
  la, ra = core.get_aval(lhs), core.get_aval(rhs)
  if dimension_numbers is None:
    if la.ndim != 3 or ra.ndim != 3:
      raise TypeError("scaled_dot without dimension_numbers expects lhs [B, M, K] and rhs "
                      f"[B, N, K], got {la.str_short(short_dtypes=True)} and {ra.str_short(short_dtypes=True)}")
    dimension_numbers = (((2,), (2,)), ((0,), (0,)))
  (lc, rc), _ = dimension_numbers
  if len(lc) != 1 or len(rc) != 1:
    raise TypeError("scaled_dot needs exactly one contracting dimension per operand")
  if lhs_scale is not None:
    lhs = _dequantize(lhs, lhs_scale, lc[0])
  if rhs_scale is not None:
    rhs = _dequantize(rhs, rhs_scale, rc[0])
  out_dtype = preferred_element_type
  common = np.promote_types(core.get_aval(lhs).dtype, core.get_aval(rhs).dtype)
  lhs, rhs = ew.convert_element_type(lhs, common), ew.convert_element_type(rhs, common)
  out = linalg.dot_general(lhs, rhs, dimension_numbers)
  return out if out_dtype is None else ew.convert_element_type(out, out_dtype)
