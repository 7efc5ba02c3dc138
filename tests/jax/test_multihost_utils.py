"""jax.experimental.multihost_utils and the global-array constructors, in one process.

The functions are written on process_index/process_count and addressable devices (values
cross processes through an all-gather over a (processes, local_devices) mesh); with one
process the results must be what JAX 0.10.2 gives for the same calls."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax._src import multihost_utils as impl
from jax.experimental import multihost_utils as mu
from jax.sharding import NamedSharding, PartitionSpec as P

pytestmark = pytest.mark.usefixtures("backend")


@pytest.fixture
def mesh():
  if jax.device_count() < 4:
    pytest.skip("needs 4 devices (JAX_NUM_CPU_DEVICES=4)")
  return jax.make_mesh((4,), ("x",))


def test_process_mesh_has_one_row_per_process():
  m = impl.process_mesh()
  assert m.axis_names == ("processes", "local_devices")
  assert m.devices.shape == (jax.process_count(), jax.local_device_count())
  assert [d.id for d in m.devices[jax.process_index()]] == [d.id for d in jax.local_devices()]


def test_process_allgather_stacks_or_concatenates():
  g = mu.process_allgather(np.arange(3.))
  assert g.shape == (1, 3) and g.dtype == np.float64  # every dtype arrives bit for bit
  np.testing.assert_array_equal(g, [[0., 1., 2.]])
  np.testing.assert_array_equal(mu.process_allgather(np.arange(3.), tiled=True), [0., 1., 2.])
  s = mu.process_allgather(np.float32(3.), tiled=True)
  assert s.shape == () and s.dtype == np.float32 and s == 3
  tree = mu.process_allgather({"a": 1, "b": [np.ones(2, np.bool_)], "c": jnp.arange(4)})
  assert tree["a"].shape == (1,) and tree["b"][0].dtype == np.bool_
  np.testing.assert_array_equal(tree["c"], [[0, 1, 2, 3]])
  assert isinstance(tree["c"], np.ndarray)


def test_process_allgather_of_an_array_over_devices(mesh):
  g = jax.device_put(np.arange(8.), NamedSharding(mesh, P("x")))
  # Fully addressable: this process's value, stacked once per process.
  np.testing.assert_array_equal(mu.process_allgather(g), [np.arange(8.)])
  np.testing.assert_array_equal(mu.process_allgather(g, tiled=True), np.arange(8.))


def test_process_allgather_refuses_traced_values():
  with pytest.raises(TypeError, match="concrete"):
    jax.jit(mu.process_allgather)(jnp.ones(2))


def test_broadcast_one_to_all():
  out = mu.broadcast_one_to_all({"a": np.arange(3.), "b": jnp.arange(3), "c": 3})
  assert isinstance(out["a"], np.ndarray) and out["a"].dtype == np.float64
  np.testing.assert_array_equal(out["b"], [0, 1, 2])
  assert out["c"].shape == () and out["c"] == 3
  np.testing.assert_array_equal(mu.broadcast_one_to_all(np.ones(2), is_source=True), [1, 1])
  with pytest.raises(ValueError, match="exactly one source process, got 0"):
    mu.broadcast_one_to_all(np.ones(2), is_source=False)


def test_assert_equal_and_sync_global_devices():
  mu.assert_equal({"a": np.arange(3), "b": 2.5}, "all the same")
  mu.sync_global_devices("step 1")
  mu.sync_global_devices("")


def test_host_local_global_round_trip(mesh):
  local = np.arange(16.).reshape(8, 2)
  g = mu.host_local_array_to_global_array(local, mesh, P("x"))
  assert g.shape == (8, 2) and g.sharding == NamedSharding(mesh, P("x"))
  assert [s.index for s in g.addressable_shards][3] == (slice(6, 8), slice(None))
  back = mu.global_array_to_host_local_array(g, mesh, P("x"))
  np.testing.assert_array_equal(back, local)
  assert back.sharding == NamedSharding(impl.local_mesh(mesh), P("x"))
  assert impl.local_mesh(mesh) == mesh  # one process holds every device
  trees = mu.host_local_array_to_global_array({"a": local, "b": [local[:, 0]]}, mesh,
                                              {"a": P("x"), "b": [P()]})
  assert trees["b"][0].sharding.spec == P()
  with pytest.raises(ValueError, match="does not evenly divide the dimension size 7"):
    mu.host_local_array_to_global_array(np.arange(7.), mesh, P("x"))


def test_make_array_from_callback(mesh):
  s = NamedSharding(mesh, P("x"))
  ref = np.arange(16.).reshape(8, 2)
  seen = []
  arr = jax.make_array_from_callback((8, 2), s, lambda idx: seen.append(idx) or ref[idx])
  np.testing.assert_array_equal(arr, ref)
  assert arr.sharding == s and arr.dtype == jnp.float32 and len(seen) == 4
  assert jax.typeof(arr).sharding.spec == P("x", None)
  with pytest.raises(ValueError, match=r"Expected shard shape \(2, 2\) doesn't match the single "
                                       r"device array shape \(3,\)"):
    jax.make_array_from_callback((8, 2), s, lambda idx: np.zeros(3))
  with pytest.raises(TypeError, match="concrete Mesh"):
    jax.make_array_from_callback((8,), NamedSharding(mesh.abstract_mesh, P("x")),
                                 lambda idx: ref[idx])


def test_make_array_from_single_device_arrays(mesh):
  s = NamedSharding(mesh, P("x"))
  pieces = [jax.device_put(np.arange(8.)[2 * i:2 * i + 2], d)
            for i, d in enumerate(mesh.devices.flat)]
  arr = jax.make_array_from_single_device_arrays((8,), s, pieces)
  np.testing.assert_array_equal(arr, np.arange(8.))
  # The pieces' buffers are used as they are (no copy through the host).
  assert all(a.device_buffers()[0] is b for a, b in zip(pieces, arr.device_buffers()))
  with pytest.raises(ValueError, match="Expected 4 per-device arrays"):
    jax.make_array_from_single_device_arrays((8,), s, pieces[:3])
  with pytest.raises(ValueError, match=r"must be from distinct devices, but got device IDs "
                                       r"\[0, 1, 2, 0\]"):
    jax.make_array_from_single_device_arrays((8,), s, pieces[:3] + pieces[:1])
  with pytest.raises(ValueError, match="does not evenly divide the dimension size 10"):
    jax.make_array_from_single_device_arrays((10,), s, pieces)


def test_make_array_from_process_local_data(mesh):
  s = NamedSharding(mesh, P("x"))
  for global_shape in (None, (8,), (None,)):
    arr = jax.make_array_from_process_local_data(s, np.arange(8.), global_shape)
    np.testing.assert_array_equal(arr, np.arange(8.))
    assert arr.sharding == s
  with pytest.raises(ValueError, match="global_shape should be None or equal to "
                                       r"local_data.shape.Got global_shape=\(16,\)"):
    jax.make_array_from_process_local_data(s, np.arange(8.), (16,))
  replicated = jax.make_array_from_process_local_data(NamedSharding(mesh, P()), np.ones((2, 3)))
  assert replicated.shape == (2, 3) and replicated.sharding.spec == P()


def test_replicated_value_gathers_every_split_dimension(mesh):
  # What process_allgather returns for an Array spanning several processes' devices.
  grid = jax.make_mesh((2, 2), ("a", "b"))
  value = np.arange(24.).reshape(4, 6)
  for spec in (P("a", "b"), P(("a", "b")), P(None, "a"), P()):
    x = jax.device_put(value, NamedSharding(grid, spec))
    np.testing.assert_array_equal(impl.replicated_value(x), value)
