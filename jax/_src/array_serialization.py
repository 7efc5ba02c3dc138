"""Saving and restoring jax.Arrays with TensorStore (`jax.experimental.array_serialization`).

Each process writes the blocks of an array that it holds (one replica of each: the
shards whose replica_id is 0) into a TensorStore array of the array's global shape, and
reads back the blocks its devices need for a given sharding. The files are TensorStore's
own formats (zarr by default), so checkpoints written here and by JAX read each other.
"""

from __future__ import annotations

import asyncio
import os
import re
import threading
from typing import Any, Callable, Sequence

import numpy as np

from jax._src import array_constructors
from jax._src import xla_bridge
from jax._src.array import ArrayImpl
from jax._src.sharding import Sharding

_REMOTE_URL = re.compile(r"^(gs|s3)://")


def _tensorstore():
  # TensorStore is optional for jax: only this module needs it.
  try:
    import tensorstore  # optional dependency, imported on first use
  except ImportError as e:
    raise ImportError("jax.experimental.array_serialization needs the tensorstore package "
                      "(pip install tensorstore)") from e
  return tensorstore


def is_remote_storage(tspec: dict[str, Any] | str) -> bool:
  """Whether a TensorStore spec (or a path) names cloud storage (gs://, s3://)."""
  if isinstance(tspec, str):
    return bool(_REMOTE_URL.match(tspec))
  kvstore = tspec.get("kvstore", {})
  if isinstance(kvstore, str):
    return bool(_REMOTE_URL.match(kvstore))
  if kvstore.get("driver") in ("gcs", "s3"):
    return True
  base = kvstore.get("base")
  return base is not None and is_remote_storage({"kvstore": base})


def _kvstore(path: str) -> dict[str, Any]:
  match = re.match(r"^gs://([^/]*)/(.*)$", path)
  if match:
    return {"driver": "gcs", "bucket": match.group(1), "path": match.group(2)}
  if path.startswith("s3://"):
    bucket, _, key = path[len("s3://"):].partition("/")
    return {"driver": "s3", "bucket": bucket, "path": key}
  return {"driver": "file", "path": os.path.abspath(path)}


def get_tensorstore_spec(ckpt_path: str, ocdbt: bool = False) -> dict[str, Any]:
  """The TensorStore spec of an array stored at `ckpt_path` (a local path or gs://...):
  zarr over the file or cloud store, or with `ocdbt` zarr3 inside an OCDBT database
  in the path's parent folder (the array being the path's last component)."""
  if not ocdbt:
    return {"driver": "zarr", "kvstore": _kvstore(ckpt_path)}
  root, name = os.path.split(ckpt_path.rstrip("/"))
  return {"driver": "zarr3", "kvstore": {"driver": "ocdbt", "base": _kvstore(root),
                                         "path": name}}


def _ts_dtype(dtype) -> Any:
  return _tensorstore().dtype(np.dtype(dtype).name)


def _written_shards(arr: ArrayImpl, replica_id: int):
  """(index, host value) of the blocks this process writes: one replica of each."""
  for shard in arr.addressable_shards:
    if shard.replica_id == replica_id:
      yield shard.index, np.asarray(shard.data)


async def async_serialize(arr_inp, tensorstore_spec, commit_future=None, context=None,
                          primary_host: int | None = 0, replica_id: int = 0,
                          transaction=None):
  """Write `arr_inp` (a jax.Array) to the TensorStore `tensorstore_spec`. The array is
  created (or replaced) with the array's global shape and dtype by `primary_host` (all
  processes when None); each process writes its blocks. With `commit_future` (a list),
  the commit futures of the writes are appended to it instead of awaited."""
  ts = _tensorstore()
  if not isinstance(arr_inp, ArrayImpl):
    raise TypeError(f"async_serialize expects a jax.Array, got {type(arr_inp).__name__}")
  spec = dict(tensorstore_spec)
  common = dict(dtype=_ts_dtype(arr_inp.dtype), shape=list(arr_inp.shape))
  if context is not None:
    common["context"] = context
  if transaction is not None:
    common["transaction"] = transaction
  if primary_host is None or xla_bridge.process_index() == primary_host:
    store = await ts.open(ts.Spec(spec), create=True, delete_existing=True, **common)
  else:  # the primary host creates the array; the others write into it
    store = await ts.open(ts.Spec(spec), open=True, assume_metadata=True, **common)
  writes = [store[index].write(value) for index, value in _written_shards(arr_inp, replica_id)]
  if commit_future is not None:
    commit_future.extend(w.commit for w in writes)
    await asyncio.gather(*(w.copy for w in writes))
  else:
    await asyncio.gather(*writes)


def run_serialization(arrays: Sequence, tensorstore_specs: Sequence) -> None:
  """Write each array to its TensorStore spec, and wait until all are stored."""
  if len(arrays) != len(tensorstore_specs):
    raise ValueError(f"{len(arrays)} arrays but {len(tensorstore_specs)} tensorstore specs")

  async def _all():
    await asyncio.gather(*(async_serialize(a, s) for a, s in zip(arrays, tensorstore_specs)))

  asyncio.run(_all())


