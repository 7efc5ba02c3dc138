"""Utilities for programs that run as several processes (`jax.experimental.multihost_utils`).

Every process holds the devices `jax.local_devices()`; a global Array spans the
devices of all processes. The conversions between a process's local piece and the
global array are primitives whose shapes follow from how many processes a mesh axis
spans. Collectives between processes (allgather, broadcast, barrier) go through
jit computations over all devices, so on a single process they reduce to the local
values, computed the same way.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
from typing import Any

import numpy as np

from jax._src import api
from jax._src import core
from jax._src import distributed
from jax._src import process_collectives
from jax._src import xla_bridge
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lowering import hlo
from jax._src.sharding import Mesh, NamedSharding, PartitionSpec as P
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


def process_allgather(in_tree, tiled: bool = False):
  """Every process's value of each leaf, as numpy arrays on every process.

  Not tiled: stacked along a new leading axis of size process_count(). Tiled:
  concatenated along axis 0. A global (multi-process) Array is already complete and is
  returned whole.
  """
  def gather(x):
    if _process_count() > 1 and getattr(x, "is_fully_addressable", True) is False:
      return process_collectives.global_value(x)  # a global Array: its whole value
    value = _as_host(x)
    if _process_count() > 1:
      return process_collectives.allgather(value, tiled)
    pieces = [value] * _process_count()
    if tiled:
      if value.ndim == 0:
        raise ValueError("process_allgather(tiled=True) needs leaves of rank >= 1, got a "
                         "scalar")
      return np.concatenate(pieces, axis=0)
    return np.stack(pieces, axis=0)
  return tree_map(gather, in_tree)


def broadcast_one_to_all(in_tree, is_source: bool | None = None):
  """Process 0's value of each leaf (or the source process's), on every process."""
  if is_source is None:
    is_source = xla_bridge.process_index() == 0
  if _process_count() > 1:
    return tree_map(lambda x: api.device_put(process_collectives.broadcast(_as_host(x),
                                                                           is_source)), in_tree)
  if not is_source and _process_count() == 1:
    raise ValueError("broadcast_one_to_all: no process is the source (the only process "
                     "passed is_source=False)")
  return tree_map(lambda x: api.device_put(_as_host(x)), in_tree)


def assert_equal(in_tree, fail_message: str = ""):
  """Raises AssertionError unless every process passed equal values for every leaf."""
  gathered = process_allgather(in_tree)
  leaves, _ = tree_flatten(gathered)
  for leaf in leaves:
    if not all(np.array_equal(leaf[0], other) for other in leaf[1:]):
      raise AssertionError(f"{fail_message} Expected all processes to have the same value, "
                           f"got {leaf}")


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
  for dim, names in enumerate(pspec._normalized(len(shape))):
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
  _check(global_mesh, pspec)
  value = _as_host(arr)
  shape = _scale(value.shape, global_mesh, pspec, grow=True)
  if _process_count() > 1:
    return process_collectives.global_from_local(value, global_mesh, pspec, shape)
  if shape != value.shape:
    raise NotImplementedError("assembling a global array from several processes needs the "
                              "multi-process runtime")
  return api.device_put(value, NamedSharding(global_mesh, pspec))


def global_array_to_host_local_array_impl(arr, *, global_mesh, pspec):
  _check(global_mesh, pspec)
  if _process_count() > 1:
    local = process_collectives.local_from_global(arr, global_mesh, pspec)
    return api.device_put(local)
  value = _as_host(arr)
  _scale(value.shape, global_mesh, pspec, grow=False)
  return api.device_put(value, NamedSharding(global_mesh, pspec))


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
