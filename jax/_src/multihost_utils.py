"""Utilities for programs that run as several processes (`jax.experimental.multihost_utils`).

Every process holds the devices `jax.local_devices()`; a global Array spans the
devices of all processes. Values move between processes only through programs over
all devices: `process_mesh()` puts each process's devices in one row, a value per
process becomes a global array with one row per process
(`make_array_from_process_local_data`), and a shard_map all-gathers the rows. So the
same code serves one process and many: collectives between processes are the
runtime's business, not this module's.
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
from jax._src import process_collectives
from jax._src import xla_bridge
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lowering import hlo
from jax._src.array import ArrayImpl
from jax._src.lax import parallel
from jax._src.sharding import AxisType, Mesh, NamedSharding, PartitionSpec as P, spec_axes
from jax._src.tree_util import tree_flatten, tree_map, tree_unflatten
from jax._src.util import safe_zip

__all__ = ["Any", "P", "safe_zip", "tree_flatten", "tree_unflatten"]


class ProcessFailureError(RuntimeError):
  """Raised when devices of another process stopped responding."""

  def __init__(self, failed_devices):
    self.failed_devices = list(failed_devices)
    super().__init__(f"devices failed: {self.failed_devices}")


def _process_count() -> int:
  return xla_bridge.process_count()


def _as_host(x) -> np.ndarray:
  if isinstance(x, core.Tracer):
    raise TypeError("multihost_utils functions take concrete values, not traced ones; call "
                    "them outside jit/grad/vmap.")
  return np.asarray(x)


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


def _allgather_rows(value: np.ndarray) -> np.ndarray:
  """Every process's `value` (same shape and dtype everywhere), stacked along a new leading
  axis in process order. The bytes travel as uint8, so every dtype (float64 without x64,
  bool, complex) arrives bit for bit."""
  value = np.asarray(value, order="C")  # (ascontiguousarray would make scalars 1-d)
  raw = value.reshape(1, -1).view(np.uint8)  # (1, size * itemsize)
  mesh = process_mesh()
  n = mesh.devices.shape[0]
  rows = array_constructors.make_array_from_process_local_data(
      NamedSharding(mesh, P("processes")), raw, (n, raw.shape[1]))
  gathered = _gather_rows_fn(mesh)(rows)
  host = np.asarray(gathered.addressable_shards[0].data)
  return host.view(value.dtype).reshape((n,) + value.shape)


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
  concatenated along axis 0. A global Array (one spanning several processes' devices) is
  already one value: it is returned whole.
  """
  def gather(x):
    if _process_count() > 1:
      if getattr(x, "is_fully_addressable", True) is False:
        return process_collectives.global_value(x)  # a global Array: its whole value
      return process_collectives.allgather(_as_host(x), tiled)
    if isinstance(x, ArrayImpl) and not x.is_fully_addressable:
      return replicated_value(x)
    stacked = _allgather_rows(_as_host(x))
    if not tiled:
      return stacked
    if stacked.ndim == 1:  # scalars: one per process
      return stacked if stacked.shape[0] > 1 else stacked.reshape(())
    return stacked.reshape((-1,) + stacked.shape[2:])
  return tree_map(gather, in_tree)


def broadcast_one_to_all(in_tree, is_source: bool | None = None):
  """The source process's value of each leaf (process 0's unless `is_source` says), as
  numpy arrays on every process. Exactly one process must be the source."""
  if is_source is None:
    is_source = xla_bridge.process_index() == 0
  if _process_count() > 1:
    return tree_map(lambda x: api.device_put(process_collectives.broadcast(_as_host(x),
                                                                           is_source)), in_tree)
  flags = _allgather_rows(np.asarray(bool(is_source)))
  sources = [int(i) for i in np.flatnonzero(flags)]
  if len(sources) != 1:
    raise ValueError(f"broadcast_one_to_all needs exactly one source process, got "
                     f"{len(sources)} (processes {sources} passed is_source=True)")
  return tree_map(lambda x: np.asarray(_allgather_rows(_as_host(x))[sources[0]]), in_tree)


def assert_equal(in_tree, fail_message: str = ""):
  """Raises AssertionError unless every process passed equal values for every leaf."""
  gathered, _ = tree_flatten(process_allgather(in_tree))
  if not all(np.array_equal(leaf[0], other) for leaf in gathered for other in leaf[1:]):
    # Every process sees every value, so all of them raise (none waits for the others).
    expected = tree_map(lambda g: g[0], process_allgather(in_tree))
    raise AssertionError(f"{fail_message} Expected: {expected}; got: {in_tree}.")


def sync_global_devices(name: str):
  """A barrier across all processes; they must reach it with the same `name`."""
  digest = np.frombuffer(hashlib.sha256(name.encode()).digest()[:4], dtype=np.uint32)
  assert_equal(digest.astype(np.int64), f"sync_global_devices name mismatch ('{name}')")


def reached_preemption_sync_point(step_id: int) -> bool:
  """Whether every process should stop at `step_id` to save a checkpoint before preemption."""
  if not distributed.is_initialized():
    raise RuntimeError("Preemption sync manager has not been initialized. Make sure "
                       "jax.distributed.initialize() is called.")
  return False


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
  if isinstance(arr, ArrayImpl) and not arr.is_fully_addressable:
    return arr  # already global
  value = _as_host(arr)
  shape = _scale(value.shape, global_mesh, pspec, grow=True)
  if _process_count() > 1:
    return process_collectives.global_from_local(value, global_mesh, pspec, shape)
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


def global_array_to_host_local_array_impl(arr, *, global_mesh, pspec):
  """A global Array -> this process's piece of it, over this process's part of the mesh."""
  _check(global_mesh, pspec)
  if _process_count() > 1:
    return api.device_put(process_collectives.local_from_global(arr, global_mesh, pspec))
  if not isinstance(arr, ArrayImpl):
    arr = api.device_put(_as_host(arr), NamedSharding(global_mesh, pspec))
  target = NamedSharding(global_mesh, pspec)
  if arr.sharding != target:
    arr = api.jit(lambda a: a, out_shardings=target)(arr)
  shape = _scale(arr.shape, global_mesh, pspec, grow=False)
  host = np.empty(shape, dtype=arr.dtype)
  # Each addressable block lands where it sits among this process's blocks.
  starts = [sorted({s.index[d].indices(arr.shape[d])[0] for s in arr.addressable_shards})
            for d in range(arr.ndim)]
  for shard in arr.addressable_shards:
    block = np.asarray(shard.data)
    at = [starts[d].index(shard.index[d].indices(arr.shape[d])[0]) * block.shape[d]
          for d in range(arr.ndim)]
    host[tuple(slice(a, a + n) for a, n in zip(at, block.shape))] = block
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
