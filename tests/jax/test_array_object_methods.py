"""Methods of jax.Array that JAX 0.10.2 documents beyond the reductions and shape ops:
copies, where the value lives, and the sorting/statistics forwards."""

import copy

import numpy as np
import pytest

import jax
import jax.numpy as jnp


def test_copies_are_new_arrays_with_the_same_value(backend):
  x = jax.random.normal(jax.random.key(0), (3,))
  for c in (x.copy(), jnp.copy(x), jnp.array(x), copy.copy(x), copy.deepcopy(x),
            jnp.asarray(x, copy=True)):
    assert c is not x
    np.testing.assert_array_equal(c, x)
  assert jnp.asarray(x) is x  # asarray does not copy
  # As in JAX, a copy inside a trace is a `copy` equation.
  jaxpr = jax.make_jaxpr(lambda v: v.copy())(x)
  assert [e.primitive.name for e in jaxpr.eqns] == ["copy"]
  np.testing.assert_array_equal(jax.jit(lambda v: jnp.array(v) * 2)(x), np.asarray(x) * 2)


def test_device_and_to_device(backend):
  x = jnp.arange(4.0)
  dev = jax.devices()[0]
  assert x.device == dev
  moved = x.to_device(jax.devices()[1])
  assert moved.device == jax.devices()[1]
  np.testing.assert_array_equal(moved, x)
  assert x.tobytes() == np.arange(4.0, dtype=np.float32).tobytes()


def test_sorting_and_statistics_methods(backend):
  x = jnp.array([3.0, 1.0, 2.0, 5.0])
  assert float(x.ptp()) == 4.0
  assert int(jnp.sort(x).searchsorted(2.5)) == 2
  assert int(jnp.sort(x).searchsorted(2.0, side="right")) == 2
  part = np.asarray(x.argpartition(1))
  assert set(part[:2]) == {1, 2}
  np.testing.assert_array_equal(jax.jit(lambda v: v.ptp(keepdims=True))(x), [4.0])
  with pytest.raises(ValueError):
    x.searchsorted(1.0, side="middle")


def test_copies_differentiate_and_transpose(backend):
  f = lambda x: (jnp.array(x) * x.copy()).sum()
  np.testing.assert_array_equal(jax.grad(f)(jnp.arange(3.0)), [0.0, 2.0, 4.0])
  np.testing.assert_array_equal(jax.jit(jax.grad(f))(jnp.arange(3.0)), [0.0, 2.0, 4.0])
  np.testing.assert_array_equal(jax.vmap(jax.grad(f))(jnp.ones((2, 3))), np.full((2, 3), 2.0))
  (ct,) = jax.linear_transpose(lambda x: jnp.array(x), 1.0)(2.0)
  assert float(ct) == 2.0
