"""jax.numpy.linalg: NumPy's (and the array API's) linear algebra on lax.linalg.

Every function maps over leading batch dimensions. Solves, inverses and
determinants go through an LU factorization; rank, pseudo-inverse, least
squares and the spectral norms through the SVD.
"""

from __future__ import annotations

import operator
import types
from functools import reduce
from typing import NamedTuple

import numpy as np

from jax._src import dtypes
from jax._src.numpy import eig as lax_linalg_eig
from jax._src.lax import linalg as lax_linalg
from jax._src.numpy import (creation, einsum, indexing_funcs, reductions, shape_ops, sorting,
                            ufuncs, util)
from jax._src.numpy.util import asarray_like, promote_dtypes_inexact


class EigResult(NamedTuple):
  eigenvalues: object
  eigenvectors: object


class EighResult(NamedTuple):
  eigenvalues: object
  eigenvectors: object


class QRResult(NamedTuple):
  Q: object
  R: object


class SlogdetResult(NamedTuple):
  sign: object
  logabsdet: object


class SVDResult(NamedTuple):
  U: object
  S: object
  Vh: object


# The jax.numpy functions this module is written with, from the modules defining them.
_NUMPY = types.SimpleNamespace(
    abs=ufuncs.abs, any=reductions.any, arange=creation.arange, argsort=sorting.argsort,
    array=creation.array, asarray=creation.asarray, bitwise_and=ufuncs.bitwise_and,
    broadcast_to=util.broadcast_to, conj=ufuncs.conj, cross=einsum.cross,
    diagonal=shape_ops.diagonal, expand_dims=shape_ops.expand_dims, eye=creation.eye,
    finfo=dtypes.finfo, inf=np.inf, isnan=ufuncs.isnan, log=ufuncs.log,
    matmul=shape_ops.matmul, max=reductions.max, min=reductions.min,
    moveaxis=shape_ops.moveaxis, outer=shape_ops.outer, prod=reductions.prod,
    ravel=shape_ops.ravel, real=ufuncs.real, reshape=shape_ops.reshape, sqrt=ufuncs.sqrt,
    squeeze=shape_ops.squeeze, sum=reductions.sum, swapaxes=shape_ops.swapaxes,
    take_along_axis=indexing_funcs.take_along_axis, tensordot=einsum.tensordot,
    trace=shape_ops.trace, transpose=shape_ops.transpose, where=ufuncs.where,
    zeros=creation.zeros)


def _jnp():
  return _NUMPY


def _inexact(*args):
  """Arrays promoted to a common inexact dtype (ints become the default float)."""
  return promote_dtypes_inexact(*[_jnp().asarray(asarray_like(a)) for a in args])


def check_square(name: str, a) -> None:
  shape = np.shape(a)
  if len(shape) < 2 or shape[-1] != shape[-2]:
    raise ValueError(f"Argument to {name} must have shape [..., n, n] (square matrices), "
                     f"got {shape}.")


def _check_rank2(name: str, a) -> None:
  if np.ndim(a) < 2:
    raise ValueError(f"{name} requires an array of rank >= 2, got shape {np.shape(a)}.")


def _h(x):
  jnp = _jnp()
  return jnp.conj(jnp.swapaxes(x, -1, -2))


# ----------------------------------------------------------------------------- factorizations


def cholesky(a, *, upper: bool = False, symmetrize_input: bool = True):
  (a,) = _inexact(a)
  check_square("cholesky", a)
  l = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
  return _h(l) if upper else l


def qr(a, mode: str = "reduced"):
  (a,) = _inexact(a)
  _check_rank2("qr", a)
  if mode not in ("reduced", "complete", "r"):
    if mode == "raw":
      raise NotImplementedError("The 'raw' mode of jnp.linalg.qr is not supported")
    raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
  q, r = lax_linalg.qr(a, full_matrices=mode == "complete")
  return r if mode == "r" else QRResult(q, r)


def eigh(a, UPLO: str | None = None, symmetrize_input: bool = True):
  (a,) = _inexact(a)
  check_square("eigh", a)
  if UPLO not in (None, "L", "U"):
    raise ValueError(f"UPLO must be 'L' or 'U', got {UPLO!r}")
  v, w = lax_linalg.eigh(a, lower=UPLO != "U", symmetrize_input=symmetrize_input)
  return EighResult(w, v)


