"""jax.scipy.signal spectral estimates: stft, csd and welch.

The signal is cut into overlapping segments of nperseg samples (step
nperseg - noverlap), each detrended, windowed and Fourier transformed; csd
averages conj(X) Y over segments with 'density' (per Hz) or 'spectrum' scaling,
and doubles the one-sided bins that stand for two frequencies.
"""

from __future__ import annotations

import operator

import numpy as np

from jax._src.numpy import fft as jnp_fft
from jax._src.numpy import namespace as jnp
from jax._src.scipy.signal import detrend as _detrend


def _cosine_window(coeffs):
  def make(n):
    k = np.arange(n) * 2 * np.pi / n  # periodic (DFT-even) windows, as for spectra
    return sum(c * np.cos(i * k) for i, c in enumerate(coeffs))
  return make


_WINDOWS = {
    "hann": _cosine_window((0.5, -0.5)), "hanning": _cosine_window((0.5, -0.5)),
    "hamming": _cosine_window((0.54, -0.46)),
    "blackman": _cosine_window((0.42, -0.5, 0.08)),
    "boxcar": lambda n: np.ones(n), "ones": lambda n: np.ones(n),
    "rectangular": lambda n: np.ones(n),
    "bartlett": lambda n: 1 - np.abs(2 * np.arange(n) / n - 1),
}


def _window(window, nperseg, dtype):
  if isinstance(window, str):
    if window not in _WINDOWS:
      raise ValueError(f"Unknown window type {window!r}; supported: {sorted(_WINDOWS)} or "
                       "an array")
    return jnp.asarray(_WINDOWS[window](nperseg), dtype)
  win = jnp.asarray(window, dtype)
  if win.ndim != 1 or win.shape[0] != nperseg:
    raise ValueError(f"window must be 1-D of length nperseg={nperseg}, got {win.shape}")
  return win


def _sizes(n, window, nperseg, noverlap, nfft):
  if nperseg is None:
    nperseg = (len(window) if not isinstance(window, str) else min(256, n))
  nperseg = operator.index(nperseg)
  if nperseg < 1:
    raise ValueError("nperseg must be a positive integer")
  nperseg = min(nperseg, n) if isinstance(window, str) else nperseg
  nfft = nperseg if nfft is None else operator.index(nfft)
  if nfft < nperseg:
    raise ValueError("nfft must be greater than or equal to nperseg.")
  noverlap = nperseg // 2 if noverlap is None else operator.index(noverlap)
  if noverlap >= nperseg:
    raise ValueError("noverlap must be less than nperseg.")
  return nperseg, noverlap, nfft


def _segments(x, nperseg, step):
  nseg = (x.shape[-1] - nperseg) // step + 1
  idx = np.arange(nseg)[:, None] * step + np.arange(nperseg)[None, :]
  return x[..., idx]


def _detrended(seg, detrend):
  if detrend is False or detrend is None:
    return seg
  if callable(detrend):
    return detrend(seg)
  return _detrend(seg, axis=-1, type=detrend)


def _spectra(x, fs, window, nperseg, noverlap, nfft, detrend, onesided, scaling, mode):
  """Per-segment transforms (..., nseg, nfreq), the frequencies and the scale factor."""
  win = _window(window, nperseg, x.real.dtype)
  seg = _detrended(_segments(x, nperseg, nperseg - noverlap), detrend) * win
  if onesided:
    spec = jnp_fft.rfft(seg, n=nfft)
    freqs = np.fft.rfftfreq(nfft, 1 / fs)
  else:
    spec = jnp_fft.fft(seg, n=nfft)
    freqs = np.fft.fftfreq(nfft, 1 / fs)
  if scaling == "density":
    scale = 1.0 / (fs * jnp.sum(win * win))
  elif scaling == "spectrum":
    scale = 1.0 / jnp.sum(win) ** 2
  else:
    raise ValueError(f"Unknown scaling: {scaling!r}")
  if mode == "stft":
    scale = jnp.sqrt(scale)
  return spec, freqs, scale


def _prepare(x, axis):
  x = jnp.asarray(x)
  if not np.issubdtype(x.dtype, np.inexact):
    x = x.astype(jnp.result_type(x, 1.0))
  return jnp.moveaxis(x, axis, -1)


def csd(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
        detrend="constant", return_onesided=True, scaling="density", axis=-1,
        average="mean"):
  """Cross spectral density of x and y by Welch's method: (freqs, Pxy)."""
  if average != "mean":
    raise NotImplementedError(f"average={average!r} is not supported; use 'mean'")
  x = _prepare(x, axis)
  y = x if y is None else _prepare(y, axis)
  if x.shape[-1] != y.shape[-1]:
    raise ValueError(f"x and y must have the same length along axis, got {x.shape[-1]} "
                     f"and {y.shape[-1]}")
  complex_input = np.issubdtype(jnp.result_type(x, y), np.complexfloating)
  onesided = return_onesided and not complex_input
  nperseg, noverlap, nfft = _sizes(x.shape[-1], window, nperseg, noverlap, nfft)
  args = (fs, window, nperseg, noverlap, nfft, detrend, onesided, scaling, "psd")
  fx, freqs, scale = _spectra(x, *args)
  fy = fx if y is x else _spectra(y, *args)[0]
  pxy = jnp.conj(fx) * fy * scale
  if onesided:
    last = -1 if nfft % 2 == 0 else None
    pxy = pxy.at[..., 1:last].multiply(2)
  pxy = jnp.mean(pxy, axis=-2)
  if y is x and not complex_input:
    pxy = pxy.real
  return jnp.asarray(freqs, x.real.dtype), jnp.moveaxis(pxy, -1, axis)


