"""custom_vmap: the user's rule runs under vmap (also inside jit); eval, grad as the function."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax.custom_batching import custom_vmap, sequential_vmap

X = np.array([0.0, 0.5, 1.0], np.float32)


def _make():
  calls = []

  @custom_vmap
  def f(x, y):
    return jnp.sin(x) + y

  @f.def_vmap
  def rule(axis_size, in_batched, x, y):
    calls.append((axis_size, tuple(in_batched)))
    # A deliberately different result, so the test can tell the rule ran.
    return jnp.cos(x) + y, True

  return f, calls


def test_unbatched_call_is_the_function(backend):
  f, calls = _make()
  np.testing.assert_allclose(f(X, 1.0), np.sin(X) + 1, rtol=1e-6)
  np.testing.assert_allclose(jax.jit(f)(X, 1.0), np.sin(X) + 1, rtol=1e-6)
  assert calls == []


def test_vmap_runs_the_rule(backend):
  f, calls = _make()
  out = jax.vmap(f, in_axes=(0, None))(X, 2.0)
  np.testing.assert_allclose(out, np.cos(X) + 2, rtol=1e-6)
  assert calls == [(3, (True, False))]
  out = jax.jit(jax.vmap(f, in_axes=(None, 0)))(0.5, X)
  np.testing.assert_allclose(out, np.cos(0.5) + X, rtol=1e-6)


def test_batch_axis_moved_to_front(backend):
  f, _ = _make()
  x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
  out = jax.vmap(f, in_axes=(1, None), out_axes=1)(x, 0.0)
  np.testing.assert_allclose(out, np.cos(x), rtol=1e-6)


def test_grad_differentiates_the_function(backend):
  f, _ = _make()
  np.testing.assert_allclose(jax.grad(lambda x: f(x, 0.0))(0.5), np.cos(0.5), rtol=1e-6)


def test_unbatched_rule_output():
  @custom_vmap
  def total(x):
    return x.sum()

  @total.def_vmap
  def rule(axis_size, in_batched, x):
    return x.sum(), False  # the same for every element: not batched

  out = jax.vmap(total)(jnp.ones((4, 2)))
  np.testing.assert_allclose(out, np.full(4, 8.0))


def test_rule_output_checked():
  @custom_vmap
  def f(x):
    return x

  @f.def_vmap
  def rule(axis_size, in_batched, x):
    return x[0], True

  with pytest.raises(ValueError, match="shape"):
    jax.vmap(f)(jnp.ones((3, 2)))


def test_missing_rule():
  f = custom_vmap(lambda x: x)
  with pytest.raises(AttributeError, match="def_vmap"):
    f(1.0)


def test_sequential_vmap(backend):
  calls = []

  def host(x):
    calls.append(isinstance(x, jax.core.Tracer))  # staged once, then run per element
    return jnp.sum(x) * 2

  g = sequential_vmap(host)
  out = jax.vmap(g)(jnp.arange(6.0).reshape(3, 2))
  np.testing.assert_allclose(out, [2.0, 10.0, 18.0])
  assert calls.count(False) == 3
