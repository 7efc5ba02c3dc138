"""jax.experimental.array_serialization: arrays written to TensorStore and read back,
whole and by blocks, through the blocking, async and background-thread entry points."""

import asyncio
import os

import ml_dtypes
import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax.experimental.array_serialization import serialization
from jax.sharding import NamedSharding, PartitionSpec as P, SingleDeviceSharding

ts = pytest.importorskip("tensorstore")


def test_specs_name_local_and_cloud_stores(tmp_path):
  local = serialization.get_tensorstore_spec(str(tmp_path / "w"))
  assert local == {"driver": "zarr", "kvstore": {"driver": "file", "path": str(tmp_path / "w")}}
  cloud = serialization.get_tensorstore_spec("gs://bucket/run/w")
  assert cloud["kvstore"] == {"driver": "gcs", "bucket": "bucket", "path": "run/w"}
  assert serialization.is_remote_storage(cloud) and not serialization.is_remote_storage(local)
  assert serialization.is_remote_storage("gs://b/x") and not serialization.is_remote_storage("/x")
  ocdbt = serialization.get_tensorstore_spec(str(tmp_path / "ckpt" / "w"), ocdbt=True)
  assert ocdbt["driver"] == "zarr3" and ocdbt["kvstore"]["driver"] == "ocdbt"


def test_round_trip_of_sharded_and_single_device_arrays(backend, tmp_path):
  mesh = jax.make_mesh((2,), ("x",), devices=jax.devices()[:2])
  value = np.arange(24, dtype=np.float32).reshape(6, 4)
  sharded = jax.device_put(value, NamedSharding(mesh, P("x")))
  half = jnp.asarray(value.astype(ml_dtypes.bfloat16))
  specs = [serialization.get_tensorstore_spec(str(tmp_path / n)) for n in ("a", "b")]
  serialization.run_serialization([sharded, half], specs)
  # Stored as TensorStore arrays of the global shape and dtype.
  stored = ts.open(specs[0], open=True).result()
  assert tuple(stored.shape) == (6, 4)
  np.testing.assert_array_equal(stored.read().result(), value)
  back = serialization.run_deserialization(
      [NamedSharding(mesh, P(None, "x")), SingleDeviceSharding(jax.devices()[0])], specs)
  np.testing.assert_array_equal(back[0], value)
  assert back[0].sharding == NamedSharding(mesh, P(None, "x"))
  assert back[1].dtype == jnp.bfloat16
  np.testing.assert_array_equal(np.asarray(back[1], np.float32), value)


def test_reading_a_part_padding_and_converting(backend, tmp_path):
  spec = serialization.get_tensorstore_spec(str(tmp_path / "c"))
  serialization.run_serialization([jnp.arange(6.0)], [spec])
  one = SingleDeviceSharding(jax.devices()[0])
  (part,) = serialization.run_deserialization([one], [spec], global_shapes=[(4,)])
  np.testing.assert_array_equal(part, [0.0, 1.0, 2.0, 3.0])
  (padded,) = serialization.run_deserialization([one], [spec], [(8,)], [jnp.int32])
  np.testing.assert_array_equal(padded, [0, 1, 2, 3, 4, 5, 0, 0])
  assert padded.dtype == jnp.int32
  out = asyncio.run(serialization.async_deserialize(one, spec))
  np.testing.assert_array_equal(out, np.arange(6.0))


def test_background_manager_commits_then_calls_back(backend, tmp_path):
  manager = serialization.GlobalAsyncCheckpointManager(timeout_secs=60)
  x = jnp.arange(10.0) * 3
  committed = []
  manager.serialize_with_paths([x], [str(tmp_path / "d")],
                               on_commit_callback=lambda: committed.append(True))
  manager.wait_until_finished()
  assert committed == [True]
  (y,) = manager.deserialize_with_paths([SingleDeviceSharding(jax.devices()[0])],
                                        [str(tmp_path / "d")])
  np.testing.assert_array_equal(y, np.arange(10.0) * 3)
  # A failed write is raised by the next wait, not lost.
  bad = {"driver": "zarr", "kvstore": {"driver": "file", "path": "/proc/none/x"}}
  manager.serialize([x], [bad], on_commit_callback=lambda: committed.append(False))
  with pytest.raises(RuntimeError, match="asynchronous checkpoint write failed"):
    manager.wait_until_finished()
  assert committed == [True]
  with pytest.raises(TypeError, match="jax.Array"):
    asyncio.run(serialization.async_serialize(np.ones(2), bad))
  assert not os.path.exists("/proc/none")
