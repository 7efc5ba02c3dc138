"""checkify: user checks report the first failure as an Error (or raise outside checkify)."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax.experimental import checkify


def _f(x):
  checkify.check(jnp.all(x > 0), "x must be positive, got {}", x)
  return jnp.log(x)


@pytest.mark.parametrize("wrap", [lambda f: f, jax.jit])
def test_checkify_returns_the_error(backend, wrap):
  g = checkify.checkify(wrap(_f))
  err, out = g(jnp.array([1.0, -1.0]))
  assert err.get() == "x must be positive, got [ 1. -1.] (`check` failed)"
  assert np.isnan(out[1])
  with pytest.raises(checkify.JaxRuntimeError, match="positive"):
    err.throw()
  err, out = g(jnp.array([1.0, 2.0]))
  assert err.get() is None and err.get_exception() is None
  err.throw()
  np.testing.assert_allclose(out, np.log([1.0, 2.0]))


def test_checkify_of_vmap_reports_the_last_failing_element(backend):
  # as JAX 0.10.2: a batched check keeps the values of the last element that failed
  err, _ = checkify.checkify(jax.vmap(_f))(jnp.array([2.0, -3.0, -4.0]))
  assert err.get() == "x must be positive, got -4.0 (`check` failed)"
  err, _ = jax.jit(checkify.checkify(jax.vmap(_f)))(jnp.array([1.0, -5.0, 2.0, -3.0, 7.0]))
  assert err.get() == "x must be positive, got -3.0 (`check` failed)"


def test_checkify_of_grad(backend):
  err, g = checkify.checkify(jax.grad(lambda x: _f(x).sum()))(jnp.array([-2.0]))
  assert "positive" in err.get()
  np.testing.assert_allclose(g, [-0.5])


def test_check_outside_checkify_raises(backend):
  with pytest.raises(checkify.JaxRuntimeError, match="positive"):
    _f(jnp.array([-1.0]))
  with pytest.raises(checkify.JaxRuntimeError, match="positive"):
    jax.jit(_f)(jnp.array([-1.0]))
  np.testing.assert_allclose(jax.jit(_f)(jnp.array([1.0])), [0.0])


def test_check_error_and_debug_check(backend):
  err, _ = checkify.checkify(_f)(jnp.array([-1.0]))
  with pytest.raises(checkify.JaxRuntimeError):
    checkify.check_error(err)
  err2, _ = checkify.checkify(lambda: checkify.check_error(err))()
  assert err2.get() == err.get()
  checkify.debug_check(jnp.bool_(False), "ignored outside checkify")
  err3, _ = checkify.checkify(lambda: checkify.debug_check(jnp.bool_(False), "seen"))()
  assert err3.get() == "seen (`check` failed)"


def test_bad_arguments():
  with pytest.raises(TypeError, match="boolean"):
    checkify.check(jnp.float32(1.0), "msg")
  with pytest.raises(TypeError, match="callable"):
    checkify.checkify(3)
  assert checkify.user_checks <= checkify.all_checks
  assert checkify.float_checks == checkify.nan_checks | checkify.div_checks


def test_init_error_is_the_error_of_passing_checks():
  from jax.experimental import checkify
  assert checkify.init_error.get() is None
  checkify.init_error.throw()  # nothing to raise


def test_failed_values_are_formatted_as_jax_arrays(backend):
  # (as JAX 0.10.2: a repr inside a container shows the jax Array)
  def f(tree):
    checkify.check(jnp.all(tree["b"] > 0), "bad tree: {}", tree)
    return tree["b"]

  err, _ = checkify.checkify(jax.jit(f))({"b": jnp.array([1.0, -2.0])})
  assert err.get() == "bad tree: {'b': Array([ 1., -2.], dtype=float32)} (`check` failed)"
