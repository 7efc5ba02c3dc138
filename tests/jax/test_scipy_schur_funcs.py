"""jax.scipy.linalg schur, rsf2csf, hessenberg, sqrtm and funm against SciPy."""

import numpy as np
import pytest
import scipy.linalg as sl

import jax
import jax.numpy as jnp
from jax.scipy import linalg as jl

pytestmark = pytest.mark.usefixtures("backend")

RNG = np.random.default_rng(0)
A = RNG.standard_normal((5, 5)).astype(np.float32)
SPD = (A @ A.T + 5 * np.eye(5)).astype(np.float32)


def test_complex_schur_reconstructs():
  t, z = jl.schur(A, output="complex")
  assert t.dtype == jnp.complex64
  np.testing.assert_allclose(z @ t @ z.conj().T, A, atol=1e-4)
  np.testing.assert_allclose(np.tril(t, -1), 0, atol=1e-5)
  got = np.asarray(np.diag(t))
  for ev in np.linalg.eigvals(A):  # each eigenvalue appears on the diagonal
    assert np.min(np.abs(got - ev)) < 1e-4
  with pytest.raises(NotImplementedError, match="output='complex'"):
    jl.schur(A)
  with pytest.raises(ValueError, match="output"):
    jl.schur(A, output="other")


def test_rsf2csf_matches_scipy():
  T, Z = sl.schur(A.astype(np.float64))
  t, z = jl.rsf2csf(T.astype(np.float32), Z.astype(np.float32))
  t_ref, z_ref = sl.rsf2csf(T, Z)
  np.testing.assert_allclose(np.tril(t, -1), 0, atol=1e-6)
  np.testing.assert_allclose(z @ t @ z.conj().T, A, atol=1e-4)
  np.testing.assert_allclose(np.abs(np.diag(t)), np.abs(np.diag(t_ref)), rtol=1e-4)


@pytest.mark.parametrize("jit", [False, True])
def test_hessenberg(jit):
  f = jax.jit(lambda a: jl.hessenberg(a, calc_q=True)) if jit else (
      lambda a: jl.hessenberg(a, calc_q=True))
  h, q = f(A)
  np.testing.assert_allclose(np.tril(h, -2), 0)
  np.testing.assert_allclose(q @ h @ q.T, A, atol=1e-5)
  np.testing.assert_allclose(q @ q.T, np.eye(5), atol=1e-5)
  h_ref = sl.hessenberg(A.astype(np.float64))
  np.testing.assert_allclose(np.abs(h), np.abs(h_ref), atol=1e-4)
  hs = jax.vmap(jl.hessenberg)(np.stack([A, 2 * A]))
  np.testing.assert_allclose(hs[1], 2 * hs[0], atol=1e-4)


def test_sqrtm_matches_scipy():
  x = jl.sqrtm(SPD)
  assert x.dtype == jnp.complex64
  np.testing.assert_allclose(x, sl.sqrtm(SPD.astype(np.float64)), atol=1e-4)
  np.testing.assert_allclose(jax.jit(jl.sqrtm)(SPD) @ x, SPD, atol=1e-3)
  shifted = A + 6 * np.eye(5, dtype=np.float32)   # non-normal, complex eigenvalues
  y = jl.sqrtm(shifted)
  np.testing.assert_allclose(y @ y, shifted, atol=1e-3)
  np.testing.assert_allclose(y, sl.sqrtm(shifted.astype(np.float64)), atol=1e-3)
  neg = np.diag([-4., 9.]).astype(np.float32)
  np.testing.assert_allclose(jl.sqrtm(neg), np.diag([2j, 3.]), atol=1e-6)
  with pytest.raises(ValueError, match="square"):
    jl.sqrtm(np.ones((2, 3)))


def test_funm_matches_scipy():
  f = jl.funm(SPD / 10, jnp.exp)
  np.testing.assert_allclose(f, sl.expm(SPD.astype(np.float64) / 10), rtol=1e-4)
  f, err = jl.funm(A, lambda x: x ** 3 - 2 * x, disp=False)
  np.testing.assert_allclose(f, A @ A @ A - 2 * A, atol=1e-3)
  assert float(err) < 1e-4
