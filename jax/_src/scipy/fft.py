"""jax.scipy.fft: type-II discrete cosine transforms through a complex FFT.

dct reorders x as [x0, x2, x4, ..., x5, x3, x1] so that one n-point FFT and a
quarter-sample phase shift give the DCT (Makhoul 1980); idct runs those steps
backwards.
"""

from __future__ import annotations

import operator

import numpy as np

from jax._src.numpy import fft as jnp_fft
from jax._src.numpy import namespace as jnp


def _check(type, norm):
  if type != 2:
    raise NotImplementedError("Only DCT type 2 is implemented.")
  if norm not in (None, "backward", "ortho"):
    raise ValueError(f"Invalid norm value {norm!r}; should be None, 'backward' or 'ortho'")


def _resize(x, n, axis):
  if n is None:
    return x
  n = operator.index(n)
  if n < 1:
    raise ValueError(f"Invalid number of data points ({n}) specified")
  size = x.shape[axis]
  if n <= size:
    return jnp.take(x, np.arange(n), axis=axis)
  pad = [(0, 0)] * x.ndim
  pad[axis] = (0, n - size)
  return jnp.pad(x, pad)


def _ortho_factors(n, dtype):
  f = np.full((n,), np.sqrt(1.0 / (2 * n)))
  f[0] = np.sqrt(1.0 / (4 * n))
  return jnp.asarray(f, dtype)


def _dct_last(x, norm):
  n = x.shape[-1]
  v = jnp.concatenate([x[..., ::2], jnp.flip(x[..., 1::2], axis=-1)], axis=-1)
  k = np.arange(n)
  shift = jnp.asarray(np.exp(-0.5j * np.pi * k / n), jnp_fft.fft(v).dtype)
  y = 2 * jnp.real(jnp_fft.fft(v) * shift)
  if norm == "ortho":
    y = y * _ortho_factors(n, y.dtype)
  return y


def _idct_last(y, norm):
  n = y.shape[-1]
  if norm == "ortho":
    y = y / _ortho_factors(n, y.dtype)
  k = np.arange(n)
  # Rebuild the half-shifted spectrum: V[k] = (y[k] - i y[n-k]) exp(i pi k / 2n) / 2.
  y_rev = jnp.concatenate([jnp.zeros_like(y[..., :1]), jnp.flip(y[..., 1:], axis=-1)], axis=-1)
  spec = (y - 1j * y_rev) * jnp.asarray(np.exp(0.5j * np.pi * k / n) / 2)
  v = jnp.real(jnp_fft.ifft(spec)).astype(y.dtype)
  half = (n + 1) // 2
  x = jnp.zeros_like(v)
  x = x.at[..., ::2].set(v[..., :half])
  return x.at[..., 1::2].set(jnp.flip(v[..., half:], axis=-1))


def _along(fn, x, axis, norm):
  x = jnp.moveaxis(x, axis, -1)
  return jnp.moveaxis(fn(x, norm), -1, axis)


def _prepare(x):
  x = jnp.asarray(x)
  if np.issubdtype(x.dtype, np.complexfloating):
    raise NotImplementedError("DCT of complex input is not implemented")
  if not np.issubdtype(x.dtype, np.floating):
    x = x.astype(jnp.result_type(x, 1.0))
  return x


def dct(x, type: int = 2, n=None, axis: int = -1, norm=None):
  """Type-II DCT: y[k] = 2 sum_j x[j] cos(pi k (2j + 1) / 2n)."""
  _check(type, norm)
  x = _prepare(x)
  axis = _axis(axis, x.ndim)
  return _along(_dct_last, _resize(x, n, axis), axis, norm)


def idct(x, type: int = 2, n=None, axis: int = -1, norm=None):
  """Inverse of dct (a scaled type-III DCT)."""
  _check(type, norm)
  x = _prepare(x)
  axis = _axis(axis, x.ndim)
  return _along(_idct_last, _resize(x, n, axis), axis, norm)


def _axis(axis, ndim):
  axis = operator.index(axis)
  if not -ndim <= axis < ndim:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
  return axis % ndim


def _axes_and_sizes(x, s, axes):
  if axes is None:
    axes = tuple(range(x.ndim)) if s is None else tuple(range(x.ndim - len(s), x.ndim))
  axes = tuple(_axis(a, x.ndim) for a in np.atleast_1d(axes))
  if s is None:
    s = (None,) * len(axes)
  elif len(s) != len(axes):
    raise ValueError(f"Shape s {s} and axes {axes} must have the same length")
  return axes, tuple(s)


def dctn(x, type: int = 2, s=None, axes=None, norm=None):
  """dct applied along each of `axes` (all axes by default)."""
  _check(type, norm)
  x = _prepare(x)
  axes, s = _axes_and_sizes(x, s, axes)
  for axis, n in zip(axes, s):
    x = _along(_dct_last, _resize(x, n, axis), axis, norm)
  return x


def idctn(x, type: int = 2, s=None, axes=None, norm=None):
  """idct applied along each of `axes` (all axes by default)."""
  _check(type, norm)
  x = _prepare(x)
  axes, s = _axes_and_sizes(x, s, axes)
  for axis, n in zip(axes, s):
    x = _along(_idct_last, _resize(x, n, axis), axis, norm)
  return x
