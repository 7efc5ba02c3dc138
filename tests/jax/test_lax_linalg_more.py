"""jax.lax.linalg decompositions written over lax (eig, schur, hessenberg, tridiagonal,
householder_product, ormqr, tridiagonal_solve, cholesky_update, symmetric_product, qdwh)
against numpy/scipy, under jit, vmap and differentiation."""

import numpy as np
import pytest
import scipy.linalg as sl

import jax
import jax.numpy as jnp
from jax.lax import linalg as L

RNG = np.random.default_rng(0)


def close(a, b, tol=1e-4):
  np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


def sorted_eigs(w):
  w = np.asarray(w)
  return w[np.lexsort((np.round(w.imag, 3), np.round(w.real, 3)))]


# Every eig call below uses 4x4 matrices so that each variant compiles once.
N = 4


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_eig_values_and_vectors(dtype):
  a = RNG.standard_normal((N, N))
  if np.issubdtype(dtype, np.complexfloating):
    a = a + 1j * RNG.standard_normal((N, N))
  a = a.astype(dtype)
  w, vl, vr = L.eig(a)
  assert w.dtype == np.complex64 and vr.shape == (N, N)
  close(sorted_eigs(w), sorted_eigs(np.linalg.eigvals(a)))
  w, vl, vr = (np.asarray(v) for v in (w, vl, vr))
  close(a @ vr, vr * w)
  close(vl.conj().T @ a, w[:, None] * vl.conj().T)
  close(np.linalg.norm(vr, axis=0), np.ones(N))


def test_eig_special_matrices():
  # Repeated eigenvalues, a rotation block (complex pair) and a triangular matrix.
  close(sorted_eigs(L.eig(np.eye(N, dtype=np.float32))[0]), np.ones(N))
  rot = np.zeros((N, N), np.float32)
  rot[:2, :2] = [[0, -1], [1, 0]]
  rot[2, 2], rot[3, 3] = 2, 3
  close(sorted_eigs(L.eig(rot)[0]), sorted_eigs(np.array([-1j, 1j, 2, 3])))
  tri = np.triu(RNG.standard_normal((N, N))).astype(np.float32)
  close(sorted_eigs(L.eig(tri)[0]), sorted_eigs(np.diag(tri).astype(complex)))


def test_eig_jit_vmap_and_options():
  a = RNG.standard_normal((2, N, N)).astype(np.float32)
  w = jax.jit(jax.vmap(lambda x: L.eig(x, compute_left_eigenvectors=False,
                                       compute_right_eigenvectors=False)[0]))(a)
  for i in range(2):
    close(sorted_eigs(w[i]), sorted_eigs(np.linalg.eigvals(a[i])))
  with pytest.raises(ValueError, match="square"):
    L.eig(np.ones((2, 3), np.float32))
  with pytest.raises(NotImplementedError):
    L.eig(a[0], implementation=L.EigImplementation.MAGMA)


def test_jnp_linalg_eig_eigvals():
  a = RNG.standard_normal((N, N)).astype(np.float32)
  w, v = jnp.linalg.eig(a)
  close(np.asarray(a) @ np.asarray(v), np.asarray(v) * np.asarray(w))
  close(sorted_eigs(jnp.linalg.eigvals(a)), sorted_eigs(np.linalg.eigvals(a)))


def test_eig_derivatives():
  a = RNG.standard_normal((N, N)).astype(np.float32)
  d = RNG.standard_normal((N, N)).astype(np.float32)
  eps = 1e-2
  f = lambda x: jnp.sum(jnp.abs(jnp.linalg.eigvals(x)) ** 2)
  g = jax.grad(f)(a)
  fd = (f(a + eps * d) - f(a - eps * d)) / (2 * eps)
  np.testing.assert_allclose(float(jnp.sum(g * d)), float(fd), rtol=2e-2)
  fv = lambda x: jnp.sum(jnp.abs(L.eig(x, compute_left_eigenvectors=False)[1]) ** 4)
  tangent = jax.jvp(fv, (a,), (d,))[1]
  np.testing.assert_allclose(float(tangent), float((fv(a + eps * d) - fv(a - eps * d)) / (2 * eps)),
                             rtol=2e-2)


def test_schur():
  a = RNG.standard_normal((N, N)).astype(np.float32)
  t, z = L.schur(a)
  t, z = np.asarray(t), np.asarray(z)
  close(np.tril(t, -1), np.zeros((N, N)))
  close(z.conj().T @ z, np.eye(N))
  close(z @ t @ z.conj().T, a)
  with pytest.raises(NotImplementedError):
    L.schur(a, sort_eig_vals=True)


def test_hessenberg_and_householder_product():
  a = RNG.standard_normal((6, 6)).astype(np.float32)
  packed, taus = L.hessenberg(a)
  packed = np.asarray(packed)
  h = np.triu(packed, -1)
  close(np.abs(h), np.abs(sl.hessenberg(a)))
  n = a.shape[0]
  q = L.householder_product(jnp.pad(packed[1:, :-1], ((1, 0), (1, 0))),
                            jnp.concatenate([jnp.zeros(1, np.float32), taus]))
  q = np.asarray(q)
  close(q @ h @ q.T, a)
  assert taus.shape == (n - 1,)


