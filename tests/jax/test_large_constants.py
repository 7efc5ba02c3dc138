"""Large constants a computation closes over are passed to its executable as arguments.

Printing a constant into the HLO text and parsing it back costs microseconds per
element, so a jitted function closing over a 16 MB weight took seconds to compile.
Constants of `execution.HOIST_MIN_BYTES` or more become the module's first parameters
instead, copied to each device once per executable (a jax Array already on the device
is passed as it is).
"""

import pickle

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax._src import execution
from jax.experimental import serialize_executable
from jax.sharding import Mesh, PartitionSpec as P

pytestmark = pytest.mark.usefixtures("backend")

RNG = np.random.RandomState(0)
W = RNG.randn(64, 64).astype(np.float32)  # 16 KB: passed as an argument
SMALL = np.arange(8, dtype=np.float32)    # 32 B: printed into the module


def _executable(f, *args):
  return f.lower(*args).compile()._exe


def _parameters(text: str) -> list[str]:
  entry = text[text.index("ENTRY"):]
  return [line.split("=", 1)[0].strip() for line in entry.splitlines() if " parameter(" in line]


def test_large_constant_is_a_parameter_and_small_one_is_printed():
  def f(x):
    return jnp.tanh(x @ W) @ W + SMALL.sum()

  x = RNG.randn(3, 64).astype(np.float32)
  exe = _executable(jax.jit(f), x)
  assert len(exe.consts) == 2 and len(_parameters(exe.hlo_text)) == 3
  assert "constant_0" in exe.hlo_text and len(exe.hlo_text) < 4000
  expect = np.tanh(x @ W) @ W + SMALL.sum()
  np.testing.assert_allclose(jax.jit(f)(x), expect, rtol=1e-5, atol=1e-5)


def test_native_fast_path_passes_the_constants():
  f = jax.jit(lambda x: x @ W)
  x = jnp.asarray(RNG.randn(2, 64).astype(np.float32))
  first = f(x)
  assert len(f._fast_cache) == 1  # later calls run natively, constants in front
  for _ in range(3):
    np.testing.assert_allclose(f(x), first, rtol=0, atol=0)
  np.testing.assert_allclose(first, np.asarray(x) @ W, rtol=1e-5, atol=1e-5)


def test_arrays_on_the_device_are_passed_as_they_are():
  on_device = jnp.asarray(W * 2)
  f = jax.jit(lambda x: x @ W + x @ on_device)
  x = jnp.ones((1, 64), jnp.float32)
  exe = _executable(f, x)
  bufs = exe.const_buffers(exe.devices[0])
  assert len(bufs) == 2
  assert on_device.unsafe_buffer_pointer() in [b.unsafe_buffer_pointer() for b in bufs]
  np.testing.assert_allclose(f(x), np.ones((1, 64)) @ (3 * W), rtol=1e-5, atol=1e-4)


def test_equal_numpy_constants_share_one_buffer():
  a, b = W.copy(), W.copy()
  exe = execution.Executable("", [], [], None, [jax.devices()[0]], consts=[a, b, W * 2])
  bufs = exe.const_buffers(jax.devices()[0])
  assert bufs[0] is bufs[1] and bufs[2] is not bufs[0]
  assert exe.const_buffers(jax.devices()[0]) is bufs  # made once per device


def test_constants_take_the_type_the_jaxpr_gives_them():
  wide = RNG.randn(40, 40)  # float64 numpy: float32 in the computation (x64 off)
  half = jnp.asarray(RNG.randn(64, 64), jnp.bfloat16)
  f = jax.jit(lambda x: x @ wide)
  x = jnp.ones((2, 40), jnp.float32)
  out = f(x)
  assert out.dtype == jnp.float32
  np.testing.assert_allclose(out, np.ones((2, 40)) @ wide, rtol=1e-5, atol=1e-4)
  y = jnp.ones((2, 64), jnp.float32)
  h = jax.jit(lambda y: y.astype(jnp.bfloat16) @ half)(y)
  assert h.dtype == jnp.bfloat16
  np.testing.assert_allclose(h.astype(np.float32), np.ones((2, 64)) @ np.asarray(half, np.float32),
                             rtol=2e-2, atol=5e-2)


def test_donated_arguments_come_after_the_constants():
  f = jax.jit(lambda x: x + W, donate_argnums=0)
  x = jnp.ones((64, 64), jnp.float32)
  out = f(x)
  assert x.is_deleted()
  np.testing.assert_allclose(out, 1 + W)
  y = jnp.zeros((64, 64), jnp.float32)
  np.testing.assert_allclose(f(y), W)  # the native path shifts the donated index too
  assert y.is_deleted()


def test_deleted_constant_array_is_a_clear_error():
  c = jnp.asarray(W)
  f = jax.jit(lambda x: x @ c)
  x = jnp.ones((1, 64), jnp.float32)
  f(x)
  c.delete()
  with pytest.raises(Exception, match="(?i)delete"):
    np.asarray(f(x))


def test_constants_reach_every_device_of_pmap_and_shard_map():
  n = jax.local_device_count()
  out = jax.pmap(lambda x: x @ W)(jnp.ones((n, 2, 64), jnp.float32))
  np.testing.assert_allclose(out, np.broadcast_to(np.ones((2, 64)) @ W, (n, 2, 64)), rtol=1e-5,
                             atol=1e-4)
  mesh = Mesh(np.array(jax.devices()[:n]), ("i",))
  g = jax.shard_map(lambda x: x @ W, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
  x = RNG.randn(2 * n, 64).astype(np.float32)
  np.testing.assert_allclose(jax.jit(g)(x), x @ W, rtol=1e-5, atol=1e-5)


def test_constants_inside_control_flow_and_grad():
  def loss(v):
    def body(c, _):
      return jnp.tanh(c @ W), None
    c, _ = jax.lax.scan(body, v, None, length=3)
    return jnp.sum(c ** 2)

  v = RNG.randn(64).astype(np.float32)
  g = jax.jit(jax.grad(loss))(v)
  eps = 1e-3
  e = np.zeros(64, np.float32)
  e[5] = eps
  numeric = (loss(v + e) - loss(v - e)) / (2 * eps)
  np.testing.assert_allclose(g[5], numeric, rtol=2e-2, atol=1e-3)


def test_serialized_executable_keeps_its_constants():
  f = jax.jit(lambda x: x @ W)
  x = jnp.ones((2, 64), jnp.float32)
  compiled = f.lower(x).compile()
  payload, in_tree, out_tree = serialize_executable.serialize(compiled)
  again = serialize_executable.deserialize_and_load(pickle.loads(pickle.dumps(payload)),
                                                    in_tree, out_tree)
  np.testing.assert_allclose(again(x), np.ones((2, 64)) @ W, rtol=1e-5, atol=1e-5)


def test_threshold_is_in_bytes():
  below = np.ones(execution.HOIST_MIN_BYTES // 4 - 1, np.float32)
  at = np.ones(execution.HOIST_MIN_BYTES // 4, np.float32)
  x = jnp.float32(1)
  assert _executable(jax.jit(lambda x: x * below), x).consts == ()
  assert len(_executable(jax.jit(lambda x: x * at), x).consts) == 1


def test_numpy_constant_of_its_own_type_is_not_converted():
  # A same-type conversion copies the value once, denormals kept (as JAX keeps them).
  tiny = np.array([1e-40, 1.0], np.float32)
  np.testing.assert_array_equal(np.asarray(jax.lax.convert_element_type(tiny, np.float32)), tiny)
  assert not jnp.asarray(tiny).weak_type
