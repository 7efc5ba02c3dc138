"""Order statistics and moments: quantile/percentile/median (and their nan-ignoring
forms), average, ptp, cov, corrcoef.

Quantiles sort along the axis and read the entries they need with a one-hot
selection (no gather), so the positions may be traced (as for the nan-ignoring
forms, where they depend on the number of NaNs).
"""

from __future__ import annotations

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.lax import elementwise as lax_ew
from jax._src.lax import reductions as lax_red
from jax._src.lax import shape as lax_shape
from jax._src.lax import sorting as lax_sort
from jax._src.numpy.util import asarray_like, broadcast_to, canonical_axis, promote_dtypes_inexact
from jax._src.numpy.cumulative import cumsum
from jax._src.numpy import reductions
from jax._src.numpy.util import place as _place
from jax._src.numpy.creation import asarray
from jax._src.numpy.shape_ops import atleast_2d_one, concatenate, diagonal
from jax._src.lax import linalg

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _as_array(x):
  return asarray(asarray_like(x))


def _reduce_axes(ndim: int, axis) -> tuple[int, ...]:
  if axis is None:
    return tuple(range(ndim))
  axis = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
  axes = tuple(sorted(canonical_axis(int(a), ndim) for a in axis))
  if len(set(axes)) != len(axes):
    raise ValueError(f"repeated axis in {axis}")
  return axes


def _gather_last(x, idx):
  """x[..., idx[...]] along the last axis; idx has x's shape without its last axis
  (and possibly leading extra dims, which are broadcast)."""
  xs, ishape = core.get_aval(x).shape, core.get_aval(idx).shape
  n = xs[-1]
  extra = len(ishape) - (len(xs) - 1)
  full = (*ishape, n)
  xb = lax_shape.broadcast_in_dim(x, full, tuple(range(extra, len(full))))
  ib = lax_shape.broadcast_in_dim(idx, full, tuple(range(len(ishape))))
  hit = lax_ew.eq(ib, lax_shape.broadcasted_iota(core.get_aval(idx).dtype, full, len(full) - 1))
  return lax_red.reduce_sum(lax_ew.select(hit, xb, lax_shape.full_like(xb, 0)), (len(full) - 1,))


def _quantile(a, q, axis, method: str, keepdims: bool, squash_nans: bool, name: str):
  if method not in _METHODS:
    raise ValueError(f"{name}: method must be one of {list(_METHODS)}, got {method!r}")
  a, q = _as_array(a), _as_array(q)
  if dtypes.is_complex(core.get_aval(a).dtype):
    raise ValueError(f"{name} does not support complex input")
  dtype = dtypes.to_inexact_dtype(dtypes.result_type(a, q))
  a = lax_ew.convert_element_type(a, dtype)
  q = lax_ew.convert_element_type(q, dtype)
  a_aval = core.get_aval(a)
  axes = _reduce_axes(a_aval.ndim, axis)
  keep = [i for i in range(a_aval.ndim) if i not in axes]
  # Move the reduced axes to the end and merge them.
  x = lax_shape.transpose(a, (*keep, *axes))
  kept_shape = tuple(a_aval.shape[i] for i in keep)
  n = int(np.prod([a_aval.shape[i] for i in axes], dtype=np.int64))
  x = lax_shape.reshape(x, (*kept_shape, n))
  last = len(kept_shape)
  x = lax_sort.sort(x, last)  # NaNs sort last
  is_nan = lax_ew.ne(x, x)
  nan_count = lax_red.reduce_sum(lax_ew.convert_element_type(is_nan, np.int32), (last,))
  if squash_nans:
    count = lax_ew.sub(lax_shape.full(kept_shape, n, np.int32), nan_count)
  else:
    count = lax_shape.full(kept_shape, n, np.int32)
  q_shape = core.get_aval(q).shape
  out_shape = (*q_shape, *kept_shape)
  qb = lax_shape.broadcast_in_dim(q, out_shape, tuple(range(len(q_shape))))
  countf = lax_shape.broadcast_in_dim(lax_ew.convert_element_type(count, dtype), out_shape,
                                      tuple(range(len(q_shape), len(out_shape))))
  one = lax_shape.full(out_shape, 1, dtype)
  zero = lax_shape.full(out_shape, 0, dtype)
  top = lax_ew.max(lax_ew.sub(countf, one), zero)
  pos = lax_ew.mul(qb, top)
  low = lax_ew.max(lax_ew.min(lax_ew.floor(pos), top), zero)
  high = lax_ew.max(lax_ew.min(lax_ew.ceil(pos), top), zero)
  as_index = lambda f: lax_ew.convert_element_type(f, np.int32)
  low_val = _gather_last(x, as_index(low))
  high_val = _gather_last(x, as_index(high))
  if method == "linear":
    w = lax_ew.sub(pos, low)
    out = lax_ew.add(lax_ew.mul(low_val, lax_ew.sub(one, w)), lax_ew.mul(high_val, w))
  elif method == "lower":
    out = low_val
  elif method == "higher":
    out = high_val
  elif method == "midpoint":
    out = lax_ew.mul(lax_ew.add(low_val, high_val), lax_shape.full(out_shape, 0.5, dtype))
  else:  # nearest: halves go to the even position, as NumPy does
    out = _gather_last(x, as_index(lax_ew.max(lax_ew.min(lax_ew.round(pos, 1), top), zero)))
  if not squash_nans:
    has_nan = lax_ew.gt(nan_count, lax_shape.full(kept_shape, 0, np.int32))
    has_nan = lax_shape.broadcast_in_dim(has_nan, out_shape,
                                         tuple(range(len(q_shape), len(out_shape))))
    out = lax_ew.select(has_nan, lax_shape.full(out_shape, np.nan, dtype), out)
  else:
    empty = lax_ew.eq(countf, zero)
    out = lax_ew.select(empty, lax_shape.full(out_shape, np.nan, dtype), out)
  if keepdims:
    shape = (*q_shape, *(1 if i in axes else s for i, s in enumerate(a_aval.shape)))
    out = lax_shape.reshape(out, shape)
  return out


