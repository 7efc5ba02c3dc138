"""jax.scipy.signal: N-d convolution and correlation (direct through lax.conv, or FFT)
and detrend.

Every mode is a slice of the 'full' result: 'same' is centred on in1 and
'valid' keeps the positions where the smaller input fits entirely.
"""

from __future__ import annotations

import numpy as np

from jax._src.numpy import fft as jnp_fft
from jax._src.numpy import namespace as jnp
from jax._src.lax import namespace as lax

_MODES = ("full", "same", "valid")


def _check_mode(mode):
  if mode not in _MODES:
    raise ValueError(f"mode must be one of {_MODES}, got {mode!r}")


def _inputs(name, in1, in2):
  in1, in2 = jnp.asarray(in1), jnp.asarray(in2)
  if in1.ndim != in2.ndim:
    raise ValueError(f"{name}: in1 and in2 should have the same dimensionality, got "
                     f"{in1.ndim} and {in2.ndim}")
  if in1.ndim == 0:
    raise ValueError(f"{name}: inputs must be at least 1-D")
  if 0 in in1.shape or 0 in in2.shape:
    raise ValueError(f"{name}: inputs cannot be empty")
  dtype = jnp.result_type(in1, in2)
  if not np.issubdtype(dtype, np.inexact):
    dtype = jnp.result_type(dtype, 1.0)
  return in1.astype(dtype), in2.astype(dtype)


def _valid_swap_needed(shape1, shape2):
  bigger1 = all(a >= b for a, b in zip(shape1, shape2))
  bigger2 = all(b >= a for a, b in zip(shape1, shape2))
  if not (bigger1 or bigger2):
    raise ValueError("For 'valid' mode, one must be at least as large as the other in "
                     "every dimension")
  return not bigger1


def _crop(full, shape1, shape2, mode, axes=None):
  """Slice the 'full' result along `axes` for mode, as SciPy does."""
  axes = range(full.ndim) if axes is None else axes
  index = [slice(None)] * full.ndim
  for ax in axes:
    n1, n2 = shape1[ax], shape2[ax]
    if mode == "same":
      start = (n1 + n2 - 1 - n1) // 2
      index[ax] = slice(start, start + n1)
    elif mode == "valid":
      length = max(n1, n2) - min(n1, n2) + 1
      start = min(n1, n2) - 1
      index[ax] = slice(start, start + length)
  return full[tuple(index)]


def _real_conv_full(x, k, precision):
  nd = x.ndim
  spec = "".join("DHW"[-nd:]) if nd <= 3 else None
  if spec is None:
    raise NotImplementedError("direct convolution supports up to 3 dimensions; use "
                              "method='fft'")
  kern = jnp.flip(k)
  pad = [(s - 1, s - 1) for s in k.shape]
  out = lax.conv_general_dilated(x[None, None], kern[None, None], (1,) * nd, pad,
                                 dimension_numbers=("NC" + spec, "OI" + spec, "NC" + spec),
                                 precision=precision)
  return out[0, 0]


def _conv_full(x, k, precision):
  if not np.issubdtype(x.dtype, np.complexfloating):
    return _real_conv_full(x, k, precision)
  # (a + ib) * (c + id) = (ac - bd) + i(ad + bc) with four real convolutions.
  a, b, c, d = jnp.real(x), jnp.imag(x), jnp.real(k), jnp.imag(k)
  conv = lambda u, v: _real_conv_full(u, v, precision)
  return lax.complex(conv(a, c) - conv(b, d), conv(a, d) + conv(b, c))


def convolve(in1, in2, mode: str = "full", method: str = "auto", precision=None):
  """N-d convolution of in1 and in2; method 'direct', 'fft' or 'auto' (direct)."""
  _check_mode(mode)
  if method not in ("auto", "direct", "fft"):
    raise ValueError(f"method must be 'auto', 'direct' or 'fft', got {method!r}")
  if method == "fft":
    return fftconvolve(in1, in2, mode=mode)
  in1, in2 = _inputs("convolve", in1, in2)
  if mode == "valid" and _valid_swap_needed(in1.shape, in2.shape):
    in1, in2 = in2, in1
  return _crop(_conv_full(in1, in2, precision), in1.shape, in2.shape, mode)


