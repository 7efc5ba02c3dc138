"""Contractions: dot_general (one block: define, jvp/transpose, batching, lowering)."""

from __future__ import annotations

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


def _free_dims(ndim, contracting, batch):
  return [d for d in range(ndim) if d not in contracting and d not in batch]


def _dot_general_abstract_eval(lhs, rhs, *, dimension_numbers, precision, preferred_element_type):
  (lc, rc), (lb, rb) = dimension_numbers
  if len(lc) != len(rc) or len(lb) != len(rb):
    raise TypeError(f"dot_general: mismatched dimension_numbers {dimension_numbers}")
  for a, b in list(zip(lc, rc)) + list(zip(lb, rb)):
    if lhs.shape[a] != rhs.shape[b]:
      raise TypeError(f"dot_general: {lhs.str_short()} and {rhs.str_short()} disagree on "
                      f"dimensions {a} and {b} (dimension_numbers={dimension_numbers})")
  if lhs.dtype != rhs.dtype:
    raise TypeError(f"dot_general requires equal dtypes, got {lhs.str_short()}, {rhs.str_short()}")
  shape = (tuple(lhs.shape[d] for d in lb)
           + tuple(lhs.shape[d] for d in _free_dims(lhs.ndim, lc, lb))
           + tuple(rhs.shape[d] for d in _free_dims(rhs.ndim, rc, rb)))
  dtype = preferred_element_type if preferred_element_type is not None else lhs.dtype
  return ShapedArray(shape, dtype, lhs.weak_type and rhs.weak_type)


dot_general_p = standard_primitive("dot_general", _dot_general_abstract_eval)


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None):
  (lc, rc), (lb, rb) = dimension_numbers
  dn = ((tuple(map(int, lc)), tuple(map(int, rc))), (tuple(map(int, lb)), tuple(map(int, rb))))
  pet = None if preferred_element_type is None else dtypes.canonicalize_dtype(preferred_element_type)
  return dot_general_p.bind(lhs, rhs, dimension_numbers=dn, precision=precision,
                            preferred_element_type=pet)


def dot(lhs, rhs, precision=None, preferred_element_type=None):
  """Vector/matrix products of rank-1/2 operands, like lax.dot."""
  lnd, rnd = core.get_aval(lhs).ndim, core.get_aval(rhs).ndim
  if not (1 <= lnd <= 2 and 1 <= rnd <= 2):
    raise TypeError(f"dot accepts rank 1 or 2 operands, got ranks {lnd} and {rnd}")
  return dot_general(lhs, rhs, (((lnd - 1,), (0,)), ((), ())), precision, preferred_element_type)


def _ranges_like(*xs):
  start = 0
  for x in xs:
    yield tuple(range(start, start + len(x)))
    start += len(x)


def _dot_transpose_operand(ct, other, other_ndim, own_ndim, dimension_numbers, own_is_lhs,
                           precision, preferred_element_type, own_dtype):
  (lc, rc), (lb, rb) = dimension_numbers
  own_c, other_c = (lc, rc) if own_is_lhs else (rc, lc)
  own_b, other_b = (lb, rb) if own_is_lhs else (rb, lb)
  own_free = _free_dims(own_ndim, own_c, own_b)
  other_free = _free_dims(other_ndim, other_c, other_b)
  nb = len(own_b)
  ct_batch, ct_lhs_free, ct_rhs_free = _ranges_like(own_b, *(
      (own_free, other_free) if own_is_lhs else (other_free, own_free)))
  ct_other_free = ct_rhs_free if own_is_lhs else ct_lhs_free
  dn = ((tuple(ct_other_free), tuple(other_free)), (tuple(ct_batch), tuple(other_b)))
  out = dot_general(ct, other, dn, precision, None)
  # result dims: batch, own free (in order), then other's contracting dims in increasing order
  result_to_own = [*own_b, *own_free, *[own_c[list(other_c).index(d)] for d in sorted(other_c)]]
  perm = tuple(result_to_own.index(k) for k in range(own_ndim))
  del nb
  return ew.convert_element_type(lax_shape.transpose(out, perm), own_dtype)


def _dot_general_transpose(ct, lhs, rhs, *, dimension_numbers, precision, preferred_element_type):
  outs = [None, None]
  if ad.is_undefined_primal(lhs):
    rhs_ndim = core.get_aval(rhs).ndim
    outs[0] = _dot_transpose_operand(ct, rhs, rhs_ndim, lhs.aval.ndim, dimension_numbers, True,
                                     precision, preferred_element_type, lhs.aval.dtype)
  if ad.is_undefined_primal(rhs):
    lhs_ndim = core.get_aval(lhs).ndim
    outs[1] = _dot_transpose_operand(ct, lhs, lhs_ndim, rhs.aval.ndim, dimension_numbers, False,
                                     precision, preferred_element_type, rhs.aval.dtype)
  return outs


def _dot_general_jvp(primals, tangents, **params):
  lhs, rhs = primals
  tl, tr = tangents
  out = dot_general_p.bind(lhs, rhs, **params)
  return out, ad.add_tangents(dot_general_p.bind(tl, rhs, **params),
                              dot_general_p.bind(lhs, tr, **params))


def _dot_general_batch(axis, vals, dims, *, dimension_numbers, precision, preferred_element_type):
  lhs, rhs = vals
  ld, rd = dims
  (lc, rc), (lb, rb) = dimension_numbers
  shift = lambda ds: tuple(d + 1 for d in ds)
  if ld is not None and rd is not None:
    lhs, rhs = batching.moveaxis(lhs, ld, 0), batching.moveaxis(rhs, rd, 0)
    dn = ((shift(lc), shift(rc)), ((0, *shift(lb)), (0, *shift(rb))))
    out_dim = 0
  elif ld is not None:
    lhs = batching.moveaxis(lhs, ld, 0)
    dn = ((shift(lc), rc), (shift(lb), rb))
    out_dim = len(lb)  # the batch axis is lhs's first free dimension
  else:
    rhs = batching.moveaxis(rhs, rd, 0)
    dn = ((lc, shift(rc)), (lb, shift(rb)))
    lhs_ndim = core.get_aval(lhs).ndim
    out_dim = len(lb) + len(_free_dims(lhs_ndim, lc, lb))
  out = dot_general_p.bind(lhs, rhs, dimension_numbers=dn, precision=precision,
                           preferred_element_type=preferred_element_type)
  return out, out_dim


def _dot_general_lowering(ctx, lhs, rhs, *, dimension_numbers, precision, preferred_element_type):
  (lc, rc), (lb, rb) = dimension_numbers
  fmt = lambda ds: "{" + ",".join(map(str, ds)) + "}"
  attrs = []
  if lb:
    attrs.append(f"lhs_batch_dims={fmt(lb)}")
  attrs.append(f"lhs_contracting_dims={fmt(lc)}")
  if rb:
    attrs.append(f"rhs_batch_dims={fmt(rb)}")
  attrs.append(f"rhs_contracting_dims={fmt(rc)}")
  return ctx.op("dot", ctx.avals_out[0], lhs, rhs, attrs=", ".join(attrs))


ad.jvp_rules[dot_general_p] = _dot_general_jvp
ad.transpose_rules[dot_general_p] = _dot_general_transpose
batching.batch_rules[dot_general_p] = _dot_general_batch
hlo.lowering_rules[dot_general_p] = _dot_general_lowering
del np
