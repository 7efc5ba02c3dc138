"""lax.stage / stage_p: the identity that lifts a value into the active trace."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax


def test_outside_traces_returns_a_jax_array(backend):
  x = np.arange(4, dtype=np.float32)
  y = lax.stage(x)
  assert isinstance(y, jax.Array) and y.dtype == np.float32
  np.testing.assert_array_equal(np.asarray(y), x)
  assert lax.stage(2.0).dtype == jnp.float32


def test_lifts_constants_into_the_trace(backend):
  c = np.array([1.0, 2.0], np.float32)
  jaxpr = jax.make_jaxpr(lambda: lax.stage(c) * 2)()
  assert [e.primitive for e in jaxpr.eqns][0] is lax.stage_p
  np.testing.assert_array_equal(np.asarray(jax.jit(lambda x: lax.stage(c) + x)(c)), 2 * c)


def test_transformations(backend):
  f = lambda x: jnp.sum(lax.stage(x) ** 2)
  x = np.array([1.0, -3.0], np.float32)
  np.testing.assert_allclose(np.asarray(jax.grad(f)(x)), 2 * x)
  np.testing.assert_allclose(np.asarray(jax.vmap(lambda v: lax.stage(v) * 3)(x)), 3 * x)
  with pytest.raises(TypeError):
    lax.stage("not an array")
