"""Shapes whose element count or byte size does not fit in int64: a clear
ValueError when jax lowers them, never a crash or a silently empty array.

Before this check these crashed the process (SIGSEGV) or, for (2**32, 2**32),
wrapped to zero elements and returned an array whose indexing read freed memory.
"""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax

_TOO_LARGE = r"is too large: its \d+ elements take \d+ bytes, more than the 2\*\*63 - 1"


def test_zeros_with_more_bytes_than_int64():
  with pytest.raises(ValueError, match=r"shape f32\[4611686018427387904\] " + _TOO_LARGE):
    jnp.zeros((2**62,), jnp.float32)


def test_element_count_wrapping_to_zero_is_refused():
  # 2**32 * 2**32 wraps to 0 in int64 arithmetic.
  with pytest.raises(ValueError, match=r"shape f32\[4294967296,4294967296\] " + _TOO_LARGE):
    jnp.zeros((2**32, 2**32))


def test_broadcast_to_a_huge_shape():
  with pytest.raises(ValueError, match=r"shape f32\[2147483648,2147483648\] " + _TOO_LARGE):
    jnp.broadcast_to(jnp.ones(()), (2**31, 2**31))


def test_under_jit_and_abstract_evaluation():
  f = jax.jit(lambda x: lax.broadcast_in_dim(x, (2**40, 2**30), ()))
  with pytest.raises(ValueError, match=r"shape f32\[1099511627776,1073741824\] " + _TOO_LARGE):
    f(jnp.float32(1))
  # Abstract evaluation alone allocates nothing, so it still answers, as in JAX.
  out = jax.eval_shape(lambda x: lax.broadcast_in_dim(x, (2**40, 2**30), ()), jnp.float32(1))
  assert out.shape == (2**40, 2**30)


def test_largest_representable_count_is_not_refused_by_the_size_check():
  # 2**40 f32 elements fit in int64 bytes: the check lets it through and the
  # allocator answers with its own clear error instead.
  with pytest.raises(Exception, match="RESOURCE_EXHAUSTED") as info:
    jnp.zeros((2**40,), jnp.float32)
  assert type(info.value).__name__ == "XlaRuntimeError"


def test_ordinary_shapes_still_work():
  np.testing.assert_array_equal(np.asarray(jnp.zeros((2, 3))), np.zeros((2, 3), np.float32))
