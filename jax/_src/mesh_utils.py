"""Device meshes shaped for a computation (`jax.experimental.mesh_utils`).

On hardware without a physical topology (CPU, or devices that report no coordinates)
devices are laid out in id order, row-major. A hybrid mesh puts a per-granule mesh
(the devices of one process or slice) inside a mesh of granules.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

from jax._src import xla_bridge

# Device kinds with a physical topology that needs its own layout: kind -> function
# (mesh_shape, devices) -> device array. None is registered here (the CPU has none).
device_kind_handler_dict: dict[str, Callable] = {}


def _as_shape(shape, what: str) -> tuple[int, ...]:
  try:
    return tuple(int(s) for s in shape)
  except TypeError:
    raise TypeError(f"{what} must be a sequence of ints, got {shape!r}") from None


def create_device_mesh(mesh_shape: Sequence[int], devices=None, *,
                       contiguous_submeshes: bool = False,
                       allow_split_physical_axes: bool = False) -> np.ndarray:
  """An array of shape `mesh_shape` holding `devices` (default: all devices)."""
  del contiguous_submeshes, allow_split_physical_axes
  mesh_shape = _as_shape(mesh_shape, "mesh_shape")
  devices = list(xla_bridge.devices() if devices is None else devices)
  if math.prod(mesh_shape) != len(devices):
    raise ValueError(f"Number of devices {len(devices)} must equal the product of mesh_shape "
                     f"{mesh_shape}")
  kind = getattr(devices[0], "device_kind", None) if devices else None
  handler = device_kind_handler_dict.get(kind)
  if handler is not None:
    return np.asarray(handler(mesh_shape, devices), dtype=object)
  out = np.empty(len(devices), dtype=object)
  out[:] = sorted(devices, key=lambda d: getattr(d, "id", 0))
  return out.reshape(mesh_shape)


def create_hybrid_device_mesh(mesh_shape: Sequence[int], dcn_mesh_shape: Sequence[int],
                              devices=None, *, process_is_granule: bool = False,
                              should_sort_granules_by_key: bool = True,
                              allow_split_physical_axes: bool = False) -> np.ndarray:
  """A mesh of shape mesh_shape * dcn_mesh_shape (elementwise): granules (slices, or
  processes with process_is_granule) are laid out by dcn_mesh_shape, the devices of each
  granule by mesh_shape."""
  mesh_shape = _as_shape(mesh_shape, "mesh_shape")
  dcn_mesh_shape = _as_shape(dcn_mesh_shape, "dcn_mesh_shape")
  if len(mesh_shape) != len(dcn_mesh_shape):
    raise ValueError(f"mesh_shape {mesh_shape} and dcn_mesh_shape {dcn_mesh_shape} must have "
                     "the same length")
  devices = list(xla_bridge.devices() if devices is None else devices)
  attr = "process_index" if process_is_granule else "slice_index"
  groups: dict = {}
  for d in devices:
    groups.setdefault(getattr(d, attr, 0) or 0, []).append(d)
  keys = sorted(groups) if should_sort_granules_by_key else list(groups)
  if len(keys) != math.prod(dcn_mesh_shape):
    raise ValueError(f"Number of {'processes' if process_is_granule else 'slices'} "
                     f"{len(keys)} must equal the product of dcn_mesh_shape {dcn_mesh_shape}")
  per_granule = [create_device_mesh(mesh_shape, groups[k],
                                    allow_split_physical_axes=allow_split_physical_axes)
                 for k in keys]
  stacked = np.empty((len(keys),) + mesh_shape, dtype=object)
  for i, m in enumerate(per_granule):
    stacked[i] = m
  stacked = stacked.reshape(dcn_mesh_shape + mesh_shape)
  # Interleave (dcn_0, ..., mesh_0, ...) into (dcn_0, mesh_0, dcn_1, mesh_1, ...).
  n = len(mesh_shape)
  order = [ax for i in range(n) for ax in (i, n + i)]
  shape = tuple(a * b for a, b in zip(dcn_mesh_shape, mesh_shape))
  return stacked.transpose(order).reshape(shape)
