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
from jax._src import mesh_context
from jax._src.lax import sharding_rules
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
  if isinstance(sharding, sh.NamedSharding) and isinstance(sharding.mesh, sh.AbstractMesh):
    raise TypeError(f"{what}: the sharding must be over a concrete Mesh (with devices), got "
                    f"{sharding}")


def _assemble(shape, sharding, buffers: dict, dtype) -> ArrayImpl:
  """An Array of `shape` laid out by `sharding` from one buffer per addressable device
  (device -> buffer); the other processes hold the blocks of their devices."""
  aval = core.ShapedArray(tuple(shape), np.dtype(dtype))
  devices = list(sharding.addressable_devices_indices_map(aval.shape))
  return ArrayImpl(aval, [buffers[d] for d in devices], sharding=sharding)


def _expected_shape(index, shape) -> tuple:
  return tuple(len(range(*s.indices(n))) if isinstance(s, slice) else 1
               for s, n in zip(index, shape))


def _typed_str(shape, dtype, sharding) -> str:
  aval = core.ShapedArray(shape, dtypes.canonicalize_dtype(dtype), sharding=sharding)
  return aval.str_short(short_dtypes=True)


def make_array_from_callback(shape, sharding, data_callback: Callable, dtype=None):
  """The Array of `shape` laid out by `sharding` whose block on each device of this process
  is `data_callback(index)` (index: the tuple of slices of that block)."""
  _check_sharding(sharding, "make_array_from_callback")
  shape = tuple(int(d) for d in shape)
  pieces = {}
  for device, index in sharding.addressable_devices_indices_map(shape).items():
    value = data_callback(index)
    if isinstance(value, core.Tracer):
      raise TypeError("make_array_from_callback: data_callback returned a traced value; it "
                      "must return concrete arrays")
    value = value if isinstance(value, ArrayImpl) else np.asarray(value)
    want = _expected_shape(index, shape)
    if tuple(value.shape) != want:
      raise ValueError(f"Expected shard shape {want} doesn't match the single device array "
                       f"shape {tuple(value.shape)}. Shape of Array is "
                       f"{_typed_str(shape, value.dtype, sharding)} with sharding {sharding}")
    pieces[device] = value
  if dtype is None:
    first = next(iter(pieces.values()), None)
    dtype = first.dtype if first is not None else np.float32
  dtype = dtypes.canonicalize_dtype(dtype)
  buffers = {d: _buffer_on(v, d, dtype) for d, v in pieces.items()}
  return _assemble(shape, sharding, buffers, dtype)


def _buffer_on(value, device, dtype):
  """The device buffer of `value` on `device` (copied there, and converted, if needed)."""
  if isinstance(value, ArrayImpl) and value.dtype == dtype:
    bufs = value.device_buffers()
    if len(bufs) == 1 and bufs[0].device() == device:
      return bufs[0]
  return execution.buffer_from_numpy(np.ascontiguousarray(np.asarray(value), dtype=dtype),
                                     device)


def make_array_from_single_device_arrays(shape, sharding, arrays: Sequence, *, dtype=None):
  """The Array of `shape` laid out by `sharding` made of `arrays`: one single-device Array
  per device of the sharding that this process addresses (each already on its device,
  with its block's shape)."""
  _check_sharding(sharding, "make_array_from_single_device_arrays")
  shape = tuple(int(d) for d in shape)
  mapping = sharding.addressable_devices_indices_map(shape)
  arrays = list(arrays)
  if len(arrays) != len(mapping):
    raise ValueError(f"Expected {len(mapping)} per-device arrays (this is how many devices are "
                     f"addressable by the sharding), but got {len(arrays)}")
  for a in arrays:
    if not isinstance(a, ArrayImpl):
      raise TypeError("make_array_from_single_device_arrays expects jax Arrays, got "
                      f"{type(a).__name__}")
  per_array = [list(a.devices()) for a in arrays]
  if any(len(d) != 1 for d in per_array):
    raise ValueError("make_array_from_single_device_arrays: every array must live on "
                     f"exactly one device, got arrays on {per_array}")
  ids = [d[0].id for d in per_array]
  if len(set(ids)) != len(ids):
    raise ValueError("When making an array from single-device arrays, the input arrays must "
                     f"be from distinct devices, but got device IDs {ids}")
  dtype = dtypes.canonicalize_dtype(dtype if dtype is not None else arrays[0].dtype)
  buffers = {}
  for a, (device,) in zip(arrays, per_array):
    if device not in mapping:
      raise ValueError(f"An array is on {device}, which is not a device of the sharding "
                       f"{sharding} addressable by this process")
    want = _expected_shape(mapping[device], shape)
    if a.shape != want:
      raise ValueError(f"Expected shard shape {want} doesn't match the single device array "
                       f"shape {a.shape}. Shape of Array is "
                       f"{_typed_str(shape, dtype, sharding)} with sharding {sharding}")
    buffers[device] = _buffer_on(a, device, dtype)
  return _assemble(shape, sharding, buffers, dtype)