def eig(a):
  """Eigenvalues and right eigenvectors (columns of unit norm) of general square matrices;
  both are complex."""
  (a,) = _inexact(a)
  check_square("eig", a)
  w, v = lax_linalg_eig.eig(a, compute_left_eigenvectors=False)
  return EigResult(w, v)


def eigvals(a):
  """The (complex) eigenvalues of general square matrices."""
  (a,) = _inexact(a)
  check_square("eigvals", a)
  return lax_linalg_eig.eig(a, compute_left_eigenvectors=False,
                            compute_right_eigenvectors=False)[0]


def eigvalsh(a, UPLO: str | None = "L", *, symmetrize_input: bool = True):
  return eigh(a, UPLO, symmetrize_input).eigenvalues


def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False,
        subset_by_index=None):
  (a,) = _inexact(a)
  _check_rank2("svd", a)
  if hermitian:
    return _hermitian_svd(a, compute_uv)
  out = lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv,
                       subset_by_index=subset_by_index)
  return SVDResult(*out) if compute_uv else out


def _hermitian_svd(a, compute_uv):
  # From the eigendecomposition: singular values are |w|, sorted descending.
  jnp = _jnp()
  w, v = eigh(a)
  s = jnp.abs(w)
  order = jnp.argsort(-s, axis=-1)
  s = jnp.take_along_axis(s, order, axis=-1)
  if not compute_uv:
    return s
  w_sorted = jnp.take_along_axis(w, order, axis=-1)
  u = jnp.take_along_axis(v, order[..., None, :], axis=-1)
  signs = jnp.where(w_sorted < 0, -1, 1).astype(a.dtype)
  return SVDResult(u, s, _h(u * signs[..., None, :]))


def svdvals(x):
  return svd(x, compute_uv=False)


# ----------------------------------------------------------------------------- LU-based


def _lu_solve(lu, perm, b):
  """Solves A x = b (b [..., n, k]) from A's LU factors; batch dims already match."""
  jnp = _jnp()
  n = lu.shape[-1]
  p = (perm[..., :, None] == jnp.arange(n, dtype=perm.dtype)).astype(b.dtype)
  pb = jnp.matmul(p, b)
  y = lax_linalg.triangular_solve(lu, pb, left_side=True, lower=True, unit_diagonal=True)
  return lax_linalg.triangular_solve(lu, y, left_side=True, lower=False)


def solve(a, b):
  jnp = _jnp()
  a, b = _inexact(a, b)
  check_square("solve", a)
  n = a.shape[-1]
  if b.ndim == 1:
    if b.shape[0] != n:
      raise ValueError(f"solve: b of shape {b.shape} does not match a of shape {a.shape}")
    return solve(a, b[:, None])[..., 0]
  if b.shape[-2] != n:
    raise ValueError(f"solve: b of shape {b.shape} does not match a of shape {a.shape}")
  batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
  a = jnp.broadcast_to(a, batch + a.shape[-2:])
  b = jnp.broadcast_to(b, batch + b.shape[-2:])
  lu, _, perm = lax_linalg.lu(a)
  return _lu_solve(lu, perm, b)


def inv(a):
  jnp = _jnp()
  (a,) = _inexact(a)
  check_square("inv", a)
  eye = jnp.broadcast_to(jnp.eye(a.shape[-1], dtype=a.dtype), a.shape)
  return solve(a, eye)


def _lu_sign_and_diag(a):
  """(parity sign of the pivots, diagonal of U) of a's LU factorization."""
  jnp = _jnp()
  lu, pivots, _ = lax_linalg.lu(a)
  diag = jnp.diagonal(lu, axis1=-2, axis2=-1)
  swaps = jnp.sum(pivots != jnp.arange(pivots.shape[-1], dtype=pivots.dtype), axis=-1)
  parity = jnp.where(jnp.bitwise_and(swaps, 1) == 1, -1, 1).astype(a.dtype)
  return parity, diag


def det(a):
  jnp = _jnp()
  (a,) = _inexact(a)
  check_square("det", a)
  parity, diag = _lu_sign_and_diag(a)
  return parity * jnp.prod(diag, axis=-1)


def slogdet(a, *, method: str | None = None):
  jnp = _jnp()
  (a,) = _inexact(a)
  check_square("slogdet", a)
  if method not in (None, "lu"):
    raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' (`None`).")
  parity, diag = _lu_sign_and_diag(a)
  is_zero = jnp.any(diag == 0, axis=-1)
  abs_diag = jnp.abs(diag)
  phase = jnp.prod(diag / abs_diag.astype(a.dtype), axis=-1) * parity
  sign = jnp.where(is_zero, jnp.zeros((), a.dtype), phase)
  logdet = jnp.sum(jnp.log(abs_diag), axis=-1)
  logdet = jnp.where(is_zero, jnp.array(-np.inf, logdet.dtype), logdet)
  return SlogdetResult(sign, logdet)


