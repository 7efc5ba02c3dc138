"""pure_callback: eager, under jit (a run-time call back into Python from the compiled
program), under vmap with each vmap_method, and its errors."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax._src import callback as callback_mod
from jax._src import xla_bridge


def host_sin(x):
  return (np.sin(np.asarray(x)) * 2).astype(np.float32)


def f(x):
  return jax.pure_callback(host_sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                           vmap_method="sequential") + 1


X = np.linspace(0.0, 1.0, 4, dtype=np.float32)


def _supports_callbacks(backend):
  return callback_mod.supports_host_callbacks(backend)


def test_eager_and_jit(backend):
  np.testing.assert_allclose(f(X), np.sin(X) * 2 + 1, rtol=1e-6)
  np.testing.assert_allclose(jax.jit(f)(X), np.sin(X) * 2 + 1, rtol=1e-6)


def test_compiled_program_calls_back_at_run_time(backend):
  if not _supports_callbacks(backend):
    pytest.skip("the backend's plugin has no host-callback extension")
  calls = []

  def record(x):
    calls.append(np.array(x))
    return (np.asarray(x) * 3).astype(np.float32), np.float32(np.sum(x))

  g = jax.jit(lambda x: jax.pure_callback(
      record, (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct((), x.dtype)), x * 2))
  text = g.lower(X).as_text()
  assert 'custom_call_target="xla_ffi_python_cpu_callback"' in text
  assert "api_version=API_VERSION_TYPED_FFI, backend_config={index = " in text
  tripled, total = g(X)
  np.testing.assert_allclose(tripled, X * 6, rtol=1e-6)
  np.testing.assert_allclose(total, (X * 2).sum(), rtol=1e-6)
  tripled, _ = g(X + 1)  # the same executable calls back again with the new operand
  np.testing.assert_allclose(tripled, (X + 1) * 6, rtol=1e-6)
  assert len(calls) == 2
  np.testing.assert_allclose(calls[1], (X + 1) * 2)


def test_callback_exception_fails_the_run(backend):
  if not _supports_callbacks(backend):
    pytest.skip("the backend's plugin has no host-callback extension")

  def boom(x):
    raise ValueError("no thanks")

  g = jax.jit(lambda x: jax.pure_callback(boom, jax.ShapeDtypeStruct(x.shape, x.dtype), x))
  with pytest.raises(Exception, match="no thanks"):
    np.asarray(g(X))


@pytest.mark.parametrize("method", ["sequential", "expand_dims", "broadcast_all"])
def test_vmap_methods(backend, method):
  seen = []

  def host(x, y):
    seen.append((np.shape(x), np.shape(y)))
    return (np.asarray(x) + np.asarray(y)).astype(np.float32)

  def g(x, y):
    shape = jnp.broadcast_shapes(x.shape, y.shape)
    return jax.pure_callback(host, jax.ShapeDtypeStruct(shape, x.dtype), x, y,
                             vmap_method=method)

  xs = np.arange(6.0, dtype=np.float32).reshape(2, 3)
  y = np.ones(3, np.float32)
  out = jax.vmap(g, in_axes=(0, None))(xs, y)
  np.testing.assert_allclose(out, xs + 1)
  expect = {"sequential": [((3,), (3,))] * 2, "expand_dims": [((2, 3), (1, 3))],
            "broadcast_all": [((2, 3), (2, 3))]}[method]
  assert seen == expect


def test_vmap_then_jit(backend):
  out = jax.jit(jax.vmap(f))(X.reshape(2, 2))
  np.testing.assert_allclose(out, np.sin(X.reshape(2, 2)) * 2 + 1, rtol=1e-6)


def test_errors(backend):
  with pytest.raises(RuntimeError, match="has shape \\(3,\\)"):
    jax.pure_callback(lambda x: np.zeros(3, np.float32), jax.ShapeDtypeStruct((4,), np.float32), X)
  with pytest.raises(RuntimeError, match="dtype float64"):
    jax.pure_callback(lambda x: np.zeros(4), jax.ShapeDtypeStruct((4,), np.float32), X)
  with pytest.raises(ValueError, match="do not support JVP"):
    jax.grad(lambda x: f(x).sum())(X)
  with pytest.raises(NotImplementedError, match="vmap_method"):
    jax.vmap(lambda x: jax.pure_callback(host_sin, jax.ShapeDtypeStruct((), x.dtype), x))(X)
  with pytest.raises(ValueError, match="vmap_method must be one of"):
    jax.pure_callback(host_sin, jax.ShapeDtypeStruct((4,), np.float32), X, vmap_method="bad")
