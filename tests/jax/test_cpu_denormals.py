"""Denormal floats on the CPU plugin: while an executable runs, results below the
normal range flush to zero and such inputs read as zero, as on XLA:CPU; the
calling thread's floating-point mode is left as it was.

The expected values were recorded with jax==0.10.2 / jaxlib==0.10.2 on x86-64 CPU.
"""

import numpy as np

import jax
import jax.numpy as jnp

DENORMALS = np.array([1e-40, 2e-39, -3e-42], np.float32)


def test_denormal_results_flush_to_zero():
  assert float(jax.jit(lambda a: a * a)(np.float32(1e-20))) == 0.0
  assert float(jnp.float32(1e-20) * jnp.float32(1e-20)) == 0.0  # eager runs the same way


def test_denormal_inputs_read_as_zero():
  doubled = np.asarray(jax.jit(lambda a: a + a)(DENORMALS))
  np.testing.assert_array_equal(doubled, np.zeros(3, np.float32))
  assert np.signbit(doubled).tolist() == [False, False, True]
  assert float(jax.jit(jnp.sum)(DENORMALS)) == 0.0
  assert float(jax.jit(jnp.max)(DENORMALS)) == 0.0
  assert float(jax.jit(jnp.dot)(DENORMALS, np.ones(3, np.float32))) == 0.0


def test_denormals_pass_through_moves_unchanged():
  # No arithmetic: the bits are copied (JAX returns them as given).
  np.testing.assert_array_equal(np.asarray(jax.jit(lambda a: a)(DENORMALS)), DENORMALS)
  np.testing.assert_array_equal(np.asarray(jax.jit(lambda a: -a)(DENORMALS)), -DENORMALS)


def test_the_callers_mode_is_restored():
  jax.jit(lambda a: a * a)(np.float32(1e-20)).block_until_ready()
  jax.jit(lambda a: jnp.sum(a * 2))(np.ones(100000, np.float32)).block_until_ready()
  # numpy on this thread still computes denormals.
  assert np.float32(1e-20) * np.float32(1e-20) > 0
  assert np.sum(DENORMALS) != 0
