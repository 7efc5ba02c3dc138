"""Preemption sync points: every process of a group stops at the same step.

A process told it will be preempted (SIGTERM, as schedulers send it) posts a notice in the
coordinator's key-value store. Each process learns of it on a watcher thread, which at
once posts the last step its program reported to `reached_sync_point`. The sync point is
the largest posted step plus one: no process has reported it yet, and a process that
asks about a step after its posted one waits for every process's post (they come from
the watcher threads, never blocked by the program's collectives), so all of them answer
True at the same step and only there. A group of one process needs no store.
"""

from __future__ import annotations

import signal
import threading

from jax._src import coordination_service

_NOTICE = "jax/preemption/notice"
_COUNTER = "jax/preemption/counter/"
_WATCH_MS = 10_000  # one blocking read at a time; the loop ends when the client does


class PreemptionSyncManager:
  def __init__(self, client, process_id: int, num_processes: int, timeout_s: float):
    self._client, self._pid, self._n = client, process_id, num_processes
    self._timeout_ms = int(1000 * timeout_s)
    self._lock = threading.Lock()
    self._last_step: int | None = None
    self._posted: int | None = None  # this process's step when the notice reached it
    self._sync_point: int | None = None
    self._previous_handler = None
    if threading.current_thread() is threading.main_thread():
      # Signal handlers can only be installed from the main thread; a group joined from
      # another thread gets notices from the other processes only.
      self._previous_handler = signal.signal(signal.SIGTERM, self._on_sigterm)
    if client is not None:
      threading.Thread(target=self._watch, name="jax-preemption-watcher", daemon=True).start()

  def _on_sigterm(self, signum, frame) -> None:
    if self._client is None:
      self._noticed()
    else:
      # No RPC inside a signal handler: the main thread may be inside one already.
      threading.Thread(target=self._post_notice, daemon=True).start()

  def _post_notice(self) -> None:
    try:
      self._client.key_value_set(_NOTICE, str(self._pid), allow_overwrite=True)
    except coordination_service.CoordinationError:
      pass  # the group is gone: there is nobody left to stop in step with

  def _watch(self) -> None:
    while True:
      try:
        self._client.blocking_key_value_get(_NOTICE, _WATCH_MS)
        break
      except coordination_service.CoordinationError as e:
        if self._client.error is not None or "timed out" not in str(e):
          return  # shut down or broken: no notice will come
      except ValueError:
        return  # the channel was closed at shutdown
    self._noticed()

  def _noticed(self) -> None:
    with self._lock:
      if self._posted is not None:
        return
      self._posted = -1 if self._last_step is None else self._last_step
    if self._client is None:
      self._sync_point = self._posted + 1
      return
    try:
      self._client.key_value_set(f"{_COUNTER}{self._pid}", str(self._posted))
    except coordination_service.CoordinationError:
      pass  # the others then fail to read it and say why

  def reached_sync_point(self, step: int) -> bool:
    step = int(step)
    with self._lock:
      self._last_step = step
      if self._posted is None:
        return False
    if self._sync_point is None:
      counters = [int(self._client.blocking_key_value_get(f"{_COUNTER}{q}", self._timeout_ms))
                  for q in range(self._n)]
      self._sync_point = max(counters) + 1
    return step == self._sync_point

  def close(self) -> None:
    """Gives SIGTERM back to the handler it had before the group was joined."""
    if self._previous_handler is not None:
      try:
        signal.signal(signal.SIGTERM, self._previous_handler)
      except ValueError:
        pass  # not on the main thread: the handler stays (it only sets a flag)
      self._previous_handler = None
