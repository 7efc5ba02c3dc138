"""ravel_pytree: flatten and unflatten round trips, dtype promotion, jit and grad."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax.flatten_util import ravel_pytree

TREE = {"a": jnp.arange(4.0).reshape(2, 2), "b": (jnp.float32(5.0), jnp.ones(3))}


def test_round_trip():
  flat, unravel = ravel_pytree(TREE)
  np.testing.assert_array_equal(flat, [0, 1, 2, 3, 5, 1, 1, 1])
  back = unravel(flat)
  assert jax.tree.structure(back) == jax.tree.structure(TREE)
  for x, y in zip(jax.tree.leaves(back), jax.tree.leaves(TREE)):
    assert x.shape == y.shape and x.dtype == y.dtype
    np.testing.assert_array_equal(x, y)


def test_mixed_dtypes_promote_and_restore():
  tree = [jnp.arange(3, dtype=jnp.int32), jnp.array([0.5], jnp.float32)]
  flat, unravel = ravel_pytree(tree)
  assert flat.dtype == jnp.float32
  back = unravel(flat)
  assert back[0].dtype == jnp.int32 and back[1].dtype == jnp.float32
  np.testing.assert_array_equal(back[0], [0, 1, 2])


def test_empty_tree():
  flat, unravel = ravel_pytree({})
  assert flat.shape == (0,)
  assert unravel(flat) == {}


def test_under_jit_and_grad(backend):
  def loss(tree):
    flat, _ = ravel_pytree(tree)
    return jnp.sum(flat ** 2)

  g = jax.jit(jax.grad(loss))(TREE)
  np.testing.assert_allclose(g["a"], 2 * np.arange(4.0).reshape(2, 2))
  np.testing.assert_allclose(g["b"][0], 10.0)

  _, unravel = ravel_pytree(TREE)
  # The gradient through unravel is the flat vector of leaf gradients.
  g2 = jax.grad(lambda v: unravel(v)["a"].sum() * 3 + unravel(v)["b"][1].sum())(jnp.zeros(8))
  np.testing.assert_array_equal(g2, [3, 3, 3, 3, 0, 1, 1, 1])


def test_unravel_checks_its_input():
  _, unravel = ravel_pytree(TREE)
  with pytest.raises(ValueError, match="shape"):
    unravel(jnp.zeros(7))
  with pytest.raises(TypeError, match="dtype"):
    unravel(jnp.zeros(8, jnp.int32))
