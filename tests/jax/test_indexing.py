"""NumPy indexing of jax arrays, `.at[]` updates and the jnp indexing functions."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp

M = np.arange(60).reshape(3, 4, 5)

# Indices that NumPy and JAX treat the same way (all in bounds).
INDICES = [
    1, -1, (1, 2), (slice(1, None, 2), -2), (Ellipsis, 0), (None, 1, None), (slice(None, None, -1),),
    (np.array([0, 2]),), (np.array([[1], [2]]), np.array([0, 3])),
    (slice(None), np.array([0, 2])), (np.array([0, 2]), slice(None), np.array([4, 1])),
    (np.array([0, 2]), slice(1, 3), np.array([1, 1])), (1, slice(None), np.array([0, 3])),
    (slice(None), 1, np.array([0, 3])), (np.array([-1, 0]),), (Ellipsis, np.array([1, 0])),
    (np.array([0, 1]), None, np.array([1, 2])), (None, Ellipsis, np.array([2, 2]), 1),
    (slice(None), np.array([[0, 1], [2, 3]])), (np.array([[1], [0]]), slice(1, None), slice(None, None, -2)),
    (M > 40,), (slice(None), M[0] > 10), (slice(None), np.array([True, False, True, False])),
    (np.array([True, False, True]), 2, np.array([0, 4])), (True,), (1, False), (np.array([], int),),
]


@pytest.mark.parametrize("idx", INDICES, ids=range(len(INDICES)))
def test_getitem_matches_numpy(idx):
  got = jnp.asarray(M)[idx]
  want = M[idx]
  assert got.shape == want.shape
  np.testing.assert_array_equal(got, want)


def test_getitem_under_jit_with_traced_indices():
  x = jnp.arange(10.0)
  f = jax.jit(lambda x, i, idx: (x[i], x[idx], x[-i], x[i, None], x.at[idx].get(mode="fill",
                                                                                  fill_value=-1)))
  a, b, c, d, e = f(x, 12, jnp.array([-1, -10, 3, 12]))
  assert float(a) == 9 and float(c) == 0  # dynamic_slice clamps (after wrapping -12 -> -2)
  np.testing.assert_array_equal(b, [9, 0, 3, 9])  # gather clamps
  np.testing.assert_array_equal(d, [9])
  np.testing.assert_array_equal(e, [9, 0, 3, -1])
  m = jnp.asarray(M)
  g = jax.jit(lambda i, j: m[i, 1:3, j])(jnp.int32(2), jnp.array([0, 4]))
  np.testing.assert_array_equal(g, M[2, 1:3, [0, 4]])


def test_static_out_of_bounds_integers_clamp():
  x = jnp.arange(10.0)
  assert float(x[12]) == 9 and float(x[-11]) == 0
  np.testing.assert_array_equal(x[np.array([12, -11])], [9, 0])


def test_indexing_errors():
  x = jnp.arange(10.0)
  with pytest.raises(jax.errors.NonConcreteBooleanIndexError, match="must be concrete"):
    jax.jit(lambda x: x[x > 2])(x)
  with pytest.raises(IndexError):  # NonConcreteBooleanIndexError is an IndexError
    jax.jit(lambda x: x.at[x > 2].get())(x)
  with pytest.raises(TypeError, match="integer or boolean type, got indexer with type float32"):
    x[jnp.array([1.0])]
  with pytest.raises(TypeError, match="string indexing"):
    x["a"]
  with pytest.raises(IndexError, match="Too many indices"):
    x[1, 2]
  with pytest.raises(IndexError, match="single ellipsis"):
    x[..., ...]
  with pytest.raises(TypeError, match="non-tuple sequence"):
    x[[1, 2]]
  with pytest.raises(IndexError, match="did not match shape"):
    jnp.asarray(M)[np.array([True, False])]
  with pytest.raises(IndexError, match="static integers"):
    jax.jit(lambda i: x[i:])(3)


def test_at_updates_match_numpy():
  x = np.arange(6.0, dtype=np.float32)
  i = np.array([1, 3, 1])
  jx = jnp.asarray(x)

  def ref(ufunc, v):
    out = x.copy()
    ufunc.at(out, i, v)
    return out

  np.testing.assert_array_equal(jx.at[i].add(1.0), ref(np.add, 1.0))
  np.testing.assert_array_equal(jx.at[i].multiply(2.0), ref(np.multiply, 2.0))
  np.testing.assert_array_equal(jx.at[i].min(-1.0), ref(np.minimum, -1.0))
  np.testing.assert_array_equal(jx.at[i].max(4.0), ref(np.maximum, 4.0))
  np.testing.assert_array_equal(jx.at[i].apply(lambda v: v * 10), [0, 100, 2, 30, 4, 5])
  np.testing.assert_array_equal(jx.at[1:4].set(jnp.array([7.0, 8.0, 9.0])), [0, 7, 8, 9, 4, 5])
  np.testing.assert_array_equal(jx.at[::2].power(2), [0, 1, 4, 3, 16, 5])
  np.testing.assert_array_equal(jx.at[4].divide(2.0), [0, 1, 2, 3, 2, 5])
  np.testing.assert_array_equal(jx.at[-1].subtract(5), [0, 1, 2, 3, 4, 0])
  np.testing.assert_array_equal(jx.at[np.array([0, 9])].get(mode="fill", fill_value=-5.0), [0, -5])
  np.testing.assert_array_equal(jx, x)  # the original is untouched


def test_at_multidimensional_and_masks():
  m = jnp.asarray(M)
  want = M.copy()
  want[:, [0, 2], 1] = 7
  np.testing.assert_array_equal(m.at[:, np.array([0, 2]), 1].set(7), want)
  want = M.copy()
  want[M > 50] = 0
  np.testing.assert_array_equal(m.at[m > 50].set(0), want)
  want = M.copy()
  np.add.at(want, (0, [0, 0], 1), [5, 6])
  np.testing.assert_array_equal(m.at[0, np.array([0, 0]), 1].add(jnp.array([5, 6])), want)
  with pytest.raises(ValueError, match="could not be broadcast"):
    m.at[0, 0, 1:3].set(jnp.ones(3, jnp.int32))


def test_at_out_of_bounds_modes_and_dtypes():
  x = jnp.arange(10.0)
  idx = jnp.array([-1, 10, -11])
  np.testing.assert_array_equal(x.at[idx].add(1.0), np.arange(10.0) + (np.arange(10) == 9))
  clipped = np.arange(10.0)
  np.add.at(clipped, [9, 9, 0], 1)
  np.testing.assert_array_equal(x.at[idx].add(1.0, mode="clip"), clipped)
  np.testing.assert_array_equal(x.at[12].set(1.0), np.arange(10.0))
  ints = jnp.arange(5).at[1].set(2.7)
  assert ints.dtype == jnp.int32 and int(ints[1]) == 2
  assert not jnp.arange(3.0).at[0].set(1).weak_type


def test_at_updates_differentiate_and_vectorize():
  x = jnp.arange(6.0)
  g = jax.grad(lambda x: (x.at[jnp.array([1, 1, 3])].add(x[:3]) ** 2).sum())(x)
  y = np.arange(6.0)
  np.add.at(y, [1, 1, 3], np.arange(3.0))
  want = 2 * y  # through the operand
  want[:3] += 2 * y[[1, 1, 3]]  # through the updates x[:3]
  np.testing.assert_allclose(g, want)
  rows = jax.vmap(lambda i: jnp.zeros(4).at[i].set(1.0))(jnp.array([0, 3, 2]))
  np.testing.assert_array_equal(rows, np.eye(4)[[0, 3, 2]])
  picked = jax.vmap(lambda r, i: r[i])(jnp.arange(12.0).reshape(3, 4), jnp.array([[0, 1], [2, 3], [3, 3]]))
  np.testing.assert_array_equal(picked, [[0, 1], [6, 7], [11, 11]])


def test_take_and_take_along_axis():
  x = np.arange(12).reshape(3, 4)
  jx = jnp.asarray(x)
  np.testing.assert_array_equal(jnp.take(jx, jnp.array([0, 5, 11])), np.take(x, [0, 5, 11]))
  np.testing.assert_array_equal(jnp.take(jx, jnp.array([2, 0]), axis=1), np.take(x, [2, 0], 1))
  np.testing.assert_array_equal(jnp.take(jx, jnp.array([5, -1]), axis=0, mode="clip"), x[[2, 0]])
  np.testing.assert_array_equal(jnp.take(jx, jnp.array([5, -1]), axis=0, mode="wrap"), x[[2, 2]])
  np.testing.assert_array_equal(jnp.take(jnp.arange(5), jnp.array([7])), [np.iinfo(np.int32).min])
  with pytest.raises(NotImplementedError, match="'raise' mode"):
    jnp.take(jx, jnp.array([0]), mode="raise")
  idx = np.argsort(-x, axis=1)
  np.testing.assert_array_equal(jnp.take_along_axis(jx, jnp.asarray(idx), axis=1),
                                np.take_along_axis(x, idx, 1))
  np.testing.assert_array_equal(jnp.take_along_axis(jx, jnp.array([[2, 0, 1, 0]]), axis=0),
                                np.take_along_axis(x, np.array([[2, 0, 1, 0]]), 0))
  assert np.isnan(jnp.take_along_axis(jnp.ones((2, 3)), jnp.array([[0], [5]]), 1)[1, 0])


def test_put_place_choose_select_piecewise():
  np.testing.assert_array_equal(
      jnp.put(jnp.zeros(5), jnp.array([1, 3, 4]), jnp.array([9.0, 8.0]), inplace=False),
      [0, 9, 0, 8, 9])
  with pytest.raises(ValueError, match="inplace=False"):
    jnp.put(jnp.zeros(5), jnp.array([1]), 1.0)
  np.testing.assert_array_equal(
      jnp.place(jnp.zeros(4), np.array([1, 0, 1, 1], bool), jnp.array([1.0, 2.0]), inplace=False),
      [1, 0, 2, 1])
  choices = [np.arange(4), np.arange(4) * 10, np.arange(4) * 100]
  a = np.array([0, 1, 2, 1])
  np.testing.assert_array_equal(jnp.choose(a, choices), np.choose(a, choices))
  np.testing.assert_array_equal(jnp.choose(np.array([0, 4, -1, 1]), choices, mode="wrap"),
                                np.choose(np.array([0, 4, -1, 1]), choices, mode="wrap"))
  with pytest.raises(ValueError, match="invalid entry"):
    jnp.choose(np.array([3]), choices)
  x = np.arange(-3.0, 4.0, dtype=np.float32)
  np.testing.assert_array_equal(jnp.select([x < -1, x > 1], [x * 10, -x], default=0.0),
                                np.select([x < -1, x > 1], [x * 10, -x], 0.0))
  np.testing.assert_array_equal(
      jnp.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v ** 2]),
      np.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v ** 2]))
  np.testing.assert_array_equal(jnp.piecewise(np.arange(4), [np.arange(4) > 1], [lambda v: v * 2.5, 7]),
                                [7, 7, 5, 7])
  with pytest.raises(ValueError, match="condlist must have length"):
    jnp.select([x > 0], [x, x])


def test_nonzero_family():
  m = np.array([[0, 1, 0], [2, 0, 3]])
  for got, want in zip(jnp.nonzero(m), np.nonzero(m)):
    np.testing.assert_array_equal(got, want)
  np.testing.assert_array_equal(jnp.argwhere(m), np.argwhere(m))
  np.testing.assert_array_equal(jnp.flatnonzero(m), np.flatnonzero(m))
  np.testing.assert_array_equal(jnp.where(m)[1], np.where(m)[1])
  rows, cols = jax.jit(lambda m: jnp.nonzero(m, size=4, fill_value=-1))(m)
  np.testing.assert_array_equal(rows, [0, 1, 1, -1])
  np.testing.assert_array_equal(cols, [1, 0, 2, -1])
  np.testing.assert_array_equal(jax.jit(lambda m: jnp.argwhere(m, size=2))(m), [[0, 1], [1, 0]])
  with pytest.raises(jax.errors.ConcretizationTypeError, match="size argument"):
    jax.jit(jnp.nonzero)(m)
  x = np.arange(6.0).reshape(2, 3)
  np.testing.assert_array_equal(jnp.extract(x > 2, x), np.extract(x > 2, x))
  np.testing.assert_array_equal(jnp.compress(np.array([True, False, True]), x, axis=1),
                                np.compress([True, False, True], x, axis=1))
  np.testing.assert_array_equal(
      jnp.compress(np.array([True, False, True]), x, axis=1, size=3, fill_value=-1),
      [[0, 2, -1], [3, 5, -1]])


def test_insert_delete_append_trim_zeros_ix():
  x, m = np.arange(6), np.arange(6).reshape(2, 3)
  cases = [
      (jnp.insert(x, 2, 99), np.insert(x, 2, 99)),
      (jnp.insert(m, 1, jnp.array([7, 8, 9]), axis=0), np.insert(m, 1, [7, 8, 9], axis=0)),
      (jnp.insert(m, 1, 5, axis=1), np.insert(m, 1, 5, axis=1)),
      (jnp.insert(x, jnp.array([1, 4]), jnp.array([-1, -4])), np.insert(x, [1, 4], [-1, -4])),
      (jnp.insert(x, jnp.array([6, 0, -1]), jnp.array([1, 2, 3])), np.insert(x, [6, 0, -1], [1, 2, 3])),
      (jnp.delete(x, jnp.array([0, 3])), np.delete(x, [0, 3])),
      (jnp.delete(m, 1, axis=1), np.delete(m, 1, axis=1)),
      (jnp.delete(x, slice(1, 4)), np.delete(x, slice(1, 4))),
      (jnp.append(x, jnp.array([6, 7])), np.append(x, [6, 7])),
      (jnp.append(m, m, axis=0), np.append(m, m, axis=0)),
      (jnp.trim_zeros(jnp.array([0, 0, 1, 2, 0])), np.array([1, 2])),
      (jnp.trim_zeros(jnp.array([0, 0, 1, 2, 0]), "b"), np.array([0, 0, 1, 2])),
      (jnp.asarray(M)[jnp.ix_(jnp.array([0, 2]), jnp.array([1, 3]))], M[np.ix_([0, 2], [1, 3])]),
  ]
  for got, want in cases:
    np.testing.assert_array_equal(got, want)
  with pytest.raises(IndexError, match="out of bounds"):
    jnp.delete(x, 6)
  with pytest.raises(jax.errors.ConcretizationTypeError):
    jax.jit(lambda i: jnp.delete(jnp.arange(6), i))(1)
