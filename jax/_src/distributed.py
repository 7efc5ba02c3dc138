"""`jax.distributed`: joining this process to a multi-process program.

The process group is described by the coordinator address, the number of processes
and this process's id (from the arguments or the `JAX_COORDINATOR_ADDRESS`,
`JAX_NUM_PROCESSES`, `JAX_PROCESS_ID` environment variables). A group of one process
needs no coordinator; larger groups need the cross-process collectives of the CPU
plugin, which this runtime does not provide yet, and are refused with that reason.
"""

from __future__ import annotations

import os
import threading


class _State:
  def __init__(self):
    self.lock = threading.Lock()
    self.initialized = False
    self.coordinator_address: str | None = None
    self.num_processes = 1
    self.process_id = 0


_state = _State()


def _env_int(name: str, value):
  if value is not None:
    return int(value)
  raw = os.environ.get(name)
  return None if raw is None else int(raw)


def initialize(coordinator_address: str | None = None, num_processes: int | None = None,
               process_id: int | None = None, local_device_ids=None,
               cluster_detection_method: str | None = None, initialization_timeout: int = 300,
               heartbeat_timeout_seconds: int = 100, shutdown_timeout_seconds: int = 300,
               coordinator_bind_address: str | None = None, slice_index: int | None = None,
               partition_index: int | None = None) -> None:
  """Join the process group (call once, before any other JAX call that uses devices)."""
  del local_device_ids, initialization_timeout, heartbeat_timeout_seconds
  del shutdown_timeout_seconds, coordinator_bind_address, slice_index, partition_index
  if cluster_detection_method not in (None, "deactivate"):
    raise ValueError(f"cluster_detection_method {cluster_detection_method!r} is not known "
                     "here; pass coordinator_address, num_processes and process_id")
  with _state.lock:
    if _state.initialized:
      raise RuntimeError("jax.distributed.initialize should only be called once.")
    address = coordinator_address or os.environ.get("JAX_COORDINATOR_ADDRESS")
    n = _env_int("JAX_NUM_PROCESSES", num_processes)
    pid = _env_int("JAX_PROCESS_ID", process_id)
    n = 1 if n is None else n
    pid = 0 if pid is None else pid
    if n < 1 or not 0 <= pid < n:
      raise ValueError(f"process_id must be in [0, num_processes); got process_id={pid} and "
                       f"num_processes={n}")
    if n > 1:
      if address is None:
        raise ValueError("coordinator_address should be defined when num_processes > 1.")
      raise NotImplementedError(
          f"a group of {n} processes needs cross-process collectives, which this runtime "
          "does not provide yet; run a single process (num_processes=1)")
    _state.coordinator_address = address
    _state.num_processes, _state.process_id = n, pid
    _state.initialized = True


def is_initialized() -> bool:
  return _state.initialized


def shutdown() -> None:
  """Leave the process group (a no-op if initialize was not called)."""
  with _state.lock:
    _state.initialized = False
    _state.coordinator_address = None
    _state.num_processes, _state.process_id = 1, 0
