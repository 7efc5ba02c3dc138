"""Smaller jax.numpy functions: dtype predicates, Array API aliases, index helpers,
window functions, bit packing, block assembly and phase unwrapping."""

from __future__ import annotations

import builtins
import math

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src import errors
from jax._src.array import ArrayImpl
from jax._src.lax import elementwise as lax_ew
from jax._src.lax import special_gamma
from jax._src.numpy import reductions
from jax._src.numpy import ufuncs
from jax._src.numpy.creation import arange, array, asarray, ones, zeros
from jax._src.numpy.creation import indices as _indices
from jax._src.numpy.cumulative import cumsum
from jax._src.numpy.shape_ops import concatenate, expand_dims, moveaxis, reshape, transpose
from jax._src.numpy.util import (broadcast_shapes, broadcast_to, canonical_axis,
                                 check_arraylike_strict, promote_dtypes_inexact)
from jax._src.numpy.indexing_funcs import nonzero

euler_gamma = 0.5772156649015329


def _aval(x):
  return core.get_aval(x)


def _static_int(x, name: str) -> int:
  value = core.concrete_value(x) if not isinstance(x, int) else x
  if value is None:
    raise errors.ConcretizationTypeError(x, f"The {name} argument must be static")
  return int(value)


# ----------------------------------------------------------------------------- copies & dtypes


def copy(a, order=None):
  check_arraylike_strict("copy", a)
  del order  # arrays have one layout
  return array(a, copy=True)


def astype(x, dtype, /, *, copy: bool = False, device=None):
  check_arraylike_strict("astype", x)
  del copy, device  # arrays are immutable and live on the one default device
  x = asarray(x)
  if dtype is None:
    dtype = dtypes.default_float_dtype()
  return lax_ew.convert_element_type(x, dtypes.canonicalize_dtype(dtype), False)


def iscomplexobj(x) -> bool:
  if x is None:
    return False
  # Anything with a dtype attribute answers by it, as in JAX: arrays, and also the
  # scalar types (`jnp.iscomplexobj(jnp.complex64)` is True).
  dt = getattr(x, "dtype", None)
  if not isinstance(dt, np.dtype):
    try:
      dt = _aval(x).dtype if core.is_valid_jaxval(x) else np.asarray(x).dtype
    except TypeError:
      dt = np.asarray(x).dtype
  return dtypes.issubdtype(dt, np.complexfloating)


def isrealobj(x) -> bool:
  return not iscomplexobj(x)


def iscomplex(x):
  check_arraylike_strict("iscomplex", x)
  x = asarray(x)
  return ufuncs.not_equal(ufuncs.imag(x), 0)


def isreal(x):
  check_arraylike_strict("isreal", x)
  x = asarray(x)
  return ufuncs.equal(ufuncs.imag(x), 0)


def isscalar(element) -> bool:
  """True for Python/NumPy scalars and for 0-d jax arrays (as in JAX)."""
  if np.isscalar(element):
    return True
  if isinstance(element, (np.ndarray, ArrayImpl, core.Tracer)):
    return _aval(element).ndim == 0
  return False


_KIND_PREDICATES = {
    "bool": lambda dt: dt == np.dtype(np.bool_),
    "signed integer": lambda dt: dtypes.issubdtype(dt, np.signedinteger),
    "unsigned integer": lambda dt: dtypes.issubdtype(dt, np.unsignedinteger),
    "integral": lambda dt: dtypes.issubdtype(dt, np.integer),
    "real floating": lambda dt: dtypes.issubdtype(dt, np.floating),
    "complex floating": lambda dt: dtypes.issubdtype(dt, np.complexfloating),
    "numeric": lambda dt: dt != np.dtype(np.bool_) and dtypes.issubdtype(dt, np.number),
}


