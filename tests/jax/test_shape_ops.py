"""jnp shape manipulation, padding and array creation, against NumPy."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp

A = np.arange(6, dtype=np.int32).reshape(2, 3)


def test_reshape_order_f_and_mT(backend):
  x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
  np.testing.assert_array_equal(jnp.reshape(x, (6, 4), order="F"), x.reshape((6, 4), order="F"))
  np.testing.assert_array_equal(jnp.ravel(x, order="F"), x.ravel(order="F"))
  assert jnp.asarray(x).mT.shape == (2, 4, 3)
  with pytest.raises(ValueError, match="order"):
    jnp.reshape(x, (24,), order="K")


def test_reshape_of_numpy_stays_numpy_under_jit(backend):
  # JAX forwards a NumPy operand to ndarray.reshape: the result is concrete under a
  # trace (numpyro's support checks rely on it), while ravel and the rest trace it.
  x = np.arange(6.0).reshape(2, 3)
  seen = {}

  def f():
    seen["reshape"] = jnp.reshape(x, (3, 2), order="F")
    seen["scalar"] = jnp.reshape(np.float32(1), (1,))
    seen["ravel"] = jnp.ravel(x)
    return seen["ravel"]

  jax.jit(f)()
  assert type(seen["reshape"]) is np.ndarray
  np.testing.assert_array_equal(seen["reshape"], x.reshape((3, 2), order="F"))
  assert type(seen["scalar"]) is np.ndarray and seen["scalar"].dtype == np.float32
  assert isinstance(seen["ravel"], jax.core.Tracer)
  with pytest.raises(TypeError):
    jnp.reshape([1.0, 2.0], (2, 1))


def test_tile_repeat_roll_flip(backend):
  np.testing.assert_array_equal(jnp.tile(A, (2, 1)), np.tile(A, (2, 1)))
  np.testing.assert_array_equal(jnp.tile(np.arange(3), 2), np.tile(np.arange(3), 2))
  np.testing.assert_array_equal(jnp.repeat(A, 2), np.repeat(A, 2))
  np.testing.assert_array_equal(jnp.repeat(A, 2, axis=1), np.repeat(A, 2, axis=1))
  np.testing.assert_array_equal(
      jnp.repeat(A, jnp.array([1, 2]), axis=0, total_repeat_length=3), [[0, 1, 2], [3, 4, 5],
                                                                       [3, 4, 5]])
  np.testing.assert_array_equal(jnp.roll(A, 1), np.roll(A, 1))
  np.testing.assert_array_equal(jnp.roll(A, (1, -1), axis=(0, 1)), np.roll(A, (1, -1), (0, 1)))
  rolled = jax.jit(lambda a, s: jnp.roll(a, s))(np.arange(5), -7)
  np.testing.assert_array_equal(rolled, np.roll(np.arange(5), -7))
  for k in range(4):
    np.testing.assert_array_equal(jnp.rot90(A, k), np.rot90(A, k))
  np.testing.assert_array_equal(jnp.flip(A), np.flip(A))
  np.testing.assert_array_equal(jnp.fliplr(A), np.fliplr(A))
  np.testing.assert_array_equal(jnp.resize(A, (3, 4)), np.resize(A, (3, 4)))


def test_split_stack(backend):
  b = A + 10
  np.testing.assert_array_equal(jnp.dstack([A, b]), np.dstack([A, b]))
  np.testing.assert_array_equal(jnp.column_stack([np.arange(3), np.arange(3)]),
                                np.column_stack([np.arange(3), np.arange(3)]))
  for got, want in zip(jnp.array_split(np.arange(7), 3), np.array_split(np.arange(7), 3)):
    np.testing.assert_array_equal(got, want)
  for got, want in zip(jnp.split(np.arange(8), [2, 5]), np.split(np.arange(8), [2, 5])):
    np.testing.assert_array_equal(got, want)
  with pytest.raises(ValueError, match="equal division"):
    jnp.split(np.arange(7), 3)


def test_broadcast_arrays_and_atleast(backend):
  x, y = jnp.broadcast_arrays(np.arange(3), np.arange(4).reshape(4, 1))
  xn, yn = np.broadcast_arrays(np.arange(3), np.arange(4).reshape(4, 1))
  np.testing.assert_array_equal(x, xn)
  np.testing.assert_array_equal(y, yn)
  assert jnp.atleast_1d(1.0).weak_type
  assert jnp.atleast_3d(np.ones(2)).shape == (1, 2, 1)
  assert jnp.atleast_3d(np.ones((2, 3))).shape == (2, 3, 1)


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap",
                                  "linear_ramp", "maximum", "minimum", "mean", "median"])
def test_pad_modes(backend, mode):
  a = np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3)
  np.testing.assert_allclose(jnp.pad(a, ((1, 2), (2, 1)), mode=mode),
                             np.pad(a, ((1, 2), (2, 1)), mode=mode), rtol=1e-6)


def test_pad_large_widths_and_errors(backend):
  a = np.arange(3, dtype=np.int32)
  for mode in ["reflect", "symmetric", "wrap"]:
    np.testing.assert_array_equal(jnp.pad(a, (7, 5), mode=mode), np.pad(a, (7, 5), mode=mode))
  np.testing.assert_array_equal(jnp.pad(a, 2, constant_values=(-1, 9)),
                                np.pad(a, 2, constant_values=(-1, 9)))
  with pytest.raises(ValueError, match="Unimplemented padding mode"):
    jnp.pad(a, 1, mode="bogus")
  with pytest.raises(ValueError, match="negative"):
    jnp.pad(a, -1)


def test_diagonals(backend):
  x = np.arange(16.0, dtype=np.float32).reshape(4, 4)
  np.testing.assert_array_equal(jnp.tril(x), np.tril(x))
  np.testing.assert_array_equal(jnp.triu(x, 1), np.triu(x, 1))
  np.testing.assert_array_equal(jnp.diag(x, -1), np.diag(x, -1))
  np.testing.assert_array_equal(jnp.diag(np.array([1, 2, 3])), np.diag([1, 2, 3]))
  np.testing.assert_array_equal(jnp.diagflat(np.array([[1, 2], [3, 4]]), 1),
                                np.diagflat([[1, 2], [3, 4]], 1))
  np.testing.assert_array_equal(jnp.trace(x, 1), np.trace(x, 1))


def test_creation(backend):
  np.testing.assert_array_equal(jnp.eye(3, 4, k=1, dtype=jnp.int32), np.eye(3, 4, k=1))
  np.testing.assert_array_equal(jnp.tri(3, 4, -1), np.tri(3, 4, -1))
  assert jnp.identity(2).dtype == np.float32
  a, step = jnp.linspace(0.0, 1.0, 5, endpoint=False, retstep=True)
  np.testing.assert_allclose(a, np.linspace(0.0, 1.0, 5, endpoint=False), rtol=1e-6)
  np.testing.assert_allclose(step, 0.2, rtol=1e-6)
  np.testing.assert_array_equal(jnp.linspace(0, 10, 4, dtype=jnp.int32), [0, 3, 6, 10])
  np.testing.assert_allclose(jnp.logspace(0, 2, 3), [1.0, 10.0, 100.0], rtol=1e-5)
  np.testing.assert_allclose(jnp.geomspace(1, 1000, 4), [1.0, 10.0, 100.0, 1000.0], rtol=1e-5)
  with pytest.raises(ValueError, match="non-negative"):
    jnp.linspace(0, 1, -1)


def test_grids(backend):
  for indexing in ["xy", "ij"]:
    for got, want in zip(jnp.meshgrid(np.arange(3), np.arange(2), indexing=indexing),
                         np.meshgrid(np.arange(3), np.arange(2), indexing=indexing)):
      np.testing.assert_array_equal(got, want)
  np.testing.assert_array_equal(jnp.indices((2, 3)), np.indices((2, 3)))
  np.testing.assert_array_equal(jnp.mgrid[0:2, 0:3], np.mgrid[0:2, 0:3])
  for got, want in zip(jnp.ogrid[0:3, 0:2], np.ogrid[0:3, 0:2]):
    np.testing.assert_array_equal(got, want)


def test_interp_gradient_vander_trapezoid(backend):
  xp = np.array([0.0, 1.0, 2.0, 4.0], np.float32)
  fp = np.array([0.0, 10.0, 5.0, 7.0], np.float32)
  x = np.array([-1.0, 0.5, 1.5, 3.0, 5.0], np.float32)
  np.testing.assert_allclose(jnp.interp(x, xp, fp), np.interp(x, xp, fp), rtol=1e-6)
  np.testing.assert_allclose(jnp.interp(x, xp, fp, period=4.0),
                             np.interp(x, xp, fp, period=4.0), rtol=1e-6)
  f = np.array([1.0, 4.0, 9.0, 16.0, 25.0], np.float32)
  np.testing.assert_allclose(jnp.gradient(f, 0.5), np.gradient(f, 0.5), rtol=1e-6)
  coords = np.array([0.0, 1.0, 1.5, 3.5, 4.0], np.float32)
  np.testing.assert_allclose(jnp.gradient(f, coords), np.gradient(f, coords), rtol=1e-5)
  np.testing.assert_allclose(jnp.vander(np.array([1.0, 2.0, 3.0]), 4),
                             np.vander([1.0, 2.0, 3.0], 4))
  np.testing.assert_allclose(jnp.trapezoid(f, dx=0.5), np.trapezoid(f, dx=0.5), rtol=1e-6)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_correlate(backend, mode):
  a = np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32)
  v = np.array([0.5, 1.0, -1.0], np.float32)
  np.testing.assert_allclose(jnp.convolve(a, v, mode=mode), np.convolve(a, v, mode=mode),
                             rtol=1e-6)
  np.testing.assert_allclose(jnp.correlate(a + 1j, v, mode=mode),
                             np.correlate(a + 1j, v, mode=mode), rtol=1e-6)


def test_vectorize_and_apply_along_axis(backend):
  g = jnp.vectorize(lambda v: jnp.array([v.sum(), v.max()]), signature="(n)->(k)")
  x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
  np.testing.assert_array_equal(g(x), np.stack([x.sum(1), x.max(1)], axis=1))
  f = jnp.vectorize(lambda a, b: a * b + 1)
  np.testing.assert_array_equal(f(np.arange(3.0), np.ones((2, 1))), np.arange(3.0) + np.ones((2, 1)))
  np.testing.assert_array_equal(jnp.apply_along_axis(lambda v: v[::-1] * 2, 0, x),
                                np.apply_along_axis(lambda v: v[::-1] * 2, 0, x))
  np.testing.assert_array_equal(jnp.apply_over_axes(jnp.sum, x, [0, 1]),
                                np.apply_over_axes(np.sum, x, [0, 1]))
  with pytest.raises(ValueError, match="signature"):
    jnp.vectorize(lambda v: v, signature="(n->k")(x)


def test_broadcast_to_always_gives_a_jax_array():
  import jax
  import jax.numpy as jnp
  out = jnp.broadcast_to(1.5, ())
  assert isinstance(out, jax.Array) and out.shape == () and float(out) == 1.5
  assert jnp.broadcast_to(np.float32(2), ()).dtype == np.float32
