"""lax.sort / top_k and jnp sorting, searching, counting, order statistics, permutations."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax

F = np.array([3.0, 1.0, 2.0, 1.0, np.nan, -np.inf, 0.0, -0.0], np.float32)


def test_sort_floats_nan_last(backend):
  got = np.asarray(jnp.sort(F))
  np.testing.assert_array_equal(got, np.sort(F))


def test_sort_lowering_uses_total_order_comparator():
  text = jax.jit(jnp.sort).lower(jnp.ones(3)).as_text()
  assert "sort(" in text and "type=TOTALORDER" in text and "is_stable=true" in text


def test_argsort_stable_and_descending(backend):
  x = np.array([2, 1, 2, 0, 1], np.int32)
  np.testing.assert_array_equal(jnp.argsort(x), np.argsort(x, kind="stable"))
  # Descending keeps equal elements in their original order.
  np.testing.assert_array_equal(jnp.argsort(x, descending=True), [0, 2, 1, 4, 3])
  np.testing.assert_array_equal(jnp.sort(x, descending=True), [2, 2, 1, 1, 0])


def test_sort_axes_and_complex(backend):
  m = np.array([[3, 1, 2], [9, 7, 0]], np.int32)
  np.testing.assert_array_equal(jnp.sort(m, axis=0), np.sort(m, axis=0))
  np.testing.assert_array_equal(jnp.sort(m, axis=None), np.sort(m, axis=None))
  c = np.array([2 + 1j, 1 + 5j, 1 + 2j], np.complex64)
  np.testing.assert_array_equal(jnp.sort(c), np.sort(c))


def test_lax_sort_multiple_operands(backend):
  k, v = lax.sort((jnp.array([3, 1, 2]), jnp.array([10.0, 20.0, 30.0])), num_keys=1)
  np.testing.assert_array_equal(k, [1, 2, 3])
  np.testing.assert_array_equal(v, [20.0, 30.0, 10.0])
  k1, k2 = np.array([1, 0, 1, 0]), np.array([4, 3, 2, 1])
  np.testing.assert_array_equal(jnp.lexsort((k2, k1)), np.lexsort((k2, k1)))


def test_sort_errors():
  with pytest.raises(ValueError, match="num_keys"):
    lax.sort((jnp.ones(3), jnp.ones(3)), num_keys=3)
  with pytest.raises(TypeError, match="same shape"):
    lax.sort((jnp.ones(3), jnp.ones(4)), num_keys=1)


def test_sort_grad_and_vmap(backend):
  x = jnp.array([0.0, 1.0, -1.0])
  g = jax.grad(lambda v: jnp.sum(jnp.sort(v) * jnp.arange(3.0)))(x)
  np.testing.assert_array_equal(g, [1.0, 2.0, 0.0])
  m = np.array([[3, 1, 2], [9, 7, 8]], np.int32)
  np.testing.assert_array_equal(jax.vmap(jnp.sort)(m), np.sort(m, axis=1))


def test_top_k_and_partition(backend):
  x = np.array([[3.0, 1.0, 2.0, 5.0], [9.0, 7.0, 8.0, 1.0]], np.float32)
  vals, idx = lax.top_k(x, 2)
  np.testing.assert_array_equal(vals, [[5, 3], [9, 8]])
  np.testing.assert_array_equal(idx, [[3, 0], [0, 2]])
  a = np.array([5, 1, 4, 2, 3, 9, 0, 7], np.int32)
  p = np.asarray(jnp.partition(a, 2))
  assert p[2] == np.partition(a, 2)[2] and set(p[:2]) == {0, 1}
  ip = np.asarray(jnp.argpartition(a, 2))
  assert a[ip[2]] == 2 and sorted(ip) == list(range(8))


@pytest.mark.parametrize("method", ["scan", "sort", "compare_all"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(backend, method, side):
  a = np.array([0.0, 1.0, 1.0, 2.0, 4.0], np.float32)
  v = np.array([-1.0, 0.0, 1.0, 1.5, 4.0, 10.0, np.nan], np.float32)
  got = jnp.searchsorted(a, v, side=side, method=method)
  np.testing.assert_array_equal(got, np.searchsorted(a, v, side=side))


def test_searchsorted_errors():
  with pytest.raises(ValueError, match="side"):
    jnp.searchsorted(jnp.ones(3), 1.0, side="middle")
  with pytest.raises(ValueError, match="method"):
    jnp.searchsorted(jnp.ones(3), 1.0, method="bogus")


def test_digitize_histogram_bincount(backend):
  edges = np.array([0.0, 1.0, 2.0, 4.0], np.float32)
  v = np.array([-1.0, 0.0, 0.5, 1.0, 3.9, 4.0, 10.0], np.float32)
  np.testing.assert_array_equal(jnp.digitize(v, edges), np.digitize(v, edges))
  np.testing.assert_array_equal(jnp.digitize(v, edges, right=True),
                                np.digitize(v, edges, right=True))
  h, e = jnp.histogram(v, bins=4, range=(0.0, 4.0))
  h_np, e_np = np.histogram(v, bins=4, range=(0.0, 4.0))
  np.testing.assert_array_equal(h, h_np)
  np.testing.assert_allclose(e, e_np)
  np.testing.assert_array_equal(jnp.bincount(jnp.array([0, 1, 1, 3]), length=5),
                                [1, 2, 0, 1, 0])
  np.testing.assert_array_equal(jnp.bincount(jnp.array([0, 2, 2])), [1, 0, 2])
  with pytest.raises(TypeError, match="integer"):
    jnp.bincount(jnp.ones(3))


def test_quantiles_and_median(backend):
  rng = np.random.default_rng(0)
  x = rng.standard_normal((5, 6)).astype(np.float32)
  np.testing.assert_allclose(jnp.median(x, axis=1), np.median(x, axis=1), rtol=1e-5)
  np.testing.assert_allclose(jnp.percentile(x, 30.0), np.percentile(x, 30.0), rtol=1e-5)
  np.testing.assert_allclose(jnp.quantile(x, jnp.array([0.1, 0.9]), axis=0),
                             np.quantile(x, [0.1, 0.9], axis=0), rtol=1e-5)
  for method in ["lower", "higher", "midpoint", "nearest"]:
    np.testing.assert_allclose(jnp.quantile(x[0], 0.5, method=method),
                               np.quantile(x[0], 0.5, method=method), rtol=1e-6)
  y = x[0].copy()
  y[2] = np.nan
  assert np.isnan(np.asarray(jnp.median(y)))
  np.testing.assert_allclose(jnp.nanmedian(y), np.nanmedian(y), rtol=1e-6)
  with pytest.raises(ValueError, match="method"):
    jnp.quantile(x, 0.5, method="bogus")


def test_statistics(backend):
  rng = np.random.default_rng(1)
  x = rng.standard_normal((4, 6)).astype(np.float32)
  w = np.arange(1.0, 7.0, dtype=np.float32)
  np.testing.assert_allclose(jnp.average(x, axis=1, weights=w),
                             np.average(x, axis=1, weights=w), rtol=1e-5)
  np.testing.assert_allclose(jnp.ptp(x, axis=0), np.ptp(x, axis=0), rtol=1e-6)
  np.testing.assert_allclose(jnp.cov(x), np.cov(x), rtol=1e-4, atol=1e-6)
  np.testing.assert_allclose(jnp.corrcoef(x[:2]), np.corrcoef(x[:2]), rtol=1e-4, atol=1e-6)


def test_random_permutation_is_a_permutation(backend):
  p = np.asarray(jax.random.permutation(jax.random.PRNGKey(0), 20))
  assert sorted(p.tolist()) == list(range(20))
  with pytest.raises(ValueError, match="larger sample"):
    jax.random.choice(jax.random.PRNGKey(0), 3, (4,), replace=False)


def test_random_permutation_matches_jax_bits(backend):
  from test_random import _expected
  exp = _expected("random_permutation_choice")
  x = jnp.arange(12).reshape(3, 4)
  got = jax.random.permutation(jax.random.PRNGKey(3), x, axis=1, independent=True)
  np.testing.assert_array_equal(np.asarray(got), exp["leaf2"])
