"""Utilities for programs that run as several processes (`jax.experimental.multihost_utils`).

Every process holds the devices `jax.local_devices()`; a global Array spans the
devices of all processes. One implementation serves any number of processes: values
move between processes only through programs over all devices. `process_mesh()` puts
each process's devices in one row; a host value becomes one row of bytes per process
(`make_array_from_process_local_data`), and a shard_map all-gathers the rows, so the
exchange runs on the same cross-process collectives as any other program and every
dtype arrives bit for bit. A call moves a whole pytree in two collectives: first a
digest of every leaf's shape and dtype (so processes that disagree get an error naming
them instead of a mismatched program), then all the leaves' bytes in one row.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import math
from typing import Any

import numpy as np

from jax._src import api
from jax._src import array_constructors
from jax._src import core
from jax._src import shard_map
from jax._src import distributed
from jax._src import xla_bridge
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lowering import hlo
from jax._src.array import ArrayImpl
from jax._src.lax import parallel
from jax._src.sharding import AxisType, Mesh, NamedSharding, PartitionSpec as P, spec_axes
from jax._src.tree_util import tree_flatten, tree_unflatten
from jax._src.util import safe_zip

__all__ = ["Any", "P", "safe_zip", "tree_flatten", "tree_unflatten"]


class ProcessFailureError(RuntimeError):
  """Raised when devices of another process stopped responding."""

  def __init__(self, failed_devices):
    self.failed_devices = list(failed_devices)
    super().__init__(f"devices failed: {self.failed_devices}")


def _as_host(x) -> np.ndarray:
  if isinstance(x, core.Tracer):
    raise TypeError("multihost_utils functions take concrete values, not traced ones; call "
                    "them outside jit/grad/vmap.")
  return np.asarray(x)


def _is_global(x) -> bool:
  """An Array whose devices belong to several processes (it is already one value)."""
  return isinstance(x, ArrayImpl) and not x.is_fully_addressable


def process_mesh() -> Mesh:
  """Every device, one row per process (in process order): axes ('processes',
  'local_devices'). Collectives over 'processes' exchange one value per process."""
  by_process: dict[int, list] = {}
  for d in xla_bridge.devices():
    by_process.setdefault(getattr(d, "process_index", 0), []).append(d)
  sizes = {len(v) for v in by_process.values()}
  if len(sizes) != 1:
    raise ValueError("multihost_utils needs every process to have the same number of devices, "
                     f"got {({p: len(v) for p, v in sorted(by_process.items())})}")
  rows = [sorted(by_process[p], key=lambda d: d.id) for p in sorted(by_process)]
  grid = np.empty((len(rows), sizes.pop()), dtype=object)
  for i, row in enumerate(rows):
    grid[i, :] = row
  return Mesh(grid, ("processes", "local_devices"), (AxisType.Auto, AxisType.Auto))


@functools.lru_cache(maxsize=8)
def _gather_rows_fn(mesh: Mesh):
  # One all-gather over the processes: each device gets every process's row.
  return shard_map.shard_map(lambda x: parallel.all_gather(x, "processes", tiled=True),
                             mesh=mesh, in_specs=P("processes"), out_specs=P())


def _gather_byte_rows(row: np.ndarray) -> np.ndarray:
  """[process_count, len(row)] uint8: every process's `row` (of one length everywhere),
  in process order."""
  mesh = process_mesh()
  n = mesh.devices.shape[0]
  rows = array_constructors.make_array_from_process_local_data(
      NamedSharding(mesh, P("processes")), row.reshape(1, -1), (n, row.size))
  gathered = _gather_rows_fn(mesh)(rows)
  return np.asarray(gathered.addressable_shards[0].data)


def _leaf_bytes(value: np.ndarray) -> np.ndarray:
  # (ascontiguousarray would make scalars 1-d)
  return np.asarray(value, order="C").reshape(-1).view(np.uint8)


def _describe(values: list[np.ndarray], treedef) -> str:
  return f"{treedef} with leaves " + ", ".join(f"{v.dtype}{list(v.shape)}" for v in values)


def _gather_leaves(values: list[np.ndarray], treedef, what: str) -> list[np.ndarray]:
  """Every process's values, each stacked along a new leading axis in process order.

  Every process must pass the same tree of shapes and dtypes: a digest of them is
  gathered first, and a mismatch raises on every process (none is left waiting)."""
  description = _describe(values, treedef)
  digest = np.frombuffer(hashlib.sha256(description.encode()).digest(), np.uint8)
  digests = _gather_byte_rows(digest)
  differ = [p for p in range(len(digests)) if not np.array_equal(digests[p], digests[0])]
  if differ:
    raise ValueError(f"{what}: every process must pass the same tree of shapes and dtypes, "
                     f"but processes {differ} passed a different one than process 0 (this "
                     f"process, {xla_bridge.process_index()}, passed {description})")
  if not values:
    return []
  rows = _gather_byte_rows(np.concatenate([_leaf_bytes(v) for v in values]))
  out, at = [], 0
  for v in values:
    size = v.size * v.dtype.itemsize
    out.append(np.ascontiguousarray(rows[:, at:at + size]).view(v.dtype).reshape(
        (len(rows),) + v.shape))
    at += size
  return out


def _gather_tree(in_tree, what: str):
  """(leaves stacked per process, treedef); global Arrays are not host values and are
  left as they are."""
  leaves, treedef = tree_flatten(in_tree)
  local = [i for i, x in enumerate(leaves) if not _is_global(x)]
  values = [_as_host(leaves[i]) for i in local]
  stacked = _gather_leaves(values, treedef, what)
  out = list(leaves)
  for i, s in safe_zip(local, stacked):
    out[i] = s
  return out, treedef


def replicated_value(x: ArrayImpl) -> np.ndarray:
  """The whole value of a global Array, on this process: every split dimension is
  all-gathered over its mesh axes (so each device, in every process, gets all of it)."""
  sharding = x.sharding
  if not isinstance(sharding, NamedSharding):
    raise TypeError(f"process_allgather of a global Array needs a NamedSharding, got {sharding}")
  spec = sharding.spec

  def gather_all(block):
    for dim, names in enumerate(spec.axes_by_dim(block.ndim)):
      if names:
        block = parallel.all_gather(block, names, axis=dim, tiled=True)
    return block

  whole = shard_map.shard_map(gather_all, mesh=sharding.mesh, in_specs=spec, out_specs=P(),
                              check_vma=False)(x)
  return np.asarray(whole.addressable_shards[0].data)


def process_allgather(in_tree, tiled: bool = False):
  """Every process's value of each leaf, as numpy arrays on every process.

  Not tiled: stacked along a new leading axis of size process_count(). Tiled:
  concatenated along axis 0 (scalars, having no axis 0, are stacked; one process's scalar
  stays a scalar). A global Array (one spanning several processes' devices) is already
  one value: it is returned whole.
  """
  leaves, treedef = _gather_tree(in_tree, "process_allgather")

  def finish(original, stacked):
    if _is_global(original):
      return replicated_value(original)
    if not tiled:
      return stacked
    if stacked.ndim == 1:  # scalars: one per process
      return stacked if stacked.shape[0] > 1 else stacked.reshape(())
    return stacked.reshape((-1,) + stacked.shape[2:])
  originals, _ = tree_flatten(in_tree)
  return tree_unflatten(treedef, [finish(o, s) for o, s in safe_zip(originals, leaves)])


def _source_process(is_source: bool | None) -> int:
  """The one process whose value broadcast_one_to_all sends (process 0 unless
  `is_source` says)."""
  if is_source is None:
    is_source = xla_bridge.process_index() == 0
  flags = _gather_byte_rows(np.asarray([bool(is_source)], np.uint8))[:, 0]
  sources = [int(i) for i in np.flatnonzero(flags)]
  if len(sources) != 1:
    raise ValueError(f"broadcast_one_to_all needs exactly one source process, got "
                     f"{len(sources)} (processes {sources} passed is_source=True)")
  return sources[0]


def broadcast_one_to_all(in_tree, is_source: bool | None = None):
  """The source process's value of each leaf (process 0's unless `is_source` says), as
  numpy arrays on every process. Exactly one process must be the source."""
  source = _source_process(is_source)
  leaves, treedef = _gather_tree(in_tree, "broadcast_one_to_all")
  originals, _ = tree_flatten(in_tree)
  return tree_unflatten(treedef, [replicated_value(o) if _is_global(o) else np.asarray(s[source])
                                  for o, s in safe_zip(originals, leaves)])


def assert_equal(in_tree, fail_message: str = ""):
  """Raises AssertionError unless every process passed equal values for every leaf.

  A process whose values differ from process 0's raises with JAX's message; the others
  raise too, naming the processes that differ, so that no process goes on to wait in a
  collective for processes that stopped."""
  leaves, treedef = _gather_tree(in_tree, "assert_equal")
  originals, _ = tree_flatten(in_tree)
  stacked = [replicated_value(o)[None] if _is_global(o) else s
             for o, s in safe_zip(originals, leaves)]
  n = stacked[0].shape[0] if stacked else 1
  differ = [p for p in range(n) if not all(np.all(np.equal(s[p], s[0])) for s in stacked)]
  if not differ:
    return
  expected = tree_unflatten(treedef, [s[0] for s in stacked])
  if xla_bridge.process_index() in differ:
    raise AssertionError(f"{fail_message} Expected: {expected}; got: {in_tree}.")
  raise AssertionError(f"{fail_message} Processes {differ} differ from process 0's value "
                       f"{expected}.")


def sync_global_devices(name: str):
  """A barrier across all processes; they must reach it with the same `name`."""
  digest = np.frombuffer(hashlib.sha256(name.encode()).digest()[:4], dtype=np.uint32)
  assert_equal(digest.astype(np.int64), f"sync_global_devices name mismatch ('{name}')")


def reached_preemption_sync_point(step_id: int) -> bool:
  """Whether every process should stop at `step_id` (to save a checkpoint) because one of
  them was told it will be preempted (SIGTERM). Call it once per step with increasing
  step ids; it answers True on every process at the same step, once."""
  manager = distributed.global_state.preemption_sync_manager
  if manager is None:
    raise RuntimeError("Preemption sync manager has not been initialized. Make sure "
                       "jax.distributed.initialize() is called and the "
                       "'jax_enable_preemption_service' config is enabled.")
  return manager.reached_sync_point(step_id)


@contextlib.contextmanager
def live_devices(devices):
  """The devices among `devices` whose processes are alive (all of this process's are)."""
  devices = list(devices)
  known = set(xla_bridge.devices())
  failed = [d for d in devices if d not in known]
  if failed:
    raise ProcessFailureError(failed)
  yield devices


# ----------------------------------------------------------------------------- local <-> global


def _processes_along(mesh: Mesh, axis_name: str) -> int:
  """How many processes the devices along one mesh axis belong to."""
  axis = mesh.axis_names.index(axis_name)
  lines = np.moveaxis(mesh.devices, axis, 0).reshape(mesh.devices.shape[axis], -1)
  return max(len({getattr(d, "process_index", 0) for d in col}) for col in lines.T)


def _scale(shape, mesh: Mesh, pspec, grow: bool) -> tuple:
  out = list(shape)
  for dim, names in enumerate(spec_axes(pspec, len(shape))):
    k = math.prod(_processes_along(mesh, n) for n in names)
    if grow:
      out[dim] *= k
    elif out[dim] % k:
      raise ValueError(f"global dimension {dim} of size {out[dim]} does not split over {k} "
                       "processes")
    else:
      out[dim] //= k
  return tuple(out)


def _check(mesh, pspec):
  if not isinstance(mesh, Mesh):
    raise TypeError(f"expected a Mesh, got {type(mesh).__name__}")
  if not isinstance(pspec, P):
    raise TypeError(f"expected a PartitionSpec, got {pspec!r}")


def ltg_abstract_eval(arr, *, global_mesh, pspec):
  return arr.update(shape=_scale(arr.shape, global_mesh, pspec, grow=True))


def gtl_abstract_eval(arr, *, global_mesh, pspec):
  return arr.update(shape=_scale(arr.shape, global_mesh, pspec, grow=False))


def host_local_array_to_global_array_impl(arr, *, global_mesh, pspec):
  """This process's piece -> the global Array (each process passes its own piece)."""
  _check(global_mesh, pspec)
  if _is_global(arr):
    return arr  # already global
  value = _as_host(arr)
  shape = _scale(value.shape, global_mesh, pspec, grow=True)
  return array_constructors.make_array_from_process_local_data(
      NamedSharding(global_mesh, pspec), value, shape)


def local_mesh(mesh: Mesh) -> Mesh:
  """The part of `mesh` whose devices belong to this process (a sub-grid of it)."""
  here = xla_bridge.process_index()
  mine = np.vectorize(lambda d: getattr(d, "process_index", 0) == here, otypes=[bool])(
      mesh.devices)
  keep = [np.flatnonzero(np.moveaxis(mine, i, 0).reshape(mine.shape[i], -1).any(axis=1))
          for i in range(mine.ndim)]
  sub = mesh.devices[np.ix_(*keep)]
  if sub.size != int(mine.sum()):
    raise ValueError(f"the devices of process {here} do not form a sub-grid of the mesh "
                     f"{mesh}; they cannot hold a host-local array")
  return Mesh(sub, mesh.axis_names, mesh.axis_types)


def _local_box(arr: ArrayImpl) -> np.ndarray:
  """The values of the box of `arr` that this process's devices hold (the union of their
  blocks, which a mesh lays out as a sub-grid)."""
  index_map = arr.sharding.addressable_devices_indices_map(arr.shape)
  bounds = [(min(idx[d].indices(n)[0] for idx in index_map.values()),
             max(idx[d].indices(n)[1] for idx in index_map.values()))
            for d, n in enumerate(arr.shape)]
  out = np.empty([hi - lo for lo, hi in bounds], arr.dtype)
  by_device = {s.device: s for s in arr.addressable_shards}
  for device, idx in index_map.items():
    block = tuple(slice(s.indices(n)[0] - lo, s.indices(n)[1] - lo)
                  for s, n, (lo, _) in zip(idx, arr.shape, bounds))
    out[block] = np.asarray(by_device[device].data)
  return out


def global_array_to_host_local_array_impl(arr, *, global_mesh, pspec):
  """A global Array -> this process's piece of it, over this process's part of the mesh."""
  _check(global_mesh, pspec)
  target = NamedSharding(global_mesh, pspec)
  if not isinstance(arr, ArrayImpl):
    arr = api.device_put(_as_host(arr), target)
  if arr.sharding != target:
    arr = api.jit(lambda a: a, out_shardings=target)(arr)
  host = _local_box(arr)
  expected = _scale(arr.shape, global_mesh, pspec, grow=False)
  if host.shape != expected:
    raise ValueError(f"the blocks of process {xla_bridge.process_index()} form a box of shape "
                     f"{host.shape}, not the {expected} that {pspec} over the mesh gives")
  return api.device_put(host, NamedSharding(local_mesh(global_mesh), pspec))


host_local_array_to_global_array_p = core.Primitive("host_local_array_to_global_array")
host_local_array_to_global_array_p.def_impl(host_local_array_to_global_array_impl)
host_local_array_to_global_array_p.def_abstract_eval(ltg_abstract_eval)
global_array_to_host_local_array_p = core.Primitive("global_array_to_host_local_array")
global_array_to_host_local_array_p.def_impl(global_array_to_host_local_array_impl)
global_array_to_host_local_array_p.def_abstract_eval(gtl_abstract_eval)


def ltg_batcher(insert_axis, axis_data, vals_in, dims_in, global_mesh, pspec):
  """Batching: the batch axis is a new, unsplit dimension of the spec."""
  (x,), (d,) = vals_in, dims_in
  entries = list(pspec) + [None] * (core.get_aval(x).ndim - 1 - len(pspec))
  entries.insert(d, None)
  prim = (host_local_array_to_global_array_p if insert_axis
          else global_array_to_host_local_array_p)
  return prim.bind(x, global_mesh=global_mesh, pspec=P(*entries)), d


def _identity_lowering(ctx, x, **_):
  # Inside one program each process sees its own piece; the global view is the sharding's.
  if ctx.avals_out[0].shape != ctx.avals_in[0].shape:
    raise NotImplementedError("local/global conversion across processes inside jit needs the "
                              "multi-process runtime")
  return x


for _prim, _insert in ((host_local_array_to_global_array_p, True),
                       (global_array_to_host_local_array_p, False)):
  batching.batch_rules[_prim] = (
      lambda axis, vals, dims, *, global_mesh, pspec, _insert=_insert:
      ltg_batcher(_insert, axis, vals, dims, global_mesh, pspec))
  hlo.lowering_rules[_prim] = _identity_lowering
del _prim, _insert
# The two conversions are linear and each other's transposes.
ad.deflinear2(host_local_array_to_global_array_p,
              lambda ct, x, *, global_mesh, pspec: [global_array_to_host_local_array_p.bind(
                  ct, global_mesh=global_mesh, pspec=pspec)])
ad.deflinear2(global_array_to_host_local_array_p,
              lambda ct, x, *, global_mesh, pspec: [host_local_array_to_global_array_p.bind(
                  ct, global_mesh=global_mesh, pspec=pspec)])


def _per_leaf(fn_prim, inputs, global_mesh, pspecs):
  leaves, treedef = tree_flatten(inputs)
  if isinstance(pspecs, P) or pspecs is None:
    specs = [pspecs or P()] * len(leaves)
  else:
    specs, spec_tree = tree_flatten(pspecs, is_leaf=lambda s: isinstance(s, P) or s is None)
    if len(specs) != len(leaves):
      raise ValueError(f"pspecs has {len(specs)} entries for {len(leaves)} inputs")
    specs = [s or P() for s in specs]
  outs = [fn_prim.bind(x, global_mesh=global_mesh, pspec=s) for x, s in safe_zip(leaves, specs)]
  return tree_unflatten(treedef, outs)


def host_local_array_to_global_array(local_inputs, global_mesh, pspecs):
  """Each process's local piece -> the global Array over `global_mesh` laid out by `pspecs`."""
  return _per_leaf(host_local_array_to_global_array_p, local_inputs, global_mesh, pspecs)


def global_array_to_host_local_array(global_inputs, global_mesh, pspecs):
  """A global Array -> this process's piece of it (`pspecs` says how it is split)."""
  return _per_leaf(global_array_to_host_local_array_p, global_inputs, global_mesh, pspecs)
