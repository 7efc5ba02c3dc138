"""DeviceList: construction, hashing, sequence protocol and device queries."""

import pytest

pytestmark = pytest.mark.needs_wheels

xla_client = pytest.importorskip("jaxlib.xla_client")
DeviceList = xla_client.DeviceList


@pytest.fixture(scope="module")
def devices():
  return xla_client.make_cpu_client(num_devices=4).devices()


def test_sequence_protocol(devices):
  dl = DeviceList(tuple(devices))
  assert len(dl) == 4
  assert list(dl) == list(devices)
  assert dl[1] == devices[1] and dl[-1] == devices[3]
  assert dl[1:3] == (devices[1], devices[2])
  assert dl._device_assignment == tuple(devices)
  with pytest.raises(IndexError):
    dl[4]
  assert repr(dl) == "DeviceList(" + repr(tuple(devices)) + ")"


def test_hash_and_equality(devices):
  a = DeviceList(tuple(devices))
  b = DeviceList(list(devices))
  assert a == b and not a != b and hash(a) == hash(b)
  assert hash(a) == hash(a)  # cached, and stable
  assert a != DeviceList(tuple(devices[:2]))
  assert a != DeviceList(tuple(reversed(devices)))
  assert a != tuple(devices)
  assert {a: "x"}[b] == "x"
  assert len({a, b, DeviceList(tuple(devices[1:]))}) == 2


def test_device_queries(devices):
  dl = DeviceList(tuple(devices))
  assert dl.is_fully_addressable
  assert dl.addressable_device_list == dl
  assert dl.process_indices == {0}
  assert dl.default_memory_kind == devices[0].default_memory().kind == "device"
  assert dl.memory_kinds == tuple(m.kind for m in devices[0].addressable_memories())
  assert "device" in dl.memory_kinds
  assert dl.device_kind == devices[0].device_kind == "cpu"


def test_empty_list(devices):
  dl = DeviceList(())
  assert len(dl) == 0 and list(dl) == [] and dl.is_fully_addressable
  assert dl.process_indices == set()
  with pytest.raises(ValueError, match="empty DeviceList has no device kind"):
    dl.device_kind
  with pytest.raises(ValueError, match="empty DeviceList has no memory kinds"):
    dl.memory_kinds


def test_bad_input(devices):
  with pytest.raises(TypeError, match="expects a tuple of Devices, got int"):
    DeviceList(3)
  with pytest.raises(TypeError, match="element 1 is not a Device but str"):
    DeviceList((devices[0], "cpu:1"))
  with pytest.raises(ValueError, match="appears more than once"):
    DeviceList((devices[0], devices[1], devices[0]))
  other = xla_client.make_cpu_client(num_devices=1).devices()[0]
  with pytest.raises(ValueError, match="belongs to another client"):
    DeviceList((devices[0], other))
