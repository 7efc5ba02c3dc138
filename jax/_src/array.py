"""`jax.Array`: an immutable array living on a device (or, until first needed, on the host).

An ArrayImpl holds its abstract value and either device buffers from jaxlib or a
host numpy value. A pmap result holds one buffer per device: the shards, stacked
along `stack_axis` to form the value, or (stack_axis None) identical replicas. Host-backed arrays come from constant folding (`jnp.array`,
Python scalars converted to a dtype) and are copied to the device on first use,
so building constants never compiles or transfers anything.
An Array placed with a `Sharding` (`device_put(x, NamedSharding(...))`, shard_map
and SPMD jit results) holds one buffer per device of `sharding._device_assignment`,
each the block `sharding.devices_indices_map(shape)[device]` of the value.
Operators (`+`, `*`, indexing, `.sum()`...) are installed by jax.numpy.
"""

from __future__ import annotations

import abc

import numpy as np

from jax._src import core
from jax._src import devices
from jax._src import dtypes
from jax._src import sharding as sh
from jax._src.core import ShapedArray


def _typed_aval(aval, sharding):
  """`aval` whose type records how the Explicit mesh axes of `sharding` split it."""
  typed = sh.canonical_sharding(sharding, aval.ndim)
  if typed == aval._sharding:
    return aval
  return ShapedArray(aval.shape, aval.dtype, aval.weak_type, sharding=typed)