def isdtype(dtype, kind) -> bool:
  """Array API dtype-kind test: `kind` is a dtype, a kind name, or a tuple of them."""
  dt = np.dtype(dtype)
  kinds = kind if isinstance(kind, tuple) else (kind,)
  for k in kinds:
    if isinstance(k, str):
      if k not in _KIND_PREDICATES:
        raise ValueError(f"Unrecognized {k=!r}")
      if _KIND_PREDICATES[k](dt):
        return True
    elif isinstance(k, tuple):
      raise TypeError(f"kind argument must not contain nested tuples; got {kind}")
    else:
      try:
        if np.dtype(k) == dt:
          return True
      except TypeError as e:
        raise TypeError(f"Expected kind to be a dtype, string, or tuple; got {k!r}") from e
  return False


# ----------------------------------------------------------------------------- Array API aliases


def permute_dims(a, /, axes):
  check_arraylike_strict("permute_dims", a)
  return transpose(a, tuple(axes))


def concat(arrays, /, *, axis: int | None = 0):
  return concatenate(arrays, axis=axis)


def unstack(x, /, *, axis: int = 0):
  check_arraylike_strict("unstack", x)
  x = asarray(x)
  if x.ndim == 0:
    raise ValueError("Unstack requires arrays with rank > 0, however a scalar array was "
                     "passed.")
  axis = canonical_axis(axis, x.ndim)
  moved = moveaxis(x, axis, 0)
  return tuple(moved[i] for i in range(moved.shape[0]))


def rollaxis(a, axis: int, start: int = 0):
  check_arraylike_strict("rollaxis", a)
  a = asarray(a)
  n = a.ndim
  axis = canonical_axis(axis, n)
  if not -n <= start <= n:
    raise ValueError(f"start={start} must satisfy {-n}<=start<={n}")
  start = start + n if start < 0 else start
  if start > axis:
    start -= 1
  return moveaxis(a, axis, start)


def fabs(x, /):
  check_arraylike_strict("fabs", x)
  (x,) = promote_dtypes_inexact(asarray(x))
  if dtypes.issubdtype(x.dtype, np.complexfloating):
    raise TypeError("ufunc 'fabs' does not support complex dtypes")
  return ufuncs.abs(x)


def spacing(x, /):
  """Distance from x to the next representable number away from zero."""
  check_arraylike_strict("spacing", x)
  (x,) = promote_dtypes_inexact(asarray(x))
  if dtypes.issubdtype(x.dtype, np.complexfloating):
    raise TypeError("spacing is not supported for complex inputs")
  inf = np.array(np.inf, x.dtype)
  away = ufuncs.where(ufuncs.signbit(x), -inf, inf)
  return ufuncs.nextafter(x, away) - x


def vecdot(x1, x2, /, *, axis: int = -1, precision=None, preferred_element_type=None):
  """Conjugated dot product of vectors along `axis`, broadcasting the other axes."""
  del precision  # one precision on this backend
  check_arraylike_strict("vecdot", x1, x2)
  x1, x2 = asarray(x1), asarray(x2)
  if x1.shape[axis] != x2.shape[axis]:
    raise ValueError("x1 and x2 must have the same size along the given axis.")
  out = reductions.sum(ufuncs.conj(moveaxis(x1, axis, -1)) * moveaxis(x2, axis, -1), axis=-1)
  if preferred_element_type is not None:
    out = lax_ew.convert_element_type(out, dtypes.canonicalize_dtype(preferred_element_type))
  return out


def matvec(x1, x2, /):
  """Matrix-vector product over the last two / last one axes, broadcasting the rest."""
  check_arraylike_strict("matvec", x1, x2)
  x1, x2 = asarray(x1), asarray(x2)
  if x1.ndim < 2 or x2.ndim < 1 or x1.shape[-1] != x2.shape[-1]:
    raise ValueError(f"matvec: shapes {x1.shape} and {x2.shape} are incompatible")
  return reductions.sum(x1 * expand_dims(x2, -2), axis=-1)


