"""Polynomials as coefficient arrays, highest power first: polyval, polyadd, polysub,
polymul, polydiv, polyder, polyint, poly, polyfit.

Coefficient counts are static shapes, so every loop here unrolls at trace time and the
results work under jit, grad and vmap.
"""

from __future__ import annotations

import numpy as np

from jax._src import core
from jax._src import errors
from jax._src.numpy import linalg, reductions
from jax._src.numpy import ufuncs
from jax._src.numpy.creation import asarray, ones, zeros
from jax._src.numpy.linalg import eigvals
from jax._src.numpy.numerical import convolve
from jax._src.numpy.shape_ops import concatenate, stack
from jax._src.numpy.util import check_arraylike_strict, promote_dtypes, promote_dtypes_inexact
from jax._src.lax import control_flow


def _check_1d(name: str, *arrays) -> None:
  for a in arrays:
    if core.get_aval(a).ndim != 1:
      raise ValueError(f"jnp.{name}: coefficient arrays must be 1-D, got shape "
                       f"{core.get_aval(a).shape}")


def _pad_front(a, n: int):
  extra = n - a.shape[0]
  return a if extra <= 0 else concatenate([zeros((extra,), a.dtype), a])


def _trim_leading_zeros(a, name: str):
  """Drop leading zero coefficients; the count must be concrete."""
  value = core.concrete_value(a)
  if value is None:
    raise errors.ConcretizationTypeError(a, f"jnp.{name} with trim_leading_zeros=True")
  nz = np.flatnonzero(np.asarray(value))
  return a[int(nz[0]):] if nz.size else a[-1:]


def polyval(p, x, *, unroll: int = 16):
  """p[0] * x**(n-1) + ... + p[n-1], by Horner's scheme."""
  del unroll  # the loop over coefficients is unrolled completely
  check_arraylike_strict("polyval", p, x)
  p, x = promote_dtypes(asarray(p), asarray(x))
  shape = core.get_aval(x).shape
  y = zeros(shape, p.dtype) * x
  for i in range(core.get_aval(p).shape[0] if p.ndim else 1):
    y = y * x + (p[i] if p.ndim else p)
  return y


def polyadd(a1, a2):
  check_arraylike_strict("polyadd", a1, a2)
  a1, a2 = promote_dtypes(asarray(a1), asarray(a2))
  _check_1d("polyadd", a1, a2)
  n = max(a1.shape[0], a2.shape[0])
  return _pad_front(a1, n) + _pad_front(a2, n)


def polysub(a1, a2):
  check_arraylike_strict("polysub", a1, a2)
  a1, a2 = promote_dtypes(asarray(a1), asarray(a2))
  _check_1d("polysub", a1, a2)
  n = max(a1.shape[0], a2.shape[0])
  return _pad_front(a1, n) - _pad_front(a2, n)


def polymul(a1, a2, *, trim_leading_zeros: bool = False):
  check_arraylike_strict("polymul", a1, a2)
  a1, a2 = promote_dtypes(asarray(a1), asarray(a2))
  a1 = a1.reshape(1) if a1.ndim == 0 else a1
  a2 = a2.reshape(1) if a2.ndim == 0 else a2
  _check_1d("polymul", a1, a2)
  if trim_leading_zeros:
    a1, a2 = _trim_leading_zeros(a1, "polymul"), _trim_leading_zeros(a2, "polymul")
  if a1.shape[0] == 0:
    a1 = zeros((1,), a1.dtype)
  if a2.shape[0] == 0:
    a2 = zeros((1,), a2.dtype)
  return convolve(a1, a2, mode="full")


def polydiv(u, v, *, trim_leading_zeros: bool = False):
  """(quotient, remainder) of polynomial long division u / v."""
  check_arraylike_strict("polydiv", u, v)
  u, v = promote_dtypes_inexact(asarray(u), asarray(v))
  _check_1d("polydiv", u, v)
  m, n = u.shape[0] - 1, v.shape[0] - 1
  scale = 1.0 / v[0]
  q = zeros((max(m - n + 1, 1),), u.dtype)
  r = u
  for k in range(m - n + 1):
    d = scale * r[k]
    q = q.at[k].set(d)
    r = r.at[k:k + n + 1].add(-d * v)
  if trim_leading_zeros:
    r = _trim_leading_zeros(r, "polydiv")
  return q, r


def polyder(p, m: int = 1):
  check_arraylike_strict("polyder", p)
  m = core.concrete_value(m) if not isinstance(m, int) else m
  if m is None or int(m) < 0:
    raise ValueError("Order of derivative must be positive")
  p = asarray(p)
  _check_1d("polyder", p)
  for _ in range(int(m)):
    n = p.shape[0]
    if n <= 1:
      return zeros((0,), p.dtype)
    p = p[:-1] * np.arange(n - 1, 0, -1).astype(p.dtype)
  return p


def polyint(p, m: int = 1, k=None):
  check_arraylike_strict("polyint", p)
  m = int(m)
  if m < 0:
    raise ValueError("Order of integral must be positive (see polyder)")
  (p,) = promote_dtypes_inexact(asarray(p))
  _check_1d("polyint", p)
  if k is None:
    k = zeros((m,), p.dtype)
  k = asarray(k, p.dtype)
  if k.ndim == 0:
    k = ones((m,), p.dtype) * k
  if k.shape[0] != m:
    raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
  for i in range(m):
    n = p.shape[0]
    p = concatenate([p / np.arange(n, 0, -1).astype(p.dtype), k[i:i + 1]])
  return p


