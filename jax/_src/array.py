"""`jax.Array`: an immutable array living on a device (or, until first needed, on the host).

An ArrayImpl holds its abstract value and either device buffers from jaxlib or a
host numpy value. A pmap result holds one buffer per device: the shards, stacked
along `stack_axis` to form the value, or (stack_axis None) identical replicas. Host-backed arrays come from constant folding (`jnp.array`,
Python scalars converted to a dtype) and are copied to the device on first use,
so building constants never compiles or transfers anything.
Operators (`+`, `*`, indexing, `.sum()`...) are installed by jax.numpy.
"""

from __future__ import annotations

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.core import ShapedArray


class ArrayImpl:
  __slots__ = ("aval", "_buffers", "_npy", "_stack_axis", "_whole", "__weakref__")
  __array_priority__ = 100

  def __init__(self, aval: ShapedArray, buffers=None, npy: np.ndarray | None = None,
               stack_axis: int | None = None):
    self.aval = aval
    self._buffers = buffers
    self._npy = npy
    self._stack_axis = stack_axis
    self._whole = None

  shape = property(lambda self: self.aval.shape)
  dtype = property(lambda self: self.aval.dtype)
  ndim = property(lambda self: self.aval.ndim)
  size = property(lambda self: self.aval.size)
  weak_type = property(lambda self: self.aval.weak_type)
  is_host_backed = property(lambda self: self._buffers is None)

  is_sharded = property(lambda self: self._stack_axis is not None)

  @property
  def _value(self) -> np.ndarray:
    if self._npy is None:
      if self._stack_axis is not None:
        self._npy = np.stack([np.asarray(b) for b in self._buffers], self._stack_axis)
      else:
        self._npy = np.asarray(self._buffers[0])
      self._npy.flags.writeable = False
    return self._npy

  def device_buffers(self) -> list:
    """The buffers as stored: one, or one per device (shards or replicas)."""
    if self._buffers is None:
      from jax._src import dispatch
      self._buffers = [dispatch.buffer_from_numpy(self._npy)]
    return self._buffers

  def single_buffer(self):
    """One buffer holding the whole value (sharded values are gathered once)."""
    if self._stack_axis is None:
      return self.device_buffers()[0]
    if self._whole is None:
      from jax._src import dispatch
      self._whole = dispatch.buffer_from_numpy(self._value)
    return self._whole

  def devices(self) -> set:
    return {b.device() if callable(getattr(b, "device", None)) else b.device
            for b in self.device_buffers()}

  def block_until_ready(self) -> ArrayImpl:
    if self._buffers is not None:
      for b in self._buffers:
        b.block_until_ready()
    return self

  def delete(self) -> None:
    if self._buffers is not None:
      for b in self._buffers:
        b.delete()
    self._buffers, self._npy, self._whole = [], None, None

  def __array__(self, dtype=None, copy=None):
    return np.asarray(self._value, dtype=dtype)

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
    weak = ", weak_type=True" if self.weak_type else ""
    return f"Array({body}, dtype={self.dtype.name}{weak})"

  def __str__(self):
    return str(self._value)

  def __format__(self, spec):
    return format(self._value.item(), spec) if self.ndim == 0 else format(str(self), spec)

  def __reduce__(self):
    return (host_array, (np.array(self._value), self.weak_type))


def host_array(value, weak_type: bool = False) -> ArrayImpl:
  """An Array holding `value` on the host until a computation needs it."""
  value = np.asarray(value)
  dtype = dtypes.canonicalize_dtype(value.dtype)
  if value.dtype != dtype:
    value = value.astype(dtype)
  return ArrayImpl(ShapedArray(value.shape, dtype, weak_type), None, value)


Array = ArrayImpl
core.Tracer.__array_priority__ = 1000
