"""jax.numpy refuses Python lists and tuples where it expects arrays (TypeError, as in
JAX); functions that take sequences of arrays by design still accept them."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp

pytestmark = pytest.mark.usefixtures("backend")

L = [1., 2.]


@pytest.mark.parametrize("call", [
    lambda: jnp.sum(L), lambda: jnp.exp(L), lambda: jnp.add(L, L), lambda: jnp.add(1., L),
    lambda: jnp.reshape(L, (2,)), lambda: jnp.sort(L), lambda: jnp.where([True, False], L, L),
    lambda: jnp.dot(L, L), lambda: jnp.matmul(L, L), lambda: jnp.clip(L, 0, 1),
    lambda: jnp.take(L, 1), lambda: jnp.pad(L, 1), lambda: jnp.interp(L, L, L),
    lambda: jnp.quantile(L, 0.5), lambda: jnp.linalg.norm(L), lambda: jnp.fft.fft(L),
    lambda: jnp.linalg.inv([[1., 2.], [3., 4.]]), lambda: jnp.isclose(L, L),
    lambda: jnp.cumsum((1, 2)), lambda: jnp.mean(a=L),
])
def test_lists_and_tuples_are_refused(call):
  with pytest.raises(TypeError, match="requires ndarray or scalar arguments"):
    call()


def test_sequence_functions_and_shapes_still_accept_lists():
  np.testing.assert_array_equal(jnp.array([1, 2]), [1, 2])
  np.testing.assert_array_equal(jnp.concatenate([jnp.ones(1), np.zeros(1)]), [1., 0.])
  np.testing.assert_array_equal(jnp.stack([jnp.ones(2), jnp.zeros(2)]).shape, (2, 2))
  assert jnp.reshape(jnp.arange(4), [2, 2]).shape == (2, 2)       # shapes may be lists
  assert jnp.zeros([2, 3]).shape == (2, 3)
  assert bool(jnp.array_equal([1, 2], jnp.array([1, 2])))
  np.testing.assert_array_equal(jnp.sum(np.array([1., 2.])), 3.)  # numpy arrays are arrays


def test_refused_inside_jit_as_well():
  with pytest.raises(TypeError, match="requires ndarray"):
    jax.jit(lambda x: jnp.sin([x, x]))(1.)


def test_refusal_names_the_type_as_jax_does():
  # JAX 0.10.2: "multiply requires ndarray or scalar arguments, got <class 'list'> at
  # position 0."
  with pytest.raises(TypeError) as e:
    jnp.multiply([1, 2], 3)
  assert str(e.value) == ("multiply requires ndarray or scalar arguments, got <class 'list'> "
                          "at position 0.")
