"""Transfers of many shards at once: host values to devices, buffers between
devices, reordering, and waiting.

Our model is simpler than JAX's in two ways, and these functions say so:
- jaxlib has no array type of its own (jax's Array is Python, over Buffers), so
  an "array" here is the list of its per-device Buffers, and the functions
  return such lists, in the order of the devices they were given.
- The C API has no device-to-device copy, so a Buffer moves to another device
  through host memory. On the CPU plugin that is one memcpy each way.
`committed` is accepted for compatibility; Buffers carry no commitment flag.
"""

from __future__ import annotations

import enum
from typing import Any, Sequence

import numpy as np

from jaxlib import _jax
from jaxlib.sharding import DeviceList, Sharding


class HostBufferSemantics(enum.Enum):
  IMMUTABLE_ONLY_DURING_CALL = 0
  IMMUTABLE_UNTIL_TRANSFER_COMPLETES = 1
  ZERO_COPY = 2


class ArrayCopySemantics(enum.Enum):
  ALWAYS_COPY = 0
  REUSE_INPUT = 1
  DONATE_INPUT = 2


def _live(buffer: _jax.Buffer, what: str) -> _jax.Buffer:
  if buffer.is_deleted():
    raise _jax.XlaRuntimeError(f"INVALID_ARGUMENT: {what} is a deleted buffer")
  return buffer


def _device_of(device: Any, what: str) -> _jax.Device:
  if not isinstance(device, _jax.Device):
    raise TypeError(f"{what} must be a Device, got {type(device).__name__}")
  return device


def _to_device(buffer: _jax.Buffer, device: _jax.Device, copy: bool) -> _jax.Buffer:
  if buffer.device() == device and not copy:
    return buffer
  # No device-to-device copy in the C API: go through host memory.
  return device.client.buffer_from_pyval(buffer.to_py(), device)


def _sequence(value: Any, what: str) -> list:
  if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
    raise TypeError(f"{what} must be a sequence, got {type(value).__name__}")
  return list(value)


def batched_device_put(aval: Any, sharding: Sharding, xs: Sequence[Any],
                       devices: Sequence[_jax.Device], committed: bool = True,
                       force_copy: bool = False,
                       host_buffer_semantics=HostBufferSemantics.ZERO_COPY) -> list[_jax.Buffer]:
  """Puts xs[i] (a host value or a Buffer: the block of an array of type `aval` that
  `sharding` gives devices[i]) on devices[i]. Returns the Buffers in that order."""
  del committed  # see the module docstring
  if not hasattr(aval, "shape") or not hasattr(aval, "dtype"):
    raise TypeError(f"batched_device_put: aval must have a shape and a dtype, got "
                    f"{type(aval).__name__}")
  if not isinstance(sharding, Sharding):
    raise TypeError(f"batched_device_put: sharding must be a Sharding, got "
                    f"{type(sharding).__name__}")
  xs = _sequence(xs, "batched_device_put: xs")
  devices = [_device_of(d, f"batched_device_put: devices[{i}]")
             for i, d in enumerate(_sequence(devices, "batched_device_put: devices"))]
  if len(xs) != len(devices):
    raise ValueError(f"batched_device_put: {len(xs)} values for {len(devices)} devices")
  if len(set(devices)) != len(devices):
    raise ValueError(f"batched_device_put: a device appears more than once in {devices}")
  shape, dtype = tuple(aval.shape), np.dtype(aval.dtype)
  blocks = sharding.devices_indices_map(shape)
  out = []
  for i, (x, device) in enumerate(zip(xs, devices)):
    if device not in blocks:
      raise ValueError(f"batched_device_put: device {device} is not one of the sharding's "
                       f"devices {list(blocks)}")
    expected = tuple(len(range(*s.indices(d))) for s, d in zip(blocks[device], shape))
    if isinstance(x, _jax.Buffer):
      _live(x, f"batched_device_put: xs[{i}]")
      got_shape, got_dtype = tuple(x.shape), x.dtype
    else:
      x = np.asarray(x)
      got_shape, got_dtype = x.shape, x.dtype
    if got_dtype != dtype:
      raise TypeError(f"batched_device_put: xs[{i}] has dtype {got_dtype}, the aval says {dtype}")
    if got_shape != expected:
      raise ValueError(f"batched_device_put: xs[{i}] has shape {got_shape}, but the block of "
                       f"{shape} that {device} holds has shape {expected}")
    if isinstance(x, _jax.Buffer):
      out.append(_to_device(x, device, force_copy))
    else:
      out.append(device.client.buffer_from_pyval(x, device, force_copy, host_buffer_semantics))
  return out


def _copy_semantics(value: Any, what: str) -> ArrayCopySemantics:
  if not isinstance(value, ArrayCopySemantics):
    raise TypeError(f"{what} must be an ArrayCopySemantics, got {value!r}")
  return value


