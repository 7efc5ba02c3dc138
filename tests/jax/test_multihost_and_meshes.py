"""Process-level APIs on one process: multihost_utils, mesh_utils, jax.distributed, the
global-array constructors, set_mesh/abstract meshes and smap."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax.experimental import mesh_utils, multihost_utils
from jax.sharding import NamedSharding, PartitionSpec as P

pytestmark = pytest.mark.usefixtures("backend")


def test_process_queries():
  assert jax.process_count() == jax.host_count() == 1
  assert jax.process_index() == jax.host_id() == 0
  assert jax.process_indices() == jax.host_ids() == [0]


def test_process_allgather_and_broadcast():
  x = {"a": jnp.arange(3.), "b": np.int32(7)}
  g = multihost_utils.process_allgather(x)
  np.testing.assert_array_equal(g["a"], [[0., 1., 2.]])
  assert g["b"].shape == (1,)
  np.testing.assert_array_equal(multihost_utils.process_allgather(x["a"], tiled=True), [0, 1, 2])
  # A scalar gathered tiled from one process is that scalar (as in JAX).
  assert multihost_utils.process_allgather(jnp.float32(1.), tiled=True).shape == ()
  out = multihost_utils.broadcast_one_to_all(x)
  np.testing.assert_array_equal(out["a"], x["a"])
  multihost_utils.assert_equal(x)
  multihost_utils.sync_global_devices("step 1")
  with pytest.raises(TypeError, match="concrete"):
    jax.jit(multihost_utils.process_allgather)(jnp.ones(2))


def test_preemption_needs_distributed_initialize():
  with pytest.raises(RuntimeError, match="initialize"):
    multihost_utils.reached_preemption_sync_point(3)


def test_local_global_conversion_round_trip():
  mesh = jax.make_mesh((4,), ("x",))
  x = jnp.arange(8.)
  g = multihost_utils.host_local_array_to_global_array(x, mesh, P("x"))
  assert g.shape == (8,) and g.sharding == NamedSharding(mesh, P("x"))
  back = multihost_utils.global_array_to_host_local_array(g, mesh, P("x"))
  np.testing.assert_array_equal(back, x)
  jitted = jax.jit(lambda v: multihost_utils.host_local_array_to_global_array(v, mesh, P("x")))
  np.testing.assert_array_equal(jitted(x), x)
  batched = jax.vmap(lambda v: multihost_utils.host_local_array_to_global_array(
      v, mesh, P("x")))(jnp.ones((2, 8)))
  assert batched.shape == (2, 8)
  grad = jax.grad(lambda v: multihost_utils.global_array_to_host_local_array(
      v, mesh, P("x")).sum())(x)
  np.testing.assert_array_equal(grad, np.ones(8))


def test_live_devices():
  with multihost_utils.live_devices(jax.devices()) as live:
    assert live == jax.devices()


def test_create_device_mesh():
  m = mesh_utils.create_device_mesh((2, 2))
  assert m.shape == (2, 2) and [d.id for d in m.flat] == [d.id for d in jax.devices()[:4]]
  with pytest.raises(ValueError, match="must equal the product"):
    mesh_utils.create_device_mesh((3,))
  h = mesh_utils.create_hybrid_device_mesh((2, 2), (1, 1))
  assert h.shape == (2, 2)
  with pytest.raises(ValueError, match="dcn_mesh_shape"):
    mesh_utils.create_hybrid_device_mesh((2, 1), (1, 2))


def test_distributed_single_process():
  assert not jax.distributed.is_initialized()
  jax.distributed.initialize(num_processes=1, process_id=0)
  try:
    assert jax.distributed.is_initialized()
    assert multihost_utils.reached_preemption_sync_point(1) is False
    with pytest.raises(RuntimeError, match="only be called once"):
      jax.distributed.initialize()
  finally:
    jax.distributed.shutdown()
  with pytest.raises(ValueError, match="process_id"):
    jax.distributed.initialize(num_processes=2, process_id=5)
  # This process already computed: too late to join a group (the backend exists).
  with pytest.raises(RuntimeError, match="before any JAX computation"):
    jax.distributed.initialize("localhost:1234", num_processes=2, process_id=0)
  assert not jax.distributed.is_initialized()


def test_make_array_from_callback_and_shards():
  mesh = jax.make_mesh((2, 2), ("a", "b"))
  s = NamedSharding(mesh, P("a"))
  ref = np.arange(12.).reshape(4, 3)
  calls = []
  def cb(index):
    calls.append(index)
    return ref[index]
  arr = jax.make_array_from_callback((4, 3), s, cb)
  np.testing.assert_array_equal(arr, ref)
  assert arr.sharding == s and len(calls) == 4 and arr.dtype == jnp.float32
  shards = arr.addressable_shards
  assert [sh.replica_id for sh in shards] == [0, 1, 0, 1]
  assert shards[2].index == (slice(2, 4), slice(None))
  np.testing.assert_array_equal(shards[3].data, ref[2:])
  with pytest.raises(ValueError, match=r"Expected shard shape \(2, 3\) doesn't match"):
    jax.make_array_from_callback((4, 3), s, lambda idx: np.zeros((1, 1)))
  with pytest.raises(TypeError, match="Sharding"):
    jax.make_array_from_callback((4, 3), "not a sharding", cb)


def test_make_array_from_single_device_arrays_and_process_local_data():
  mesh = jax.make_mesh((4,), ("x",))
  s = NamedSharding(mesh, P("x"))
  pieces = [jax.device_put(jnp.full((2,), i, jnp.int32), d) for i, d in enumerate(mesh.devices)]
  arr = jax.make_array_from_single_device_arrays((8,), s, pieces)
  np.testing.assert_array_equal(arr, np.repeat(np.arange(4), 2))
  with pytest.raises(ValueError, match="Expected 4 per-device arrays"):
    jax.make_array_from_single_device_arrays((8,), s, pieces[:2])
  local = jax.make_array_from_process_local_data(s, np.arange(8))
  np.testing.assert_array_equal(local, np.arange(8))
  assert local.sharding == s


def test_live_arrays_copy_to_host_async_effects_barrier():
  x = jnp.arange(5.) + 1
  assert any(a is x for a in jax.live_arrays())
  x.delete()
  assert not any(a is x for a in jax.live_arrays())
  y = jnp.ones(3)
  assert jax.copy_to_host_async({"y": y})["y"] is y
  jax.effects_barrier()


def test_set_mesh_reshard_and_abstract_mesh():
  mesh = jax.make_mesh((4,), ("x",))
  assert jax.sharding.get_abstract_mesh().empty
  with jax.set_mesh(mesh):
    am = jax.sharding.get_abstract_mesh()
    assert am.axis_names == ("x",) and am.axis_sizes == (4,) and am == mesh.abstract_mesh
    y = jax.reshard(jnp.arange(8.), P("x"))
    assert y.sharding == NamedSharding(mesh, P("x"))
    out = jax.jit(lambda v: jax.sharding.reshard(v * 2, P("x")))(jnp.arange(8.))
    np.testing.assert_array_equal(out, 2 * np.arange(8.))
  assert jax.sharding.get_mesh() is None
  with pytest.raises(ValueError, match="not under a mesh context"):
    jax.reshard(jnp.arange(8.), P("x"))
  with pytest.raises(TypeError, match="Mesh"):
    jax.set_mesh("mesh")
  abstract = jax.sharding.AbstractMesh((2, 3), ("a", "b"))
  assert abstract.size == 6 and abstract.shape == {"a": 2, "b": 3}
  with jax.sharding.use_abstract_mesh(abstract):
    assert jax.sharding.get_abstract_mesh() == abstract
  with pytest.raises(ValueError, match="unique"):
    jax.sharding.AbstractMesh((2, 2), ("a", "a"))
  t = jax.sharding.ManualAxisType(varying={"x"})
  assert t.varying == frozenset({"x"}) and t.reduced == frozenset()


def test_auto_and_explicit_axes_apply_shardings():
  mesh = jax.make_mesh((4,), ("x",))
  s = NamedSharding(mesh, P("x"))
  f = jax.sharding.auto_axes(lambda v: v + 1, out_sharding=s)
  assert f(jnp.zeros(8)).sharding == s
  g = jax.sharding.explicit_axes(lambda v: v.sharding, in_sharding=s)
  assert g(jnp.zeros(8)) == s


def test_smap_splits_over_one_mesh_axis():
  mesh = jax.make_mesh((4,), ("x",))
  f = jax.smap(lambda v: v - jax.lax.pmean(v, "x"), in_axes=0, out_axes=0, axis_name="x")
  with jax.set_mesh(mesh):
    out = f(jnp.arange(8.))
  np.testing.assert_allclose(out, np.arange(8.) - np.arange(8.).reshape(4, 2).mean(0).repeat(1)
                             .reshape(1, 2).repeat(4, 0).reshape(-1))
  with pytest.raises(ValueError, match="mesh"):
    f(jnp.arange(8.))
