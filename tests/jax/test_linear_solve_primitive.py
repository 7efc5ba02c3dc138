"""lax.linear_solve_p: x = A^-1 b as a primitive, differentiated implicitly (JAX's params)."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax
from jax._src.lax.linear_solve import _LinearSolveTuple

A = np.array([[4.0, 1.0, 0.5], [0.3, 3.0, 0.2], [0.1, 0.4, 2.0]], np.float32)
B = np.array([1.0, -2.0, 0.5], np.float32)
W = np.array([0.7, -0.1, 1.3], np.float32)


def _jaxprs(with_transpose=True):
  mk = lambda f: jax.make_jaxpr(lambda a, x: [f(a, x)])(A, B)
  return _LinearSolveTuple(
      mk(lambda a, x: a @ x), mk(lambda a, x: x @ a), mk(lambda a, x: jnp.linalg.solve(a, x)),
      mk(lambda a, x: jnp.linalg.solve(a.T, x)) if with_transpose else None)


def _solve(a, b, with_transpose=True):
  jaxprs = _jaxprs(with_transpose)
  n = 4 if with_transpose else 3
  lengths = _LinearSolveTuple(1, 1, 1, 1 if with_transpose else 0)
  (x,) = lax.linear_solve_p.bind(*([a] * n), b, const_lengths=lengths, jaxprs=jaxprs)
  return x


def test_values_eager_and_jit(backend):
  want = np.linalg.solve(A, B)
  np.testing.assert_allclose(np.asarray(_solve(A, B)), want, rtol=1e-5)
  np.testing.assert_allclose(np.asarray(jax.jit(_solve)(A, B)), want, rtol=1e-5)
  assert "linear_solve" in str(jax.make_jaxpr(_solve)(A, B))


def test_jvp_is_the_implicit_derivative(backend):
  da = np.full((3, 3), 0.01, np.float32)
  db = np.array([0.2, 0.1, -0.3], np.float32)
  x, x_dot = jax.jvp(_solve, (A, B), (da, db))
  want_x = np.linalg.solve(A, B)
  np.testing.assert_allclose(np.asarray(x_dot), np.linalg.solve(A, db - da @ want_x), rtol=1e-4)


def test_grad_wrt_b_and_matrix(backend):
  x = np.linalg.solve(A, B)
  lam = np.linalg.solve(A.T, W)
  gb = jax.grad(lambda b: jnp.sum(_solve(A, b) * W))(B)
  np.testing.assert_allclose(np.asarray(gb), lam, rtol=1e-4)
  ga = jax.grad(lambda a: jnp.sum(_solve(a, B) * W))(A)
  np.testing.assert_allclose(np.asarray(ga), -np.outer(lam, x), rtol=1e-4, atol=1e-6)
  with pytest.raises(TypeError, match="transpose_solve"):
    jax.grad(lambda b: jnp.sum(_solve(A, b, with_transpose=False)))(B)


def test_vmap_over_b(backend):
  bs = np.stack([B, 2 * B, W])
  got = jax.vmap(lambda b: _solve(A, b))(bs)
  np.testing.assert_allclose(np.asarray(got), np.linalg.solve(A, bs.T).T, rtol=1e-5)


def test_solve_must_return_b_types(backend):
  bad = _jaxprs()._replace(solve=jax.make_jaxpr(lambda a, x: [x[:2]])(A, B))
  with pytest.raises(TypeError, match="b's types"):
    lax.linear_solve_p.bind(A, A, A, A, B, const_lengths=_LinearSolveTuple(1, 1, 1, 1), jaxprs=bad)
