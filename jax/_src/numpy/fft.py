"""jax.numpy.fft: NumPy's FFT API on top of the lax.fft primitive.

Each transform moves its axes to the end (lax.fft works on trailing
dimensions), pads or truncates them to the requested lengths, transforms at
most three axes per primitive call, and applies NumPy's `norm` scaling
("backward": 1/n on the inverse, "ortho": 1/sqrt(n) both ways, "forward": 1/n
on the forward transform).
"""

from __future__ import annotations

import math
import operator
import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.lax import elementwise as ew
from jax._src.lax import fft as lax_fft
from jax._src.lax import shape as lax_shape
from jax._src.lax.fft import FftType
from jax._src.numpy.util import asarray_like

_NORMS = (None, "backward", "ortho", "forward")


def _check_norm(norm):
  if norm not in _NORMS:
    raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".')


def _as_array(a):
  a = asarray_like(a)
  if not (hasattr(a, "dtype") or isinstance(a, core.Tracer)):
    a = np.asarray(a)
  return a


def _to_complex(a):
  aval = core.get_aval(a)
  dt = aval.dtype
  if dtypes.is_complex(dt):
    return a
  target = dtypes.to_inexact_dtype(dt) if not dtypes.is_float(dt) else dt
  target = dtypes.canonicalize_dtype(np.complex128 if target == np.float64 else np.complex64)
  return ew.convert_element_type(a, target)


def _to_real(a, name):
  aval = core.get_aval(a)
  if dtypes.is_complex(aval.dtype):
    raise TypeError(f"jax.numpy.fft.{name} does not support complex input")
  target = aval.dtype if dtypes.is_float(aval.dtype) else dtypes.to_inexact_dtype(aval.dtype)
  if target not in (np.dtype(np.float32), np.dtype(np.float64)):
    target = np.dtype(np.float32)  # half precision is transformed in float32
  return ew.convert_element_type(a, dtypes.canonicalize_dtype(target))


def _resize(a, axis: int, n: int):
  """Truncate or zero-pad `a` along `axis` to length n."""
  aval = core.get_aval(a)
  size = aval.shape[axis]
  if n == size:
    return a
  if n < size:
    limits = list(aval.shape)
    limits[axis] = n
    return lax_shape.slice(a, (0,) * aval.ndim, tuple(limits))
  cfg = [(0, 0, 0)] * aval.ndim
  cfg[axis] = (0, n - size, 0)
  return lax_shape.pad(a, lax_shape.full((), 0, aval.dtype), cfg)


def _canonical_axes(axes, ndim) -> list[int]:
  out = []
  for ax in axes:
    ax = operator.index(ax)
    if not -ndim <= ax < ndim:
      raise ValueError(f"axis {ax} is out of bounds for array of dimension {ndim}")
    out.append(ax % ndim)
  if len(set(out)) != len(out):
    raise ValueError(f"repeated axis in fft axes {tuple(axes)}")
  return out


def _axes_and_lengths(a, s, axes, real_inverse: bool):
  """Resolve NumPy's (s, axes) defaults; lengths are output lengths along each axis."""
  ndim = core.get_aval(a).ndim
  if s is not None:
    s = [operator.index(n) for n in s]
  if axes is None:
    axes = list(range(ndim - len(s), ndim)) if s is not None else list(range(ndim))
  axes = _canonical_axes(axes, ndim)
  if s is None:
    shape = core.get_aval(a).shape
    s = [shape[ax] for ax in axes]
    if real_inverse:
      s[-1] = 2 * (shape[axes[-1]] - 1)
  if len(s) != len(axes):
    raise ValueError(f"shape s={tuple(s)} and axes={tuple(axes)} must have the same length")
  for n in s:
    if n < 1:
      raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
  return axes, list(s)


def _move_to_end(a, axes):
  ndim = core.get_aval(a).ndim
  perm = [i for i in range(ndim) if i not in axes] + list(axes)
  if perm == list(range(ndim)):
    return a, None
  return lax_shape.transpose(a, tuple(perm)), perm


def _move_back(a, perm):
  if perm is None:
    return a
  inv = [0] * len(perm)
  for i, p in enumerate(perm):
    inv[p] = i
  return lax_shape.transpose(a, tuple(inv))