def vecmat(x1, x2, /):
  """Conjugated vector-matrix product, broadcasting the leading axes."""
  check_arraylike_strict("vecmat", x1, x2)
  x1, x2 = asarray(x1), asarray(x2)
  if x1.ndim < 1 or x2.ndim < 2 or x1.shape[-1] != x2.shape[-2]:
    raise ValueError(f"vecmat: shapes {x1.shape} and {x2.shape} are incompatible")
  return reductions.sum(expand_dims(ufuncs.conj(x1), -1) * x2, axis=-2)


# ----------------------------------------------------------------------------- index helpers


def _tri_indices(n, k, m, upper: bool, name: str):
  n = _static_int(n, "n")
  m = n if m is None else _static_int(m, "m")
  k = _static_int(k, "k")
  rows, cols = np.indices((n, m))
  mask = cols - rows >= k if upper else cols - rows <= k
  dtype = dtypes.default_int_dtype()
  return asarray(rows[mask].astype(dtype)), asarray(cols[mask].astype(dtype))


def tril_indices(n, k=0, m=None):
  return _tri_indices(n, k, m, False, "tril_indices")


def triu_indices(n, k=0, m=None):
  return _tri_indices(n, k, m, True, "triu_indices")


def _check_2d(name, arr):
  shape = np.shape(arr) if not core.is_valid_jaxval(arr) else _aval(arr).shape
  if len(shape) != 2:
    raise ValueError(f"{name} requires a 2-D array, got shape {shape}")
  return shape


def tril_indices_from(arr, k=0):
  n, m = _check_2d("tril_indices_from", arr)
  return tril_indices(n, k, m)


def triu_indices_from(arr, k=0):
  n, m = _check_2d("triu_indices_from", arr)
  return triu_indices(n, k, m)


def diag_indices(n, ndim=2):
  n, ndim = _static_int(n, "n"), _static_int(ndim, "ndim")
  if n < 0:
    raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
  if ndim < 0:
    raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
  return (arange(n, dtype=dtypes.default_int_dtype()),) * ndim


def diag_indices_from(arr):
  check_arraylike_strict("diag_indices_from", arr)
  shape = _aval(asarray(arr)).shape
  if len(shape) < 2:
    raise ValueError("input array must be at least 2-d")
  if len(set(shape)) != 1:
    raise ValueError("All dimensions of input must be of equal length")
  return diag_indices(shape[0], len(shape))


def mask_indices(n, mask_func, k=0, *, size=None):
  return nonzero(mask_func(ones((n, n), np.bool_), k), size=size)


def fromfunction(function, shape, *, dtype=float, **kwargs):
  """function(*coordinate arrays) over a grid of the given static shape."""
  shape = tuple(_static_int(d, "shape") for d in (shape if np.ndim(shape) else (shape,)))
  grids = _indices(shape, dtype=dtype)
  return function(*(grids[i] for i in range(len(shape))), **kwargs)


def unravel_index(indices, shape):
  check_arraylike_strict("unravel_index", indices)
  idx = asarray(indices)
  if not dtypes.issubdtype(idx.dtype, np.integer):
    raise TypeError("Only integer indices are supported in unravel_index, got "
                    f"{idx.dtype}")
  shape = tuple(_static_int(d, "shape") for d in np.atleast_1d(shape))
  total = math.prod(shape)
  # Out-of-range indices are clipped, as in JAX (NumPy raises instead).
  idx = ufuncs.clip(ufuncs.where(idx < 0, idx + total, idx), 0, builtins.max(total - 1, 0))
  out = []
  for d in reversed(shape):
    out.append(idx % d)
    idx = idx // d
  return tuple(reversed(out))