async def async_deserialize(user_in_sharding, tensorstore_spec, global_shape=None, dtype=None,
                            byte_limiter=None, context=None, assume_metadata: bool = False):
  """The array stored at `tensorstore_spec`, placed with `user_in_sharding` (each process
  reads the blocks its devices hold). `global_shape` reads a part of (or pads) the
  stored array; `dtype` converts it."""
  del byte_limiter, assume_metadata  # reads here are bounded by the blocks a device holds
  ts = _tensorstore()
  if not isinstance(user_in_sharding, Sharding):
    raise TypeError("async_deserialize expects a jax.sharding.Sharding, got "
                    f"{type(user_in_sharding).__name__}")
  kwargs = {"open": True}
  if context is not None:
    kwargs["context"] = context
  store = await ts.open(ts.Spec(dict(tensorstore_spec)), **kwargs)
  shape = tuple(store.shape) if global_shape is None else tuple(global_shape)
  out_dtype = np.dtype(store.dtype.numpy_dtype) if dtype is None else np.dtype(dtype)
  indices = user_in_sharding.addressable_devices_indices_map(shape)
  blocks = {}
  for device, index in indices.items():
    blocks[device] = await _read_block(store, index, shape, out_dtype)
  return array_constructors.make_array_from_callback(
      shape, user_in_sharding, lambda index: _block_at(blocks, indices, index))


def _block_at(blocks, indices, index):
  for device, idx in indices.items():
    if idx == index:
      return blocks[device]
  raise KeyError(f"no block read for index {index}")


async def _read_block(store, index, shape, dtype) -> np.ndarray:
  """The block `index` of an array of `shape`, zero where it lies past the stored array."""
  stored = tuple(store.shape)
  want = [slice(*s.indices(n)) for s, n in zip(index, shape)] if index else []
  out = np.zeros(tuple(len(range(*s.indices(n))) for s, n in zip(want, shape)), dtype)
  inside = tuple(slice(s.start, min(s.stop, m)) for s, m in zip(want, stored))
  if all(s.stop > s.start for s in inside) or not inside:
    value = await store[inside].read() if inside else await store.read()
    out[tuple(slice(0, s.stop - s.start) for s in inside)] = np.asarray(value).astype(dtype)
  return out


def run_deserialization(shardings: Sequence, tensorstore_specs: Sequence,
                        global_shapes: Sequence | None = None,
                        dtypes_: Sequence | None = None, concurrent_gb: int = 32) -> list:
  """The arrays stored at the specs, placed with the shardings."""
  del concurrent_gb
  n = len(shardings)
  global_shapes = [None] * n if global_shapes is None else global_shapes
  dtypes_ = [None] * n if dtypes_ is None else dtypes_

  async def _all():
    return await asyncio.gather(*(
        async_deserialize(s, spec, shape, dt)
        for s, spec, shape, dt in zip(shardings, tensorstore_specs, global_shapes, dtypes_)))

  return list(asyncio.run(_all()))


class GlobalAsyncCheckpointManager:
  """Writes arrays in the background: `serialize` returns once each array's blocks have
  been copied off the devices, and a thread finishes the writes, then calls
  `on_commit_callback`. `wait_until_finished` waits for that (and raises what failed);
  `check_for_errors` raises a failure without waiting."""

  def __init__(self, timeout_secs: int = 300):
    self._timeout_secs = timeout_secs
    self._thread: threading.Thread | None = None
    self._error: BaseException | None = None

  def check_for_errors(self) -> None:
    if self._error is not None:
      error, self._error = self._error, None
      raise RuntimeError("an asynchronous checkpoint write failed") from error

  def wait_until_finished(self) -> None:
    if self._thread is not None:
      self._thread.join(self._timeout_secs)
      if self._thread.is_alive():
        raise TimeoutError(f"checkpoint writes did not finish in {self._timeout_secs} s")
      self._thread = None
    self.check_for_errors()

  def serialize(self, arrays, tensorstore_specs, *, on_commit_callback: Callable[[], None],
                transaction=None) -> None:
    self.wait_until_finished()
    if len(arrays) != len(tensorstore_specs):
      raise ValueError(f"{len(arrays)} arrays but {len(tensorstore_specs)} tensorstore specs")
    # The host copies are taken now, so the caller may change or delete the arrays.
    pending = [(list(_written_shards(a, 0)), a.shape, a.dtype, spec)
               for a, spec in zip(arrays, tensorstore_specs)]

    def _write_all():
      try:
        asyncio.run(_write_host_blocks(pending, transaction))
        on_commit_callback()
      except BaseException as e:  # re-raised by wait_until_finished / check_for_errors
        self._error = e

    self._thread = threading.Thread(target=_write_all, name="array_serialization")
    self._thread.start()

  def serialize_with_paths(self, arrays, paths, *, on_commit_callback, transaction=None):
    self.serialize(arrays, [get_tensorstore_spec(p) for p in paths],
                   on_commit_callback=on_commit_callback, transaction=transaction)

  def deserialize(self, shardings, tensorstore_specs, global_shapes=None, dtypes=None,
                  concurrent_gb: int = 32) -> list:
    self.wait_until_finished()
    return run_deserialization(shardings, tensorstore_specs, global_shapes, dtypes,
                               concurrent_gb)

  def deserialize_with_paths(self, shardings, paths, global_shapes=None, dtypes=None,
                             concurrent_gb: int = 32) -> list:
    return self.deserialize(shardings, [get_tensorstore_spec(p) for p in paths],
                            global_shapes, dtypes, concurrent_gb)


async def _write_host_blocks(pending, transaction) -> None:
  ts = _tensorstore()

  async def _one(blocks, shape, dtype, spec):
    kwargs = {} if transaction is None else {"transaction": transaction}
    store = await ts.open(ts.Spec(dict(spec)), create=True, delete_existing=True,
                          dtype=_ts_dtype(dtype), shape=list(shape), **kwargs)
    await asyncio.gather(*(store[index].write(value) for index, value in blocks))

  await asyncio.gather(*(_one(*p) for p in pending))

