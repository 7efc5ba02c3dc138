"""JAX's `__jax_array__` protocol: jax.numpy functions and array operators take an object
standing for an array (a library's parameter wrapper) as that array, also when it holds
a tracer; a plain object is still refused, as JAX refuses it."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp


class Wrapped:
  def __init__(self, value):
    self.value = value

  def __jax_array__(self):
    return self.value


jax.tree_util.register_pytree_node(Wrapped, lambda w: ((w.value,), None),
                                   lambda _, children: Wrapped(children[0]))


def test_numpy_functions_take_the_wrapped_array(backend):
  w = Wrapped(jnp.arange(3.0))
  np.testing.assert_allclose(jnp.sin(w), np.sin([0.0, 1.0, 2.0]), rtol=1e-6)
  np.testing.assert_array_equal(jnp.add(w, 1.0), [1.0, 2.0, 3.0])
  np.testing.assert_array_equal(jnp.multiply(2, w), [0.0, 2.0, 4.0])


def test_wrapped_tracers_inside_transformations(backend):
  # (the wrapper is a pytree, so jit passes its array in and rebuilds it inside)
  out = jax.jit(lambda a: jnp.sin(Wrapped(a)) * Wrapped(a))(jnp.ones(2))
  np.testing.assert_allclose(out, np.sin(1.0) * np.ones(2), rtol=1e-6)
  np.testing.assert_allclose(jax.jit(jnp.sin)(Wrapped(jnp.ones(2))), np.sin(np.ones(2)),
                             rtol=1e-6)
  g = jax.grad(lambda a: jnp.sum(jnp.ones((1, 2)) @ Wrapped(a)))(jnp.ones((2, 3)))
  np.testing.assert_array_equal(g, np.ones((2, 3)))
  ck = jax.checkpoint(lambda a: jnp.sum(jnp.ones((1, 2)) @ Wrapped(a)))
  np.testing.assert_array_equal(jax.grad(ck)(jnp.ones((2, 3))), np.ones((2, 3)))


def test_operators_unwrap_before_deferring(backend):
  class WithReflected(Wrapped):
    def __rmatmul__(self, other):
      return "reflected"

  x = jnp.ones((1, 2))
  np.testing.assert_array_equal(x @ WithReflected(jnp.ones((2, 3))), [[2.0, 2.0, 2.0]])

  class Other:
    def __radd__(self, other):
      return "radd"

  assert x + Other() == "radd"


def test_objects_without_the_protocol_are_refused(backend):
  with pytest.raises(TypeError):
    jnp.sin(object())


def test_shape_ndim_size_answer_for_any_object_as_numpys_do(backend):
  # (JAX's are numpy's: tfp's samplers ask for the shape of None)
  assert jnp.shape(None) == () and jnp.ndim(None) == 0 and jnp.size(None) == 1
  assert jnp.shape("ab") == () and jnp.shape([[1, 2]]) == (1, 2)
  assert jnp.shape(jnp.ones((2, 3))) == (2, 3) and jnp.size(jnp.ones((2, 3)), 1) == 3


def test_array_and_asarray_take_the_wrapped_array(backend):
  np.testing.assert_array_equal(jnp.array(Wrapped(jnp.arange(3)), jnp.float32), [0.0, 1.0, 2.0])
  # Holding a tracer: asarray unwraps it instead of asking numpy for its values.
  out = jax.jit(lambda x: jnp.asarray(Wrapped(x)) * 2)(jnp.ones(2))
  np.testing.assert_array_equal(out, [2.0, 2.0])