def ravel_multi_index(multi_index, dims, mode: str = "raise", order: str = "C", *,
                      dtype=None):
  dims = tuple(_static_int(d, "dims") for d in dims)
  if len(multi_index) != len(dims):
    raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
  if order not in ("C", "F"):
    raise ValueError("only 'C' or 'F' order is permitted")
  idx = [asarray(i) for i in multi_index]
  for i in idx:
    if not dtypes.issubdtype(i.dtype, np.integer):
      raise TypeError("only int indices permitted")
  if mode == "raise":
    values = [core.concrete_value(i) for i in idx]
    if any(v is None for v in values):
      raise errors.ConcretizationTypeError(
          idx[0], "The error occurred because ravel_multi_index was called with mode="
          "'raise'; use mode='wrap' or mode='clip' inside transformations.")
    if builtins.any(np.any((np.asarray(v) < 0) | (np.asarray(v) >= d))
                    for v, d in zip(values, dims)):
      raise ValueError("invalid entry in coordinates array")
  elif mode == "wrap":
    idx = [i % d for i, d in zip(idx, dims)]
  elif mode == "clip":
    idx = [ufuncs.clip(i, 0, d - 1) for i, d in zip(idx, dims)]
  else:
    raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', or 'clip'")
  order_dims = list(zip(idx, dims))
  if order == "F":
    order_dims = order_dims[::-1]
  out_dtype = dtypes.canonicalize_dtype(dtype) if dtype is not None else \
      dtypes.default_int_dtype()
  out = zeros((), out_dtype)
  for i, d in order_dims:
    out = out * d + lax_ew.convert_element_type(i, out_dtype)
  return out


# ----------------------------------------------------------------------------- windows


def _window_size(M, name):
  M = _static_int(M, "M")
  return M


def _cosine_window(M, coeffs, name):
  M = _window_size(M, name)
  dtype = dtypes.default_float_dtype()
  if M <= 1:
    return ones((builtins.max(M, 0),), dtype)
  n = arange(M, dtype=dtype)
  out = zeros((M,), dtype)
  for j, c in enumerate(coeffs):
    out = out + c * ufuncs.cos(2 * np.pi * j * n / (M - 1))
  return out


def bartlett(M):
  M = _window_size(M, "bartlett")
  dtype = dtypes.default_float_dtype()
  if M <= 1:
    return ones((builtins.max(M, 0),), dtype)
  n = arange(M, dtype=dtype)
  return 1 - ufuncs.abs(2 * n - (M - 1)) / (M - 1)


def blackman(M):
  return _cosine_window(M, (0.42, -0.5, 0.08), "blackman")


def hamming(M):
  return _cosine_window(M, (0.54, -0.46), "hamming")


def hanning(M):
  return _cosine_window(M, (0.5, -0.5), "hanning")


def i0(x):
  """Modified Bessel function of the first kind, order 0."""
  check_arraylike_strict("i0", x)
  (x,) = promote_dtypes_inexact(asarray(x))
  if dtypes.issubdtype(x.dtype, np.complexfloating):
    raise ValueError("i0 does not support complex dtypes")
  return ufuncs.multiply(ufuncs.exp(ufuncs.abs(x)), special_gamma.bessel_i0e(x))


def kaiser(M, beta):
  M = _window_size(M, "kaiser")
  dtype = dtypes.default_float_dtype()
  if M <= 1:
    return ones((builtins.max(M, 0),), dtype)
  n = arange(M, dtype=dtype)
  alpha = 0.5 * (M - 1)
  r = (n - alpha) / alpha
  beta = asarray(beta, dtype)
  return i0(beta * ufuncs.sqrt(ufuncs.clip(1 - r * r, 0, None))) / i0(beta)


# ----------------------------------------------------------------------------- bits