def matrix_power(a, n: int):
  jnp = _jnp()
  a = jnp.asarray(asarray_like(a))
  check_square("matrix_power", a)
  try:
    n = operator.index(n)
  except TypeError as err:
    raise TypeError(f"exponent must be an integer, got {n}") from err
  if n == 0:
    return jnp.broadcast_to(jnp.eye(a.shape[-1], dtype=a.dtype), a.shape)
  if n < 0:
    a, n = inv(a), -n
  result = None
  power = a
  while n:  # binary exponentiation
    if n & 1:
      result = power if result is None else jnp.matmul(result, power)
    n >>= 1
    if n:
      power = jnp.matmul(power, power)
  return result


# ----------------------------------------------------------------------------- SVD-based


def _default_rtol(a, s):
  jnp = _jnp()
  return jnp.finfo(s.dtype).eps * max(a.shape[-2:])


def matrix_rank(M, rtol=None, *, hermitian: bool = False, tol=None):
  jnp = _jnp()
  (M,) = _inexact(M)
  if M.ndim < 2:
    return jnp.any(M != 0).astype(np.int32)
  s = svd(M, compute_uv=False, hermitian=hermitian)
  smax = jnp.max(s, axis=-1, keepdims=True)
  if tol is not None:
    threshold = jnp.expand_dims(jnp.asarray(tol, s.dtype), -1) if np.ndim(tol) else tol
  else:
    rtol = _default_rtol(M, s) if rtol is None else jnp.expand_dims(jnp.asarray(rtol, s.dtype), -1)
    threshold = rtol * smax
  return jnp.sum(s > threshold, axis=-1).astype(np.int32)


def pinv(a, rtol=None, hermitian: bool = False, *, rcond=None):
  jnp = _jnp()
  (a,) = _inexact(a)
  _check_rank2("pinv", a)
  if rcond is not None:
    rtol = rcond
  u, s, vh = svd(a, full_matrices=False, hermitian=hermitian)
  if rtol is None:
    rtol = _default_rtol(a, s)
  else:
    rtol = jnp.expand_dims(jnp.asarray(rtol, s.dtype), -1)
  cutoff = rtol * jnp.max(s, axis=-1, keepdims=True)
  s_inv = jnp.where(s > cutoff, 1 / jnp.where(s > cutoff, s, 1), 0).astype(a.dtype)
  return jnp.matmul(_h(vh) * s_inv[..., None, :], _h(u))


def lstsq(a, b, rcond=None, *, numpy_resid: bool = False):
  jnp = _jnp()
  a, b = _inexact(a, b)
  if a.ndim != 2:
    raise TypeError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
  if b.ndim not in (1, 2):
    raise TypeError(f"{b.ndim}-dimensional array given. Array must be one or two-dimensional")
  m, n = a.shape
  if b.shape[0] != m:
    raise ValueError(f"Leading dimensions of input arrays must match, got {a.shape} and {b.shape}")
  vector = b.ndim == 1
  if vector:
    b = b[:, None]
  u, s, vh = svd(a, full_matrices=False)
  if rcond is None:
    rcond = jnp.finfo(s.dtype).eps * max(m, n)
  mask = s >= jnp.asarray(rcond, s.dtype) * (s[0] if s.size else 0)
  rank = jnp.sum(mask).astype(np.int32)
  safe_s = jnp.where(mask, s, 1).astype(a.dtype)
  uTb = jnp.matmul(_h(u), b)
  x = jnp.matmul(_h(vh), jnp.where(mask[:, None], uTb / safe_s[:, None], 0))
  if numpy_resid:
    full_rank = rank == n
    resid = jnp.where(full_rank & (m > n), jnp.sum(jnp.abs(b - jnp.matmul(a, x)) ** 2, axis=0),
                      0)
    resid = resid if m > n else jnp.zeros((0,), resid.dtype)
  else:
    resid = jnp.sum(jnp.abs(b - jnp.matmul(a, x)) ** 2, axis=0)
  if vector:
    x, resid = x[:, 0], (resid[0:1] if resid.size else resid)
  return x, resid, rank, s


