"""Complex elementwise ops on the CPU backend: maximum/minimum order lexicographically
(real part, then imaginary) as XLA's do; tanh, rsqrt and power. Values recorded from
JAX 0.10.2 and numpy."""

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

Z = np.array([1 + 2j, 1 - 1j, -3 + 0j, 2 + 1j, 2 - 5j], np.complex64)
W = np.array([1 + 1j, 0.5 - 1j, -3 + 1j, 2 + 1j, 2 + 0j], np.complex64)


def test_elementwise_max_min_are_lexicographic():
  np.testing.assert_array_equal(lax.max(Z, W), [1 + 2j, 1 - 1j, -3 + 1j, 2 + 1j, 2 + 0j])
  np.testing.assert_array_equal(lax.min(Z, W), [1 + 1j, 0.5 - 1j, -3 + 0j, 2 + 1j, 2 - 5j])
  np.testing.assert_array_equal(jax.jit(jnp.maximum)(Z, np.complex64(1.5)),
                                [1.5, 1.5, 1.5, 2 + 1j, 2 - 5j])


def test_max_min_reductions_and_softmax():
  assert complex(jnp.max(Z)) == 2 + 1j
  assert complex(jnp.min(Z)) == -3 + 0j
  np.testing.assert_allclose(jax.nn.softmax(Z), np.exp(Z - (2 + 1j)) / np.exp(Z - (2 + 1j)).sum(),
                             rtol=1e-5)


def test_nan_parts_compare_false():
  # JAX 0.10.2: an operand wins only when it comes first by ordered comparisons.
  x = np.array([complex(np.nan, 0), 1 + 1j, 1 + 1j, complex(2, np.nan)], np.complex64)
  y = np.array([0j, complex(np.nan, 0), complex(np.nan, 5), 1 + 0j], np.complex64)
  mx, mn = np.asarray(lax.max(x, y)), np.asarray(lax.min(x, y))
  np.testing.assert_array_equal(mx[[0, 2]], [0j, complex(np.nan, 5)])
  assert np.isnan(mx[1].real) and mx[3].real == 2 and np.isnan(mx[3].imag)
  np.testing.assert_array_equal(mn[[0, 3]], [0j, 1 + 0j])
  assert np.isnan(mn[1].real) and np.isnan(mn[2].real) and mn[2].imag == 5


def test_complex_tanh_matches_numpy():
  z = np.array([0.5 + 0.3j, -1 + 2j, 25 + 1j, -30 - 0.5j, 1e-3j, 0j], np.complex64)
  np.testing.assert_allclose(jnp.tanh(z), np.tanh(z), rtol=2e-6, atol=1e-30)
  np.testing.assert_allclose(jax.jit(jnp.tanh)(z.astype(np.complex128)),
                             np.tanh(z.astype(np.complex128)), rtol=1e-6)
  g = jax.grad(lambda x: jnp.tanh(x).real)(np.float32(0.5))
  np.testing.assert_allclose(g, 1 - np.tanh(0.5) ** 2, rtol=1e-6)


def test_complex_rsqrt_and_power_match_jax():
  # JAX 0.10.2 values.
  np.testing.assert_allclose(lax.rsqrt(Z[:4]), [0.568864 - 0.351578j, 0.776887 + 0.321797j,
                                                -0.57735j, 0.650851 - 0.153645j], rtol=1e-5)
  np.testing.assert_allclose(lax.pow(Z, W), [-0.2472 + 0.69645j, 0.40067 - 0.36531j,
                                             -0.00073 - 0.00143j, -0.50482 + 3.10414j,
                                             -21 - 20j], rtol=1e-4, atol=1e-5)
  np.testing.assert_array_equal(lax.pow(np.zeros(2, np.complex64), np.array([0j, 1 + 0j],
                                                                            np.complex64)),
                                [1, 0])
  np.testing.assert_allclose(lax.pow(Z, np.complex64(2)), Z ** 2, rtol=1e-5, atol=1e-5)
