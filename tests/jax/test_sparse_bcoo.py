"""jax.experimental.sparse.BCOO: construction from dense and scipy.sparse arrays,
todense, transpose, sums and products with dense arrays, under jit, grad and vmap."""

import numpy as np
import pytest
import scipy.sparse

import jax
import jax.numpy as jnp
from jax.experimental import sparse


def _matrix():
  return scipy.sparse.random(6, 5, density=0.4, random_state=3, format="csr", dtype=np.float32)


def test_from_scipy_sparse_and_todense(backend):
  a = _matrix()
  m = sparse.BCOO.from_scipy_sparse(a)
  assert m.shape == (6, 5) and m.nse == a.nnz and m.dtype == np.float32
  np.testing.assert_allclose(m.todense(), a.toarray())
  np.testing.assert_allclose(m.T.todense(), a.toarray().T)
  np.testing.assert_allclose(m.sum(axis=-1), a.toarray().sum(-1), rtol=1e-6)
  np.testing.assert_allclose(m.sum(0), a.toarray().sum(0), rtol=1e-6)
  np.testing.assert_allclose(m.sum(), a.toarray().sum(), rtol=1e-6)


def test_fromdense_keeps_the_nonzeros(backend):
  dense = np.array([[0.0, 2.0], [3.0, 0.0]], np.float32)
  m = sparse.BCOO.fromdense(dense)
  assert m.nse == 2
  np.testing.assert_array_equal(m.indices, [[0, 1], [1, 0]])
  padded = sparse.BCOO.fromdense(dense, nse=4)
  assert padded.nse == 4
  np.testing.assert_array_equal(padded.todense(), dense)


def test_duplicate_indices_add_up(backend):
  m = sparse.BCOO((jnp.array([1.0, 2.0]), jnp.array([[0, 0], [0, 0]])), shape=(2, 2))
  np.testing.assert_array_equal(m.todense(), [[3.0, 0.0], [0.0, 0.0]])


@pytest.mark.parametrize("rhs_shape", [(5,), (5, 3), (2, 5, 1), (4, 2, 5, 3)])
def test_matmul_matches_dense(backend, rhs_shape):
  a = _matrix()
  m = sparse.BCOO.from_scipy_sparse(a)
  x = np.random.RandomState(0).randn(*rhs_shape).astype(np.float32)
  np.testing.assert_allclose(m @ x, a.toarray() @ x, rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(jax.jit(lambda s, v: s @ v)(m, x), a.toarray() @ x,
                             rtol=1e-5, atol=1e-6)


def test_stack_of_dense_matrices_times_a_sparse_matrix(backend):
  a = _matrix()
  m = sparse.BCOO.from_scipy_sparse(a)
  y = np.random.RandomState(2).randn(3, 2, 6).astype(np.float32)
  np.testing.assert_allclose(y @ m, y @ a.toarray(), rtol=1e-5, atol=1e-6)
  g = jax.grad(lambda v: (m @ v).sum())(np.ones((2, 5, 1), np.float32))
  np.testing.assert_allclose(g, np.broadcast_to(a.toarray().sum(0)[:, None], (2, 5, 1)),
                             rtol=1e-6)


def test_rmatmul_and_scalar_products(backend):
  a = _matrix()
  m = sparse.BCOO.from_scipy_sparse(a)
  y = jnp.asarray(np.random.RandomState(1).randn(2, 6).astype(np.float32))
  np.testing.assert_allclose(y @ m, np.asarray(y) @ a.toarray(), rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose((2.0 * m).todense(), 2 * a.toarray())
  np.testing.assert_allclose((-m).todense(), -a.toarray())


def test_grad_and_vmap_through_a_product(backend):
  a = _matrix()
  m = sparse.BCOO.from_scipy_sparse(a)
  x = np.random.RandomState(2).randn(5).astype(np.float32)
  g = jax.grad(lambda v: jnp.sum((m @ v) ** 2))(x)
  dense = a.toarray()
  np.testing.assert_allclose(g, 2 * dense.T @ (dense @ x), rtol=1e-4, atol=1e-5)
  xs = np.stack([x, 2 * x])
  np.testing.assert_allclose(jax.vmap(lambda v: m @ v)(xs), xs @ dense.T, rtol=1e-5, atol=1e-6)


def test_bad_shapes_are_reported(backend):
  with pytest.raises(ValueError, match="do not describe an array of shape"):
    sparse.BCOO((jnp.ones(2), jnp.zeros((2, 3), jnp.int32)), shape=(2, 2))
  m = sparse.BCOO.fromdense(np.eye(3, dtype=np.float32))
  with pytest.raises(ValueError, match="do not align"):
    m @ jnp.ones((4, 2))
  assert sparse.todense(m).shape == (3, 3)