# ----------------------------------------------------------------------------- process-local data


def _range(s: slice, size: int) -> tuple[int, int]:
  start, stop, _ = s.indices(size)
  return start, stop


def _blocks_per_dim(index_map: dict, shape: tuple) -> list[list[tuple]]:
  """Per dimension, the distinct (start, stop) ranges of the blocks in `index_map`, sorted."""
  return [sorted({_range(idx[dim], n) for idx in index_map.values()})
          for dim, n in enumerate(shape)]


def _probe_shape(sharding, ndim: int) -> tuple:
  """A global shape in which every block of `sharding` has size 1 along every dimension
  (so block ranges count blocks)."""
  if isinstance(sharding, sh.NamedSharding):
    return sharding.partition_counts(ndim)
  ones = (1,) * ndim
  return tuple(ones[d] * max(1, len({i[d] for i in sharding.devices_indices_map(ones).values()}))
               for d in range(ndim))


def _global_shape_of(sharding, local_shape: tuple, global_shape) -> tuple:
  """The global shape: as given (None entries inferred), or inferred from how many of the
  blocks along each dimension this process's devices hold."""
  ndim = len(local_shape)
  probe = _probe_shape(sharding, ndim)
  everywhere = _blocks_per_dim(sharding.devices_indices_map(probe), probe)
  here = _blocks_per_dim(sharding.addressable_devices_indices_map(probe), probe)
  given = (None,) * ndim if global_shape is None else tuple(global_shape)
  if len(given) != ndim:
    raise ValueError(f"make_array_from_process_local_data: global_shape {given} has "
                     f"{len(given)} dimensions, local_data has {ndim}")
  return tuple(int(g) if g is not None else local_shape[d] * len(everywhere[d]) // len(here[d])
               for d, g in enumerate(given))


def make_array_from_process_local_data(sharding, local_data, global_shape=None):
  """The global Array whose blocks on this process's devices come from `local_data`: the
  part of the global array that those blocks cover, with the blocks in order along each
  dimension (`global_shape` may leave dimensions as None to infer them)."""
  _check_sharding(sharding, "make_array_from_process_local_data")
  if xla_bridge.process_count() > 1:
    return _from_process_blocks(sharding, np.asarray(local_data), global_shape)
  local = local_data if isinstance(local_data, ArrayImpl) else np.asarray(local_data)
  local_shape = tuple(local.shape)
  shape = _global_shape_of(sharding, local_shape, global_shape)
  index_map = sharding.addressable_devices_indices_map(shape)
  ranges = _blocks_per_dim(index_map, shape)
  # Where each of this process's blocks starts inside the local data, per dimension.
  offsets = []
  for dim_ranges in ranges:
    starts, at = {}, 0
    for start, stop in dim_ranges:
      starts[(start, stop)] = at
      at += stop - start
    offsets.append((starts, at))
  expected = tuple(total for _, total in offsets)
  if expected != local_shape:
    if sharding.is_fully_addressable:
      raise ValueError("When calling `make_array_from_process_local_data` on a single "
                       "process, global_shape should be None or equal to local_data.shape."
                       f"Got global_shape={tuple(global_shape)} and local_data.shape="
                       f"{local_shape}.")
    raise ValueError(f"make_array_from_process_local_data: this process's devices hold "
                     f"blocks of total shape {expected} of the global shape {shape}, but "
                     f"local_data has shape {local_shape}")
  host = np.asarray(local)

  def block(index):
    local_index = []
    for d, s in enumerate(index):
      start, stop = _range(s, shape[d])
      at = offsets[d][0][(start, stop)]
      local_index.append(slice(at, at + stop - start))
    return host[tuple(local_index)]
  dtype = dtypes.canonicalize_dtype(host.dtype)
  buffers = {d: _buffer_on(block(i), d, dtype) for d, i in index_map.items()}
  return _assemble(shape, sharding, buffers, dtype)


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
    if type(obj) is ArrayImpl and obj.resident_buffers and not obj.is_deleted():
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


def _sharding_target(s, what: str):
  """A NamedSharding for `s` (a Sharding, or a PartitionSpec of the mesh in context)."""
  if isinstance(s, sh.PartitionSpec):
    mesh = sh.get_mesh()
    if mesh is None:
      abstract = mesh_context.get_abstract_mesh()
      if abstract.empty:
        raise ValueError("Using PartitionSpec when you are not under a mesh context is not "
                         "allowed. Please pass a NamedSharding instance or enter into a mesh "
                         f"context via `jax.set_mesh`. Got {s}")
      return sh.NamedSharding(abstract, s)
    return sh.NamedSharding(mesh, s)
  if not isinstance(s, sh.Sharding):
    raise TypeError(f"{what} expects a Sharding or a PartitionSpec, got {s!r}")
  return s


