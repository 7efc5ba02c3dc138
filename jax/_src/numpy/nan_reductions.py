"""NaN-ignoring reductions: nansum, nanprod, nanmax, nanmin, nanmean, nanvar, nanstd,
nanargmax, nanargmin, nancumsum, nancumprod.

Each replaces NaNs by the identity of its reduction (0 for sums, 1 for products,
-inf/+inf for max/min) and then reduces; a max/min over only NaNs is NaN, and
nanargmax/nanargmin of an all-NaN slice is -1 (NumPy raises; jax cannot).
"""

from __future__ import annotations

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.lax import elementwise as lax_ew
from jax._src.lax import shape as lax_shape
from jax._src.numpy import cumulative, reductions
from jax._src.numpy.ufuncs import isnan
from jax._src.numpy.util import asarray_like, broadcast_to


def _replace_nan(a, value):
  a = asarray_like(a)
  if not dtypes.is_inexact(core.get_aval(a).dtype):
    return a
  return lax_ew.select(isnan(a), lax_shape.full_like(a, value), a)


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
  return reductions.sum(_replace_nan(a, 0), axis, dtype, out, keepdims, initial, where)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
  return reductions.prod(_replace_nan(a, 1), axis, dtype, out, keepdims, initial, where)


def _nan_extremum(reduce_fn, fill):
  def fn(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    a = asarray_like(a)
    if not dtypes.is_inexact(core.get_aval(a).dtype):
      return reduce_fn(a, axis, out, keepdims, initial, where)
    out_ = reduce_fn(_replace_nan(a, fill), axis, out, keepdims, initial, where)
    # A slice of only NaNs reduces to the fill value; give NaN there instead.
    all_nan = reductions.all(isnan(a), axis, keepdims=keepdims)
    return lax_ew.select(all_nan, lax_shape.full_like(out_, np.nan), out_)
  return fn


nanmax = _nan_extremum(reductions.max, -np.inf)
nanmin = _nan_extremum(reductions.min, np.inf)


def _non_nan_count(a, axis, keepdims, dtype):
  ok = lax_ew.bitwise_not(isnan(a))
  return reductions.sum(lax_ew.convert_element_type(ok, dtype), axis, keepdims=keepdims)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
  a = asarray_like(a)
  if not dtypes.is_inexact(core.get_aval(a).dtype):
    return reductions.mean(a, axis, dtype, out, keepdims, where=where)
  target = dtypes.canonicalize_dtype(dtype) if dtype is not None else core.get_aval(a).dtype
  total = nansum(a, axis, target, out, keepdims, where=where)
  ok = lax_ew.bitwise_not(isnan(a))
  if where is not None:
    ok = lax_ew.bitwise_and(ok, broadcast_to(asarray_like(where), core.get_aval(a).shape))
  count = reductions.sum(lax_ew.convert_element_type(ok, core.get_aval(total).dtype), axis,
                         keepdims=keepdims)
  return lax_ew.div(total, count)


def nanvar(a, axis=None, dtype=None, out=None, ddof: int = 0, keepdims=False, where=None,
           mean=None):
  a = asarray_like(a)
  if not dtypes.is_inexact(core.get_aval(a).dtype):
    return reductions.var(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean)
  center = nanmean(a, axis, dtype, keepdims=True, where=where) if mean is None else \
      asarray_like(mean)
  centered = lax_ew.sub(a, broadcast_to(center, core.get_aval(a).shape))
  if dtypes.is_complex(core.get_aval(a).dtype):
    sq = lax_ew.real(lax_ew.mul(centered, lax_ew.conj(centered)))
  else:
    sq = lax_ew.mul(centered, centered)
  total = nansum(sq, axis, keepdims=keepdims, where=where)
  count = _non_nan_count(a, axis, keepdims, core.get_aval(total).dtype)
  return lax_ew.div(total, lax_ew.sub(count, lax_shape.full_like(count, ddof)))


def nanstd(a, axis=None, dtype=None, out=None, ddof: int = 0, keepdims=False, where=None,
           mean=None):
  return lax_ew.sqrt(nanvar(a, axis, dtype, out, ddof, keepdims, where, mean))


def _nan_arg(arg_fn, fill):
  def fn(a, axis=None, out=None, keepdims=False):
    a = asarray_like(a)
    if not dtypes.is_inexact(core.get_aval(a).dtype):
      return arg_fn(a, axis, out, keepdims)
    nan_mask = isnan(a)
    idx = arg_fn(_replace_nan(a, fill), axis, out, keepdims)
    all_nan = reductions.all(nan_mask, axis, keepdims=keepdims)
    return lax_ew.select(all_nan, lax_shape.full_like(idx, -1), idx)
  return fn


nanargmax = _nan_arg(reductions.argmax, -np.inf)
nanargmin = _nan_arg(reductions.argmin, np.inf)


def nancumsum(a, axis=None, dtype=None, out=None):
  return cumulative.cumsum(_replace_nan(a, 0), axis, dtype, out)


def nancumprod(a, axis=None, dtype=None, out=None):
  return cumulative.cumprod(_replace_nan(a, 1), axis, dtype, out)
