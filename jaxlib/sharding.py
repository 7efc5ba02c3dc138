"""Shardings: which devices hold which block of an array.

A Sharding has a device list (a `DeviceList`, in order) and, for an array of a
given rank, an `HloSharding` whose logical ids are positions in that list. The
block each device holds (`devices_indices_map`) follows from the two, so
subclasses only say how they map onto an HloSharding:

- SingleDeviceSharding(device): one device, the whole array;
- NamedSharding(mesh, spec): dimension i split over the mesh axes spec[i] names,
  the other mesh axes holding replicas;
- GSPMDSharding(devices, hlo_sharding): an explicit HloSharding over devices.

jax's own sharding classes build on these (jax/_src/sharding.py).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from jaxlib import _jax
from jaxlib.hlo_sharding import HloSharding

DeviceList = _jax.DeviceList
Device = _jax.Device


def check_memory_kind(device_list: DeviceList, kind: str | None) -> None:
  if kind is None or len(device_list) == 0:
    return
  if not isinstance(kind, str):
    raise TypeError(f"memory_kind must be a str or None, got {type(kind).__name__}")
  if kind not in device_list.memory_kinds:
    raise ValueError(f"memory kind {kind!r} is not supported by {device_list.device_kind} "
                     f"devices; they have: {', '.join(device_list.memory_kinds)}")


def indices_of(hlo: HloSharding, global_shape: Sequence[int], num_devices: int) -> list[tuple]:
  """Per logical id 0..num_devices-1, the index (a tuple of slices) of its block.
  Uneven dimensions get ceil-sized blocks, the last ones short (XLA's padding)."""
  shape = tuple(int(d) for d in global_shape)
  whole = (slice(None),) * len(shape)
  if hlo.is_tuple():
    raise ValueError(f"a tuple sharding {hlo} has no indices for one array")
  if not hlo.is_tiled():
    return [whole] * num_devices
  rank = hlo.tiled_data_rank()
  if rank != len(shape):
    raise ValueError(f"sharding {hlo} splits {rank} dimensions, but the array has shape "
                     f"{shape} (rank {len(shape)})")
  tiles = hlo.tile_assignment_dimensions()[:rank]
  tile_index = hlo.tile_index_of()
  if len(tile_index) != num_devices or max(tile_index) >= num_devices:
    raise ValueError(f"sharding {hlo} names logical devices {sorted(tile_index)}, but the "
                     f"sharding has {num_devices} devices")
  out = [whole] * num_devices
  for logical, index in tile_index.items():
    per_dim = []
    for i, t, d in zip(index, tiles, shape):
      if t == 1:
        per_dim.append(slice(None))
      else:
        chunk = -(-d // t)
        per_dim.append(slice(min(i * chunk, d), min((i + 1) * chunk, d)))
    out[logical] = tuple(per_dim)
  return out


class Sharding:
  """How an array is laid out over devices. Subclasses give `_internal_device_list`
  and `_to_xla_hlo_sharding(ndim)` (or override devices_indices_map)."""

  _memory_kind: str | None = None

  @property
  def _device_assignment(self) -> tuple:
    return self._internal_device_list._device_assignment

  @property
  def _addressable_device_assignment(self) -> tuple:
    # JAX's name; orbax reads it: the devices of this process, in assignment order.
    return tuple(self._internal_device_list.addressable_device_list)

  @property
  def device_set(self) -> set:
    return set(self._device_assignment)

  @property
  def num_devices(self) -> int:
    return len(self._internal_device_list)

  @property
  def is_fully_addressable(self) -> bool:
    return self._internal_device_list.is_fully_addressable

  @property
  def addressable_devices(self) -> set:
    return set(self._internal_device_list.addressable_device_list)

  @property
  def memory_kind(self) -> str | None:
    if self._memory_kind is not None:
      return self._memory_kind
    return self._internal_device_list.default_memory_kind

  def devices_indices_map(self, global_shape: Sequence[int]) -> dict:
    """device -> the index (a tuple of slices) of the block it holds."""
    devices = self._device_assignment
    hlo = self._to_xla_hlo_sharding(len(global_shape))
    return dict(zip(devices, indices_of(hlo, global_shape, len(devices))))

  def addressable_devices_indices_map(self, global_shape: Sequence[int]) -> dict:
    local = self.addressable_devices
    return {d: i for d, i in self.devices_indices_map(global_shape).items() if d in local}

  def shard_shape(self, global_shape: Sequence[int]) -> tuple[int, ...]:
    """The shape of each block (of the first, when uneven dimensions make them differ)."""
    index = next(iter(self.devices_indices_map(global_shape).values()))
    return tuple(len(range(*s.indices(d))) for s, d in zip(index, global_shape))

  def is_equivalent_to(self, other: Any, ndim: int) -> bool:
    """Same devices in the same order, the same blocks and the same memory kind."""
    if not isinstance(other, Sharding):
      return False
    if self._device_assignment != other._device_assignment:
      return False
    if self.memory_kind != other.memory_kind:
      return False
    mine = getattr(self, "_to_xla_hlo_sharding", None)
    theirs = getattr(other, "_to_xla_hlo_sharding", None)
    if mine is None or theirs is None:
      return self == other
    return mine(ndim) == theirs(ndim)

  @property
  def is_fully_replicated(self) -> bool:
    raise NotImplementedError(f"{type(self).__name__} does not say whether it is replicated")


class SingleDeviceSharding(Sharding):
  """The whole array on one device."""

  def __init__(self, device: Device, *, memory_kind: str | None = None):
    if not isinstance(device, Device):
      raise TypeError(f"SingleDeviceSharding expects a Device, got {type(device).__name__}")
    self._device = device
    self._memory_kind = memory_kind
    self._device_list = None
    if memory_kind is not None:
      check_memory_kind(self._internal_device_list, memory_kind)

  @property
  def _internal_device_list(self) -> DeviceList:
    # Built on first use: eager results make many of these and most never need it.
    if self._device_list is None:
      self._device_list = DeviceList((self._device,))
    return self._device_list

  @property
  def _device_assignment(self) -> tuple:
    return (self._device,)

  @property
  def memory_kind(self) -> str | None:
    if self._memory_kind is not None:
      return self._memory_kind
    default = self._device.default_memory()  # None on a compile-only device
    return None if default is None else default.kind

  @property
  def is_fully_replicated(self) -> bool:
    return True

  def _to_xla_hlo_sharding(self, ndim: int) -> HloSharding:
    return HloSharding.replicate()

  def devices_indices_map(self, global_shape: Sequence[int]) -> dict:
    return {self._device: (slice(None),) * len(global_shape)}

  def with_memory_kind(self, kind: str | None):
    return type(self)(self._device, memory_kind=kind)

  def __eq__(self, other):
    return (isinstance(other, SingleDeviceSharding) and self._device == other._device
            and self.memory_kind == other.memory_kind)

  def __hash__(self):
    return hash((self._device, self.memory_kind))

  def __repr__(self):
    return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self.memory_kind})"


