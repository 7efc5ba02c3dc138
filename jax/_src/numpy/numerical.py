"""Numerical helpers on 1-d data: interp, gradient, vander, trapezoid, convolve, correlate."""

from __future__ import annotations

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.lax import elementwise as lax_ew
from jax._src.lax import reductions as lax_red
from jax._src.lax import shape as lax_shape
from jax._src.numpy.util import asarray_like, broadcast_to, canonical_axis, promote_dtypes_inexact
from jax._src.lax import sorting as lax_sort
from jax._src.numpy.creation import asarray
from jax._src.numpy.sorting import searchsorted, take_onehot


def _as_array(x):
  return asarray(asarray_like(x))


def _slice1(x, lo: int, hi: int, axis: int = 0):
  shape = core.get_aval(x).shape
  start, limit = [0] * len(shape), list(shape)
  start[axis], limit[axis] = lo, hi
  return lax_shape.slice(x, start, limit)


def _scalar_like(x, value):
  return lax_shape.full_like(x, value)


# ----------------------------------------------------------------------------- interp


def interp(x, xp, fp, left=None, right=None, period=None):
  """Piecewise-linear interpolation of (xp, fp) at x, as numpy.interp."""
  x, xp, fp = _as_array(x), _as_array(xp), _as_array(fp)
  if core.get_aval(xp).ndim != 1 or core.get_aval(fp).ndim != 1:
    raise ValueError("xp and fp must be one-dimensional")
  if core.get_aval(xp).shape != core.get_aval(fp).shape:
    raise ValueError("xp and fp must be the same size")
  if core.get_aval(xp).shape[0] == 0:
    raise ValueError("xp and fp must be non-empty")
  dtype = dtypes.to_inexact_dtype(dtypes.result_type(x, xp))
  x = lax_ew.convert_element_type(x, dtype)
  xp = lax_ew.convert_element_type(xp, dtype)
  (fp,) = promote_dtypes_inexact(fp)
  if period is not None:
    if left is not None or right is not None:
      raise ValueError("left and right are ignored when period is given")
    x, xp, fp = _periodic(x, xp, fp, period, dtype)
  n = core.get_aval(xp).shape[0]
  i = searchsorted(xp, x, side="right")
  i = lax_ew.max(lax_ew.min(i, _scalar_like(i, n - 1)), _scalar_like(i, 1))
  im1 = lax_ew.sub(i, _scalar_like(i, 1))
  fp_i, fp_im1 = take_onehot(fp, i, 0), take_onehot(fp, im1, 0)
  xp_i, xp_im1 = take_onehot(xp, i, 0), take_onehot(xp, im1, 0)
  df = lax_ew.sub(fp_i, fp_im1)
  dx = lax_ew.sub(xp_i, xp_im1)
  delta = lax_ew.sub(x, xp_im1)
  # Repeated xp points give dx == 0: take the left value instead of dividing by zero.
  eps = float(np.finfo(dtype).eps) * 10
  dx0 = lax_ew.le(lax_ew.abs(dx), _scalar_like(dx, eps))
  safe_dx = lax_ew.select(dx0, _scalar_like(dx, 1), dx)
  slope = lax_ew.div(delta, safe_dx)
  if dtypes.is_complex(core.get_aval(df).dtype):
    slope = lax_ew.convert_element_type(slope, core.get_aval(df).dtype)
  f = lax_ew.select(dx0, fp_im1, lax_ew.add(fp_im1, lax_ew.mul(slope, df)))
  if period is None:
    fdt = core.get_aval(f).dtype
    first, last = _slice1(fp, 0, 1), _slice1(fp, n - 1, n)
    lval = lax_shape.broadcast_in_dim(lax_shape.reshape(first, ()), core.get_aval(f).shape, ()) \
        if left is None else _fill(left, f, fdt)
    rval = lax_shape.broadcast_in_dim(lax_shape.reshape(last, ()), core.get_aval(f).shape, ()) \
        if right is None else _fill(right, f, fdt)
    x0 = lax_shape.broadcast_in_dim(lax_shape.reshape(_slice1(xp, 0, 1), ()),
                                    core.get_aval(x).shape, ())
    xn = lax_shape.broadcast_in_dim(lax_shape.reshape(_slice1(xp, n - 1, n), ()),
                                    core.get_aval(x).shape, ())
    f = lax_ew.select(lax_ew.lt(x, x0), lval, f)
    f = lax_ew.select(lax_ew.gt(x, xn), rval, f)
  return f


def _fill(value, like, dtype):
  v = lax_ew.convert_element_type(_as_array(value), dtype)
  return broadcast_to(v, core.get_aval(like).shape)


