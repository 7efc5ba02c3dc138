"""jax.scipy.linalg: SciPy's linear algebra API on lax.linalg.

Differences from SciPy follow JAX: factor functions return clean triangles
(zeros in the unused half), and no function overwrites its inputs.
"""

from __future__ import annotations

import types

import numpy as np

from jax._src.lax import linalg as lax_linalg
from jax._src.numpy import creation, shape_ops, ufuncs, util
from jax._src.numpy import linalg as jnp_linalg
from jax._src.numpy.util import asarray_like, promote_dtypes_inexact


# The jax.numpy functions this module uses, from the modules defining them.
_NUMPY = types.SimpleNamespace(
    arange=creation.arange, asarray=creation.asarray, broadcast_to=util.broadcast_to,
    conj=ufuncs.conj, eye=creation.eye, matmul=shape_ops.matmul, swapaxes=shape_ops.swapaxes,
    tril=creation.tril, triu=creation.triu)


def _jnp():
  return _NUMPY


def _inexact(*args):
  return promote_dtypes_inexact(*[_jnp().asarray(asarray_like(a)) for a in args])


def _h(x):
  jnp = _jnp()
  return jnp.conj(jnp.swapaxes(x, -1, -2))


def _as_matrix_rhs(b):
  """A 1-D right-hand side becomes a column; returns (b, undo)."""
  if b.ndim == 1:
    return b[:, None], lambda x: x[..., 0]
  return b, lambda x: x