def packbits(a, axis: int | None = None, bitorder: str = "big"):
  check_arraylike_strict("packbits", a)
  a = asarray(a)
  if not (dtypes.issubdtype(a.dtype, np.integer) or a.dtype == np.bool_):
    raise TypeError("Expected an input array of integer or boolean data type")
  if bitorder not in ("little", "big"):
    raise ValueError("'order' must be either 'little' or 'big'")
  bits = lax_ew.convert_element_type(ufuncs.not_equal(a, 0), np.uint8)
  if axis is None:
    bits = reshape(bits, (-1,))
    axis = 0
  axis = canonical_axis(axis, bits.ndim)
  bits = moveaxis(bits, axis, -1)
  n = bits.shape[-1]
  pad = (-n) % 8
  if pad:
    bits = concatenate([bits, zeros(bits.shape[:-1] + (pad,), np.uint8)], axis=-1)
  bits = reshape(bits, bits.shape[:-1] + ((n + pad) // 8, 8))
  shifts = np.arange(8, dtype=np.uint8)
  if bitorder == "big":
    shifts = shifts[::-1]
  packed = reductions.sum(ufuncs.left_shift(bits, asarray(shifts.copy())), axis=-1,
                          dtype=np.uint8)
  return moveaxis(packed, -1, axis)


def unpackbits(a, axis: int | None = None, count: int | None = None,
               bitorder: str = "big"):
  check_arraylike_strict("unpackbits", a)
  a = asarray(a)
  if a.dtype != np.uint8:
    raise TypeError("Expected an input array of unsigned byte data type")
  if bitorder not in ("little", "big"):
    raise ValueError("'order' must be either 'little' or 'big'")
  shifts = np.arange(8, dtype=np.uint8)
  if bitorder == "big":
    shifts = shifts[::-1]
  bits = ufuncs.bitwise_and(ufuncs.right_shift(a[..., None], asarray(shifts.copy())),
                            np.uint8(1))
  if axis is None:
    bits = reshape(bits, (-1,))
    axis = 0
  else:
    axis = canonical_axis(axis, a.ndim)
    bits = moveaxis(bits, -1, axis + 1)
    bits = reshape(bits, a.shape[:axis] + (a.shape[axis] * 8,) + a.shape[axis + 1:])
  if count is not None:
    n = bits.shape[axis]
    count = _static_int(count, "count")
    if count < 0:
      count = builtins.max(n + count, 0)
    if count <= n:
      bits = moveaxis(moveaxis(bits, axis, 0)[:count], 0, axis)
    else:
      extra = list(bits.shape)
      extra[axis] = count - n
      bits = concatenate([bits, zeros(tuple(extra), np.uint8)], axis=axis)
  return bits


# ----------------------------------------------------------------------------- assembly


def _block_depth(arrays, path=()):
  if isinstance(arrays, tuple):
    raise TypeError(f"jnp.block does not allow tuples; got a tuple at arrays{list(path)}")
  if isinstance(arrays, list):
    if not arrays:
      raise ValueError(f"List at arrays{list(path)} cannot be empty")
    depths = {_block_depth(a, path + (i,)) for i, a in enumerate(arrays)}
    if len(depths) != 1:
      raise ValueError("List depths are mismatched.")
    return depths.pop() + 1
  return 0


def _block(arrays, depth: int, result_ndim: int):
  if isinstance(arrays, list):
    parts = [_block(a, depth - 1, result_ndim) for a in arrays]
    return concatenate(parts, axis=result_ndim - depth)
  x = asarray(arrays)
  return reshape(x, (1,) * (result_ndim - x.ndim) + x.shape)


def _max_ndim(arrays):
  if isinstance(arrays, list):
    return builtins.max(_max_ndim(a) for a in arrays)
  return np.ndim(arrays) if not core.is_valid_jaxval(arrays) else _aval(arrays).ndim


def block(arrays):
  """Assemble an array from nested lists of blocks (innermost lists join the last axis)."""
  depth = _block_depth(arrays)
  if depth == 0:
    return array(arrays)
  result_ndim = builtins.max(depth, _max_ndim(arrays))
  return _block(arrays, depth, result_ndim)


def put_along_axis(arr, indices, values, axis: int | None, inplace: bool = True, *,
                   mode=None):
  if inplace:
    raise ValueError("jax.numpy.put_along_axis cannot modify arrays in-place, because JAX "
                     "arrays are immutable. Pass inplace=False to instead return an "
                     "updated array.")
  check_arraylike_strict("put_along_axis", arr, indices, values)
  arr, idx, values = asarray(arr), asarray(indices), asarray(values)
  if axis is None:
    arr_shape = arr.shape
    flat = reshape(arr, (-1,))
    return reshape(put_along_axis(flat, reshape(idx, (-1,)), reshape(values, (-1,)), 0,
                                  inplace=False, mode=mode), arr_shape)
  axis = canonical_axis(axis, arr.ndim)
  if idx.ndim != arr.ndim:
    raise ValueError("indices and arr must have the same number of dimensions")
  idx = ufuncs.where(idx < 0, idx + arr.shape[axis], idx)
  shape = broadcast_shapes(idx.shape, tuple(1 if i == axis else d
                                            for i, d in enumerate(arr.shape)))
  idx = broadcast_to(idx, shape)
  index = []
  for d in range(arr.ndim):
    if d == axis:
      index.append(idx)
    else:
      s = [1] * arr.ndim
      s[d] = shape[d]
      index.append(broadcast_to(reshape(arange(shape[d]), tuple(s)), shape))
  values = broadcast_to(values, shape).astype(arr.dtype)
  return arr.at[tuple(index)].set(values, mode=mode)


def fill_diagonal(a, val, wrap: bool = False, *, inplace: bool = True):
  if inplace:
    raise ValueError("JAX arrays are immutable, so fill_diagonal cannot modify the array "
                     "in place; pass inplace=False to return an updated array.")
  check_arraylike_strict("fill_diagonal", a, val)
  a = asarray(a)
  if a.ndim < 2:
    raise ValueError("array must be at least 2-d")
  if a.ndim > 2 and len(set(a.shape)) != 1:
    raise ValueError("All dimensions of input must be of equal length")
  n = builtins.min(a.shape)
  if a.ndim == 2 and wrap and a.shape[0] > a.shape[1]:
    # Wrapping restarts the diagonal every ncols + 1 rows in the flat layout.
    step = a.shape[1] + 1
    flat_idx = np.arange(0, a.shape[0] * a.shape[1], step)
  else:
    stride = int(sum(int(np.prod(a.shape[d + 1:])) for d in range(a.ndim)))
    flat_idx = np.arange(n) * stride
  val = reshape(asarray(val).astype(a.dtype), (-1,))
  k = flat_idx.size
  if val.size == 0:
    return a
  reps = -(-k // val.size)
  vals = concatenate([val] * reps)[:k] if reps > 1 else val[:k]
  flat = reshape(a, (-1,)).at[asarray(flat_idx.astype(np.int32))].set(vals)
  return reshape(flat, a.shape)


def unwrap(p, discont=None, axis: int = -1, period=2 * np.pi):
  """Remove jumps larger than `discont` by adding multiples of `period` along `axis`."""
  check_arraylike_strict("unwrap", p)
  (p,) = promote_dtypes_inexact(asarray(p))
  if dtypes.issubdtype(p.dtype, np.complexfloating):
    raise ValueError("jnp.unwrap does not support complex inputs.")
  if p.shape[axis] == 0:
    return p
  if discont is None:
    discont = period / 2
  axis = canonical_axis(axis, p.ndim)
  moved = moveaxis(p, axis, -1)
  dd = moved[..., 1:] - moved[..., :-1]
  interval_high = period / 2
  boundary_ambiguous = True
  interval_low = -interval_high
  ddmod = ufuncs.remainder(dd - interval_low, period) + interval_low
  if boundary_ambiguous:
    ddmod = ufuncs.where((ddmod == interval_low) & (dd > 0), interval_high, ddmod)
  correction = ufuncs.where(ufuncs.abs(dd) < discont, 0, ddmod - dd)
  out = concatenate([moved[..., :1], moved[..., 1:] + cumsum(correction, axis=-1)], axis=-1)
  return moveaxis(out, -1, axis)
