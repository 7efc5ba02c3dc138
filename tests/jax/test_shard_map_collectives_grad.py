"""psum_scatter, all_to_all, axis_size and pcast inside shard_map, vmap and pmap, and
gradients through shard_map; values against numpy and JAX 0.10.2's results for the same
programs (a 2x2 mesh of Auto axes)."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import AxisType, PartitionSpec as P


@pytest.fixture
def sm(backend):
  if jax.device_count() < 4:
    pytest.skip("needs 4 devices (JAX_NUM_CPU_DEVICES=4)")
  mesh = jax.make_mesh((2, 2), ("x", "y"), (AxisType.Auto,) * 2)
  return lambda f, i, o, **kw: jax.shard_map(f, mesh=mesh, in_specs=i, out_specs=o, **kw)


X = np.arange(16.0, dtype=np.float32).reshape(4, 4)


def _psum_scatter_x(a):
  return lax.psum_scatter(a, "x", scatter_dimension=0, tiled=True)


def test_psum_scatter(sm):
  # Both x-members hold the whole column block: the sum is twice it, split by rows.
  expected = 2 * X
  out = sm(_psum_scatter_x, P(None, "y"), P("x", "y"))(X)
  np.testing.assert_array_equal(out, expected)
  np.testing.assert_array_equal(jax.jit(sm(_psum_scatter_x, P(None, "y"), P("x", "y")))(X),
                                expected)
  out = sm(lambda a: lax.psum_scatter(a, "y", scatter_dimension=1, tiled=True),
           P("x", None), P("x", "y"))(X)
  np.testing.assert_array_equal(out, 2 * X)
  out = sm(lambda a: lax.psum_scatter(a, ("x", "y"), tiled=True), P(), P(("x", "y")))(X)
  np.testing.assert_array_equal(out, 4 * X)


def test_psum_scatter_errors(sm):
  with pytest.raises(ValueError, match="tiled reduce_scatter operand scatter dimension size 3 "
                                       "must be divisible by shard_count 2"):
    sm(_psum_scatter_x, P(None, "y"), P("x", "y"))(np.zeros((3, 4), np.float32))
  with pytest.raises(ValueError, match="out_specs entry which is too long"):
    sm(lambda a: lax.psum_scatter(a[:2, 0], "x"), P(None, "y"), P("x", "y"))(X)


def test_all_to_all(sm):
  out = sm(lambda a: lax.all_to_all(a, "x", 0, 1, tiled=True), P("x", None), P(None, "x"))(X)
  np.testing.assert_array_equal(out, [[0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15]])
  out = sm(lambda a: lax.all_to_all(a.reshape(2, 1, 4), "x", 0, 0).reshape(2, 4),
           P("x", None), P("x"))(X)
  np.testing.assert_array_equal(out, X[[0, 2, 1, 3]])
  with pytest.raises(ValueError, match="all_to_all requires the size of the mapped axis "
                                       "axis_name to equal x.shape"):
    sm(lambda a: lax.all_to_all(a, "x", 0, 1), P("x", None), P(None, "x"))(
        np.zeros((6, 2), np.float32))


def test_axis_size_and_pcast(sm):
  out = sm(lambda a: a * lax.axis_size("x") + lax.axis_size(("x", "y")),
           P("x", "y"), P("x", "y"))(X)
  np.testing.assert_array_equal(out, X * 2 + 4)
  out = sm(lambda a: lax.pcast(a, "x", to="varying") * (lax.axis_index("x") + 1),
           P(), P("x"))(np.arange(4.0, dtype=np.float32))
  np.testing.assert_array_equal(out, [0, 1, 2, 3, 0, 2, 4, 6])
  with pytest.raises(NameError, match="unbound axis name: zz"):
    lax.axis_size("zz")
  with pytest.raises(ValueError, match="Got unexpected `to` value"):
    lax.pcast(jnp.ones(2), "x", to="bogus")


def test_collectives_under_vmap_and_pmap(backend):
  np.testing.assert_array_equal(
      jax.vmap(lambda a: lax.psum_scatter(a, "b", tiled=True), axis_name="b")(
          np.arange(8.0).reshape(2, 4)), [[4, 6], [8, 10]])
  np.testing.assert_array_equal(
      jax.vmap(lambda a: lax.all_to_all(a, "b", 0, 0), axis_name="b")(
          np.arange(4.0).reshape(2, 2)), [[0, 2], [1, 3]])
  np.testing.assert_array_equal(
      jax.vmap(lambda a: a * lax.axis_size("b"), axis_name="b")(np.arange(3.0)), [0, 3, 6])
  if jax.device_count() < 4:
    pytest.skip("pmap needs 4 devices")
  v = np.arange(16.0).reshape(4, 4)
  np.testing.assert_array_equal(
      jax.pmap(lambda a: lax.psum_scatter(a, "i"), axis_name="i")(v), v.sum(0))
  np.testing.assert_array_equal(
      jax.pmap(lambda a: lax.all_to_all(a, "i", 0, 0), axis_name="i")(v), v.T)
  np.testing.assert_array_equal(
      jax.pmap(lambda a: a * lax.axis_size("i"), axis_name="i")(np.arange(4.0)), [0, 4, 8, 12])
  # Every member's value adds into every member's psum: its gradient is the axis size.
  np.testing.assert_array_equal(
      jax.pmap(jax.grad(lambda a: lax.psum(a, "i")), axis_name="i")(np.ones(4)), [4] * 4)


def _grad(f):
  return jax.grad(lambda v: f(v).sum())(X)


def test_grad_through_shard_map(sm):
  # Replicated over x and summed over x: each element counts twice.
  np.testing.assert_array_equal(
      _grad(sm(lambda a: lax.psum(a, "x"), P(None, "y"), P(None, "y"))), np.full((4, 4), 2.0))
  np.testing.assert_array_equal(
      _grad(sm(lambda a: lax.psum(a, "x"), P("x", "y"), P(None, "y"))), np.ones((4, 4)))
  np.testing.assert_array_equal(
      _grad(sm(lambda a: a * 3, P(None, "y"), P(None, "y"))), np.full((4, 4), 3.0))
  np.testing.assert_array_equal(
      _grad(sm(lambda a: a * a, P("x", "y"), P("x", "y"))), 2 * X)
  # An output the body does not make the same along x: its cotangent is shared out.
  np.testing.assert_array_equal(
      _grad(sm(lambda a: a * 3, P("x", "y"), P(None, "y"), check_vma=False)),
      np.full((4, 4), 1.5))
  np.testing.assert_array_equal(
      jax.jit(lambda v: _grad(sm(lambda a: lax.psum(a, "x"), P("x", "y"), P(None, "y"))))(X),
      np.ones((4, 4)))


def test_grad_of_collectives(sm):
  np.testing.assert_array_equal(_grad(sm(_psum_scatter_x, P(None, "y"), P("x", "y"))),
                                np.full((4, 4), 2.0))
  sq = lambda f: (lambda v: f(v) ** 2)
  np.testing.assert_array_equal(
      _grad(sq(sm(lambda a: lax.all_to_all(a, "x", 0, 1, tiled=True), P("x", None),
                  P(None, "x")))), 2 * X)
  np.testing.assert_array_equal(
      _grad(sq(sm(lambda a: lax.all_gather(a, "x", tiled=True), P("x", "y"), P(None, "y"),
                  check_vma=False))), 2 * X)
  pmean = _grad(sq(sm(lambda a: lax.pmean(a, "x"), P("x", "y"), P(None, "y"))))
  mean = (X[:2] + X[2:]) / 2
  np.testing.assert_allclose(pmean, np.concatenate([mean, mean]))
  perm = _grad(lambda v: sm(lambda a: lax.ppermute(a, "x", [(0, 1), (1, 0)]) *
                            jnp.arange(2.0)[:, None], P("x", "y"), P("x", "y"))(v))
  np.testing.assert_array_equal(perm, np.tile([[0.0], [1.0]], (2, 4)))
