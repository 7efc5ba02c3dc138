"""SciPy's special-matrix constructors (toeplitz, hankel, pascal, ...) on jax arrays.

Constructors whose only argument is a static size compute their entries exactly
on the host with numpy (integer binomials, signs) and convert once; the ones
built from array arguments index into those arrays, so they trace, batch and
differentiate.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from jax._src.numpy import namespace as jnp
from jax._src import dtypes


def _static_size(name, n):
  try:
    n = operator.index(n)
  except TypeError:
    raise TypeError(f"{name}: n must be a concrete integer, got {n!r}") from None
  if n < 0:
    raise ValueError(f"{name}: n must be non-negative, got {n}")
  return n


def _float(x):
  return jnp.asarray(x, dtype=dtypes.default_float_dtype())


def block_diag(*arrs):
  """Block-diagonal matrix with the (at least 2-D) arguments on the diagonal."""
  if not arrs:
    return jnp.zeros((1, 0))
  arrs = [jnp.atleast_2d(a) for a in arrs]
  bad = [a.ndim for a in arrs if a.ndim != 2]
  if bad:
    raise ValueError(f"block_diag: arguments must have two or fewer dimensions, got {bad}")
  dtype = jnp.result_type(*arrs)
  cols = sum(a.shape[1] for a in arrs)
  rows, start = [], 0
  for a in arrs:
    n = a.shape[1]
    rows.append(jnp.pad(a.astype(dtype), ((0, 0), (start, cols - start - n))))
    start += n
  return jnp.concatenate(rows, axis=0)


def _diff_index(m, n):
  return np.arange(m)[:, None] - np.arange(n)[None, :]


def toeplitz(c, r=None):
  """T[i, j] = c[i - j] below the diagonal and r[j - i] above (batched over leading axes)."""
  c = jnp.asarray(c)
  r = jnp.conj(c) if r is None else jnp.asarray(r)
  dtype = jnp.result_type(c, r)
  c, r = jnp.atleast_1d(c).astype(dtype), jnp.atleast_1d(r).astype(dtype)
  batch = np.broadcast_shapes(c.shape[:-1], r.shape[:-1])
  c = jnp.broadcast_to(c, batch + c.shape[-1:])
  r = jnp.broadcast_to(r, batch + r.shape[-1:])
  d = _diff_index(c.shape[-1], r.shape[-1])
  below = jnp.take(c, np.maximum(d, 0), axis=-1)
  above = jnp.take(r, np.maximum(-d, 0), axis=-1)
  return jnp.where(d >= 0, below, above)


def circulant(c):
  """C[i, j] = c[(i - j) mod n] (batched over leading axes)."""
  c = jnp.atleast_1d(jnp.asarray(c))
  n = c.shape[-1]
  return jnp.take(c, _diff_index(n, n) % max(n, 1), axis=-1)


def hankel(c, r=None):
  """H[i, j] = c[i + j] while inside c, then r[i + j - len(c) + 1]."""
  c = jnp.ravel(jnp.asarray(c))
  r = jnp.zeros_like(c) if r is None else jnp.ravel(jnp.asarray(r))
  dtype = jnp.result_type(c, r)
  vals = jnp.concatenate([c.astype(dtype), r[1:].astype(dtype)])
  s = np.arange(c.shape[0])[:, None] + np.arange(r.shape[0])[None, :]
  return vals[s]


def companion(a):
  """Companion matrix of the polynomial with coefficients a (highest degree first)."""
  a = jnp.asarray(a)
  if a.ndim < 1:
    raise ValueError("companion: Incorrect shape for `a`. `a` must be at least one-dimensional.")
  n = a.shape[-1]
  if n < 2:
    raise ValueError("companion: The length of `a` along the last axis must be at least 2.")
  first = -a[..., 1:] / a[..., :1]
  out = jnp.broadcast_to(jnp.eye(n - 1, k=-1, dtype=first.dtype), a.shape[:-1] + (n - 1, n - 1))
  return out.at[..., 0, :].set(first)


def fiedler(a):
  """F[i, j] = |a[i] - a[j]|."""
  a = jnp.atleast_1d(jnp.asarray(a))
  return jnp.abs(a[..., :, None] - a[..., None, :])


def fiedler_companion(a):
  """Fiedler's pentadiagonal companion matrix of the polynomial a (a[0] != 0)."""
  a = jnp.asarray(a)
  if a.ndim != 1:
    raise ValueError("fiedler_companion: `a` must be one-dimensional")
  n = a.shape[0]
  if n <= 2:
    return (-a[1:] / a[0]).reshape(n - 1, n - 1) if n == 2 else jnp.zeros((0, 0), a.dtype)
  a = a / a[0]
  k = n - 1
  c = jnp.zeros((k, k), dtype=a.dtype)
  c = c.at[np.arange(3, k, 2), np.arange(1, k - 2, 2)].set(1)
  c = c.at[np.arange(2, k, 2), np.arange(1, k - 1, 2)].set(-a[3::2])
  c = c.at[np.arange(0, k - 2, 2), np.arange(2, k, 2)].set(1)
  c = c.at[np.arange(0, k - 1, 2), np.arange(1, k, 2)].set(-a[2::2])
  return c.at[0, 0].set(-a[1]).at[1, 0].set(1)


