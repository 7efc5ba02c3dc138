"""batched_device_put, batched_copy_array_to_devices_with_sharding, reorder_shards
and batched_block_until_ready over the CPU plugin's Buffers."""

import numpy as np
import pytest

pytestmark = pytest.mark.needs_wheels

xla_client = pytest.importorskip("jaxlib.xla_client")
Semantics = xla_client.ArrayCopySemantics


@pytest.fixture(scope="module")
def devices():
  return xla_client.make_cpu_client(num_devices=4).devices()


def split_sharding(devices):
  m = Mesh(np.array(devices, dtype=object), ("x",))
  return xla_client.NamedSharding(m, ("x",))


class Mesh:
  def __init__(self, devices, axis_names):
    self.devices, self.axis_names = devices, axis_names


class aval:  # pylint: disable=invalid-name
  def __init__(self, shape, dtype):
    self.shape, self.dtype = shape, np.dtype(dtype)


def put_split(devices, value):
  s = split_sharding(devices)
  blocks = s.devices_indices_map(value.shape)
  return s, xla_client.batched_device_put(aval(value.shape, value.dtype), s,
                                          [value[i] for i in blocks.values()], list(blocks))


def test_batched_device_put_places_each_block(devices):
  value = np.arange(16, dtype=np.float32).reshape(8, 2)
  _, bufs = put_split(devices, value)
  assert [b.device() for b in bufs] == list(devices)
  np.testing.assert_array_equal(np.concatenate([np.asarray(b) for b in bufs]), value)


def test_batched_device_put_reuses_or_copies_buffers(devices):
  s = xla_client.GSPMDSharding.get_replicated(devices[:2])
  x = devices[0].client.buffer_from_pyval(np.arange(3, dtype=np.int32), devices[0])
  a = aval((3,), np.int32)
  same, moved = xla_client.batched_device_put(a, s, [x, x], devices[:2])
  assert same is x and moved.device() == devices[1]
  np.testing.assert_array_equal(np.asarray(moved), [0, 1, 2])
  (copied,) = xla_client.batched_device_put(a, xla_client.SingleDeviceSharding(devices[0]), [x],
                                            [devices[0]], force_copy=True)
  assert copied is not x and copied.device() == devices[0]
  np.testing.assert_array_equal(np.asarray(copied), [0, 1, 2])


def test_batched_device_put_errors(devices):
  s = split_sharding(devices[:2])
  a = aval((4,), np.float32)
  good = [np.zeros(2, np.float32)] * 2
  with pytest.raises(ValueError, match=r"xs\[1\] has shape \(3,\), but the block of \(4,\)"):
    xla_client.batched_device_put(a, s, [good[0], np.zeros(3, np.float32)], devices[:2])
  with pytest.raises(TypeError, match=r"xs\[0\] has dtype int32, the aval says float32"):
    xla_client.batched_device_put(a, s, [np.zeros(2, np.int32), good[1]], devices[:2])
  with pytest.raises(ValueError, match="is not one of the sharding's devices"):
    xla_client.batched_device_put(a, s, good, [devices[0], devices[3]])
  with pytest.raises(ValueError, match="2 values for 1 devices"):
    xla_client.batched_device_put(a, s, good, devices[:1])
  with pytest.raises(ValueError, match="appears more than once"):
    xla_client.batched_device_put(a, s, good, [devices[0], devices[0]])
  with pytest.raises(TypeError, match=r"devices\[1\] must be a Device, got int"):
    xla_client.batched_device_put(a, s, good, [devices[0], 1])
  with pytest.raises(TypeError, match="sharding must be a Sharding"):
    xla_client.batched_device_put(a, "x", good, devices[:2])
  with pytest.raises(TypeError, match="aval must have a shape and a dtype"):
    xla_client.batched_device_put((4,), s, good, devices[:2])
  dead = devices[0].client.buffer_from_pyval(np.zeros(2, np.float32), devices[0])
  dead.delete()
  with pytest.raises(xla_client.XlaRuntimeError, match=r"xs\[0\] is a deleted buffer"):
    xla_client.batched_device_put(a, s, [dead, good[1]], devices[:2])


