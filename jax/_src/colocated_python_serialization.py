"""Pickling for colocated Python: devices travel as their ids and are looked up among
the CPU devices on the other side (in one process, the same devices)."""

from __future__ import annotations

import copyreg
import io
import pickle
from typing import Any, Sequence

import numpy as np

from jax._src import sharding as sharding_lib
from jax._src import xla_bridge as xb
from jax._src.lib import _jax

DeviceList = _jax.DeviceList


def get_cpu_device_map() -> dict:
  """CPU devices by id, those of every backend's process included."""
  return {d.id: d for d in xb.local_devices(backend="cpu")}


def _lookup_cpu_device(device_map: dict, device_id: int):
  try:
    return device_map[device_id]
  except KeyError:
    raise ValueError(f"no CPU device with id {device_id} here") from None


def reduce_mesh(mesh):
  ids = np.vectorize(lambda d: d.id, otypes=[int])(np.asarray(mesh.devices))
  return _unreduce_mesh, (ids, tuple(mesh.axis_names))


def _unreduce_mesh(ids, axis_names):
  device_map = get_cpu_device_map()
  flat = [_lookup_cpu_device(device_map, int(i)) for i in np.asarray(ids).flat]
  grid = np.empty(len(flat), dtype=object)
  grid[:] = flat
  return sharding_lib.Mesh(grid.reshape(np.shape(ids)), axis_names)


def reduce_device_list(device_list):
  return _unreduce_device_list, (tuple(d.id for d in device_list),)


def _unreduce_device_list(device_ids: Sequence[int]):
  device_map = get_cpu_device_map()
  return DeviceList(tuple(_lookup_cpu_device(device_map, i) for i in device_ids))


def reduce_single_device_sharding(sharding):
  return _unreduce_single_device_sharding, (next(iter(sharding.device_set)).id,)


def _unreduce_single_device_sharding(device_id: int):
  return sharding_lib.SingleDeviceSharding(_lookup_cpu_device(get_cpu_device_map(), device_id))


def serialize(obj: Any) -> bytes:
  """`obj` pickled, its meshes, device lists and single-device shardings by device id."""
  buffer = io.BytesIO()
  pickler = pickle.Pickler(buffer)
  pickler.dispatch_table = copyreg.dispatch_table.copy()
  pickler.dispatch_table[sharding_lib.Mesh] = reduce_mesh
  pickler.dispatch_table[DeviceList] = reduce_device_list
  pickler.dispatch_table[sharding_lib.SingleDeviceSharding] = reduce_single_device_sharding
  pickler.dump(obj)
  return buffer.getvalue()


def deserialize(serialized: bytes) -> Any:
  return pickle.loads(serialized)