def convolution_matrix(a, n, mode="full"):
  """Matrix A with A @ v == convolve(a, v, mode) for v of length n."""
  a = jnp.asarray(a)
  if a.ndim != 1:
    raise ValueError("convolution_matrix: a must be one-dimensional")
  n = _static_size("convolution_matrix", n)
  if n == 0:
    raise ValueError("convolution_matrix: n must be at least 1")
  m = a.shape[0]
  if m == 0:
    raise ValueError("convolution_matrix: len(a) must be at least 1")
  if mode not in ("full", "valid", "same"):
    raise ValueError(f"convolution_matrix: mode must be 'full', 'valid' or 'same', got {mode!r}")
  zero = jnp.zeros((n - 1,), a.dtype)
  full = toeplitz(jnp.concatenate([a, zero]), jnp.concatenate([a[:1], zero]))
  trim = min(m, n) - 1
  lo, hi = {"full": (0, 0), "valid": (trim, trim), "same": (trim // 2, trim - trim // 2)}[mode]
  return full[lo:full.shape[0] - hi]


def dft(n, scale=None, *, dtype=None):
  """Matrix of the n-point discrete Fourier transform: exp(-2 pi i j k / n)."""
  n = _static_size("dft", n)
  if scale not in (None, "sqrtn", "n"):
    raise ValueError(f"scale must be None, 'sqrtn', or 'n'; {scale!r} is not valid.")
  jk = np.outer(np.arange(n), np.arange(n)) % max(n, 1)
  m = np.exp(-2j * np.pi * jk / max(n, 1))
  if scale == "sqrtn":
    m = m / math.sqrt(n)
  elif scale == "n":
    m = m / n
  return jnp.asarray(m, dtype=dtypes.default_complex_dtype() if dtype is None else dtype)


def hadamard(n, dtype=int):
  """Sylvester's Hadamard matrix of order n (a power of two)."""
  n = _static_size("hadamard", n)
  if n < 1 or n & (n - 1):
    raise ValueError("n must be an positive integer, and n must be a power of 2")
  h = np.ones((1, 1), np.int64)
  while h.shape[0] < n:
    h = np.block([[h, h], [h, -h]])
  return jnp.asarray(h, dtype=dtype)


def helmert(n, full=False):
  """Helmert matrix: orthonormal rows, the first (when full) constant."""
  n = _static_size("helmert", n)
  h = np.tril(np.ones((n, n)), -1) - np.diag(np.arange(n))
  d = np.arange(n) * np.arange(1, n + 1)
  h[0] = 1
  d[0] = n
  h = h / np.sqrt(d)[:, None]
  return _float(h if full else h[1:])


def hilbert(n):
  """H[i, j] = 1 / (i + j + 1)."""
  n = _static_size("hilbert", n)
  i = np.arange(n)
  return _float(1.0 / (i[:, None] + i[None, :] + 1))


def _binom(n, k):
  return math.comb(n, k) if 0 <= k <= n else 0


def invhilbert(n, exact=False):
  """Exact inverse of the order-n Hilbert matrix (integers, computed with Python ints)."""
  n = _static_size("invhilbert", n)
  inv = [[(-1) ** (i + j) * (i + j + 1) * _binom(n + i, n - j - 1) * _binom(n + j, n - i - 1)
          * _binom(i + j, i) ** 2 for j in range(n)] for i in range(n)]
  if exact:
    if n > 14:
      raise ValueError("invhilbert: entries overflow int64 for n > 14 with exact=True")
    return jnp.asarray(np.array(inv, dtype=np.int64).reshape(n, n),
                       dtype=dtypes.canonicalize_dtype(np.int64))
  return _float(np.array(inv, dtype=np.float64).reshape(n, n))


def _pascal_lower(n):
  return [[_binom(i, j) for j in range(n)] for i in range(n)]


def pascal(n, kind="symmetric", exact=True):
  """Pascal matrix: binomial coefficients (symmetric, lower or upper)."""
  n = _static_size("pascal", n)
  if kind not in ("symmetric", "lower", "upper"):
    raise ValueError("kind must be 'symmetric', 'lower', or 'upper'")
  lower = np.array(_pascal_lower(n), dtype=object).reshape(n, n)
  if kind == "lower":
    p = lower
  elif kind == "upper":
    p = lower.T
  else:
    p = np.array([[_binom(i + j, i) for j in range(n)] for i in range(n)],
                 dtype=object).reshape(n, n)
  return _exact_or_float(p, exact, "pascal")


def invpascal(n, kind="symmetric", exact=True):
  """Inverse of pascal(n, kind): signed binomials."""
  n = _static_size("invpascal", n)
  if kind not in ("symmetric", "lower", "upper"):
    raise ValueError("'kind' must be 'symmetric', 'lower' or 'upper'.")
  inv_lower = np.array([[(-1) ** (i - j) * _binom(i, j) for j in range(n)] for i in range(n)],
                       dtype=object).reshape(n, n)
  if kind == "lower":
    p = inv_lower
  elif kind == "upper":
    p = inv_lower.T
  else:
    # pascal = L L^T, so its inverse is L^-T L^-1.
    p = inv_lower.T.dot(inv_lower) if n else inv_lower
  return _exact_or_float(p, exact, "invpascal")


def _exact_or_float(p, exact, name):
  if exact:
    big = max((abs(int(v)) for v in p.flat), default=0)
    dtype = dtypes.canonicalize_dtype(np.int64)
    if big > np.iinfo(dtype).max:
      raise ValueError(f"{name}: entries do not fit in {np.dtype(dtype).name}; use exact=False")
    return jnp.asarray(p.astype(np.int64), dtype=dtype)
  return _float(p.astype(np.float64))


def leslie(f, s):
  """Leslie matrix: fecundities f in the first row, survival rates s on the subdiagonal."""
  f, s = jnp.atleast_1d(jnp.asarray(f)), jnp.atleast_1d(jnp.asarray(s))
  if f.shape[-1] != s.shape[-1] + 1:
    raise ValueError("Incorrect lengths for f and s. The length of s along the last axis "
                     "must be one less than the length of f.")
  if f.shape[-1] == 1:
    raise ValueError("The length of f along the last axis must be at least 2.")
  dtype = jnp.result_type(f, s)
  batch = np.broadcast_shapes(f.shape[:-1], s.shape[:-1])
  n = f.shape[-1]
  f = jnp.broadcast_to(f.astype(dtype), batch + (n,))
  s = jnp.broadcast_to(s.astype(dtype), batch + (n - 1,))
  out = jnp.zeros(batch + (n, n), dtype)
  out = out.at[..., 0, :].set(f)
  return out.at[..., np.arange(1, n), np.arange(n - 1)].set(s)