def _spec_axes(spec: Sequence, ndim: int) -> tuple[tuple[str, ...], ...]:
  """Per dimension, the mesh axis names that split it (none for None or unconstrained)."""
  spec = tuple(spec)
  if len(spec) > ndim:
    raise ValueError(f"the partition spec {spec} has {len(spec)} entries, more than the "
                     f"array's rank {ndim}")
  out = []
  for entry in spec + (None,) * (ndim - len(spec)):
    if isinstance(entry, str):
      out.append((entry,))
    elif isinstance(entry, (tuple, list)):
      out.append(tuple(entry))
    else:
      out.append(())
  return tuple(out)


class NamedSharding(Sharding):
  """A layout over a mesh (an n-d array of devices with axis names): dimension i is
  split over the mesh axes that spec[i] names."""

  def __init__(self, mesh: Any, spec: Sequence = (), *, memory_kind: str | None = None):
    devices = getattr(mesh, "devices", None)
    names = getattr(mesh, "axis_names", None)
    if not isinstance(devices, np.ndarray) or names is None:
      raise TypeError(f"NamedSharding expects a mesh (devices and axis_names), got "
                      f"{type(mesh).__name__}")
    if spec is None:
      spec = ()
    elif isinstance(spec, str) or not isinstance(spec, (tuple, list)):
      raise TypeError(f"NamedSharding expects a partition spec (a tuple), got {spec!r}")
    self.mesh = mesh
    self.spec = spec
    self._memory_kind = memory_kind
    self._device_list = None
    self._hlo_cache: dict[int, HloSharding] = {}
    axis_names = tuple(names)
    for names_of_dim in _spec_axes(spec, len(spec)):
      for n in names_of_dim:
        if n not in axis_names:
          raise ValueError(f"Resource axis: {n} of {spec} is not found in mesh: {axis_names}.")
    if memory_kind is not None:
      check_memory_kind(self._internal_device_list, memory_kind)

  @property
  def _internal_device_list(self) -> DeviceList:
    if self._device_list is None:
      self._device_list = DeviceList(tuple(self.mesh.devices.flat))
    return self._device_list

  def _to_xla_hlo_sharding(self, ndim: int) -> HloSharding:
    """Tiles are split along each dimension over its mesh axes (in spec order); the
    mesh axes no dimension uses become a replicated last tile dimension."""
    hlo = self._hlo_cache.get(ndim)
    if hlo is not None:
      return hlo
    axis_names = tuple(self.mesh.axis_names)
    # An abstract mesh (jax.typeof(x).sharding) has axis sizes but no devices.
    devices = getattr(self.mesh, "devices", None)
    mesh_shape = tuple(devices.shape if devices is not None else self.mesh.axis_sizes)
    sizes = dict(zip(axis_names, mesh_shape))
    per_dim = _spec_axes(self.spec, ndim)
    used = [n for names in per_dim for n in names]
    unused = [n for n in axis_names if n not in used]
    tile_dims = [math.prod(sizes[n] for n in names) for names in per_dim]
    replicas = math.prod(sizes[n] for n in unused)
    if math.prod(tile_dims) == 1:
      hlo = HloSharding.replicate()
    else:
      order = [axis_names.index(n) for n in used + unused]
      hlo = HloSharding.iota_tile(tile_dims + ([replicas] if replicas > 1 else []),
                                  mesh_shape or (1,), order or (0,),
                                  ["replicated"] if replicas > 1 else [])
    self._hlo_cache[ndim] = hlo
    return hlo

  @property
  def is_fully_replicated(self) -> bool:
    return self._to_xla_hlo_sharding(len(self.spec)).is_replicated()

  def with_memory_kind(self, kind: str | None):
    return type(self)(self.mesh, self.spec, memory_kind=kind)

  def _spec_key(self) -> tuple:
    axes = list(_spec_axes(self.spec, len(self.spec)))
    while axes and not axes[-1]:
      axes.pop()
    return tuple(axes)

  def __eq__(self, other):
    return (isinstance(other, NamedSharding) and self.mesh == other.mesh
            and self._spec_key() == other._spec_key() and self.memory_kind == other.memory_kind)

  def __hash__(self):
    return hash((self.mesh, self._spec_key()))

  def __repr__(self):
    return f"NamedSharding(mesh={self.mesh!r}, spec={self.spec!r}, memory_kind={self.memory_kind})"


