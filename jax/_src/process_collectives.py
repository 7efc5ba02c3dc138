"""Host values exchanged between the processes of a multi-process program.

What `multihost_utils` needs when there is more than one process: each process puts its
value on every one of its local devices, and one `pmap` over the devices of all
processes all-gathers them, so the exchange runs on the same cross-process collectives
as any other program (no side channel). Device d of process p holds p's value; the
first device of each process gives one row per process.
"""

from __future__ import annotations

import numpy as np

from jax._src import array_constructors
from jax._src import pmap
from jax._src import xla_bridge
from jax._src.lax import parallel
from jax._src.sharding import NamedSharding


def _gather_rows(value: np.ndarray) -> np.ndarray:
  """[process_count, *value.shape]: every process's `value`, in process order."""
  local = xla_bridge.local_device_count()
  stacked = np.broadcast_to(value, (local,) + value.shape)
  gathered = pmap.pmap(lambda v: parallel.all_gather(v, "processes"),
                       axis_name="processes")(stacked)
  # Row d of the gathered axis is global device d; each process's devices are
  # consecutive, so every `local`-th row is one process's value.
  return np.asarray(gathered)[0][::local]


def allgather(value: np.ndarray, tiled: bool) -> np.ndarray:
  rows = _gather_rows(value)
  if not tiled:
    return rows
  if value.ndim == 0:
    raise ValueError("process_allgather(tiled=True) needs leaves of rank >= 1, got a scalar")
  return np.concatenate(list(rows), axis=0)


def broadcast(value: np.ndarray, is_source: bool) -> np.ndarray:
  """The source process's value on every process (exactly one process is the source)."""
  flags = _gather_rows(np.asarray(bool(is_source)))
  sources = np.flatnonzero(flags)
  if len(sources) != 1:
    raise ValueError(f"broadcast_one_to_all needs exactly one source process, got "
                     f"{len(sources)} (processes {sources.tolist()} passed is_source=True)")
  return _gather_rows(value)[sources[0]]


def global_from_local(value: np.ndarray, mesh, pspec, global_shape) -> object:
  """The global Array whose blocks on this process's devices come from `value`."""
  return array_constructors.make_array_from_process_local_data(
      NamedSharding(mesh, pspec), value, global_shape)


def local_from_global(arr, mesh, pspec) -> np.ndarray:
  """This process's box of the global Array `arr` (the union of its devices' blocks)."""
  return _local_box(arr, NamedSharding(mesh, pspec))[1]


def global_value(arr) -> np.ndarray:
  """The whole value of an Array spread over processes, on every process: each
  process's box is all-gathered with where it starts (boxes of one shape: the even
  splits a mesh gives)."""
  starts, box = _local_box(arr, arr.sharding)
  boxes, all_starts = _gather_rows(box), _gather_rows(np.asarray(starts, np.int64))
  out = np.empty(arr.shape, arr.dtype)
  for piece, lo in zip(boxes, all_starts):
    out[tuple(slice(int(a), int(a) + n) for a, n in zip(lo, piece.shape))] = piece
  return out


def _local_box(arr, sharding) -> tuple[list[int], np.ndarray]:
  """Where this process's box of `arr` starts, and its values."""
  index_map = sharding.addressable_devices_indices_map(arr.shape)
  bounds = [(min(idx[d].indices(n)[0] for idx in index_map.values()),
             max(idx[d].indices(n)[1] for idx in index_map.values()))
            for d, n in enumerate(arr.shape)]
  out = np.empty([hi - lo for lo, hi in bounds], arr.dtype)
  by_device = {s.device: s for s in arr.addressable_shards}
  for device, idx in index_map.items():
    block = tuple(slice(s.indices(n)[0] - lo, s.indices(n)[1] - lo)
                  for s, n, (lo, _) in zip(idx, arr.shape, bounds))
    out[block] = np.asarray(by_device[device].data)
  return [lo for lo, _ in bounds], out