def poly(seq_of_zeros):
  """Coefficients of the monic polynomial with the given roots."""
  check_arraylike_strict("poly", seq_of_zeros)
  (z,) = promote_dtypes_inexact(asarray(seq_of_zeros))
  if z.ndim == 2 and z.shape[0] == z.shape[1] and z.shape[0]:
    # The characteristic polynomial of a matrix: its eigenvalues are the roots.
    real_input = not np.issubdtype(z.dtype, np.complexfloating)
    coeffs = poly(eigvals(z))
    return ufuncs.real(coeffs) if real_input else coeffs
  if z.ndim != 1:
    raise ValueError("Input must be 1d or non-empty square 2d array.")
  a = ones((1,), z.dtype)
  for i in range(z.shape[0]):
    a = convolve(a, stack([ones((), z.dtype), -z[i]]), mode="full")
  return a


def polyfit(x, y, deg: int, rcond=None, full: bool = False, w=None, cov=False):
  """Least-squares polynomial fit of degree `deg` (Vandermonde matrix and lstsq)."""
  check_arraylike_strict("polyfit", x, y)
  deg = int(deg)
  if deg < 0:
    raise ValueError("expected deg >= 0")
  x, y = promote_dtypes_inexact(asarray(x), asarray(y))
  if x.ndim != 1:
    raise TypeError("expected 1D vector for x")
  if x.shape[0] == 0:
    raise TypeError("expected non-empty vector for x")
  if y.ndim < 1 or y.ndim > 2:
    raise TypeError("expected 1D or 2D array for y")
  if x.shape[0] != y.shape[0]:
    raise TypeError("expected x and y to have same length")
  order = deg + 1
  if rcond is None:
    rcond = x.shape[0] * float(np.finfo(x.dtype).eps)
  lhs = x[:, None] ** np.arange(deg, -1, -1).astype(x.dtype)
  rhs = y
  if w is not None:
    (w,) = promote_dtypes_inexact(asarray(w))
    if w.ndim != 1 or w.shape[0] != y.shape[0]:
      raise TypeError("expected a 1-d array for weights of the same length as y")
    lhs = lhs * w[:, None]
    rhs = rhs * (w[:, None] if rhs.ndim == 2 else w)
  scale = ufuncs.sqrt(reductions.sum(lhs * lhs, axis=0))
  lhs = lhs / scale
  c, resids, rank, s = linalg.lstsq(lhs, rhs, rcond)
  c = (c.T / scale).T
  if full:
    return c, resids, rank, s, rcond
  if cov:
    vbase = linalg.inv(lhs.T @ lhs) / (scale[:, None] * scale[None, :])
    if cov == "unscaled":
      fac = 1.0
    else:
      if x.shape[0] <= order:
        raise ValueError("the number of data points must exceed order to scale the "
                         "covariance matrix")
      fac = resids / (x.shape[0] - order)
    if y.ndim == 1:
      return c, vbase * fac
    return c, vbase[:, :, None] * fac
  return c


_ROOT_ITERATIONS = 100


def _aberth_roots(a):
  """All roots of the polynomial with (complex, nonzero-leading) coefficients `a`, by
  Aberth-Ehrlich iteration from points on a circle enclosing every root."""
  n = a.shape[0] - 1
  a = a / a[0]
  radius = 1 + reductions.max(ufuncs.abs(a[1:]))
  k = np.arange(n)
  start = np.exp(1j * (2 * np.pi * k / n + 0.4)).astype(a.dtype)
  z0 = radius.astype(a.dtype) * start
  da = a[:-1] * np.arange(n, 0, -1).astype(a.dtype)
  off_diag = ~np.eye(n, dtype=bool)

  def step(_, z):
    pz, dpz = polyval(a, z), polyval(da, z)
    ratio = ufuncs.where(pz == 0, 0, pz / ufuncs.where(dpz == 0, 1, dpz))
    diff = z[:, None] - z[None, :]
    inv = ufuncs.where(off_diag, 1 / ufuncs.where(off_diag, diff, 1), 0)
    repulsion = reductions.sum(inv, axis=1)
    denom = 1 - ratio * repulsion
    w = ratio / ufuncs.where(denom == 0, 1, denom)
    return z - ufuncs.where(ufuncs.isfinite(w), w, 0)

  return control_flow.fori_loop(0, _ROOT_ITERATIONS, step, z0)


def roots(p, *, strip_zeros: bool = True):
  """Complex roots of the polynomial with coefficients `p` (highest power first)."""
  check_arraylike_strict("roots", p)
  p = asarray(p)
  if p.ndim != 1:
    raise ValueError("Input must be a rank-1 array.")
  (p,) = promote_dtypes_inexact(p)
  cdtype = np.result_type(p.dtype, np.complex64)
  if strip_zeros:
    value = core.concrete_value(p)
    if value is None:
      raise errors.ConcretizationTypeError(
          p, "The error occurred in jnp.roots(): strip_zeros=True needs concrete "
          "coefficients; pass strip_zeros=False inside transformations.")
    nz = np.flatnonzero(np.asarray(value))
    if nz.size == 0:
      return zeros((0,), cdtype)
    # Leading zeros do not change the roots; trailing zeros are roots at the origin.
    trailing = p.shape[0] - 1 - int(nz[-1])
    core_p = p[int(nz[0]):int(nz[-1]) + 1]
    inner = (_aberth_roots(core_p.astype(cdtype)) if core_p.shape[0] > 1
             else zeros((0,), cdtype))
    return concatenate([inner, zeros((trailing,), cdtype)])
  if p.shape[0] < 2:
    return zeros((0,), cdtype)
  # Without stripping, a leading zero coefficient makes the roots NaN, as in JAX.
  out = _aberth_roots(p.astype(cdtype))
  return ufuncs.where(p[0] == 0, np.array(np.nan, cdtype), out)
