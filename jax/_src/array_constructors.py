"""Building global Arrays from per-device pieces, and the process-level queries that go
with them (`jax.make_array_from_callback`, `jax.live_arrays`, `jax.process_indices`...).
"""

from __future__ import annotations

import functools
import gc
from typing import Callable, Sequence

import numpy as np

from jax._src import api
from jax._src import core
from jax._src import dispatch
from jax._src import dtypes
from jax._src import execution
from jax._src import sharding as sh
from jax._src import tree_util
from jax._src import xla_bridge
from jax._src.array import ArrayImpl


def host_count(backend=None) -> int:
  """The number of processes (the older name of process_count)."""
  return xla_bridge.process_count(backend)


def host_id(backend=None) -> int:
  """This process's index (the older name of process_index)."""
  return xla_bridge.process_index(backend)


def process_indices(backend=None) -> list[int]:
  """The indices of all processes: [0, process_count())."""
  return list(range(xla_bridge.process_count(backend)))


host_ids = process_indices


def _check_sharding(sharding, what: str) -> None:
  if not isinstance(sharding, sh.Sharding):
    raise TypeError(f"{what}: sharding must be a jax.sharding.Sharding, got {sharding!r}")


def _assemble(shape, sharding, pieces: dict, dtype) -> ArrayImpl:
  """An Array of `shape` from one value per device of `sharding` (device -> array)."""
  aval = core.ShapedArray(tuple(shape), np.dtype(dtype))
  # In a multi-process program an Array holds the blocks of this process's devices.
  devices = list(sharding.addressable_devices_indices_map(aval.shape))
  bufs = [execution.buffer_from_numpy(np.ascontiguousarray(pieces[d], dtype=aval.dtype), d)
          for d in devices]
  return ArrayImpl(aval, bufs, sharding=sharding)


def _expected_shape(index, shape) -> tuple:
  return tuple(len(range(*s.indices(n))) if isinstance(s, slice) else 1
               for s, n in zip(index, shape))


def make_array_from_callback(shape, sharding, data_callback: Callable, dtype=None):
  """The Array of `shape` laid out by `sharding` whose piece on each device is
  `data_callback(index)` (index: the tuple of slices of that piece)."""
  _check_sharding(sharding, "make_array_from_callback")
  shape = tuple(int(d) for d in shape)
  pieces, seen_dtype = {}, None
  for device, index in sharding.addressable_devices_indices_map(shape).items():
    value = data_callback(index)
    if isinstance(value, core.Tracer):
      raise TypeError("make_array_from_callback: data_callback returned a traced value; it "
                      "must return concrete arrays")
    value = np.asarray(value)
    want = _expected_shape(index, shape)
    if value.shape != want:
      raise ValueError(f"make_array_from_callback: data_callback returned shape {value.shape} "
                       f"for index {index}, expected {want}")
    pieces[device] = value
    seen_dtype = value.dtype if seen_dtype is None else seen_dtype
  if dtype is None:
    dtype = dtypes.canonicalize_dtype(seen_dtype if seen_dtype is not None else np.float32)
  return _assemble(shape, sharding, pieces, dtype)


def make_array_from_single_device_arrays(shape, sharding, arrays: Sequence, *, dtype=None):
  """The Array of `shape` laid out by `sharding` made of `arrays`: one single-device Array
  per device of the sharding (each already on its device, with its block's shape)."""
  _check_sharding(sharding, "make_array_from_single_device_arrays")
  shape = tuple(int(d) for d in shape)
  mapping = sharding.addressable_devices_indices_map(shape)
  arrays = list(arrays)
  if len(arrays) != len(mapping):
    raise ValueError(f"make_array_from_single_device_arrays: expected {len(mapping)} arrays "
                     f"(one per device of the sharding in this process), got {len(arrays)}")
  pieces = {}
  for a in arrays:
    if not isinstance(a, ArrayImpl):
      raise TypeError("make_array_from_single_device_arrays expects jax Arrays, got "
                      f"{type(a).__name__}")
    devs = list(a.devices())
    if len(devs) != 1 or devs[0] not in mapping:
      raise ValueError(f"each array must live on exactly one device of the sharding; one is "
                       f"on {devs}")
    want = _expected_shape(mapping[devs[0]], shape)
    if a.shape != want:
      raise ValueError(f"the array on {devs[0]} has shape {a.shape}; its block of the global "
                       f"shape {shape} has shape {want}")
    pieces[devs[0]] = np.asarray(a)
  if set(pieces) != set(mapping):
    raise ValueError("make_array_from_single_device_arrays: arrays must cover every device "
                     "of the sharding once")
  dtype = dtype if dtype is not None else arrays[0].dtype
  return _assemble(shape, sharding, pieces, dtype)


