"""jax.test_util: derivative checks pass for correct rules and catch wrong ones."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax.test_util import check_grads, check_jvp, check_vjp

X = np.array([0.3, 0.7, -0.4], np.float32)


def test_correct_derivatives_pass(backend):
  check_grads(lambda x: jnp.sin(x) * x, (X,), 2, atol=2e-2, rtol=2e-2)
  check_grads(lambda x, y: jnp.sum(x * y ** 2), (X, X + 1), 1, modes=["rev"],
              atol=2e-2, rtol=2e-2)
  check_grads(lambda x: jnp.tanh(x).sum(), (X,), 1, modes=["fwd"], atol=2e-2, rtol=2e-2)


def _wrong_sin():
  f = jax.custom_jvp(jnp.sin)
  f.defjvp(lambda p, t: (jnp.sin(p[0]), 2 * t[0]))
  return f


def test_wrong_jvp_is_caught(backend):
  with pytest.raises(AssertionError):
    check_grads(_wrong_sin(), (X,), 1, modes=["fwd"], atol=2e-2, rtol=2e-2)


def test_wrong_vjp_is_caught(backend):
  f = _wrong_sin()
  with pytest.raises(AssertionError, match="cotangent projection"):
    check_vjp(jnp.sin, lambda x: jax.vjp(f, x), (X,), atol=2e-2, rtol=2e-2)


def test_check_jvp_direct(backend):
  check_jvp(jnp.exp, lambda p, t: jax.jvp(jnp.exp, p, t), (X,), atol=2e-2, rtol=2e-2)


def test_bad_mode():
  with pytest.raises(ValueError, match="mode"):
    check_grads(jnp.sin, (X,), 1, modes=["sideways"])


def test_tolerance_follows_the_values_compared(backend):
  # numpyro's log1mexp at a Python float: the derivatives are float32, so float32's
  # gradient tolerance (2e-3) applies, as in JAX, not float64's.
  f = jax.custom_jvp(lambda x: jnp.log(-jnp.expm1(x)))
  f.defjvps(lambda t, ans, x: -t / jnp.expm1(-x))
  check_grads(f, (-0.32523,), order=3)
  with pytest.raises(AssertionError, match="tangent"):
    check_grads(f, (-0.32523,), order=3, atol=1e-6, rtol=1e-6)
  # A dict sets the tolerance of one dtype and keeps the others' defaults.
  with pytest.raises(AssertionError):
    check_grads(f, (-0.32523,), order=3, atol={np.float32: 1e-7}, rtol={np.float32: 1e-7})


def test_lin_mode_and_higher_orders(backend):
  check_grads(lambda x: jnp.sin(x) * x, (X,), 2, modes=["lin"], atol=2e-2, rtol=2e-2)
  check_grads(lambda x: jnp.exp(x).sum(), (np.float64(0.3),), 3, modes=["fwd", "rev"])
  with pytest.raises(AssertionError, match="LIN"):
    check_grads(_wrong_sin(), (X,), 1, modes=["lin"], atol=2e-2, rtol=2e-2)