def _norm_scale(a, norm, n: int, forward: bool):
  """Rescale to NumPy's `norm`; the primitive's inverse types already include 1/n."""
  if norm in (None, "backward"):
    return a
  if norm == "ortho":
    factor = 1 / math.sqrt(n) if forward else math.sqrt(n)
  else:  # "forward"
    factor = 1 / n if forward else float(n)
  aval = core.get_aval(a)
  return ew.mul(a, lax_shape.full(aval.shape, factor, aval.dtype))


def _fftn(a, s, axes, norm, kind: FftType, name: str):
  _check_norm(norm)
  a = _to_complex(_as_array(a))
  axes, lengths = _axes_and_lengths(a, s, axes, False)
  for ax, n in zip(axes, lengths):
    a = _resize(a, ax, n)
  moved, perm = _move_to_end(a, axes)
  if len(axes) <= 3:
    out = lax_fft.fft(moved, kind, lengths)
  else:
    out = moved
    ndim = core.get_aval(out).ndim
    # One axis at a time: each transform is separable.
    for i in range(len(axes)):
      ax = ndim - len(axes) + i
      t, p = _move_to_end(out, [ax])
      t = lax_fft.fft(t, kind, [lengths[i]])
      out = _move_back(t, p)
  out = _move_back(out, perm)
  return _norm_scale(out, norm, math.prod(lengths), kind == FftType.FFT)


def _rfftn(a, s, axes, norm, name: str):
  _check_norm(norm)
  a = _to_real(_as_array(a), name)
  axes, lengths = _axes_and_lengths(a, s, axes, False)
  for ax, n in zip(axes, lengths):
    a = _resize(a, ax, n)
  moved, perm = _move_to_end(a, axes)
  k = min(3, len(axes))
  out = lax_fft.fft(moved, FftType.RFFT, lengths[-k:])
  ndim = core.get_aval(out).ndim
  for i in range(len(axes) - k):
    ax = ndim - len(axes) + i
    t, p = _move_to_end(out, [ax])
    out = _move_back(lax_fft.fft(t, FftType.FFT, [lengths[i]]), p)
  out = _move_back(out, perm)
  return _norm_scale(out, norm, math.prod(lengths), True)


def _irfftn(a, s, axes, norm, name: str):
  _check_norm(norm)
  a = _to_complex(_as_array(a))
  axes, lengths = _axes_and_lengths(a, s, axes, True)
  for ax, n in zip(axes[:-1], lengths[:-1]):
    a = _resize(a, ax, n)
  a = _resize(a, axes[-1], lengths[-1] // 2 + 1)
  moved, perm = _move_to_end(a, axes)
  k = min(3, len(axes))
  out = moved
  ndim = core.get_aval(out).ndim
  for i in range(len(axes) - k):
    ax = ndim - len(axes) + i
    t, p = _move_to_end(out, [ax])
    out = _move_back(lax_fft.fft(t, FftType.IFFT, [lengths[i]]), p)
  out = lax_fft.fft(out, FftType.IRFFT, lengths[-k:])
  out = _move_back(out, perm)
  return _norm_scale(out, norm, math.prod(lengths), False)


def _one_axis(n, axis):
  return None if n is None else [n], [axis]


# ----------------------------------------------------------------------------- public API


def fft(a, n=None, axis: int = -1, norm=None):
  s, axes = _one_axis(n, axis)
  return _fftn(a, s, axes, norm, FftType.FFT, "fft")


def ifft(a, n=None, axis: int = -1, norm=None):
  s, axes = _one_axis(n, axis)
  return _fftn(a, s, axes, norm, FftType.IFFT, "ifft")


def rfft(a, n=None, axis: int = -1, norm=None):
  s, axes = _one_axis(n, axis)
  return _rfftn(a, s, axes, norm, "rfft")


def irfft(a, n=None, axis: int = -1, norm=None):
  s, axes = _one_axis(n, axis)
  return _irfftn(a, s, axes, norm, "irfft")


def hfft(a, n=None, axis: int = -1, norm=None):
  """The FFT of a Hermitian-symmetric signal given by its first half: a real spectrum."""
  _check_norm(norm)
  a = _to_complex(_as_array(a))
  size = core.get_aval(a).shape[axis]
  n = 2 * (size - 1) if n is None else n
  swapped = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]
  return irfft(ew.conj(a), n, axis, swapped)