def test_batched_copy_array_to_devices_with_sharding(devices):
  value = np.arange(8, dtype=np.float32)
  src_sharding, bufs = put_split(devices[:2], value)
  dst = split_sharding(devices[2:])
  (copied,), = [xla_client.batched_copy_array_to_devices_with_sharding(
      [bufs], [dst._internal_device_list], [dst], [Semantics.ALWAYS_COPY])]
  assert [b.device() for b in copied] == list(devices[2:])
  np.testing.assert_array_equal(np.concatenate([np.asarray(b) for b in copied]), value)
  assert not any(b.is_deleted() for b in bufs)
  # Reuse keeps shards already in place; donation deletes what it moved away.
  (reused,) = xla_client.batched_copy_array_to_devices_with_sharding(
      [bufs], [src_sharding._internal_device_list], [src_sharding], [Semantics.REUSE_INPUT])
  assert reused[0] is bufs[0] and reused[1] is bufs[1]
  (donated,) = xla_client.batched_copy_array_to_devices_with_sharding(
      [bufs], [dst._internal_device_list], [dst], [Semantics.DONATE_INPUT])
  assert all(b.is_deleted() for b in bufs)
  np.testing.assert_array_equal(np.concatenate([np.asarray(b) for b in donated]), value)


def test_batched_copy_errors(devices):
  s, bufs = put_split(devices[:2], np.zeros(4, np.float32))
  dl = s._internal_device_list
  other = xla_client.DeviceList(tuple(devices[2:]))
  copy = xla_client.batched_copy_array_to_devices_with_sharding
  with pytest.raises(ValueError, match="they must match"):
    copy([bufs], [dl, dl], [s], [Semantics.ALWAYS_COPY])
  with pytest.raises(ValueError, match=r"sharding\[0\] is over"):
    copy([bufs], [other], [s], [Semantics.ALWAYS_COPY])
  with pytest.raises(TypeError, match=r"devices\[0\] must be a DeviceList"):
    copy([bufs], [list(devices[:2])], [s], [Semantics.ALWAYS_COPY])
  with pytest.raises(TypeError, match="must be an ArrayCopySemantics"):
    copy([bufs], [dl], [s], ["copy"])
  with pytest.raises(ValueError, match=r"arrays\[0\] has 1 shards for 2 devices"):
    copy([bufs[:1]], [dl], [s], [Semantics.ALWAYS_COPY])
  with pytest.raises(TypeError, match=r"arrays\[0\]\[1\] must be a Buffer"):
    copy([[bufs[0], np.zeros(2)]], [dl], [s], [Semantics.ALWAYS_COPY])


def test_reorder_shards(devices):
  value = np.arange(8, dtype=np.int32)
  _, bufs = put_split(devices[:2], value)
  dst = xla_client.GSPMDSharding([devices[1], devices[0]], xla_client.HloSharding.tiled([2], [1, 0]))
  out = xla_client.reorder_shards(bufs, dst, Semantics.REUSE_INPUT)
  assert out == [bufs[1], bufs[0]]
  copied = xla_client.reorder_shards(bufs, dst, Semantics.ALWAYS_COPY)
  assert copied[0] is not bufs[1] and copied[0].device() == devices[1]
  np.testing.assert_array_equal(np.asarray(copied[0]), value[4:])
  with pytest.raises(ValueError, match="but dst_sharding is over"):
    xla_client.reorder_shards(bufs, split_sharding(devices[2:]), Semantics.REUSE_INPUT)
  with pytest.raises(ValueError, match="two shards are on"):
    xla_client.reorder_shards([bufs[0], bufs[0]], dst, Semantics.REUSE_INPUT)
  with pytest.raises(TypeError, match="must be a Sharding"):
    xla_client.reorder_shards(bufs, devices, Semantics.REUSE_INPUT)


def test_batched_block_until_ready(devices):
  _, bufs = put_split(devices, np.ones(8, np.float32))
  assert xla_client.batched_block_until_ready(bufs) is None
  with pytest.raises(TypeError, match=r"xs\[1\] is a int, not a Buffer or array"):
    xla_client.batched_block_until_ready([bufs[0], 3])
  bufs[2].delete()
  with pytest.raises(xla_client.XlaRuntimeError, match=r"xs\[2\] is a deleted buffer"):
    xla_client.batched_block_until_ready(bufs)