def _weighted_quantile(a, q, axis, method: str, keepdims: bool, squash_nans: bool, weights,
                       name: str):
  """Quantiles of the distribution that puts weight w[i] on a[i] (the inverse of its
  cumulative distribution function, so every result is one of the data values)."""
  if method != "inverted_cdf":
    raise ValueError(f"{name}: only method='inverted_cdf' supports weights, got {method!r}")
  a, q = _as_array(a), _as_array(q)
  if dtypes.is_complex(core.get_aval(a).dtype):
    raise ValueError(f"{name} does not support complex input")
  dtype = dtypes.to_inexact_dtype(dtypes.result_type(a, q))
  a = lax_ew.convert_element_type(a, dtype)
  q = lax_ew.convert_element_type(q, dtype)
  a_aval = core.get_aval(a)
  w = lax_ew.convert_element_type(_as_array(weights), dtype)
  w_shape = core.get_aval(w).shape
  if w_shape != a_aval.shape:
    if len(w_shape) == 1 and isinstance(axis, (int, np.integer)):
      ax = canonical_axis(int(axis), a_aval.ndim)
      if w_shape[0] != a_aval.shape[ax]:
        raise ValueError(f"{name}: weights of shape {w_shape} do not match axis {axis} of "
                         f"an array of shape {a_aval.shape}")
      w = lax_shape.broadcast_in_dim(w, a_aval.shape, (ax,))
    else:
      w = broadcast_to(w, a_aval.shape)
  axes = _reduce_axes(a_aval.ndim, axis)
  keep = [i for i in range(a_aval.ndim) if i not in axes]
  kept_shape = tuple(a_aval.shape[i] for i in keep)
  n = int(np.prod([a_aval.shape[i] for i in axes], dtype=np.int64))
  x = lax_shape.reshape(lax_shape.transpose(a, (*keep, *axes)), (*kept_shape, n))
  w = lax_shape.reshape(lax_shape.transpose(w, (*keep, *axes)), (*kept_shape, n))
  last = len(kept_shape)
  x, w = lax_sort.sort((x, w), last, True, num_keys=1)  # NaNs sort last
  is_nan = lax_ew.ne(x, x)
  if squash_nans:
    w = lax_ew.select(is_nan, lax_shape.full_like(w, 0), w)
  cw = cumsum(w, axis=last)
  total = lax_shape.slice(cw, (0,) * last + (n - 1,), kept_shape + (n,))
  q_shape = core.get_aval(q).shape
  out_shape = (*q_shape, *kept_shape)
  full = (*out_shape, n)
  qn = len(q_shape)
  cdf = lax_ew.div(cw, lax_shape.broadcast_in_dim(
      lax_shape.reshape(total, kept_shape), (*kept_shape, n), tuple(range(last))))
  cdf_b = lax_shape.broadcast_in_dim(cdf, full, tuple(range(qn, len(full))))
  q_b = lax_shape.broadcast_in_dim(q, full, tuple(range(qn)))
  below = lax_ew.convert_element_type(lax_ew.lt(cdf_b, q_b), np.int32)
  idx = lax_red.reduce_sum(below, (len(full) - 1,))
  idx = lax_ew.min(idx, lax_shape.full(out_shape, n - 1, np.int32))
  out = _gather_last(x, idx)
  if not squash_nans:
    nan_count = lax_red.reduce_sum(lax_ew.convert_element_type(is_nan, np.int32), (last,))
    has_nan = lax_shape.broadcast_in_dim(
        lax_ew.gt(nan_count, lax_shape.full(kept_shape, 0, np.int32)), out_shape,
        tuple(range(qn, len(out_shape))))
    out = lax_ew.select(has_nan, lax_shape.full(out_shape, np.nan, dtype), out)
  if keepdims:
    shape = (*q_shape, *(1 if i in axes else s for i, s in enumerate(a_aval.shape)))
    out = lax_shape.reshape(out, shape)
  return out


