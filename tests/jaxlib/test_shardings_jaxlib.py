"""jaxlib's shardings: device lists, HloShardings and the blocks each device holds."""

import numpy as np
import pytest

pytestmark = pytest.mark.needs_wheels

xla_client = pytest.importorskip("jaxlib.xla_client")
HloSharding = xla_client.HloSharding


@pytest.fixture(scope="module")
def devices():
  return xla_client.make_cpu_client(num_devices=4).devices()


class Mesh:
  """The least jaxlib needs of a mesh: devices as an n-d array, axis names, a hash."""

  def __init__(self, devices, shape, names):
    self.devices = np.array(devices, dtype=object).reshape(shape)
    self.axis_names = tuple(names)


mesh = Mesh


def test_single_device_sharding(devices):
  s = xla_client.SingleDeviceSharding(devices[2])
  assert s._device_assignment == (devices[2],) and s.device_set == {devices[2]}
  assert s._internal_device_list == xla_client.DeviceList((devices[2],))
  assert s.num_devices == 1 and s.is_fully_replicated and s.is_fully_addressable
  assert s.memory_kind == "device"
  assert s._to_xla_hlo_sharding(2) == HloSharding.replicate()
  assert s.devices_indices_map((3, 4)) == {devices[2]: (slice(None), slice(None))}
  assert s.shard_shape((3, 4)) == (3, 4)
  assert s == xla_client.SingleDeviceSharding(devices[2], memory_kind="device")
  assert hash(s) == hash(xla_client.SingleDeviceSharding(devices[2]))
  assert s != xla_client.SingleDeviceSharding(devices[1])
  with pytest.raises(TypeError, match="expects a Device, got int"):
    xla_client.SingleDeviceSharding(0)
  with pytest.raises(ValueError, match="memory kind 'pinned_host' is not supported by cpu"):
    xla_client.SingleDeviceSharding(devices[0], memory_kind="pinned_host")


def test_named_sharding_hlo_and_blocks(devices):
  m = mesh(devices, (2, 2), ("x", "y"))
  s = xla_client.NamedSharding(m, ("x",))
  # dim 0 over x, y unused: tiles [2,1] replicated over y.
  assert s._to_xla_hlo_sharding(2).to_string() == "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"
  blocks = s.devices_indices_map((4, 6))
  assert list(blocks) == list(devices)
  assert blocks[devices[0]] == blocks[devices[1]] == (slice(0, 2), slice(None))
  assert blocks[devices[2]] == blocks[devices[3]] == (slice(2, 4), slice(None))
  assert s.shard_shape((4, 6)) == (2, 6) and not s.is_fully_replicated

  t = xla_client.NamedSharding(m, ("y", "x"))
  assert t._to_xla_hlo_sharding(2).to_string() == "{devices=[2,2]<=[2,2]T(1,0)}"
  tb = t.devices_indices_map((4, 6))
  assert tb[devices[1]] == (slice(2, 4), slice(0, 3))  # mesh (0,1): y=1, x=0
  assert tb[devices[2]] == (slice(0, 2), slice(3, 6))

  both = xla_client.NamedSharding(m, (("x", "y"),))
  assert both._to_xla_hlo_sharding(1).to_string() == "{devices=[4]<=[4]}"
  assert [both.devices_indices_map((8,))[d] for d in devices] == [
      (slice(2 * i, 2 * i + 2),) for i in range(4)]

  replicated = xla_client.NamedSharding(m, ())
  assert replicated.is_fully_replicated
  assert replicated._to_xla_hlo_sharding(3) == HloSharding.replicate()


def test_named_sharding_blocks_match_numpy_split(devices):
  m = mesh(devices, (4,), ("x",))
  value = np.arange(24).reshape(8, 3)
  s = xla_client.NamedSharding(m, ("x",))
  pieces = [value[idx] for idx in s.devices_indices_map(value.shape).values()]
  for got, want in zip(pieces, np.split(value, 4)):
    np.testing.assert_array_equal(got, want)


def test_named_sharding_equality_and_errors(devices):
  m = mesh(devices, (4,), ("x",))
  assert xla_client.NamedSharding(m, ("x",)) == xla_client.NamedSharding(m, ("x", None))
  assert xla_client.NamedSharding(m, ("x",)) != xla_client.NamedSharding(m, (None, "x"))
  assert hash(xla_client.NamedSharding(m, ("x",))) == hash(xla_client.NamedSharding(m, ["x"]))
  with pytest.raises(ValueError, match="Resource axis: y"):
    xla_client.NamedSharding(m, ("y",))
  with pytest.raises(TypeError, match="expects a mesh"):
    xla_client.NamedSharding(devices, ("x",))
  with pytest.raises(TypeError, match="expects a partition spec"):
    xla_client.NamedSharding(m, "x")
  with pytest.raises(ValueError, match="more than the array's rank 0"):
    xla_client.NamedSharding(m, ("x",)).devices_indices_map(())


def test_gspmd_sharding(devices):
  hlo = HloSharding.from_string("{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}")
  s = xla_client.GSPMDSharding(devices, hlo)
  assert s._to_xla_hlo_sharding(2) is hlo and s.num_devices == 4
  named = xla_client.NamedSharding(mesh(devices, (2, 2), ("x", "y")), ("x",))
  assert s.devices_indices_map((4, 2)) == named.devices_indices_map((4, 2))
  assert s.is_equivalent_to(named, 2) and named.is_equivalent_to(s, 2)
  assert s == xla_client.GSPMDSharding(tuple(devices), HloSharding.from_string(
      "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"))
  rep = xla_client.GSPMDSharding.get_replicated(devices[:2])
  assert rep.is_fully_replicated and rep.devices_indices_map((3,)) == {
      devices[0]: (slice(None),), devices[1]: (slice(None),)}
  # Uneven dimensions get ceil-sized blocks, the last one short.
  uneven = xla_client.GSPMDSharding(devices[:2], HloSharding.tiled([2], [0, 1]))
  assert uneven.devices_indices_map((5,)) == {devices[0]: (slice(0, 3),),
                                             devices[1]: (slice(3, 5),)}


def test_gspmd_sharding_errors(devices):
  with pytest.raises(TypeError, match="expects an HloSharding, got str"):
    xla_client.GSPMDSharding(devices, "{replicated}")
  with pytest.raises(ValueError, match="but 2 devices were given"):
    xla_client.GSPMDSharding(devices[:2], HloSharding.iota_tile([4]))
  with pytest.raises(ValueError, match="beyond the 2 given"):
    xla_client.GSPMDSharding(devices[:2], HloSharding.maximal(3))
  s = xla_client.GSPMDSharding(devices[:2], HloSharding.tiled([2, 1], [0, 1]))
  with pytest.raises(ValueError, match=r"splits 2 dimensions, but the array has shape \(4,\)"):
    s.devices_indices_map((4,))
  with pytest.raises(TypeError, match="element 0 is not a Device"):
    xla_client.GSPMDSharding([0, 1], HloSharding.replicate())
