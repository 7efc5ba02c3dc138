"""Binary lax primitives bound directly take a rank-0 or Python-scalar operand beside an
array, as in JAX 0.10.2 (code that inverts jaxprs binds `pow_p` with a float exponent)."""

import numpy as np

import jax
import jax.numpy as jnp


def test_bind_with_a_scalar_operand(backend):
  x = jnp.arange(3.0)
  np.testing.assert_allclose(jax.lax.pow_p.bind(x, 0.5), np.sqrt([0.0, 1.0, 2.0]), rtol=1e-6)
  np.testing.assert_allclose(jax.lax.pow_p.bind(x, jnp.float32(0.5)), np.sqrt([0.0, 1.0, 2.0]),
                             rtol=1e-6)
  np.testing.assert_array_equal(jax.lax.pow_p.bind(x, 2), [0.0, 1.0, 4.0])
  np.testing.assert_array_equal(jax.lax.pow_p.bind(0.5, x), [1.0, 0.5, 0.25])
  np.testing.assert_array_equal(jax.lax.add_p.bind(x, 0.5), [0.5, 1.5, 2.5])
  np.testing.assert_array_equal(jax.lax.mul_p.bind(x, jnp.float32(0.5)), [0.0, 0.5, 1.0])
  assert jax.lax.add_p.bind(x, 0.5).dtype == jnp.float32


def test_scalar_operands_under_transformations(backend):
  x = jnp.arange(3.0)
  f = lambda v: jax.lax.pow_p.bind(v, 0.5)
  np.testing.assert_allclose(jax.jit(f)(x), np.sqrt([0.0, 1.0, 2.0]), rtol=1e-6)
  np.testing.assert_allclose(jax.grad(lambda v: f(v).sum())(x + 1),
                             0.5 / np.sqrt([1.0, 2.0, 3.0]), rtol=1e-6)
  np.testing.assert_array_equal(jax.vmap(f)(jnp.ones((2, 3))), np.ones((2, 3)))
  # the scalar's cotangent is summed over the broadcast
  g = jax.grad(lambda s: jax.lax.mul_p.bind(x, s).sum())(jnp.float32(2.0))
  assert float(g) == 3.0