def cholesky(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
  del overwrite_a, check_finite
  (a,) = _inexact(a)
  return jnp_linalg.cholesky(a, upper=not lower)


def cho_factor(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
  return cholesky(a, lower=lower), lower


def cho_solve(c_and_lower, b, overwrite_b: bool = False, check_finite: bool = True):
  del overwrite_b, check_finite
  c, lower = c_and_lower
  c, b = _inexact(c, b)
  jnp_linalg.check_square("cho_solve", c)
  b, undo = _as_matrix_rhs(b)
  if b.shape[-2] != c.shape[-1]:
    raise ValueError(f"cho_solve: b of shape {b.shape} does not match c of shape {c.shape}")
  # c c^H x = b (lower) or c^H c x = b (upper): two triangular solves.
  y = lax_linalg.triangular_solve(c, b, left_side=True, lower=lower, transpose_a=not lower,
                                  conjugate_a=not lower)
  x = lax_linalg.triangular_solve(c, y, left_side=True, lower=lower, transpose_a=lower,
                                  conjugate_a=lower)
  return undo(x)


_TRANS = {0: (False, False), "N": (False, False), 1: (True, False), "T": (True, False),
          2: (True, True), "C": (True, True)}


def solve_triangular(a, b, trans=0, lower: bool = False, unit_diagonal: bool = False,
                     overwrite_b: bool = False, debug=None, check_finite: bool = True):
  del overwrite_b, debug, check_finite
  if trans not in _TRANS:
    raise ValueError(f"Invalid 'trans' value {trans}")
  transpose_a, conjugate_a = _TRANS[trans]
  a, b = _inexact(a, b)
  jnp_linalg.check_square("solve_triangular", a)
  b, undo = _as_matrix_rhs(b)
  if b.shape[-2] != a.shape[-1]:
    raise ValueError(f"solve_triangular: b of shape {b.shape} does not match a of shape {a.shape}")
  jnp = _jnp()
  batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
  a = jnp.broadcast_to(a, batch + a.shape[-2:])
  b = jnp.broadcast_to(b, batch + b.shape[-2:])
  x = lax_linalg.triangular_solve(a, b, left_side=True, lower=lower, transpose_a=transpose_a,
                                  conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
  return undo(x)


def lu_factor(a, overwrite_a: bool = False, check_finite: bool = True):
  del overwrite_a, check_finite
  (a,) = _inexact(a)
  lu, pivots, _ = lax_linalg.lu(a)
  return lu, pivots


def lu_solve(lu_and_piv, b, trans: int = 0, overwrite_b: bool = False,
             check_finite: bool = True):
  del overwrite_b, check_finite
  jnp = _jnp()
  lu, pivots = lu_and_piv
  lu, b = _inexact(lu, b)
  jnp_linalg.check_square("lu_solve", lu)
  if trans not in (0, 1, 2):
    raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
  b, undo = _as_matrix_rhs(b)
  n = lu.shape[-1]
  perm = lax_linalg.lu_pivots_to_permutation(pivots, n)
  p = (perm[..., :, None] == jnp.arange(n, dtype=perm.dtype)).astype(lu.dtype)
  if trans == 0:  # P A = L U: x = U^-1 L^-1 P b
    y = lax_linalg.triangular_solve(lu, jnp.matmul(p, b), left_side=True, lower=True,
                                    unit_diagonal=True)
    x = lax_linalg.triangular_solve(lu, y, left_side=True, lower=False)
  else:  # A^T = U^T L^T P: x = P^T L^-T U^-T b (conjugated for trans=2)
    conj = trans == 2
    y = lax_linalg.triangular_solve(lu, b, left_side=True, lower=False, transpose_a=True,
                                    conjugate_a=conj)
    y = lax_linalg.triangular_solve(lu, y, left_side=True, lower=True, transpose_a=True,
                                    conjugate_a=conj, unit_diagonal=True)
    x = jnp.matmul(jnp.swapaxes(p, -1, -2), y)
  return undo(x)


def lu(a, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True):
  del overwrite_a, check_finite
  jnp = _jnp()
  (a,) = _inexact(a)
  packed, _, perm = lax_linalg.lu(a)
  m, n = a.shape[-2:]
  k = min(m, n)
  l = jnp.tril(packed[..., :, :k], -1) + jnp.eye(m, k, dtype=a.dtype)
  u = jnp.triu(packed[..., :k, :])
  # a[perm] = l u, so a = p l u with p[perm[i], i] = 1.
  p = (jnp.arange(m, dtype=perm.dtype)[:, None] == perm[..., None, :]).astype(a.dtype)
  if permute_l:
    return jnp.matmul(p, l), u
  return p, l, u


def solve(a, b, lower: bool = False, overwrite_a: bool = False, overwrite_b: bool = False,
          debug: bool = False, check_finite: bool = True, assume_a: str = "gen"):
  del overwrite_a, overwrite_b, debug, check_finite
  if assume_a not in ("gen", "sym", "her", "pos", "general", "symmetric", "hermitian",
                      "positive definite"):
    raise ValueError(f"Expected assume_a to be one of 'gen', 'sym', 'her', 'pos'; got {assume_a!r}")
  a, b = _inexact(a, b)
  if assume_a in ("pos", "positive definite"):
    return cho_solve(cho_factor(a, lower=lower), b)
  return jnp_linalg.solve(a, b)


def inv(a, overwrite_a: bool = False, check_finite: bool = True):
  del overwrite_a, check_finite
  return jnp_linalg.inv(a)


def det(a, overwrite_a: bool = False, check_finite: bool = True):
  del overwrite_a, check_finite
  return jnp_linalg.det(a)


def eigh(a, b=None, lower: bool = True, eigvals_only: bool = False, overwrite_a: bool = False,
         overwrite_b: bool = False, turbo: bool = True, eigvals=None, type: int = 1,
         check_finite: bool = True, subset_by_index=None):
  del overwrite_a, overwrite_b, turbo, check_finite
  if b is not None:
    raise NotImplementedError("Only the b=None case of eigh is implemented")
  if type != 1:
    raise NotImplementedError("Only the type=1 case of eigh is implemented.")
  if eigvals is not None or subset_by_index is not None:
    raise NotImplementedError("eigh with a subset of eigenvalues is not implemented")
  (a,) = _inexact(a)
  v, w = lax_linalg.eigh(a, lower=lower)
  return w if eigvals_only else (w, v)


def qr(a, overwrite_a: bool = False, lwork=None, mode: str = "full", pivoting: bool = False,
       check_finite: bool = True):
  del overwrite_a, lwork, check_finite
  if pivoting:
    raise NotImplementedError("qr with pivoting=True is not implemented")
  if mode not in ("full", "r", "economic"):
    if mode == "raw":
      raise NotImplementedError("The 'raw' mode of jax.scipy.linalg.qr is not supported")
    raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
  (a,) = _inexact(a)
  q, r = lax_linalg.qr(a, full_matrices=mode != "economic")
  return (r,) if mode == "r" else (q, r)


def svd(a, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd"):
  del overwrite_a, check_finite
  if lapack_driver not in ("gesdd", "gesvd"):
    raise ValueError(f"Unknown lapack_driver {lapack_driver!r}")
  (a,) = _inexact(a)
  out = lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
  return tuple(out) if compute_uv else out