def correlate(in1, in2, mode: str = "full", method: str = "auto", precision=None):
  """N-d cross-correlation: convolution of in1 with in2 reversed and conjugated."""
  _check_mode(mode)
  in1, in2 = _inputs("correlate", in1, in2)
  if mode == "valid" and _valid_swap_needed(in1.shape, in2.shape):
    return jnp.conj(jnp.flip(correlate(in2, in1, mode, method, precision)))
  return convolve(in1, jnp.conj(jnp.flip(in2)), mode, method, precision)


def _check_2d(name, in1, in2, boundary, fillvalue):
  if boundary != "fill" or fillvalue != 0:
    raise NotImplementedError(f"{name}: only boundary='fill' with fillvalue=0 is supported")
  if jnp.ndim(in1) != 2 or jnp.ndim(in2) != 2:
    raise ValueError(f"{name}() only supports 2-dimensional inputs.")


def convolve2d(in1, in2, mode: str = "full", boundary: str = "fill", fillvalue=0,
               precision=None):
  """2-D convolution (zero fill outside the inputs)."""
  _check_2d("convolve2d", in1, in2, boundary, fillvalue)
  return convolve(in1, in2, mode, "direct", precision)


def correlate2d(in1, in2, mode: str = "full", boundary: str = "fill", fillvalue=0,
                precision=None):
  """2-D cross-correlation (zero fill outside the inputs)."""
  _check_2d("correlate2d", in1, in2, boundary, fillvalue)
  return correlate(in1, in2, mode, "direct", precision)


def fftconvolve(in1, in2, mode: str = "full", axes=None):
  """Convolution by FFT along `axes` (all by default); other axes broadcast."""
  _check_mode(mode)
  in1, in2 = _inputs("fftconvolve", in1, in2)
  nd = in1.ndim
  axes = tuple(range(nd)) if axes is None else tuple(a % nd for a in np.atleast_1d(axes))
  for ax in range(nd):
    if ax not in axes and in1.shape[ax] != in2.shape[ax] and 1 not in (in1.shape[ax],
                                                                        in2.shape[ax]):
      raise ValueError(f"incompatible shapes for in1 and in2: {in1.shape} and {in2.shape}")
  if mode == "valid":
    sub1 = [in1.shape[a] for a in axes]
    sub2 = [in2.shape[a] for a in axes]
    if _valid_swap_needed(sub1, sub2):
      in1, in2 = in2, in1
  sizes = [in1.shape[a] + in2.shape[a] - 1 for a in axes]
  if np.issubdtype(in1.dtype, np.complexfloating):
    full = jnp_fft.ifftn(jnp_fft.fftn(in1, sizes, axes) * jnp_fft.fftn(in2, sizes, axes),
                         sizes, axes)
  else:
    full = jnp_fft.irfftn(jnp_fft.rfftn(in1, sizes, axes) * jnp_fft.rfftn(in2, sizes, axes),
                          sizes, axes)
  return _crop(full.astype(in1.dtype), in1.shape, in2.shape, mode, axes)


def detrend(data, axis: int = -1, type: str = "linear", bp=0, overwrite_data=None):
  """Remove the mean ('constant') or a least-squares line per segment ('linear')."""
  del overwrite_data
  if type not in ("linear", "l", "constant", "c"):
    raise ValueError("Trend type must be 'linear' or 'constant'.")
  data = jnp.asarray(data)
  if not np.issubdtype(data.dtype, np.inexact):
    data = data.astype(jnp.result_type(data, 1.0))
  if type in ("constant", "c"):
    return data - jnp.mean(data, axis, keepdims=True)
  x = jnp.moveaxis(data, axis, -1)
  n = x.shape[-1]
  breaks = sorted(set([0] + [int(b) for b in np.atleast_1d(bp)] + [n]))
  if breaks[0] < 0 or breaks[-1] > n:
    raise ValueError("Breakpoints must be non-negative and less than length of data along "
                     "given axis.")
  pieces = [_remove_line(x[..., lo:hi]) for lo, hi in zip(breaks[:-1], breaks[1:]) if hi > lo]
  return jnp.moveaxis(jnp.concatenate(pieces, axis=-1), -1, axis)


def _remove_line(seg):
  m = seg.shape[-1]
  t = jnp.asarray(np.arange(1, m + 1) / m, seg.dtype)
  # Least squares on the centred abscissa: slope = cov(t, y) / var(t).
  tc = t - jnp.mean(t)
  mean = jnp.mean(seg, -1, keepdims=True)
  denom = jnp.sum(tc * tc)
  slope = jnp.sum((seg - mean) * tc, -1, keepdims=True) / jnp.where(denom > 0, denom, 1)
  return seg - mean - slope * tc
