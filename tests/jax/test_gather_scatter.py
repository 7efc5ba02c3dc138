"""lax.gather / lax.scatter*: dimension numbers, out-of-bounds modes, AD, vmap, clamp."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax

ROWS = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                  start_index_map=(0,))
POINTS = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0, 1),
                                    start_index_map=(0, 1))
ELEMS = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                   scatter_dims_to_operand_dims=(0,))
ROW_UPDATES = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                         scatter_dims_to_operand_dims=(0,))


def _x():
  return np.arange(20.0, dtype=np.float32).reshape(4, 5)


def test_gather_rows_and_points_match_numpy():
  x = _x()
  rows = lax.gather(x, jnp.array([[2], [0], [3]]), ROWS, slice_sizes=(1, 5))
  np.testing.assert_array_equal(rows, x[[2, 0, 3]])
  pts = lax.gather(x, jnp.array([[0, 1], [3, 4], [1, 1]]), POINTS, slice_sizes=(1, 1))
  np.testing.assert_array_equal(pts, x[[0, 3, 1], [1, 4, 1]])


def test_gather_window_offsets():
  x = _x()
  dn = lax.GatherDimensionNumbers(offset_dims=(1, 2), collapsed_slice_dims=(),
                                  start_index_map=(0, 1))
  out = lax.gather(x, jnp.array([[1, 2], [0, 0]]), dn, slice_sizes=(2, 3))
  np.testing.assert_array_equal(out, np.stack([x[1:3, 2:5], x[0:2, 0:3]]))


def test_gather_out_of_bounds_modes():
  x = _x()
  idx = jnp.array([[5], [-1], [1]])
  # Default (promise in bounds) and clip clamp the start index.
  np.testing.assert_array_equal(lax.gather(x, idx, ROWS, (1, 5)), x[[3, 0, 1]])
  np.testing.assert_array_equal(lax.gather(x, idx, ROWS, (1, 5), mode="clip"), x[[3, 0, 1]])
  filled = np.asarray(lax.gather(x, idx, ROWS, (1, 5), mode="fill"))
  assert np.isnan(filled[:2]).all()
  np.testing.assert_array_equal(filled[2], x[1])
  out = lax.gather(x, idx, ROWS, (1, 5), mode=lax.GatherScatterMode.FILL_OR_DROP, fill_value=-3)
  np.testing.assert_array_equal(np.asarray(out)[:2], -3)


def test_gather_fill_defaults_per_dtype():
  dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))
  for dtype, want in [(np.int32, np.iinfo(np.int32).min), (np.uint8, 255), (np.bool_, True)]:
    out = lax.gather(jnp.zeros(3, dtype), jnp.array([[7]]), dn, (1,), mode="fill")
    assert out.dtype == dtype and out[0] == want


def test_gather_with_batching_dims():
  x = _x()
  idx = np.array([[4, 0], [1, 1], [2, 3], [0, 4]])
  dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(1,), start_index_map=(1,),
                                  operand_batching_dims=(0,), start_indices_batching_dims=(0,))
  out = lax.gather(x, jnp.asarray(idx)[..., None], dn, slice_sizes=(1, 1))
  np.testing.assert_array_equal(out, np.take_along_axis(x, idx, axis=1))


@pytest.mark.parametrize("fn,ufunc", [(lax.scatter_add, np.add), (lax.scatter_mul, np.multiply),
                                      (lax.scatter_min, np.minimum), (lax.scatter_max, np.maximum)])
def test_scatter_combiners_match_numpy_ufunc_at(fn, ufunc):
  operand = np.array([1.0, -2.0, 3.0, 4.0, 0.5], np.float32)
  idx = np.array([1, 3, 1, 4])
  upd = np.array([2.0, -1.0, 5.0, 0.25], np.float32)
  want = operand.copy()
  ufunc.at(want, idx, upd)
  np.testing.assert_allclose(fn(operand, jnp.asarray(idx)[:, None], upd, ELEMS), want)


def test_scatter_replaces_and_drops_out_of_bounds():
  out = lax.scatter(jnp.zeros(5), jnp.array([[4], [0], [7], [-1]]), jnp.array([7., 8., 9., 6.]),
                    ELEMS)
  np.testing.assert_array_equal(out, [8, 0, 0, 0, 7])
  clipped = lax.scatter_add(jnp.zeros(5), jnp.array([[7], [-1]]), jnp.array([1., 2.]), ELEMS,
                            mode="clip")
  np.testing.assert_array_equal(clipped, [2, 0, 0, 0, 1])


def test_scatter_row_windows():
  out = lax.scatter_add(jnp.zeros((3, 2)), jnp.array([[2], [0], [2]]),
                        jnp.array([[1., 2.], [3., 4.], [5., 6.]]), ROW_UPDATES)
  np.testing.assert_array_equal(out, [[3, 4], [0, 0], [6, 8]])


def test_scatter_apply_runs_once_per_index():
  out = lax.scatter_apply(jnp.arange(4.0), jnp.array([[1], [1], [3]]), lambda v: v * 10, ELEMS,
                          update_shape=(3,))
  np.testing.assert_array_equal(out, [0, 100, 2, 30])


def test_bad_dimension_numbers_and_modes_raise():
  with pytest.raises(TypeError, match="slice_sizes"):
    lax.gather(_x(), jnp.array([[0]]), ROWS, slice_sizes=(1, 6))
  with pytest.raises(TypeError, match="index vector"):
    lax.gather(_x(), jnp.array([[0, 1]]), ROWS, slice_sizes=(1, 5))
  with pytest.raises(TypeError, match="integer"):
    lax.gather(_x(), jnp.array([[0.0]]), ROWS, slice_sizes=(1, 5))
  with pytest.raises(TypeError, match="dtype"):
    lax.scatter_add(jnp.zeros(3), jnp.array([[0]]), jnp.array([1], jnp.int32), ELEMS)
  with pytest.raises(ValueError, match='Unknown gather mode "foo"'):
    lax.GatherScatterMode.from_any("foo")
  assert lax.GatherScatterMode.from_any(None) is lax.GatherScatterMode.FILL_OR_DROP


def test_gather_gradient_is_scatter_add():
  idx = np.array([1, 1, 3])
  w = np.array([1.0, 2.0, 3.0], np.float32)
  f = lambda x: (lax.gather(x, jnp.asarray(idx)[:, None], lax.GatherDimensionNumbers(
      (), (0,), (0,)), (1,)) * w).sum()
  want = np.zeros(5, np.float32)
  np.add.at(want, idx, w)
  np.testing.assert_array_equal(jax.grad(f)(jnp.zeros(5)), want)


def test_scatter_gradients():
  idx = jnp.array([[1], [1], [3]])
  x, y = jnp.arange(5.0), jnp.array([1.0, 2.0, 3.0])
  gx, gy = jax.grad(lambda x, y: (lax.scatter_add(x, idx, y, ELEMS) ** 2).sum(), (0, 1))(x, y)
  np.testing.assert_allclose(gx, 2 * np.array([0, 4, 2, 6, 4]))
  np.testing.assert_allclose(gy, 2 * np.array([4, 4, 6]))
  # With duplicates, only the winning update of a plain scatter gets a gradient.
  gx, gy = jax.grad(lambda x, y: lax.scatter(x, idx, y, ELEMS).sum(), (0, 1))(x, y)
  np.testing.assert_array_equal(gx, [1, 0, 1, 0, 1])
  assert float(gy.sum()) == 2.0 and float(gy[2]) == 1.0
  gx, gy = jax.grad(lambda x, y: lax.scatter_mul(x, idx, y, ELEMS).sum(), (0, 1))(x, y)
  np.testing.assert_allclose(gx, [1, 2, 1, 3, 1])
  np.testing.assert_allclose(gy, [2, 1, 3])
  # Ties of scatter_max share the derivative.
  gx, gy = jax.grad(lambda x, y: lax.scatter_max(x, idx, y, ELEMS).sum(), (0, 1))(
      jnp.ones(5), jnp.array([1.0, 0.5, 3.0]))
  np.testing.assert_allclose(gx, [1, 0.5, 1, 0, 1])
  np.testing.assert_allclose(gy, [0.5, 0, 1])


def test_vmap_gather_all_batching_cases():
  x = jnp.arange(24.0).reshape(3, 8)
  idx = jnp.array([[[0]], [[7]], [[3]]])
  one = lambda x, i: lax.gather(x, i, lax.GatherDimensionNumbers((), (0,), (0,)), (1,))
  loop = np.stack([one(x[k], idx[k]) for k in range(3)])
  np.testing.assert_array_equal(jax.vmap(one)(x, idx), loop)
  np.testing.assert_array_equal(jax.vmap(one, (0, None))(x, idx[1]), x[:, 7:8])
  np.testing.assert_array_equal(jax.vmap(one, (None, 0))(x[0], idx), [[0], [7], [3]])


def test_vmap_scatter_matches_loop():
  ops, idx, upd = jnp.zeros((3, 4)), jnp.array([[[0], [0]], [[2], [3]], [[3], [1]]]), jnp.ones((3, 2))
  f = lambda o, i, u: lax.scatter_add(o, i, u, ELEMS)
  loop = np.stack([f(ops[k], idx[k], upd[k]) for k in range(3)])
  np.testing.assert_array_equal(jax.vmap(f)(ops, idx, upd), loop)
  np.testing.assert_array_equal(jax.vmap(f, (None, 0, None))(ops[0], idx, upd[0]), loop)


def test_gather_and_scatter_lower_to_hlo_ops():
  text = jax.jit(lambda x, i: lax.gather(x, i, ROWS, (1, 5))).lower(
      _x(), jnp.array([[1]])).as_text(dialect="hlo")
  assert "gather(" in text and "index_vector_dim=1" in text and "slice_sizes={1,5}" in text
  text = jax.jit(lambda x, i, u: lax.scatter_max(x, i, u, ELEMS, unique_indices=True)).lower(
      jnp.zeros(5), jnp.array([[1]]), jnp.ones(1)).as_text(dialect="hlo")
  assert "scatter(" in text and "maximum(" in text and "unique_indices=true" in text


def test_clamp_values_gradient_and_vmap():
  x = jnp.array([1.0, 2.0, 3.0, 7.0, 8.0])
  np.testing.assert_array_equal(lax.clamp(2.0, x, 7.0), np.clip(x, 2, 7))
  # Ties with a bound give no derivative, as in JAX.
  np.testing.assert_array_equal(jax.grad(lambda x: lax.clamp(2.0, x, 7.0).sum())(x),
                                [0, 0, 1, 0, 0])
  lo = jnp.array([0.0, 2.5, 9.0, 0.0, 0.0])
  np.testing.assert_array_equal(jax.vmap(lambda l, v: lax.clamp(l, v, 7.0))(lo, x),
                                np.minimum(np.maximum(x, lo), 7))
  with pytest.raises(TypeError, match="shape"):
    lax.clamp(jnp.zeros(2), x, 7.0)


def test_indexing_that_takes_nothing_from_empty_arrays():
  # JAX 0.10.2's results: an empty selection needs no gather, even from an empty axis.
  x = jnp.zeros(0, jnp.int32)
  assert x[jnp.array([], jnp.int32)].shape == (0,)
  assert x[jnp.zeros((0, 1), jnp.int32)].shape == (0, 1)
  y = jnp.zeros((0, 3))
  assert y[jnp.array([], jnp.int32)].shape == (0, 3) and y[:, jnp.array([1])].shape == (0, 1)
  # Taking something from nothing stays an error.
  with pytest.raises(TypeError, match="slice_sizes"):
    x[jnp.array([0])]
  with pytest.raises(IndexError, match="non-empty jnp.take"):
    jnp.take(x, jnp.array([0, 1]), mode="fill", fill_value=7)
  # Scattering nothing into an empty operand, at the lax level too.
  dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                   scatter_dims_to_operand_dims=(0,))
  out = lax.scatter_add(x, jnp.zeros((0, 1), jnp.int32), jnp.zeros(0, jnp.int32), dn)
  assert out.shape == (0,) and out.dtype == jnp.int32
  assert x.at[jnp.array([], jnp.int32)].set(5).shape == (0,)
  assert jax.jit(lambda y: y.at[jnp.array([0])].add(1.0))(jnp.zeros((2, 0))).shape == (2, 0)


def test_gather_and_scatter_over_an_empty_batch():
  take = jax.vmap(lambda x, i: x[i])
  assert take(jnp.zeros((0, 1)), jnp.zeros((0,), jnp.int32)).shape == (0,)
  take2 = jax.vmap(lambda x, i: x[i, i])
  assert take2(jnp.zeros((0, 2, 2)), jnp.zeros((0, 3), jnp.int32)).shape == (0, 3)
  add = jax.vmap(lambda x, i: x.at[i].add(1.0))
  assert add(jnp.zeros((0, 1)), jnp.zeros((0,), jnp.int32)).shape == (0, 1)
  np.testing.assert_array_equal(take2(jnp.arange(8.0).reshape(2, 2, 2), jnp.array([[0, 1, 1]] * 2)),
                                [[0, 3, 3], [4, 7, 7]])


def test_row_and_column_updates_are_one_windowed_scatter():
  x = jnp.zeros((4, 6))
  for f in (lambda a: a.at[1].set(1.0), lambda a: a.at[:, jnp.array([0, 5])].add(1.0),
            lambda a: a.at[2, 3].mul(2.0)):
    eqns = [e.primitive.name for e in jax.make_jaxpr(f)(x).eqns]
    assert "reshape" not in eqns and sum(n.startswith("scatter") for n in eqns) == 1
  # Strided slices still update elementwise, with the same results as numpy.
  expect = np.zeros((4, 6), np.float32)
  expect[::2, 1] = -5
  np.testing.assert_array_equal(x.at[::2, 1].set(-5.0), expect)
