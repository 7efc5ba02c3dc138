"""Schur-based matrix functions of jax.scipy.linalg: schur, rsf2csf, hessenberg, sqrtm and
funm.

Functions of a matrix go through its complex Schur form A = Z T Z^H: f(A) = Z f(T) Z^H,
with f(T) upper triangular and computed column by column (Bjorck-Hammarling for the
square root, Parlett's recurrence for a general scalar function). Results are complex.
"""

from __future__ import annotations

import numpy as np

from jax._src.numpy import linalg as jnp_linalg
from jax._src.numpy import namespace as jnp
from jax._src.lax import namespace as lax
from jax._src.numpy import eig as lax_eig
from jax._src.numpy.util import promote_dtypes_inexact


def _square(name: str, a):
  if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
    raise ValueError(f"{name} expects a square matrix (or a stack of them), got shape "
                     f"{a.shape}")


def _complex(a):
  (a,) = promote_dtypes_inexact(jnp.asarray(a))
  return a.astype(jnp.result_type(a.dtype, jnp.complex64))


def schur(a, output: str = "real"):
  """(T, Z) with a = Z T Z^H, Z unitary and T upper triangular (output='complex').

  The quasi-triangular real form (output='real', SciPy's default) is not computed here:
  pass output='complex' (its T is triangular even for real matrices)."""
  if output not in ("real", "complex"):
    raise ValueError(f"schur: output must be 'real' or 'complex', got {output!r}")
  a = jnp.asarray(a)
  _square("schur", a)
  if output == "real" and not jnp.iscomplexobj(a):
    raise NotImplementedError("schur(output='real') (the real quasi-triangular form) is not "
                              "supported; use output='complex'")
  return lax_eig.schur(_complex(a))


def rsf2csf(T, Z, check_finite: bool = True):
  """The complex Schur form (T, Z) of a real Schur form: each 2x2 block of T (a pair of
  complex eigenvalues) is made triangular by a rotation, which Z absorbs."""
  del check_finite
  T, Z = _complex(T), _complex(Z)
  _square("rsf2csf", T)
  if T.ndim != 2 or Z.shape != T.shape:
    raise ValueError(f"rsf2csf expects two matrices of one square shape, got {T.shape} and "
                     f"{Z.shape}")
  n = T.shape[0]
  eps = jnp.finfo(T.dtype).eps
  eye = jnp.eye(n, dtype=T.dtype)

  def step(j, tz):
    T, Z = tz
    m = n - 1 - j  # blocks are handled from the bottom up
    sub = T[m, m - 1]
    a, b, c, d = T[m - 1, m - 1], T[m - 1, m], sub, T[m, m]
    # Eigenvalue of the 2x2 block nearer the top-left.
    half_tr, det = (a + d) / 2, a * d - b * c
    mu = half_tr + jnp.sqrt(half_tr * half_tr - det)
    x = mu - d
    r = jnp.sqrt(jnp.abs(x) ** 2 + jnp.abs(c) ** 2)
    split = jnp.abs(sub) > eps * (jnp.abs(a) + jnp.abs(d))
    r = jnp.where(split & (r > 0), r, 1)
    cs, sn = x / r, c / r
    g = eye.at[m - 1, m - 1].set(jnp.conj(cs)).at[m - 1, m].set(jnp.conj(sn))
    g = g.at[m, m - 1].set(-sn).at[m, m].set(cs)
    g = jnp.where(split, g, eye)
    T = g @ T @ jnp.conj(g.T)
    T = T.at[m, m - 1].set(jnp.where(split, 0, T[m, m - 1]))
    return T, Z @ jnp.conj(g.T)

  if n < 2:
    return T, Z
  return lax.fori_loop(0, n - 1, step, (T, Z))


def hessenberg(a, *, calc_q: bool = False, overwrite_a: bool = False,
               check_finite: bool = True):
  """The upper Hessenberg form H of a (and, with calc_q, the unitary Q with a = Q H Q^H)."""
  del overwrite_a, check_finite
  (a,) = promote_dtypes_inexact(jnp.asarray(a))
  _square("hessenberg", a)
  packed, taus = lax_eig.hessenberg(a)
  h = jnp.triu(packed, -1)
  if not calc_q:
    return h
  n = a.shape[-1]
  if n < 2:
    return h, jnp.broadcast_to(jnp.eye(n, dtype=a.dtype), a.shape)
  sub = lax_eig.householder_product(packed[..., 1:, :n - 1], taus)
  q = jnp.zeros(a.shape, a.dtype).at[..., 0, 0].set(1).at[..., 1:, 1:].set(sub)
  return h, q


def _triangular_function(T, diag_f, offdiag):
  """An upper triangular F from its diagonal and, column by column from the diagonal up,
  F[i, j] = offdiag(F, T, i, j)."""
  n = T.shape[0]
  F = jnp.diag(diag_f)

  def column(j, F):
    def row(k, F):
      i = j - 1 - k
      return F.at[i, j].set(offdiag(F, T, i, j))
    return lax.fori_loop(0, j, row, F)

  return lax.fori_loop(1, n, column, F) if n > 1 else F


def _between(n, i, j):
  k = jnp.arange(n)
  return (k > i) & (k < j)


def sqrtm(A, blocksize: int = 1):
  """The principal square root X of A (X @ X = A), complex."""
  if blocksize < 1:
    raise ValueError("The blocksize should be at least 1.")
  A = jnp.asarray(A)
  _square("sqrtm", A)
  if A.ndim != 2:
    raise ValueError(f"sqrtm expects a single matrix, got shape {A.shape}")
  T, Z = lax_eig.schur(_complex(A))
  n = T.shape[0]

  def offdiag(R, T, i, j):
    s = jnp.sum(jnp.where(_between(n, i, j), R[i, :] * R[:, j], 0))
    return (T[i, j] - s) / (R[i, i] + R[j, j])

  R = _triangular_function(T, jnp.sqrt(jnp.diag(T)), offdiag)
  return Z @ R @ jnp.conj(Z.T)


def funm(A, func, disp: bool = True):
  """f(A) for a scalar function `func` applied through the Schur form (Parlett's
  recurrence; eigenvalues must be distinct). With disp=False returns (f(A), errest), the
  relative 1-norm of the commutator T f(T) - f(T) T."""
  A = jnp.asarray(A)
  _square("funm", A)
  if A.ndim != 2:
    raise ValueError(f"funm expects a single matrix, got shape {A.shape}")
  T, Z = lax_eig.schur(_complex(A))
  n = T.shape[0]
  diag = jnp.asarray(func(jnp.diag(T))).astype(T.dtype)

  def offdiag(F, T, i, j):
    inner = _between(n, i, j)
    s = jnp.sum(jnp.where(inner, T[i, :] * F[:, j] - F[i, :] * T[:, j], 0))
    return (T[i, j] * (F[j, j] - F[i, i]) + s) / (T[j, j] - T[i, i])

  F = _triangular_function(T, diag, offdiag)
  out = Z @ F @ jnp.conj(Z.T)
  if disp:
    return out
  comm = T @ F - F @ T
  err = jnp_linalg.norm(comm, 1) / jnp.maximum(jnp_linalg.norm(F, 1), np.finfo(np.float32).tiny)
  return out, err
