"""dot_general's operand and result types as in JAX 0.10.2: operands of different dtypes
multiply (the result takes the more precise type, XLA's rule), and einsum asks each
contraction (also a user's `_dot_general`) for the preferred element type."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax


@pytest.fixture(autouse=True)
def _needs_backend(backend):
  yield


# Recorded on JAX 0.10.2: lax.dot of (2, 3) and (3, 2) operands of these dtypes.
@pytest.mark.parametrize("lhs,rhs,want", [
    (jnp.int8, jnp.float16, jnp.float16),
    (jnp.int8, jnp.uint8, jnp.int8),
    (jnp.float16, jnp.bfloat16, jnp.bfloat16),
    (jnp.int8, jnp.int16, jnp.int16),
    (jnp.float32, jnp.complex64, jnp.complex64),
    (jnp.float8_e4m3fn, jnp.float8_e5m2, jnp.float8_e5m2),
    (jnp.float8_e4m3fn, jnp.bfloat16, jnp.bfloat16),
])
def test_mixed_operand_dtypes(lhs, rhs, want):
  a = np.arange(6).reshape(2, 3).astype(lhs)
  b = np.arange(6).reshape(3, 2).astype(rhs)
  out = lax.dot(a, b)
  assert out.dtype == np.dtype(want)
  # Small integers: exact sums, rounded once to the result type.
  expect = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.dtype(want))
  np.testing.assert_array_equal(np.real(np.asarray(out)).astype(np.float64),
                                np.real(expect).astype(np.float64))


def test_mixed_f8_dot_accumulates_in_f32_and_differentiates():
  rng = np.random.default_rng(0)
  a = rng.normal(size=(4, 8)).astype(jnp.float8_e4m3fn)
  b = rng.normal(size=(8, 3)).astype(jnp.float8_e5m2)
  got = jax.jit(lambda x, y: lax.dot(x, y, preferred_element_type=jnp.float32))(a, b)
  np.testing.assert_allclose(np.asarray(got), a.astype(np.float32) @ b.astype(np.float32),
                             rtol=1e-6)
  # The backward pass of such a product mixes an f32 cotangent with an f8 operand.
  g = jax.grad(lambda x: lax.dot(x, b, preferred_element_type=jnp.float32).sum())(
      a.astype(np.float32))
  np.testing.assert_allclose(np.asarray(g), np.tile(b.astype(np.float32).sum(1), (4, 1)))


def test_einsum_passes_preferred_type_to_custom_dot_general():
  seen = []

  def dot_general(lhs, rhs, dims, precision=None, preferred_element_type=None):
    seen.append(preferred_element_type)
    return lax.dot_general(lhs, rhs, dims, precision=precision,
                           preferred_element_type=preferred_element_type)

  out = jnp.einsum("ij,jk->ik", jnp.ones((2, 3)), jnp.ones((3, 2)), _dot_general=dot_general)
  assert out.dtype == np.float32 and seen == [np.dtype(np.float32)]
  seen.clear()
  x = jnp.ones((2, 3), jnp.float8_e4m3fn)
  out = jnp.einsum("ij,jk->ik", x, x.T, _dot_general=dot_general,
                   preferred_element_type=jnp.float32)
  assert out.dtype == np.float32 and seen == [np.dtype(np.float32)]
  np.testing.assert_array_equal(np.asarray(out), np.full((2, 2), 3.0, np.float32))