def _check_explicit_names(spec, mesh, what: str) -> None:
  """A PartitionSpec given to reshard names Explicit axes only (JAX's rule)."""
  types = dict(zip(mesh.axis_names, mesh.axis_types))
  for names in spec.axes_by_dim(len(spec)):
    for n in names:
      if types.get(n) is not sh.AxisType.Explicit:
        raise ValueError(f"PartitionSpec passed to {what} cannot contain axis names that are "
                         f"of type Auto or Manual. Got PartitionSpec: {spec} with axis name: "
                         f"{n} of type: AxisType.{types.get(n).name}.")


def _reshard_leaf(x, target):
  if isinstance(x, core.Tracer) or isinstance(target.mesh, sh.AbstractMesh):
    return sharding_rules.reshard(x, target)
  return api.device_put(x, target)


def reshard(xs, out_shardings):
  """`xs` (a pytree) laid out as `out_shardings` (Shardings or PartitionSpecs of the
  current mesh; a pytree prefix). Over Explicit mesh axes this changes the values' types
  (also under jit); over Auto axes it places concrete values."""
  # A PartitionSpec is a tuple, but one target; containers are prefixes.
  is_spec = lambda s: (isinstance(s, (sh.Sharding, sh.PartitionSpec))
                       or not isinstance(s, (tuple, list, dict)))
  leaves, treedef = tree_util.tree_flatten(xs)
  targets = tree_util.prefix_per_leaf(out_shardings, xs, is_leaf=is_spec)
  out = []
  for x, t in zip(leaves, targets):
    if t is None:
      out.append(x)
      continue
    target = _sharding_target(t, "reshard")
    if isinstance(t, sh.PartitionSpec):
      _check_explicit_names(t, target.mesh, "reshard")
    out.append(_reshard_leaf(x, target))
  return treedef.unflatten(out)


def _axes_of(axes, mesh) -> tuple:
  if axes is None:
    return tuple(mesh.axis_names)
  names = (axes,) if isinstance(axes, str) else tuple(axes)
  for n in names:
    if n not in mesh.axis_names:
      raise ValueError(f"axis {n!r} is not an axis of the mesh in context {mesh}")
  return names


def _retyped_mesh(axes, to: sh.AxisType):
  """The mesh in context with `axes` of type `to` (None when no mesh is set)."""
  mesh = sh.get_mesh()
  if mesh is None:
    return None
  names = _axes_of(axes, mesh)
  types = tuple(to if n in names else t for n, t in zip(mesh.axis_names, mesh.axis_types))
  return sh.Mesh(mesh.devices, mesh.axis_names, types)


def _on_mesh(xs, mesh):
  """Each array leaf typed over `mesh` with the layout it has (its spec on the old mesh)."""
  def move(x):
    s = core.explicit_sharding(core.get_aval(x))
    spec = s.spec if s is not None else sh.PartitionSpec()
    return _reshard_leaf(x, sh.NamedSharding(mesh, spec))
  return tree_util.tree_map(move, xs)


def auto_axes(f: Callable | None = None, /, *, axes=None, out_sharding=None):
  """Run `f` with `axes` of the mesh in context (default: all) made Auto, so that inside it
  the compiler chooses layouts over them; its results are then laid out as `out_sharding`
  says (a Sharding, a PartitionSpec of the mesh in context, or a prefix)."""

  def wrap(fun):
    @functools.wraps(fun)
    def wrapped(*args, **kwargs):
      outer = sh.get_mesh()
      inner = _retyped_mesh(axes, sh.AxisType.Auto)
      if inner is None:
        out = fun(*args, **kwargs)
      else:
        with mesh_context.set_mesh(inner):
          out = fun(*_on_mesh(args, inner), **kwargs)
      if out_sharding is None:
        return out if outer is None else _on_mesh(out, outer)
      return reshard(out, out_sharding)
    return wrapped
  return wrap if f is None else wrap(f)


def explicit_axes(f: Callable | None = None, /, *, axes=None, in_sharding=None):
  """Run `f` with `axes` of the mesh in context (default: all) made Explicit, its arguments
  first laid out as `in_sharding` says; the results come back to the outer mesh."""

  def wrap(fun):
    @functools.wraps(fun)
    def wrapped(*args, **kwargs):
      outer = sh.get_mesh()
      inner = _retyped_mesh(axes, sh.AxisType.Explicit)
      if inner is None:
        return fun(*(args if in_sharding is None else reshard(args, in_sharding)), **kwargs)
      with mesh_context.set_mesh(inner):
        if in_sharding is not None:
          args = reshard(_on_mesh(args, inner), in_sharding)
        out = fun(*_on_mesh(args, inner), **kwargs)
      return _on_mesh(out, outer)
    return wrapped
  return wrap if f is None else wrap(f)