def test_householder_product_and_ormqr_match_lapack():
  a = RNG.standard_normal((5, 3))
  qr, tau = sl.lapack.dgeqrf(a)[:2]
  q = L.householder_product(qr, tau)
  close(q, np.linalg.qr(a)[0], 1e-6)
  c = RNG.standard_normal((5, 2))
  qfull = sl.lapack.dorgqr(np.pad(qr, ((0, 0), (0, 2))), tau)[0]
  close(L.ormqr(qr, tau, c, left=True, transpose=True), qfull.T @ c, 1e-6)
  close(jax.vmap(L.householder_product)(np.stack([qr, qr]), np.stack([tau, tau]))[1], q)


def test_tridiagonal():
  a = RNG.standard_normal((5, 5)).astype(np.float32)
  a = a + a.T
  _, d, e, _ = L.tridiagonal(a)
  t = np.diag(np.asarray(d)) + np.diag(np.asarray(e), 1) + np.diag(np.asarray(e), -1)
  close(np.linalg.eigvalsh(t), np.linalg.eigvalsh(a))


def _tridiag_system(m=6, k=2):
  dl, d, du = RNG.standard_normal(m), RNG.standard_normal(m) + 4, RNG.standard_normal(m)
  dl[0] = du[-1] = 0
  b = RNG.standard_normal((m, k))
  a = np.diag(d) + np.diag(dl[1:], -1) + np.diag(du[:-1], 1)
  return [v.astype(np.float32) for v in (dl, d, du, b)], a


def test_tridiagonal_solve():
  (dl, d, du, b), a = _tridiag_system()
  close(L.tridiagonal_solve(dl, d, du, b), np.linalg.solve(a, b))
  close(jax.jit(L.tridiagonal_solve)(dl, d, du, b), np.linalg.solve(a, b))
  batched = jax.vmap(L.tridiagonal_solve, in_axes=(None, None, None, 0))(dl, d, du,
                                                                         np.stack([b, 2 * b]))
  close(batched[1], 2 * np.linalg.solve(a, b))
  with pytest.raises(ValueError):
    L.tridiagonal_solve(dl, d, du[:-1], b)
  # A zero pivot gives infinities unless perturbed.
  z = np.zeros(3, np.float32)
  assert np.all(np.isfinite(L.tridiagonal_solve(z, z, z, np.ones((3, 1), np.float32),
                                                perturb_singular=True)))


def test_tridiagonal_solve_derivatives():
  (dl, d, du, b), a = _tridiag_system(5, 1)
  w = RNG.standard_normal((5, 1)).astype(np.float32)
  gb = jax.grad(lambda b: jnp.sum(L.tridiagonal_solve(dl, d, du, b) * w))(b)
  close(gb, np.linalg.solve(a.T, w))
  gd = jax.grad(lambda d: jnp.sum(L.tridiagonal_solve(dl, d, du, b) * w))(d)
  x, y = np.linalg.solve(a, b), np.linalg.solve(a.T, w)
  close(gd, -(x * y)[:, 0])


def test_cholesky_update():
  s = RNG.standard_normal((4, 4))
  s = s @ s.T + 4 * np.eye(4)
  r = np.linalg.cholesky(s).T.astype(np.float32)
  w = RNG.standard_normal(4).astype(np.float32)
  close(L.cholesky_update(r, w), np.linalg.cholesky(s + np.outer(w, w)).T)
  close(jax.vmap(L.cholesky_update)(np.stack([r, r]), np.stack([w, w]))[0],
        np.linalg.cholesky(s + np.outer(w, w)).T)


def test_symmetric_product():
  a = RNG.standard_normal((4, 3)).astype(np.float32)
  c = RNG.standard_normal((4, 4)).astype(np.float32)
  c = c + c.T
  close(L.symmetric_product(a, c, alpha=2.0, beta=0.5), 2 * a @ a.T + 0.5 * c)
  g = jax.grad(lambda a: jnp.sum(L.symmetric_product(a, c)))(a)
  close(g, 2 * np.ones((4, 4)) @ a)


def test_qdwh_polar():
  x = RNG.standard_normal((6, 4)).astype(np.float32)
  u, h, iters, converged = L.qdwh(x)
  up, hp = sl.polar(x)
  close(u, up, 1e-4)
  close(h, hp, 1e-4)
  assert bool(converged) and 0 < int(iters) <= 10
  with pytest.raises(ValueError, match="rows"):
    L.qdwh(x.T)


def test_lu_pivots_to_permutation_primitive():
  perm = L.lu_pivots_to_permutation(np.array([2, 2, 2], np.int32), 4)
  np.testing.assert_array_equal(perm, [2, 0, 1, 3])
  jaxpr = jax.make_jaxpr(lambda p: L.lu_pivots_to_permutation(p, 4))(np.zeros(3, np.int32))
  assert jaxpr.jaxpr.eqns[0].primitive is L.lu_pivots_to_permutation_p
  out = jax.vmap(lambda p: L.lu_pivots_to_permutation(p, 3))(np.array([[1, 2], [0, 2]], np.int32))
  np.testing.assert_array_equal(out, [[1, 2, 0], [0, 2, 1]])


def test_eigh_implementation_enum():
  a = np.eye(3, dtype=np.float32)
  v, w = L.eigh(a, implementation=L.EighImplementation.QR)
  close(w, np.ones(3))
  with pytest.raises(NotImplementedError):
    L.eigh(a, implementation=L.EighImplementation.JACOBI)
  assert L.SvdAlgorithm("polar") is L.SvdAlgorithm.POLAR
