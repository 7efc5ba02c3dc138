"""lax.fft: the fast Fourier transform primitive (HLO `fft`), over the trailing dimensions.

`fft_type` is one of FFT (complex -> complex), IFFT (its inverse, scaled by
1/N), RFFT (real -> the non-negative half of the spectrum) and IRFFT (that half
-> real). All four are linear; their transposes are written with the other
types: the DFT matrix is symmetric, so FFT and IFFT are their own transposes;
RFFT is FFT of the real input followed by a truncation, so its transpose pads,
transforms and keeps the real part; IRFFT's transpose is an RFFT whose
interior bins are doubled (each stands for two conjugate bins of the full
spectrum), conjugated for JAX's convention on complex cotangents.
"""

from __future__ import annotations

import enum
import math
from typing import Sequence
import numpy as np

from jax._src import core
from jax._src.core import ShapedArray
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lax import elementwise as ew
from jax._src.lax.precision import EnumMeta
from jax._src.lax import shape as lax_shape
from jax._src.lax.utils import standard_primitive
from jax._src.lowering import hlo


class FftType(enum.IntEnum, metaclass=EnumMeta):
  FFT = 0
  IFFT = 1
  RFFT = 2
  IRFFT = 3


_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128)}
_REAL_OF = {v: k for k, v in _COMPLEX_OF.items()}


def _fft_type(fft_type) -> FftType:
  if isinstance(fft_type, str):
    try:
      return FftType[fft_type.upper()]
    except KeyError:
      raise ValueError(f"Unknown FFT type '{fft_type}'; expected one of FFT, IFFT, RFFT, "
                       "IRFFT") from None
  return FftType(int(fft_type))


def _fft_abstract_eval(x, *, fft_type, fft_lengths):
  k = len(fft_lengths)
  if not 1 <= k <= 3:
    raise ValueError(f"fft supports 1 to 3 transformed dimensions, got fft_lengths={fft_lengths}")
  if x.ndim < k:
    raise ValueError(f"fft: operand {x.str_short(short_dtypes=True)} has fewer than {k} dimensions")
  lead, tail = x.shape[:-k], x.shape[-k:]
  if fft_type == FftType.RFFT:
    if x.dtype not in _COMPLEX_OF:
      raise TypeError(f"RFFT requires a float32 or float64 operand, got {x.str_short(short_dtypes=True)}")
    if tail != tuple(fft_lengths):
      raise ValueError(f"RFFT: trailing dimensions {tail} must equal fft_lengths {fft_lengths}")
    return ShapedArray((*lead, *tail[:-1], fft_lengths[-1] // 2 + 1), _COMPLEX_OF[x.dtype])
  if x.dtype not in _REAL_OF:
    raise TypeError(f"{fft_type.name} requires a complex64 or complex128 operand, got "
                    f"{x.str_short(short_dtypes=True)}")
  if fft_type == FftType.IRFFT:
    want = (*fft_lengths[:-1], fft_lengths[-1] // 2 + 1)
    if tail != want:
      raise ValueError(f"IRFFT: trailing dimensions {tail} must be {want} for fft_lengths "
                       f"{fft_lengths}")
    return ShapedArray((*lead, *fft_lengths), _REAL_OF[x.dtype])
  if tail != tuple(fft_lengths):
    raise ValueError(f"{fft_type.name}: trailing dimensions {tail} must equal fft_lengths "
                     f"{fft_lengths}")
  return ShapedArray(x.shape, x.dtype)


fft_p = standard_primitive("fft", _fft_abstract_eval)


def fft(x, fft_type, fft_lengths: Sequence[int]):
  """The transform of type `fft_type` over the trailing len(fft_lengths) dimensions of x."""
  lengths = tuple(int(n) for n in fft_lengths)
  return fft_p.bind(x, fft_type=_fft_type(fft_type), fft_lengths=lengths)


def _fft_lowering(ctx, x, *, fft_type, fft_lengths):
  lengths = ",".join(map(str, fft_lengths))
  return ctx.op("fft", ctx.avals_out[0], x, attrs=f"fft_type={fft_type.name}, "
                f"fft_length={{{lengths}}}")


def _pad_last(x, size: int):
  aval = core.get_aval(x)
  missing = size - aval.shape[-1]
  zero = lax_shape.full((), 0, aval.dtype)
  cfg = [(0, 0, 0)] * (aval.ndim - 1) + [(0, missing, 0)]
  return lax_shape.pad(x, zero, cfg)


def _rfft_transpose(ct, fft_lengths):
  full = fft(_pad_last(ct, fft_lengths[-1]), FftType.FFT, fft_lengths)
  return ew.real(full)


def _irfft_transpose(ct, fft_lengths):
  x = fft(ct, FftType.RFFT, fft_lengths)
  aval = core.get_aval(x)
  m, odd = aval.shape[-1], fft_lengths[-1] % 2
  # Bin 0 (and the Nyquist bin for even lengths) appear once in the full spectrum, the rest twice.
  weights = np.full((m,), 2.0)
  weights[0] = 1.0
  if not odd:
    weights[-1] = 1.0
  weights /= math.prod(fft_lengths)
  w = lax_shape.broadcast_in_dim(np.asarray(weights, _REAL_OF[aval.dtype]).astype(aval.dtype),
                                 aval.shape, (aval.ndim - 1,))
  return ew.conj(ew.mul(x, w))


def _fft_transpose(ct, x, *, fft_type, fft_lengths):
  if fft_type == FftType.RFFT:
    return [_rfft_transpose(ct, fft_lengths)]
  if fft_type == FftType.IRFFT:
    return [_irfft_transpose(ct, fft_lengths)]
  return [fft(ct, fft_type, fft_lengths)]


def _fft_batch(axis, vals, dims, *, fft_type, fft_lengths):
  (x,), (d,) = vals, dims
  x = batching.moveaxis(x, d, 0)
  return fft_p.bind(x, fft_type=fft_type, fft_lengths=fft_lengths), 0


ad.deflinear2(fft_p, _fft_transpose)
batching.batch_rules[fft_p] = _fft_batch
hlo.lowering_rules[fft_p] = _fft_lowering