def cond(x, p=None):
  jnp = _jnp()
  (x,) = _inexact(x)
  _check_rank2("cond", x)
  if p is None or p == 2:
    s = svd(x, compute_uv=False)
    return s[..., 0] / s[..., -1]
  if p == -2:
    s = svd(x, compute_uv=False)
    return s[..., -1] / s[..., 0]
  check_square("cond", x)
  r = norm(x, ord=p, axis=(-2, -1)) * norm(inv(x), ord=p, axis=(-2, -1))
  return jnp.where(jnp.isnan(r), jnp.inf, r)


# ----------------------------------------------------------------------------- norms


def _canonical_axes(axis, ndim):
  try:
    return tuple(operator.index(a) % ndim if -ndim <= operator.index(a) < ndim
                 else _out_of_bounds(a, ndim) for a in axis)
  except TypeError as err:
    raise TypeError(f"norm: axis must be None, an integer or a tuple of integers, got {axis}") \
        from err


def _out_of_bounds(a, ndim):
  raise ValueError(f"axis {a} is out of bounds for array of dimension {ndim}")


def _vector_norm(x, ord, axis, keepdims):
  jnp = _jnp()
  if isinstance(ord, str):
    raise ValueError(f"Invalid order '{ord}' for vector norm.")
  ax = jnp.abs(x)
  if ord is None or ord == 2:
    return jnp.sqrt(jnp.sum(jnp.real(x * jnp.conj(x)), axis=axis, keepdims=keepdims))
  if ord == np.inf:
    return jnp.max(ax, axis=axis, keepdims=keepdims)
  if ord == -np.inf:
    return jnp.min(ax, axis=axis, keepdims=keepdims)
  if ord == 0:
    return jnp.sum(x != 0, axis=axis, keepdims=keepdims).astype(ax.dtype)
  if ord == 1:
    return jnp.sum(ax, axis=axis, keepdims=keepdims)
  p = jnp.asarray(ord, ax.dtype)
  return jnp.sum(ax ** p, axis=axis, keepdims=keepdims) ** (1 / p)


def _matrix_norm(x, ord, axes, keepdims):
  jnp = _jnp()
  row, col = axes
  if ord is None or ord == "fro":
    return _vector_norm(x, 2, axes, keepdims)
  if ord in (1, -1):
    sums = jnp.sum(jnp.abs(x), axis=row, keepdims=True)
    out = (jnp.max if ord == 1 else jnp.min)(sums, axis=col, keepdims=True)
  elif ord in (np.inf, -np.inf):
    sums = jnp.sum(jnp.abs(x), axis=col, keepdims=True)
    out = (jnp.max if ord == np.inf else jnp.min)(sums, axis=row, keepdims=True)
  elif ord in (2, -2, "nuc"):
    moved = jnp.moveaxis(x, (row, col), (-2, -1))
    s = svd(moved, compute_uv=False)
    if ord == 2:
      out = jnp.max(s, axis=-1)
    elif ord == -2:
      out = jnp.min(s, axis=-1)
    else:
      out = jnp.sum(s, axis=-1)
    if keepdims:
      out = jnp.expand_dims(out, tuple(sorted((row, col))))
    return out
  else:
    raise ValueError(f"Invalid order '{ord}' for matrix norm.")
  return out if keepdims else jnp.squeeze(out, axis=(row, col))


def norm(x, ord=None, axis=None, keepdims: bool = False):
  (x,) = _inexact(x)
  ndim = x.ndim
  if axis is None:
    if ord is None:
      # Over every axis at once, without flattening (a reshape that merges split
      # dimensions has no sharding under an Explicit mesh).
      return _vector_norm(x, None, tuple(range(ndim)), keepdims)
    axis = tuple(range(ndim))
  elif not isinstance(axis, tuple):
    axis = (axis,)
  axes = _canonical_axes(axis, ndim)
  if len(axes) == 1:
    return _vector_norm(x, ord, axes, keepdims)
  if len(axes) == 2:
    if axes[0] == axes[1]:
      raise ValueError("Duplicate axes given.")
    return _matrix_norm(x, ord, axes, keepdims)
  raise ValueError(f"Improper number of axes for norm: axis={axis}. Pass one axis to compute a "
                   "vector-norm, or two axes to compute a matrix-norm.")