def make_array_from_process_local_data(sharding, local_data, global_shape=None):
  """The global Array whose part on this process's devices is `local_data`.

  With one process the local data is the whole array (global_shape, if given, must be
  its shape)."""
  _check_sharding(sharding, "make_array_from_process_local_data")
  value = np.asarray(local_data)
  if global_shape is not None and tuple(global_shape) != value.shape:
    if xla_bridge.process_count() == 1:
      raise ValueError(f"global_shape {tuple(global_shape)} differs from the local data's "
                       f"shape {value.shape}, but this process holds the whole array")
  if xla_bridge.process_count() > 1:
    return _from_process_blocks(sharding, value, global_shape)
  return make_array_from_callback(value.shape, sharding, lambda idx: value[idx],
                                  dtype=dtypes.canonicalize_dtype(value.dtype))


def _from_process_blocks(sharding, value: np.ndarray, global_shape) -> ArrayImpl:
  """Multi-process: `value` is the box of the global array this process's devices hold
  (the global shape, if not given, scales each dimension by how many such boxes the
  sharding lays along it)."""
  ndim = value.ndim
  if global_shape is None:
    # Along each dimension: the distinct blocks of all devices vs of this process's.
    unit = sharding.devices_indices_map((1 << 20,) * ndim if ndim else ())
    mine = set(sharding.addressable_devices_indices_map((1 << 20,) * ndim if ndim else ()))
    global_shape = []
    for d in range(ndim):
      every = {idx[d].indices(1 << 20)[:2] for idx in unit.values()}
      local = {idx[d].indices(1 << 20)[:2] for dev, idx in unit.items() if dev in mine}
      global_shape.append(value.shape[d] * len(every) // len(local))
  global_shape = tuple(int(n) for n in global_shape)
  index_map = sharding.addressable_devices_indices_map(global_shape)
  starts = [min(idx[d].indices(global_shape[d])[0] for idx in index_map.values())
            for d in range(ndim)]

  def local_block(index):
    return value[tuple(slice(s.indices(n)[0] - o, s.indices(n)[1] - o)
                       for s, n, o in zip(index, global_shape, starts))]
  return make_array_from_callback(global_shape, sharding, local_block,
                                  dtype=dtypes.canonicalize_dtype(value.dtype))


def live_arrays(platform=None) -> list:
  """The Arrays that are alive (not deleted) on the backend's devices."""
  backend = xla_bridge.get_backend(platform)
  devices = set(backend.devices())
  out = []
  for obj in gc.get_objects():
    if type(obj) is ArrayImpl and obj._buffers and not obj.is_deleted():
      if obj.devices() <= devices:
        out.append(obj)
  return out


def copy_to_host_async(x):
  """Start copying every array leaf of `x` to the host; later reads do not wait as long."""
  for leaf in tree_util.tree_leaves(x):
    start = getattr(leaf, "copy_to_host_async", None)
    if start is not None:
      start()
  return x


def effects_barrier() -> None:
  """Wait until every side effect (debug prints, io callbacks) issued so far has run."""
  dispatch.wait_for_tokens()


def reshard(xs, out_shardings):
  """`xs` (a pytree) laid out as `out_shardings` (Shardings or PartitionSpecs of the
  current mesh; a pytree prefix). Under a trace the layout is a constraint."""
  def to_sharding(s):
    if isinstance(s, sh.PartitionSpec):
      mesh = sh.get_mesh()
      if mesh is None:
        raise ValueError("reshard with a PartitionSpec needs a mesh: pass a NamedSharding or "
                         "use `with jax.set_mesh(mesh):`")
      return sh.NamedSharding(mesh, s)
    return s
  is_spec = lambda s: isinstance(s, (sh.Sharding, sh.PartitionSpec)) or s is None
  targets = tree_util.tree_map(to_sharding, out_shardings, is_leaf=is_spec)
  return api.device_put(xs, targets)


# Meshes here have Auto axes (the computation decides layouts), so auto_axes and
# explicit_axes apply the shardings they are given to results or arguments.


def _reshard(x, shardings):
  return x if shardings is None else reshard(x, shardings)


def auto_axes(f: Callable | None = None, /, *, axes=None, out_sharding=None):
  """Run `f` with `axes` of the mesh in Auto mode; its results are laid out as
  `out_sharding` says (a Sharding, a PartitionSpec of the mesh in context, or a prefix)."""
  del axes  # every axis is Auto here already

  def wrap(fun):
    @functools.wraps(fun)
    def wrapped(*args, **kwargs):
      return _reshard(fun(*args, **kwargs), out_sharding)
    return wrapped
  return wrap if f is None else wrap(f)


def explicit_axes(f: Callable | None = None, /, *, axes=None, in_sharding=None):
  """Run `f` with `axes` of the mesh in Explicit mode, its arguments first laid out as
  `in_sharding` says."""
  del axes

  def wrap(fun):
    @functools.wraps(fun)
    def wrapped(*args, **kwargs):
      return fun(*_reshard(args, in_sharding), **kwargs)
    return wrapped
  return wrap if f is None else wrap(f)