def ihfft(a, n=None, axis: int = -1, norm=None):
  """The inverse of hfft: the first half of the spectrum of a real signal, conjugated."""
  _check_norm(norm)
  swapped = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]
  return ew.conj(rfft(a, n, axis, swapped))


def fftn(a, s=None, axes=None, norm=None):
  return _fftn(a, s, axes, norm, FftType.FFT, "fftn")


def ifftn(a, s=None, axes=None, norm=None):
  return _fftn(a, s, axes, norm, FftType.IFFT, "ifftn")


def rfftn(a, s=None, axes=None, norm=None):
  return _rfftn(a, s, axes, norm, "rfftn")


def irfftn(a, s=None, axes=None, norm=None):
  return _irfftn(a, s, axes, norm, "irfftn")


def fft2(a, s=None, axes=(-2, -1), norm=None):
  return _fftn(a, s, axes, norm, FftType.FFT, "fft2")


def ifft2(a, s=None, axes=(-2, -1), norm=None):
  return _fftn(a, s, axes, norm, FftType.IFFT, "ifft2")


def rfft2(a, s=None, axes=(-2, -1), norm=None):
  return _rfftn(a, s, axes, norm, "rfft2")


def irfft2(a, s=None, axes=(-2, -1), norm=None):
  return _irfftn(a, s, axes, norm, "irfft2")


def _freq_dtype(dtype):
  return dtypes.canonicalize_dtype(dtype if dtype is not None else dtypes.default_float_dtype())


def _divide_by(k, scale, dt):
  """k / scale, with a Python scale rounded once to the result dtype."""
  shape = core.get_aval(k).shape
  if isinstance(scale, (int, float)):
    return ew.div(k, lax_shape.full(shape, scale, dt))
  scale = ew.convert_element_type(scale, dt)
  return ew.div(k, lax_shape.broadcast_in_dim(scale, shape, ()))


def fftfreq(n, d=1.0, *, dtype=None, device=None):
  """Sample frequencies [0, 1, ..., -(n//2), ..., -1] / (d n)."""
  del device
  n = operator.index(n)
  dt = _freq_dtype(dtype)
  k = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)]).astype(np.int32)
  scale = d * n if isinstance(d, (int, float)) else ew.mul(d, float(n))
  return _divide_by(ew.convert_element_type(k, dt), scale, dt)


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
  """Sample frequencies [0, 1, ..., n//2] / (d n) of rfft."""
  del device
  n = operator.index(n)
  dt = _freq_dtype(dtype)
  k = np.arange(n // 2 + 1, dtype=np.int32)
  scale = d * n if isinstance(d, (int, float)) else ew.mul(d, float(n))
  return _divide_by(ew.convert_element_type(k, dt), scale, dt)


def _roll(x, shift: int, axis: int):
  aval = core.get_aval(x)
  n = aval.shape[axis]
  if n == 0:
    return x
  shift %= n
  if shift == 0:
    return x
  starts, limits = [0] * aval.ndim, list(aval.shape)
  limits[axis] = n - shift
  head = lax_shape.slice(x, tuple(starts), tuple(limits))
  starts[axis], limits[axis] = n - shift, n
  tail = lax_shape.slice(x, tuple(starts), tuple(limits))
  return lax_shape.concatenate([tail, head], axis)


def _shift(x, axes, sign: int):
  x = _as_array(x)
  ndim = core.get_aval(x).ndim
  if axes is None:
    axes = list(range(ndim))
  elif isinstance(axes, int):
    axes = [axes]
  for ax in _canonical_axes(axes, ndim):
    n = core.get_aval(x).shape[ax]
    x = _roll(x, sign * (n // 2) if sign > 0 else -(n // 2), ax)
  return x


def fftshift(x, axes=None):
  """Move the zero-frequency bin to the centre (roll by n // 2)."""
  return _shift(x, axes, 1)


def ifftshift(x, axes=None):
  """The inverse of fftshift (roll by -(n // 2))."""
  return _shift(x, axes, -1)