def _move(buffer: _jax.Buffer, device: _jax.Device, semantics: ArrayCopySemantics):
  moved = _to_device(buffer, device, semantics == ArrayCopySemantics.ALWAYS_COPY)
  if semantics == ArrayCopySemantics.DONATE_INPUT and moved is not buffer:
    buffer.delete()
  return moved


def batched_copy_array_to_devices_with_sharding(
    arrays: Sequence[Sequence[_jax.Buffer]], devices: Sequence[DeviceList],
    sharding: Sequence[Sharding],
    array_copy_semantics: Sequence[ArrayCopySemantics]) -> list[list[_jax.Buffer]]:
  """For each array i (its per-device Buffers), shard j moves to devices[i][j], which
  must be sharding[i]'s device list. ALWAYS_COPY always copies; REUSE_INPUT keeps a
  shard already on its device; DONATE_INPUT also deletes shards it copied away."""
  arrays = _sequence(arrays, "arrays")
  devices = _sequence(devices, "devices")
  sharding = _sequence(sharding, "sharding")
  array_copy_semantics = _sequence(array_copy_semantics, "array_copy_semantics")
  if not len(arrays) == len(devices) == len(sharding) == len(array_copy_semantics):
    raise ValueError(f"batched_copy_array_to_devices_with_sharding: {len(arrays)} arrays, "
                     f"{len(devices)} device lists, {len(sharding)} shardings and "
                     f"{len(array_copy_semantics)} copy semantics; they must match")
  out = []
  for i, (shards, dst, s, sem) in enumerate(zip(arrays, devices, sharding,
                                               array_copy_semantics)):
    if not isinstance(dst, DeviceList):
      raise TypeError(f"devices[{i}] must be a DeviceList, got {type(dst).__name__}")
    if not isinstance(s, Sharding):
      raise TypeError(f"sharding[{i}] must be a Sharding, got {type(s).__name__}")
    if s._internal_device_list != dst:
      raise ValueError(f"sharding[{i}] is over {list(s._device_assignment)}, but devices[{i}] "
                       f"is {list(dst)}")
    sem = _copy_semantics(sem, f"array_copy_semantics[{i}]")
    shards = _sequence(shards, f"arrays[{i}]")
    if len(shards) != len(dst):
      raise ValueError(f"arrays[{i}] has {len(shards)} shards for {len(dst)} devices")
    live = [_live(b, f"arrays[{i}][{j}]") if isinstance(b, _jax.Buffer) else b
            for j, b in enumerate(shards)]
    for j, b in enumerate(live):
      if not isinstance(b, _jax.Buffer):
        raise TypeError(f"arrays[{i}][{j}] must be a Buffer, got {type(b).__name__}")
    out.append([_move(b, d, sem) for b, d in zip(live, dst)])
  return out


def reorder_shards(shards: Sequence[_jax.Buffer], dst_sharding: Sharding,
                   array_copy_semantics: ArrayCopySemantics) -> list[_jax.Buffer]:
  """The Buffers of an array (one per device, any order) in the device order of
  `dst_sharding`, which must be over the same devices."""
  if not isinstance(dst_sharding, Sharding):
    raise TypeError(f"reorder_shards: dst_sharding must be a Sharding, got "
                    f"{type(dst_sharding).__name__}")
  sem = _copy_semantics(array_copy_semantics, "reorder_shards: array_copy_semantics")
  by_device = {}
  for j, b in enumerate(_sequence(shards, "reorder_shards: shards")):
    if not isinstance(b, _jax.Buffer):
      raise TypeError(f"reorder_shards: shards[{j}] must be a Buffer, got {type(b).__name__}")
    _live(b, f"reorder_shards: shards[{j}]")
    if b.device() in by_device:
      raise ValueError(f"reorder_shards: two shards are on {b.device()}")
    by_device[b.device()] = b
  wanted = list(dst_sharding._device_assignment)
  if set(by_device) != set(wanted):
    raise ValueError(f"reorder_shards: the shards are on {sorted(by_device, key=lambda d: d.id)}"
                     f", but dst_sharding is over {wanted}")
  return [_move(by_device[d], d, sem) for d in wanted]


def batched_block_until_ready(xs: Sequence[Any]) -> None:
  """Waits until every Buffer (or object with block_until_ready, like a jax Array)
  of `xs` is computed; raises the first error after waiting for all."""
  first_error = None
  for i, x in enumerate(_sequence(xs, "batched_block_until_ready: xs")):
    if isinstance(x, _jax.Buffer):
      _live(x, f"batched_block_until_ready: xs[{i}]")
      wait = x._block_until_ready
    else:
      wait = getattr(x, "block_until_ready", None)
    if wait is None:
      raise TypeError(f"batched_block_until_ready: xs[{i}] is a {type(x).__name__}, not a "
                      "Buffer or array")
    try:
      wait()
    except Exception as e:  # pylint: disable=broad-except
      first_error = first_error or e
  if first_error is not None:
    raise first_error