class GSPMDSharding(Sharding):
  """An explicit HloSharding over a device list (logical id i = devices[i])."""

  def __init__(self, devices: Sequence[Device] | DeviceList, op_sharding: HloSharding, *,
               memory_kind: str | None = None):
    if not isinstance(op_sharding, HloSharding):
      raise TypeError(f"GSPMDSharding expects an HloSharding, got {type(op_sharding).__name__}")
    device_list = devices if isinstance(devices, DeviceList) else DeviceList(tuple(devices))
    if op_sharding.is_tiled():
      named = op_sharding.tile_assignment_devices()
      if max(named) >= len(device_list) or op_sharding.num_devices != len(device_list):
        raise ValueError(f"GSPMDSharding: {op_sharding} names logical devices {sorted(named)}, "
                         f"but {len(device_list)} devices were given")
    elif op_sharding.is_maximal() and op_sharding.tile_assignment_devices()[0] >= len(device_list):
      raise ValueError(f"GSPMDSharding: {op_sharding} names a device beyond the "
                       f"{len(device_list)} given")
    check_memory_kind(device_list, memory_kind)
    self._device_list = device_list
    self._hlo_sharding = op_sharding
    self._memory_kind = memory_kind

  @classmethod
  def get_replicated(cls, devices, *, memory_kind: str | None = None) -> GSPMDSharding:
    return cls(devices, HloSharding.replicate(), memory_kind=memory_kind)

  @property
  def _internal_device_list(self) -> DeviceList:
    return self._device_list

  def _to_xla_hlo_sharding(self, ndim: int) -> HloSharding:
    return self._hlo_sharding

  @property
  def is_fully_replicated(self) -> bool:
    return self._hlo_sharding.is_replicated()

  def with_memory_kind(self, kind: str | None):
    return type(self)(self._device_list, self._hlo_sharding, memory_kind=kind)

  def __eq__(self, other):
    return (isinstance(other, GSPMDSharding) and self._device_list == other._device_list
            and self._hlo_sharding == other._hlo_sharding
            and self.memory_kind == other.memory_kind)

  def __hash__(self):
    return hash((self._device_list, self._hlo_sharding))

  def __repr__(self):
    return (f"GSPMDSharding({self._hlo_sharding}, device_assignment="
            f"{list(self._device_assignment)}, memory_kind={self.memory_kind})")