def _periodic(x, xp, fp, period, dtype):
  period = lax_ew.convert_element_type(_as_array(period), dtype)
  if core.concrete_value(period) is not None and float(core.concrete_value(period)) == 0:
    raise ValueError("period must be a non-zero value")
  period = lax_ew.abs(period)
  mod = lambda v: _mod(v, lax_shape.broadcast_in_dim(period, core.get_aval(v).shape, ()))
  x, xp = mod(x), mod(xp)
  xp, fp = lax_sort.sort((xp, fp), 0, True, num_keys=1)
  n = core.get_aval(xp).shape[0]
  p1 = lax_shape.broadcast_in_dim(period, (1,), ())
  xp = lax_shape.concatenate([lax_ew.sub(_slice1(xp, n - 1, n), p1), xp,
                              lax_ew.add(_slice1(xp, 0, 1), p1)], 0)
  fp = lax_shape.concatenate([_slice1(fp, n - 1, n), fp, _slice1(fp, 0, 1)], 0)
  return x, xp, fp


def _mod(a, b):
  """Python-style (floored) remainder for floats."""
  r = lax_ew.rem(a, b)
  zero = lax_shape.full_like(r, 0)
  wrong_sign = lax_ew.bitwise_and(lax_ew.ne(r, zero),
                                  lax_ew.ne(lax_ew.lt(r, zero), lax_ew.lt(b, zero)))
  return lax_ew.select(wrong_sign, lax_ew.add(r, b), r)


# ----------------------------------------------------------------------------- gradient


def gradient(f, *varargs, axis=None, edge_order=None):
  """Second-order central differences inside, first-order differences at the edges."""
  if edge_order not in (None, 1):
    raise NotImplementedError("jnp.gradient supports edge_order=1 only")
  (f,) = promote_dtypes_inexact(_as_array(f))
  nd = core.get_aval(f).ndim
  if axis is None:
    axes = tuple(range(nd))
  elif isinstance(axis, (int, np.integer)):
    axes = (canonical_axis(int(axis), nd),)
  else:
    axes = tuple(canonical_axis(int(a), nd) for a in axis)
  if len(varargs) == 0:
    spacings = [1.0] * len(axes)
  elif len(varargs) == 1:
    spacings = list(varargs) * len(axes)
  elif len(varargs) == len(axes):
    spacings = list(varargs)
  else:
    raise TypeError("Invalid number of spacing arguments")
  out = [_gradient_axis(f, h, ax) for h, ax in zip(spacings, axes)]
  return out[0] if len(out) == 1 else out


def _gradient_axis(f, h, axis: int):
  n = core.get_aval(f).shape[axis]
  if n < 2:
    raise ValueError("Shape of array too small to calculate a numerical gradient, at least "
                     "(edge_order + 1) elements are required.")
  dtype = core.get_aval(f).dtype
  shape = core.get_aval(f).shape
  h = _as_array(h)
  if core.get_aval(h).ndim == 0:
    h = lax_ew.convert_element_type(h, dtype)
    hb = lambda x: lax_shape.broadcast_in_dim(h, core.get_aval(x).shape, ())
    inner = lax_ew.div(lax_ew.sub(_slice1(f, 2, n, axis), _slice1(f, 0, n - 2, axis)),
                       lax_ew.mul(_scalar_like(_slice1(f, 0, n - 2, axis), 2),
                                  hb(_slice1(f, 0, n - 2, axis))))
    first = lax_ew.div(lax_ew.sub(_slice1(f, 1, 2, axis), _slice1(f, 0, 1, axis)),
                       hb(_slice1(f, 0, 1, axis)))
    last = lax_ew.div(lax_ew.sub(_slice1(f, n - 1, n, axis), _slice1(f, n - 2, n - 1, axis)),
                      hb(_slice1(f, 0, 1, axis)))
  else:
    x = lax_ew.convert_element_type(h, dtype)
    if core.get_aval(x).shape != (n,):
      raise ValueError("when 1d, distances must match the length of the corresponding "
                       "dimension")
    dx = lax_ew.sub(_slice1(x, 1, n), _slice1(x, 0, n - 1))
    along = lambda v: lax_shape.broadcast_in_dim(
        v, tuple(core.get_aval(v).shape[0] if i == axis else s for i, s in enumerate(shape)),
        (axis,))
    dx1, dx2 = _slice1(dx, 0, n - 2), _slice1(dx, 1, n - 1)
    s = lax_ew.add(dx1, dx2)
    a = lax_ew.neg(lax_ew.div(dx2, lax_ew.mul(dx1, s)))
    b = lax_ew.div(lax_ew.sub(dx2, dx1), lax_ew.mul(dx1, dx2))
    c = lax_ew.div(dx1, lax_ew.mul(dx2, s))
    inner = lax_ew.add(lax_ew.add(
        lax_ew.mul(along(a), _slice1(f, 0, n - 2, axis)),
        lax_ew.mul(along(b), _slice1(f, 1, n - 1, axis))),
        lax_ew.mul(along(c), _slice1(f, 2, n, axis)))
    first = lax_ew.div(lax_ew.sub(_slice1(f, 1, 2, axis), _slice1(f, 0, 1, axis)),
                       along(_slice1(dx, 0, 1)))
    last = lax_ew.div(lax_ew.sub(_slice1(f, n - 1, n, axis), _slice1(f, n - 2, n - 1, axis)),
                      along(_slice1(dx, n - 2, n - 1)))
  return lax_shape.concatenate([first, inner, last], axis)