def _check_out(name, out, overwrite_input=False):
  if out is not None:
    raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")


def quantile(a, q, axis=None, out=None, overwrite_input: bool = False, method: str = "linear",
             keepdims: bool = False, *, weights=None, interpolation=None):
  _check_out("quantile", out)
  if interpolation is not None:
    raise TypeError("quantile() argument interpolation was removed; use method instead")
  if weights is not None:
    return _weighted_quantile(a, q, axis, method, keepdims, False, weights, "quantile")
  return _quantile(a, q, axis, method, keepdims, False, "quantile")


def nanquantile(a, q, axis=None, out=None, overwrite_input: bool = False,
                method: str = "linear", keepdims: bool = False, *, weights=None,
                interpolation=None):
  _check_out("nanquantile", out)
  if weights is not None:
    return _weighted_quantile(a, q, axis, method, keepdims, True, weights, "nanquantile")
  return _quantile(a, q, axis, method, keepdims, True, "nanquantile")


def _percent_to_fraction(q):
  q = _as_array(q)
  dtype = dtypes.to_inexact_dtype(core.get_aval(q).dtype)
  return lax_ew.div(lax_ew.convert_element_type(q, dtype), lax_shape.full_like(
      lax_ew.convert_element_type(q, dtype), 100))


def percentile(a, q, axis=None, out=None, overwrite_input: bool = False,
               method: str = "linear", keepdims: bool = False, *, weights=None,
               out_sharding=None, interpolation=None):
  _check_out("percentile", out)
  if weights is not None or out_sharding is not None:
    out = quantile(a, _percent_to_fraction(q), axis, None, False, method, keepdims,
                   weights=weights)
    if out_sharding is None:
      return out
    return _place(out, out_sharding=out_sharding)
  return _quantile(a, _percent_to_fraction(q), axis, method, keepdims, False, "percentile")


def nanpercentile(a, q, axis=None, out=None, overwrite_input: bool = False,
                  method: str = "linear", keepdims: bool = False, *, weights=None,
                  interpolation=None):
  _check_out("nanpercentile", out)
  if weights is not None:
    return nanquantile(a, _percent_to_fraction(q), axis, None, False, method, keepdims,
                       weights=weights)
  return _quantile(a, _percent_to_fraction(q), axis, method, keepdims, True, "nanpercentile")


def median(a, axis=None, out=None, overwrite_input: bool = False, keepdims: bool = False):
  _check_out("median", out)
  return _quantile(a, 0.5, axis, "midpoint", keepdims, False, "median")


def nanmedian(a, axis=None, out=None, overwrite_input: bool = False, keepdims: bool = False):
  _check_out("nanmedian", out)
  return _quantile(a, 0.5, axis, "midpoint", keepdims, True, "nanmedian")


# ----------------------------------------------------------------------------- moments


def ptp(a, axis=None, out=None, keepdims: bool = False):
  _check_out("ptp", out)
  a = _as_array(a)
  return lax_ew.sub(reductions.max(a, axis, keepdims=keepdims),
                    reductions.min(a, axis, keepdims=keepdims))


def average(a, axis=None, weights=None, returned: bool = False, keepdims: bool = False):
  a = _as_array(a)
  if weights is None:
    avg = reductions.mean(a, axis, keepdims=keepdims)
    if not returned:
      return avg
    count = core.get_aval(a).size // max(core.get_aval(avg).size, 1)
    return avg, lax_shape.full_like(avg, count)
  a, w = promote_dtypes_inexact(a, _as_array(weights))
  a_shape, w_shape = core.get_aval(a).shape, core.get_aval(w).shape
  if a_shape != w_shape:
    if axis is None:
      raise ValueError("Axis must be specified when shapes of a and weights differ.")
    if len(w_shape) != 1:
      raise ValueError("1D weights expected when shapes of a and weights differ.")
    ax = canonical_axis(int(axis), len(a_shape))
    if w_shape[0] != a_shape[ax]:
      raise ValueError("Length of weights not compatible with specified axis.")
    w = lax_shape.broadcast_in_dim(w, a_shape, (ax,))
  total_w = reductions.sum(w, axis, keepdims=keepdims)
  total = reductions.sum(lax_ew.mul(a, w), axis, keepdims=keepdims)
  avg = lax_ew.div(total, total_w)
  return (avg, total_w) if returned else avg