def vector_norm(x, /, *, axis=None, keepdims: bool = False, ord=2):
  jnp = _jnp()
  (x,) = _inexact(x)
  if axis is None:
    out = _vector_norm(jnp.ravel(x), ord, 0, False)
    return jnp.reshape(out, (1,) * x.ndim) if keepdims else out
  axes = _canonical_axes(axis if isinstance(axis, tuple) else (axis,), x.ndim)
  return _vector_norm(x, ord, axes, keepdims)


def matrix_norm(x, /, *, keepdims: bool = False, ord="fro"):
  _check_rank2("matrix_norm", x)
  return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


# ----------------------------------------------------------------------------- products & misc


def multi_dot(arrays, *, precision=None):
  jnp = _jnp()
  arrays = [jnp.asarray(a) for a in arrays]
  if len(arrays) < 2:
    raise ValueError("multi_dot: expecting at least two arrays.")
  first_vector, last_vector = arrays[0].ndim == 1, arrays[-1].ndim == 1
  if first_vector:
    arrays[0] = arrays[0][None, :]
  if last_vector:
    arrays[-1] = arrays[-1][:, None]
  for a in arrays:
    if a.ndim != 2:
      raise ValueError(f"multi_dot: array of shape {a.shape} is not two-dimensional")
  # Left to right: the chain order changes only the cost, never the result.
  out = reduce(jnp.matmul, arrays)
  if first_vector:
    out = out[0]
  if last_vector:
    out = out[..., 0]
  return out


def tensorsolve(a, b, axes=None):
  jnp = _jnp()
  a, b = _inexact(a, b)
  if axes is not None:
    allaxes = list(range(a.ndim))
    for k in axes:
      allaxes.remove(k)
      allaxes.insert(a.ndim, k)
    a = jnp.transpose(a, allaxes)
  out_shape = a.shape[b.ndim:]
  n = int(np.prod(out_shape))
  if int(np.prod(b.shape)) != n:
    raise ValueError("tensorsolve: a's leading dimensions do not match b's size")
  return solve(jnp.reshape(a, (n, n)), jnp.ravel(b)).reshape(out_shape)


def tensorinv(a, ind: int = 2):
  jnp = _jnp()
  (a,) = _inexact(a)
  ind = operator.index(ind)
  if ind <= 0:
    raise ValueError(f"ind must be a positive integer, got {ind}")
  out_shape = a.shape[ind:] + a.shape[:ind]
  rows = int(np.prod(a.shape[:ind]))
  return inv(jnp.reshape(a, (rows, -1))).reshape(out_shape)


def outer(x1, x2, /):
  jnp = _jnp()
  x1, x2 = jnp.asarray(asarray_like(x1)), jnp.asarray(asarray_like(x2))
  if x1.ndim != 1 or x2.ndim != 1:
    raise ValueError(f"Input arrays must be one-dimensional, but they are x1.ndim={x1.ndim} "
                     f"and x2.ndim={x2.ndim}")
  return jnp.outer(x1, x2)


def matrix_transpose(x, /):
  jnp = _jnp()
  x = jnp.asarray(asarray_like(x))
  if x.ndim < 2:
    raise ValueError(f"matrix_transpose requires at least 2 dimensions; got {x.ndim=}")
  return jnp.swapaxes(x, -1, -2)


def trace(x, /, *, offset: int = 0, dtype=None):
  return _jnp().trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def diagonal(x, /, *, offset: int = 0):
  return _jnp().diagonal(x, offset=offset, axis1=-2, axis2=-1)


def cross(x1, x2, /, *, axis: int = -1):
  jnp = _jnp()
  x1, x2 = jnp.asarray(asarray_like(x1)), jnp.asarray(asarray_like(x2))
  if x1.shape[axis] != 3 or x2.shape[axis] != 3:
    raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, but they "
                     f"have x1.shape[axis]={x1.shape[axis]} and x2.shape[axis]={x2.shape[axis]}")
  return jnp.cross(x1, x2, axis=axis)


def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None,
              out_sharding=None):
  return _jnp().tensordot(x1, x2, axes=axes, precision=precision,
                          preferred_element_type=preferred_element_type,
                          out_sharding=out_sharding)


def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
  return _jnp().matmul(x1, x2)


def vecdot(x1, x2, /, *, axis: int = -1, precision=None, preferred_element_type=None):
  jnp = _jnp()
  x1, x2 = jnp.asarray(asarray_like(x1)), jnp.asarray(asarray_like(x2))
  return jnp.sum(jnp.conj(x1) * x2, axis=axis)

# lax's eig (in this layer, below this module) solves with it (see util.late_op).
util.register_late_ops(solve=solve)