class ArrayImpl:
  # `single_device_buffer` is public and read by the native jit fast path on every
  # leaf of a cached call (a slot read, no Python frame): the one buffer of an
  # unsharded array on a single device, else None (host-backed, sharded, stacked
  # or deleted). Kept in step with `_buffers` by this class; never assigned elsewhere.
  __slots__ = ("aval", "_buffers", "_npy", "_stack_axis", "_whole", "_sharding",
               "single_device_buffer", "__weakref__")
  __array_priority__ = 100

  def __init__(self, aval: ShapedArray, buffers=None, npy: np.ndarray | None = None,
               stack_axis: int | None = None, sharding=None):
    if isinstance(sharding, sh.NamedSharding) or getattr(aval, "_sharding", None) is not None:
      aval = _typed_aval(aval, sharding)
    self.aval = aval
    self._buffers = buffers
    self._npy = npy
    self._stack_axis = stack_axis
    self._whole = None
    self._sharding = sharding
    self.single_device_buffer = (
        buffers[0] if buffers is not None and len(buffers) == 1 and stack_axis is None
        and (sharding is None or type(sharding) is sh.SingleDeviceSharding) else None)

  shape = property(lambda self: self.aval.shape)
  dtype = property(lambda self: self.aval.dtype)
  ndim = property(lambda self: self.aval.ndim)
  size = property(lambda self: self.aval.size)
  weak_type = property(lambda self: self.aval.weak_type)
  is_host_backed = property(lambda self: self._buffers is None)

  is_sharded = property(lambda self: self._stack_axis is not None)
  # For the execution layer, pmap and shard_map, which hand buffers to executables:
  # the axis a pmap result is stacked along (None if not stacked), the sharding given
  # at construction (None: one buffer on its device), and the device buffers as they
  # are (None while the value is only on the host, [] once deleted or donated; use
  # device_buffers() to place a host value).
  stack_axis = property(lambda self: self._stack_axis)
  explicit_sharding = property(lambda self: self._sharding)
  resident_buffers = property(lambda self: self._buffers)

  def check_alive(self) -> None:
    """Raises RuntimeError if the array was deleted or donated."""
    if self._buffers is not None and not self._buffers and self._npy is None:
      shape = f"{self.dtype.name}[{','.join(map(str, self.shape))}]"
      raise RuntimeError(f"Array has been deleted with shape={shape}. It was "
                         "deleted explicitly or donated to a jitted call (donate_argnums).")

  @property
  def _value(self) -> np.ndarray:
    if self._npy is None:
      self.check_alive()
      if not self.is_fully_addressable and not self.is_fully_replicated:
        raise RuntimeError(
            "Fetching value for `jax.Array` that spans non-addressable (non process local) "
            "devices is not possible. You can use "
            "`jax.experimental.multihost_utils.process_allgather` to print the global array "
            "or use `.addressable_shards` method of jax.Array to inspect the addressable "
            "(process local) shards.")
      if self._stack_axis is not None:
        self._npy = np.stack([np.asarray(b) for b in self._buffers], self._stack_axis)
      elif not self.is_fully_addressable:  # replicated: every process holds it all
        self._npy = np.asarray(self._buffers[0])
      elif self._is_multi_device():
        self._npy = self._assemble()
      else:
        self._npy = np.asarray(self._buffers[0])
      self._npy.flags.writeable = False
    return self._npy

  def _is_multi_device(self) -> bool:
    return self._sharding is not None and len(self._buffers) > 1

  def _assemble(self) -> np.ndarray:
    """The global value from per-device blocks (replicas are read once)."""
    out = np.empty(self.shape, self.dtype)
    index_of = self._sharding.devices_indices_map(self.shape)
    done = set()
    for buf in self._buffers:
      index = index_of[_device_of(buf)]
      key = tuple((s.start, s.stop) for s in index)
      if key not in done:
        out[index] = np.asarray(buf)
        done.add(key)
    return out

  def device_buffers(self) -> list:
    """The buffers as stored: one, or one per device (shards or replicas)."""
    self.check_alive()
    if self._buffers is None:
      self._buffers = [devices.buffer_from_numpy(self._npy)]
      if self._stack_axis is None and (
          self._sharding is None or type(self._sharding) is sh.SingleDeviceSharding):
        self.single_device_buffer = self._buffers[0]
    return self._buffers

  def single_buffer(self):
    """One buffer holding the whole value on the default device (gathered once if needed)."""
    if self._stack_axis is None:
      bufs = self.device_buffers()
      home = devices.default_device()
      for b, d in zip(bufs, self._buffer_devices()):
        if d == home and (len(bufs) == 1 or self.sharding.is_fully_replicated):
          return b
    if self._whole is None:
      self._whole = devices.buffer_from_numpy(self._value)
    return self._whole

  def _buffer_devices(self) -> list:
    return [_device_of(b) for b in self.device_buffers()]

  def devices(self) -> set:
    return set(self._buffer_devices())

  @property
  def sharding(self):
    if self._sharding is not None:
      return self._sharding
    if self._stack_axis is not None or (self._buffers is not None and len(self._buffers) > 1):
      return sh.PmapSharding(self._buffer_devices(), self._stack_axis)
    if self._buffers:
      return sh.SingleDeviceSharding(_device_of(self._buffers[0]))
    return sh.SingleDeviceSharding(devices.default_device())

  @property
  def is_fully_replicated(self) -> bool:
    return self.sharding.is_fully_replicated

  @property
  def is_fully_addressable(self) -> bool:
    # In a multi-process program a global array holds only this process's shards.
    return self._sharding is None or bool(self._sharding.is_fully_addressable)

  @property
  def committed(self) -> bool:
    return self._sharding is not None

  @property
  def addressable_shards(self) -> list:
    bufs = self.device_buffers()
    shd = self.sharding
    shards = []
    for buf in bufs:
      device = _device_of(buf)
      local = self.aval.update(shape=tuple(buf._dims) if hasattr(buf, "_dims")
                               else np.shape(np.asarray(buf)))
      data = ArrayImpl(local, [buf], sharding=sh.SingleDeviceSharding(device))
      shards.append(sh.Shard(device, shd, self.shape, data))
    return shards

  global_shards = addressable_shards

  def addressable_data(self, index: int) -> ArrayImpl:
    return self.addressable_shards[index].data

  def copy_to_host_async(self) -> None:
    """Reads happen synchronously on the CPU backend; nothing to start early."""

  def is_deleted(self) -> bool:
    return self._buffers is not None and not self._buffers and self._npy is None

  def unsafe_buffer_pointer(self) -> int:
    """The address of the array's memory on its device (single-device arrays only)."""
    bufs = self.device_buffers()
    if len(bufs) != 1 or self._stack_axis is not None:
      raise ValueError("unsafe_buffer_pointer() needs an array on a single device; this one "
                       f"has {len(bufs)} buffers")
    return bufs[0].unsafe_buffer_pointer()

  def on_device_size_in_bytes(self) -> int:
    return sum(int(b.nbytes) for b in self.device_buffers())

  def block_until_ready(self) -> ArrayImpl:
    self.check_alive()
    if self._buffers is not None:
      for b in self._buffers:
        b._block_until_ready()
    return self

  def delete(self) -> None:
    if self._buffers is not None:
      for b in self._buffers:
        b.delete()
    self._buffers, self._npy, self._whole = [], None, None
    self.single_device_buffer = None

  def __array__(self, dtype=None, copy=None):
    # The value is read-only and, on the CPU backend, usually a view of the
    # device buffer itself; copy=True asks for a private writable copy.
    if copy:
      return np.array(self._value, dtype=dtype, copy=True)
    return np.asarray(self._value, dtype=dtype)

  def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    if self._buffers is not None and len(self._buffers) == 1 and self._stack_axis is None:
      return self._buffers[0].__dlpack__(stream=stream, max_version=max_version,
                                         dl_device=dl_device, copy=copy)
    # Host-backed, sharded or stacked values are exported from one host copy.
    kwargs = {} if max_version is None else {"max_version": max_version}
    return np.array(self._value, copy=True).__dlpack__(**kwargs)

  def __dlpack_device__(self) -> tuple[int, int]:
    if self._buffers is not None and len(self._buffers) == 1 and self._stack_axis is None:
      return self._buffers[0].__dlpack_device__()
    return (1, 0)  # a host copy

  def item(self):
    return self._value.item()

  def tolist(self):
    return self._value.tolist()

  def __bool__(self):
    return bool(self._value)

  def __int__(self):
    return int(self._value)

  def __float__(self):
    return float(self._value)

  def __complex__(self):
    return complex(self._value)

  def __index__(self):
    if not dtypes.is_integer(self.dtype):
      raise TypeError(f"only integer arrays can be used as an index, got {self.dtype.name}")
    return int(self._value)

  def __len__(self):
    if not self.shape:
      raise TypeError("len() of unsized object")
    return self.shape[0]

  def __iter__(self):
    if not self.shape:
      raise TypeError("iteration over a 0-d array")
    return (self[i] for i in range(self.shape[0]))

  def __hash__(self):
    raise TypeError("unhashable type: jax Array")

  def __repr__(self):
    body = np.array2string(self._value, separator=", ", prefix="Array(")
    if self.size == 0:  # "[]" alone does not tell the shape
      body += f", shape={self.shape}"
    weak = ", weak_type=True" if self.weak_type else ""
    return f"Array({body}, dtype={self.dtype.name}{weak})"

  def __str__(self):
    return str(self._value)

  def __format__(self, spec):
    return format(self._value.item(), spec) if self.ndim == 0 else format(str(self), spec)

  def __reduce__(self):
    return (host_array, (np.array(self._value), self.weak_type))


def _device_of(buf):
  dev = getattr(buf, "device", None)
  return dev() if callable(dev) else dev


def host_array(value, weak_type: bool = False) -> ArrayImpl:
  """An Array holding a private copy of `value` on the host until a computation needs it.

  Copied, so that changing the numpy array it came from never changes the Array.
  """
  value = np.asarray(value)
  dtype = dtypes.canonicalize_dtype(value.dtype)
  value = np.array(value, dtype=dtype, copy=True)
  value.flags.writeable = False
  return ArrayImpl(ShapedArray(value.shape, dtype, weak_type), None, value)


class Array(abc.ABC):
  """The type of jax arrays, for `isinstance` and annotations: concrete arrays
  (`ArrayImpl`) and, while a function is traced, the tracers standing for them."""

  __slots__ = ()


Array.register(ArrayImpl)
Array.register(core.Tracer)
core.concrete_array_types.add(ArrayImpl)
core.Tracer.__array_priority__ = 1000

