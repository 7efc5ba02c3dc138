"""jax.experimental.colocated_python in one process: colocated CPU devices, functions
and classes run here on their inputs, outputs placed on the colocated devices."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax.experimental import colocated_python as cp
from jax.experimental.colocated_python import serialization


def test_colocated_cpu_devices_of_cpu_devices_and_meshes(backend):
  devs = jax.devices()[:2]
  assert cp.colocated_cpu_devices(devs) == devs
  mesh = jax.sharding.Mesh(np.array(devs), ("x",))
  cpu_mesh = cp.colocated_cpu_devices(mesh)
  assert isinstance(cpu_mesh, jax.sharding.Mesh)
  assert cpu_mesh.axis_names == ("x",) and list(cpu_mesh.devices.flat) == devs
  with pytest.raises(TypeError, match="sequence of devices or a Mesh"):
    cp.colocated_cpu_devices(3)


def test_colocated_function_runs_on_its_inputs_devices(backend):
  cpu = cp.colocated_cpu_devices(jax.devices()[1:2])
  calls = []

  @cp.colocated_python
  def add_one(x):
    calls.append(type(x))
    return x + 1

  x = jax.device_put(jnp.arange(3.0), cpu[0])
  y = add_one(x)
  assert isinstance(y, jax.Array) and y.devices() == {cpu[0]}
  np.testing.assert_array_equal(y, [1.0, 2.0, 3.0])
  assert len(calls) == 1
  with pytest.raises(TypeError, match="concrete arrays"):
    jax.jit(add_one)(x)


def test_functions_without_inputs_need_devices(backend):
  make = cp.colocated_python(lambda: np.float32(2.0))
  with pytest.raises(ValueError, match=r"specialize\(devices=...\)"):
    make()
  out = make.specialize(devices=jax.devices()[:1])()
  assert out.devices() == {jax.devices()[0]} and float(out) == 2.0


def test_out_specs_place_outputs(backend):
  dev = jax.devices()[2]
  spec = jax.ShapeDtypeStruct((2,), jnp.float32, sharding=jax.sharding.SingleDeviceSharding(dev))
  f = cp.colocated_python(lambda x: x * 2).specialize(out_specs=spec)
  out = f(jnp.array([1.0, 2.0]))
  assert out.devices() == {dev}
  np.testing.assert_array_equal(out, [2.0, 4.0])
  bad = cp.colocated_python(lambda x: x[:1]).specialize(out_specs=spec)
  with pytest.raises(ValueError, match="does not match its spec"):
    bad(jnp.array([1.0, 2.0]))


def test_colocated_class_keeps_its_state(backend):
  @cp.colocated_python_class
  class Counter:
    def __init__(self, start):
      self.n = start

    def add(self, x):
      self.n += 1
      return x + self.n

  c = Counter(10)
  x = jnp.arange(2.0)
  np.testing.assert_array_equal(c.add(x), [11.0, 12.0])
  np.testing.assert_array_equal(c.add(x), [12.0, 13.0])
  assert c.n == 12


def test_serialization_sends_devices_by_id(backend):
  mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("x",))
  back = serialization._deserialize(serialization._serialize({"m": mesh, "v": 3}))
  assert back["v"] == 3 and back["m"].axis_names == ("x",)
  assert list(back["m"].devices.flat) == jax.devices()[:2]
  s = jax.sharding.SingleDeviceSharding(jax.devices()[1])
  assert serialization._deserialize(serialization._serialize(s)).device_set == {jax.devices()[1]}