def _with_dtype(x, dtype):
  if dtype is None or x is None:
    return x
  return lax_ew.convert_element_type(_as_array(x), dtypes.canonicalize_dtype(dtype), False)


def cov(m, y=None, rowvar: bool = True, bias: bool = False, ddof=None, fweights=None,
        aweights=None, dtype=None):
  """Covariance matrix; with `dtype` the data are converted to it before computing."""
  m, y = _with_dtype(m, dtype), _with_dtype(y, dtype)
  if ddof is not None and int(ddof) != ddof:
    raise ValueError("ddof must be integer")
  m = _as_array(m)
  if core.get_aval(m).ndim > 2:
    raise ValueError("m has more than 2 dimensions")
  X = atleast_2d_one(m)
  if not rowvar and core.get_aval(X).shape[0] != 1:
    X = lax_shape.transpose(X, (1, 0))
  if core.get_aval(X).shape[0] == 0:
    return lax_shape.full((0, 0), np.nan, dtypes.to_inexact_dtype(core.get_aval(X).dtype))
  if y is not None:
    Y = atleast_2d_one(_as_array(y))
    if not rowvar and core.get_aval(Y).shape[0] != 1:
      Y = lax_shape.transpose(Y, (1, 0))
    X = concatenate([X, Y], axis=0)
  (X,) = promote_dtypes_inexact(X)
  dtype = core.get_aval(X).dtype
  ddof = (0 if bias else 1) if ddof is None else int(ddof)
  nobs = core.get_aval(X).shape[1]
  w = None
  if fweights is not None:
    w = lax_ew.convert_element_type(_as_array(fweights), dtype)
  if aweights is not None:
    aw = lax_ew.convert_element_type(_as_array(aweights), dtype)
    w = aw if w is None else lax_ew.mul(w, aw)
  if w is None:
    avg = reductions.mean(X, axis=1)
    fact = float(nobs - ddof)
  else:
    avg, wsum = average(X, axis=1, weights=w, returned=True)
    wsum = lax_shape.reshape(lax_shape.slice(wsum, (0,), (1,)), ())
    if ddof == 0:
      fact = wsum
    elif aweights is None:
      fact = lax_ew.sub(wsum, lax_shape.full_like(wsum, ddof))
    else:
      aw = lax_ew.convert_element_type(_as_array(aweights), dtype)
      fact = lax_ew.sub(wsum, lax_ew.div(lax_ew.mul(lax_shape.full_like(wsum, ddof),
                                                    reductions.sum(lax_ew.mul(w, aw))), wsum))
  centered = lax_ew.sub(X, lax_shape.broadcast_in_dim(avg, core.get_aval(X).shape, (0,)))
  weighted = centered if w is None else lax_ew.mul(
      centered, lax_shape.broadcast_in_dim(w, core.get_aval(X).shape, (1,)))
  conj = lax_ew.conj(centered) if dtypes.is_complex(dtype) else centered
  c = linalg.dot_general(weighted, conj, (((1,), (1,)), ((), ())))
  fact_b = (lax_shape.full_like(c, fact) if isinstance(fact, float)
            else lax_shape.broadcast_in_dim(fact, core.get_aval(c).shape, ()))
  c = lax_ew.div(c, fact_b)
  if core.get_aval(c).shape == (1, 1):
    return lax_shape.reshape(c, ())
  return c


def corrcoef(x, y=None, rowvar: bool = True, dtype=None):
  c = cov(x, y, rowvar, dtype=dtype)
  if core.get_aval(c).ndim == 0:
    return lax_ew.div(c, c)
  d = diagonal(c)
  stddev = lax_ew.sqrt(lax_ew.real(d) if dtypes.is_complex(core.get_aval(d).dtype) else d)
  shape = core.get_aval(c).shape
  c = lax_ew.div(c, lax_shape.broadcast_in_dim(stddev, shape, (0,)))
  c = lax_ew.div(c, lax_shape.broadcast_in_dim(stddev, shape, (1,)))
  if not dtypes.is_complex(core.get_aval(c).dtype):
    c = lax_ew.max(lax_ew.min(c, lax_shape.full_like(c, 1)), lax_shape.full_like(c, -1))
  return c