def welch(x, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          detrend="constant", return_onesided=True, scaling="density", axis=-1,
          average="mean"):
  """Power spectral density by Welch's method: (freqs, Pxx)."""
  freqs, pxx = csd(x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
                   scaling, axis, average)
  return freqs, pxx.real


_BOUNDARY = ("even", "odd", "constant", "zeros", None)


def _extend(x, n, boundary):
  if boundary is None:
    return x
  if boundary == "zeros":
    pad = jnp.zeros(x.shape[:-1] + (n,), x.dtype)
    return jnp.concatenate([pad, x, pad], -1)
  left, right = jnp.flip(x[..., 1:n + 1], -1), jnp.flip(x[..., -n - 1:-1], -1)
  if boundary == "odd":
    left, right = 2 * x[..., :1] - left, 2 * x[..., -1:] - right
  elif boundary == "constant":
    left = jnp.broadcast_to(x[..., :1], x.shape[:-1] + (n,))
    right = jnp.broadcast_to(x[..., -1:], x.shape[:-1] + (n,))
  return jnp.concatenate([left, x, right], -1)


def stft(x, fs=1.0, window="hann", nperseg=256, noverlap=None, nfft=None, detrend=False,
         return_onesided=True, boundary="zeros", padded=True, axis=-1):
  """Short-time Fourier transform: (freqs, segment times, Zxx[..., freq, time])."""
  if boundary not in _BOUNDARY:
    raise ValueError(f"Unknown boundary option {boundary!r}, must be one of {_BOUNDARY}")
  x = _prepare(x, axis)
  nperseg, noverlap, nfft = _sizes(x.shape[-1], window, nperseg, noverlap, nfft)
  x = _extend(x, nperseg // 2, boundary)
  step = nperseg - noverlap
  if padded:
    extra = (-(x.shape[-1] - nperseg) % step) % nperseg
    x = jnp.concatenate([x, jnp.zeros(x.shape[:-1] + (extra,), x.dtype)], -1)
  onesided = return_onesided and not np.issubdtype(x.dtype, np.complexfloating)
  spec, freqs, scale = _spectra(x, fs, window, nperseg, noverlap, nfft, detrend, onesided,
                                "spectrum", "stft")
  nseg = spec.shape[-2]
  times = np.arange(nseg) * step / fs + (nperseg / 2) / fs
  if boundary is not None:
    times = times - (nperseg / 2) / fs
  zxx = jnp.swapaxes(spec * scale, -1, -2)
  dtype = x.real.dtype
  if axis not in (-1, x.ndim - 1):
    zxx = jnp.moveaxis(zxx, (-2, -1), (axis, -1)) if x.ndim > 1 else zxx
  return jnp.asarray(freqs, dtype), jnp.asarray(times, dtype), zxx


def istft(Zxx, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          input_onesided=True, boundary=True, time_axis=-1, freq_axis=-2):
  """Inverse of stft by weighted overlap-add: (times, x)."""
  z = jnp.asarray(Zxx)
  if z.ndim < 2:
    raise ValueError("Input stft must be at least 2d!")
  time_axis, freq_axis = time_axis % z.ndim, freq_axis % z.ndim
  if time_axis == freq_axis:
    raise ValueError("Must specify differing time and frequency axes!")
  z = jnp.moveaxis(z, (freq_axis, time_axis), (-2, -1))
  nfreq, nseg = z.shape[-2:]
  n_default = 2 * (nfreq - 1) if input_onesided else nfreq
  nperseg = n_default if nperseg is None else operator.index(nperseg)
  if nperseg < 1:
    raise ValueError("nperseg must be a positive integer")
  nfft = nperseg if nfft is None else operator.index(nfft)
  if nfft < nperseg:
    raise ValueError("nfft must be greater than or equal to nperseg.")
  noverlap = nperseg // 2 if noverlap is None else operator.index(noverlap)
  if noverlap >= nperseg:
    raise ValueError("noverlap must be less than nperseg.")
  step = nperseg - noverlap
  win = _window(window, nperseg, jnp.zeros((), z.dtype).real.dtype)
  frames = jnp.swapaxes(z, -1, -2)
  if input_onesided:
    seg = jnp_fft.irfft(frames, n=nfft)[..., :nperseg]
  else:
    seg = jnp_fft.ifft(frames, n=nfft)[..., :nperseg]
  seg = seg * jnp.sum(win) * win
  length = nperseg + (nseg - 1) * step
  idx = (np.arange(nseg)[:, None] * step + np.arange(nperseg)[None, :]).reshape(-1)
  x = jnp.zeros(seg.shape[:-2] + (length,), seg.dtype)
  x = x.at[..., idx].add(seg.reshape(seg.shape[:-2] + (-1,)))
  norm = jnp.zeros((length,), win.dtype).at[idx].add(jnp.tile(win * win, nseg))
  if boundary:
    x = x[..., nperseg // 2:length - nperseg // 2]
    norm = norm[nperseg // 2:length - nperseg // 2]
  x = x / jnp.where(norm > 1e-10, norm, 1)
  # Like SciPy and JAX, the times count along the output's first axis (its only one for 1-D).
  times = np.arange(x.shape[0]) / float(fs)
  return jnp.asarray(times, win.dtype), x
