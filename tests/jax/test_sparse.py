"""jax.experimental.sparse: BCOO/BCSR/COO/CSR/CSC against their dense values, the bcoo_*
operations against lax on dense arrays, sparsify, sparse grad, under jit and vmap."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import sparse

pytestmark = pytest.mark.usefixtures("backend")

M = np.array([[0., 1., 0.], [2., 0., 3.]], np.float32)
RNG = np.random.default_rng(0)
A3 = (RNG.standard_normal((3, 4, 2)) * (RNG.random((3, 4, 2)) < 0.4)).astype(np.float32)


def test_bcoo_round_trip_and_layouts():
  m = sparse.BCOO.fromdense(M)
  assert m.nse == 3 and m.shape == (2, 3) and m.dtype == jnp.float32
  np.testing.assert_array_equal(m.todense(), M)
  np.testing.assert_array_equal(m.indices, [[0, 1], [1, 0], [1, 2]])
  for n_batch, n_dense in [(1, 0), (0, 1), (1, 1)]:
    x = sparse.bcoo_fromdense(A3, n_batch=n_batch, n_dense=n_dense)
    assert (x.n_batch, x.n_dense) == (n_batch, n_dense)
    np.testing.assert_array_equal(x.todense(), A3)
    flat = sparse.bcoo_update_layout(x, n_batch=0, n_dense=0)
    np.testing.assert_array_equal(flat.todense(), A3)
  with pytest.raises(sparse.SparseEfficiencyError):
    sparse.bcoo_update_layout(sparse.BCOO.fromdense(A3), n_batch=1)
  with pytest.raises(ValueError, match="static nse"):
    jax.jit(lambda x: sparse.bcoo_fromdense(x))(M)
  with pytest.raises(ValueError, match="do not describe"):
    sparse.BCOO((jnp.ones(3), jnp.zeros((3, 2), jnp.int32)), shape=(2, 3, 4))


def test_bcoo_under_jit_vmap_and_grad():
  dense = jax.jit(lambda x: sparse.bcoo_fromdense(x, nse=3).todense())(M)
  np.testing.assert_array_equal(dense, M)
  rows = jax.vmap(lambda r: sparse.bcoo_fromdense(r, nse=2).todense())(M)
  np.testing.assert_array_equal(rows, M)
  m = sparse.BCOO.fromdense(M)
  g = sparse.grad(lambda a: (a @ jnp.arange(3.)).sum())(m)
  assert isinstance(g, sparse.BCOO)
  np.testing.assert_array_equal(g.data, [1., 0., 2.])   # d/d data of sum_i sum_j a_ij * j
  v, g2 = sparse.value_and_grad(lambda a, w: (a @ w).sum(), argnums=1)(m, jnp.ones(3))
  assert float(v) == 6. and np.allclose(g2, M.sum(0))
  j = sparse.jacfwd(lambda a: a @ jnp.ones(3))(m)
  assert j.data.shape == (2, 3)


def test_bcoo_products():
  m = sparse.BCOO.fromdense(M)
  B = RNG.standard_normal((3, 4)).astype(np.float32)
  np.testing.assert_allclose(m @ B, M @ B, rtol=1e-6)
  np.testing.assert_allclose(jnp.ones(2) @ m, np.ones(2) @ M)
  np.testing.assert_allclose(jax.jit(lambda a, b: a @ b)(m, B), M @ B, rtol=1e-6)
  out = sparse.bcoo_dot_general(sparse.BCOO.fromdense(A3), jnp.ones((2, 5)),
                                dimension_numbers=(((2,), (0,)), ((), ())))
  np.testing.assert_allclose(out, A3 @ np.ones((2, 5)), rtol=1e-6)
  sp = m @ sparse.BCOO.fromdense(M.T)
  assert isinstance(sp, sparse.BCOO)
  np.testing.assert_allclose(sp.todense(), M @ M.T)
  sampled = sparse.bcoo_dot_general_sampled(M, M.T, m.indices,
                                            dimension_numbers=(((1,), (0,)), ((), ())))
  # Indices outside the 2x2 product hold nothing.
  np.testing.assert_allclose(sampled, [(M @ M.T)[i, j] if i < 2 and j < 2 else 0
                                       for i, j in np.asarray(m.indices)])
  np.testing.assert_array_equal((m * 2.).todense(), 2 * M)
  np.testing.assert_array_equal(sparse.bcoo_multiply_sparse(m, m).todense(), M * M)
  np.testing.assert_array_equal((m + m).todense(), 2 * M)


def test_bcoo_shape_operations_match_lax():
  x = sparse.BCOO.fromdense(A3)
  cases = [
      (sparse.bcoo_transpose(x, permutation=(2, 0, 1)), A3.transpose(2, 0, 1)),
      (sparse.bcoo_reshape(x, new_sizes=(4, 6)), A3.reshape(4, 6)),
      (sparse.bcoo_rev(x, (0, 2)), A3[::-1, :, ::-1]),
      (sparse.bcoo_slice(x, start_indices=(1, 0, 0), limit_indices=(3, 4, 2),
                         strides=(1, 2, 1)), A3[1:3, ::2]),
      (sparse.bcoo_dynamic_slice(x, jnp.array([1, 1, 0]), (2, 2, 2)), A3[1:3, 1:3]),
      (sparse.bcoo_reduce_sum(x, axes=(1,)), A3.sum(1)),
      (sparse.bcoo_squeeze(sparse.bcoo_reshape(x, new_sizes=(1, 24)), dimensions=(0,)),
       A3.reshape(24)),
      (sparse.bcoo_broadcast_in_dim(sparse.BCOO.fromdense(M), shape=(4, 2, 3),
                                    broadcast_dimensions=(1, 2)), np.broadcast_to(M, (4, 2, 3))),
      (sparse.bcoo_concatenate([x, x], dimension=1), np.concatenate([A3, A3], 1)),
  ]
  for sp, want in cases:
    assert isinstance(sp, sparse.BCOO)
    np.testing.assert_allclose(sp.todense(), want, rtol=1e-6)
  with pytest.raises(ValueError, match="permutation"):
    sparse.bcoo_transpose(x, permutation=(0, 0, 1))


def test_sort_sum_duplicates_extract():
  dup = sparse.BCOO((jnp.array([1., 2., 3.]), jnp.array([[1, 1], [0, 0], [1, 1]])), shape=(2, 2))
  merged = sparse.bcoo_sum_duplicates(dup)
  assert merged.nse == 2 and merged.unique_indices
  np.testing.assert_array_equal(merged.todense(), dup.todense())
  np.testing.assert_array_equal(merged.indices, [[0, 0], [1, 1]])
  srt = sparse.bcoo_sort_indices(dup)
  np.testing.assert_array_equal(srt.indices, [[0, 0], [1, 1], [1, 1]])
  ex = sparse.bcoo_extract(merged, jnp.array([[5., 6.], [7., 8.]]))
  np.testing.assert_array_equal(ex.data, [5., 8.])


def test_other_formats():
  B = np.arange(6., dtype=np.float32).reshape(3, 2)
  for cls in (sparse.COO, sparse.CSR, sparse.CSC, sparse.BCSR):
    s = cls.fromdense(M)
    np.testing.assert_array_equal(s.todense(), M)
    np.testing.assert_allclose(s @ np.ones(3, np.float32), M @ np.ones(3))
    np.testing.assert_allclose(s @ B, M @ B)
  c = sparse.csr_fromdense(M)
  np.testing.assert_array_equal(c.indptr, [0, 1, 3])
  np.testing.assert_allclose(sparse.csr_matvec(c, jnp.ones(2), transpose=True), M.T @ np.ones(2))
  coo = sparse.coo_fromdense(M)
  np.testing.assert_allclose(sparse.coo_matmat(coo, np.ones((2, 2), np.float32), transpose=True),
                             M.T @ np.ones((2, 2)))
  np.testing.assert_allclose(jax.jit(sparse.csr_todense)(c), M)
  b = sparse.bcsr_fromdense(M)
  np.testing.assert_array_equal(sparse.bcsr_extract(b.indices, b.indptr, 2 * M), [2., 4., 6.])
  np.testing.assert_array_equal(sparse.BCSR.from_bcoo(sparse.BCOO.fromdense(M)).todense(), M)
  with pytest.raises(ValueError, match="matrix"):
    sparse.csr_fromdense(np.ones(3))


def test_constructors_and_todense():
  np.testing.assert_array_equal(sparse.eye(3, 4, k=1).todense(), np.eye(3, 4, 1))
  np.testing.assert_array_equal(sparse.eye(3, sparse_format="csr").todense(), np.eye(3))
  e = sparse.empty((2, 3))
  assert e.nse == 0 and float(e.todense().sum()) == 0.
  np.testing.assert_array_equal(sparse.todense(M), M)
  np.testing.assert_array_equal(sparse.todense(sparse.BCOO.fromdense(M)), M)
  r = sparse.random_bcoo(jax.random.key(0), (4, 5), nse=6)
  assert r.nse == 6 and int((r.todense() != 0).sum()) == 6
  rb = sparse.random_bcoo(jax.random.key(1), (2, 4, 5), nse=0.25, n_batch=1)
  assert rb.indices.shape == (2, 5, 2)
  with pytest.raises(ValueError, match="sparse_format"):
    sparse.eye(2, sparse_format="dok")


def test_sparsify():
  m = sparse.BCOO.fromdense(M)
  out = sparse.sparsify(lambda a, v: (a * 2).sum(1) + a @ v)(m, jnp.ones(3))
  np.testing.assert_allclose(out, (M * 2).sum(1) + M @ np.ones(3))
  t = sparse.sparsify(lambda a: jnp.sin(a.T) * 3)(m)
  assert isinstance(t, sparse.BCOO)
  np.testing.assert_allclose(t.todense(), np.sin(M.T) * 3, rtol=1e-6)
  dense_out = sparse.sparsify(lambda a: jnp.exp(a))(m)   # exp(0) != 0: computed densely
  np.testing.assert_allclose(dense_out, np.exp(M), rtol=1e-6)
  assert repr(sparse.SparseTracer(spvalue=m)).startswith("SparseTracer(BCOO")


def test_spsolve():
  a = np.array([[4., 1.], [1., 3.]], np.float32)
  c = sparse.CSR.fromdense(a)
  np.testing.assert_allclose(sparse.linalg.spsolve(c.data, c.indices, c.indptr,
                                                   np.array([1., 2.], np.float32)),
                             np.linalg.solve(a, [1., 2.]), rtol=1e-5)