# ----------------------------------------------------------------------------- vander, trapezoid


def vander(x, N: int | None = None, increasing: bool = False):
  x = _as_array(x)
  if core.get_aval(x).ndim != 1:
    raise ValueError("x must be a one-dimensional array")
  n = core.get_aval(x).shape[0]
  N = n if N is None else int(N)
  if N < 0:
    raise ValueError("N must be nonnegative")
  # Powers by repeated multiplication, column k = x ** k.
  cols = []
  power = lax_shape.full_like(x, 1)
  for _ in range(N):
    cols.append(power)
    power = lax_ew.mul(power, x)
  if not increasing:
    cols = cols[::-1]
  if not cols:
    return lax_shape.full((n, 0), 0, core.get_aval(x).dtype)
  return lax_shape.concatenate([lax_shape.reshape(c, (n, 1)) for c in cols], 1)


def trapezoid(y, x=None, dx=1.0, axis: int = -1):
  (y,) = promote_dtypes_inexact(_as_array(y))
  axis = canonical_axis(axis, core.get_aval(y).ndim)
  n = core.get_aval(y).shape[axis]
  if n == 0:
    shape = tuple(s for i, s in enumerate(core.get_aval(y).shape) if i != axis)
    return lax_shape.full(shape, 0, core.get_aval(y).dtype)
  avg = lax_ew.mul(lax_ew.add(_slice1(y, 1, n, axis), _slice1(y, 0, n - 1, axis)),
                   _scalar_like(_slice1(y, 0, n - 1, axis), 0.5))
  if x is None:
    step = lax_ew.convert_element_type(_as_array(dx), core.get_aval(y).dtype)
    step = lax_shape.broadcast_in_dim(step, core.get_aval(avg).shape, ()) \
        if core.get_aval(step).ndim == 0 else step
  else:
    xv = lax_ew.convert_element_type(_as_array(x), core.get_aval(y).dtype)
    if core.get_aval(xv).ndim == 1:
      d = lax_ew.sub(_slice1(xv, 1, n), _slice1(xv, 0, n - 1))
      shape = core.get_aval(avg).shape
      step = lax_shape.broadcast_in_dim(d, shape, (axis,))
    else:
      step = lax_ew.sub(_slice1(xv, 1, n, axis), _slice1(xv, 0, n - 1, axis))
  return lax_red.reduce_sum(lax_ew.mul(avg, step), (axis,))


# ----------------------------------------------------------------------------- convolution


def _convolve_full(a, w):
  """Full 1-d convolution: out[k] = sum_j a[k - j] w[j], as a sum of shifted products."""
  n, m = core.get_aval(a).shape[0], core.get_aval(w).shape[0]
  length = n + m - 1
  zero = lax_shape.full((), 0, core.get_aval(a).dtype)
  padded = lax_shape.pad(a, zero, ((m - 1, m - 1, 0),))
  w_rev = lax_shape.rev(w, (0,))
  # Row i is the window of `padded` starting at i; weight it by w reversed.
  rows = [lax_shape.reshape(_slice1(padded, i, i + length), (1, length)) for i in range(m)]
  windows = lax_shape.concatenate(rows, 0) if m > 1 else rows[0]
  weights = lax_shape.broadcast_in_dim(w_rev, (m, length), (0,))
  return lax_red.reduce_sum(lax_ew.mul(windows, weights), (0,))


def _conv_mode(a, v, mode: str, name: str):
  if mode not in ("full", "same", "valid"):
    raise ValueError(f"mode must be one of ['full', 'same', 'valid'], got {mode!r}")
  a, v = promote_dtypes_inexact(_as_array(a), _as_array(v))
  if core.get_aval(a).ndim != 1 or core.get_aval(v).ndim != 1:
    raise ValueError(f"{name}() only support 1-dimensional inputs.")
  n, m = core.get_aval(a).shape[0], core.get_aval(v).shape[0]
  if n == 0 or m == 0:
    raise ValueError(f"{name}: inputs cannot be empty, got shapes {(n,)} and {(m,)}.")
  return a, v, n, m


def _crop(full, n: int, m: int, mode: str):
  lo, hi = min(n, m), max(n, m)
  if mode == "full":
    return full
  if mode == "same":
    start = (lo - 1) // 2
    return _slice1(full, start, start + hi)
  return _slice1(full, lo - 1, hi)


def convolve(a, v, mode: str = "full", *, precision=None, preferred_element_type=None):
  a, v, n, m = _conv_mode(a, v, mode, "convolve")
  return _crop(_convolve_full(a, v), n, m, mode)


def correlate(a, v, mode: str = "valid", *, precision=None, preferred_element_type=None):
  a, v, n, m = _conv_mode(a, v, mode, "correlate")
  w = lax_shape.rev(v, (0,))
  if dtypes.is_complex(core.get_aval(w).dtype):
    w = lax_ew.conj(w)
  return _crop(_convolve_full(a, w), n, m, mode)
