"""The coordinator of a multi-process program: a key-value store, barriers and liveness.

Process 0 runs `CoordinationService` (a gRPC server); every process, process 0 included,
talks to it through a `CoordinationClient`. The RPCs are gRPC unary calls over raw bytes
(generic handlers, so no generated code): each request and reply is a small JSON object
and values travel base64-encoded.

What the service guarantees, so that no process ever waits forever:
- `connect` admits exactly `num_processes` distinct process ids, refuses a second process
  with an id already taken and a process that counts a different number of processes,
  and returns only once everyone is connected (or fails naming who is missing);
- every process sends heartbeats; a process silent for longer than the heartbeat timeout
  is declared lost, and every blocked or later call of the others fails naming it;
- blocking gets and barriers take a timeout and fail with a message saying what was
  awaited.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from concurrent import futures
from typing import Any

_SERVICE = "jax.Coordination"


class CoordinationError(RuntimeError):
  """A coordination call failed: a lost process, a refused process, a timeout."""


def import_grpc():
  try:
    import grpc  # an optional dependency: only multi-process programs need it
  except ImportError as e:
    raise ImportError("jax.distributed with more than one process needs gRPC for its "
                      "coordinator: pip install grpcio") from e
  return grpc


def _encode(obj: dict[str, Any]) -> bytes:
  return json.dumps(obj).encode()


def _decode(raw: bytes) -> dict[str, Any]:
  return json.loads(raw.decode())


def split_address(address: str) -> tuple[str, int]:
  """('host', port) of 'host:port' or '[v6]:port', with a clear error for anything else."""
  host, sep, port = address.rpartition(":")
  if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
    raise ValueError(f"coordinator_address must be 'host:port' (e.g. '10.0.0.1:1234'), "
                     f"got {address!r}")
  return host.strip("[]"), int(port)


# ------------------------------------------------------------------ service


class _DaemonExecutor(futures.Executor):
  """One daemon thread per RPC. A ThreadPoolExecutor's workers are joined when the
  interpreter exits, before atexit handlers run: a worker blocked in a barrier that
  waits for this very process's atexit shutdown would then never finish."""

  def submit(self, fn, /, *args, **kwargs):
    future = futures.Future()

    def run():
      if not future.set_running_or_notify_cancel():
        return
      try:
        future.set_result(fn(*args, **kwargs))
      except BaseException as e:  # handed to gRPC through the future
        future.set_exception(e)
    threading.Thread(target=run, name="jax-coordinator-rpc", daemon=True).start()
    return future


class _ServiceState:
  """Everything the service knows, under one condition variable."""

  def __init__(self, num_processes: int, heartbeat_timeout: float):
    self.cv = threading.Condition()
    self.num_processes = num_processes
    self.heartbeat_timeout = heartbeat_timeout
    self.incarnations: dict[int, str] = {}  # process id -> the connected client's token
    self.last_seen: dict[int, float] = {}
    self.kv: dict[str, bytes] = {}
    self.barriers: dict[str, set[int]] = {}
    self.shut_down: set[int] = set()
    self.error: str | None = None  # set once a process is lost; every call then fails

  def fail_if_broken(self) -> None:
    if self.error is not None:
      raise CoordinationError(self.error)

  def wait(self, ready, timeout_s: float, what: str) -> None:
    """Waits under `cv` until ready() or the deadline; a lost process ends it early."""
    deadline = time.monotonic() + timeout_s
    while True:
      self.fail_if_broken()
      if ready():
        return
      left = deadline - time.monotonic()
      if left <= 0:
        raise CoordinationError(f"timed out after {timeout_s:g} s waiting for {what}")
      self.cv.wait(min(left, 0.5))


class CoordinationService:
  """The coordinator's gRPC server (process 0)."""

  def __init__(self, bind_address: str, num_processes: int, heartbeat_timeout: float):
    grpc = import_grpc()
    self._state = _ServiceState(num_processes, heartbeat_timeout)
    # Blocking calls hold a thread each; at most a few per process at a time, so a
    # thread per call is cheap and no call can starve the heartbeats.
    self._server = grpc.server(_DaemonExecutor(),
                               maximum_concurrent_rpcs=16 * num_processes + 16)
    handlers = {name: grpc.unary_unary_rpc_method_handler(self._wrap(fn))
                for name, fn in self._methods().items()}
    self._server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(_SERVICE,
                                                                                handlers),))
    try:
      port = self._server.add_insecure_port(bind_address)
    except RuntimeError as e:
      raise CoordinationError(f"the coordinator could not listen on {bind_address}: {e} "
                              "(is the port in use? pick another coordinator port)") from e
    if port == 0:
      raise CoordinationError(f"the coordinator could not listen on {bind_address} "
                              "(is the port in use? pick another coordinator port)")
    self._stop = threading.Event()
    self._watchdog = threading.Thread(target=self._watch, name="jax-coordinator-watchdog",
                                      daemon=True)
    self._server.start()
    self._watchdog.start()

  def _methods(self):
    return {"Ping": lambda req: None, "Connect": self._connect, "Heartbeat": self._heartbeat, "Set": self._set,
            "Get": self._get, "TryGet": self._try_get, "DirGet": self._dir_get,
            "Delete": self._delete, "Barrier": self._barrier, "Shutdown": self._shutdown}

  @staticmethod
  def _wrap(fn):
    def handler(request: bytes, context) -> bytes:
      del context
      try:
        return _encode({"ok": fn(_decode(request))})
      except CoordinationError as e:
        return _encode({"error": str(e)})
    return handler

  def _watch(self) -> None:
    """Declares lost every connected process whose heartbeats stopped."""
    s = self._state
    while not self._stop.wait(min(1.0, s.heartbeat_timeout / 4)):
      with s.cv:
        if s.error is not None:
          continue
        now = time.monotonic()
        lost = sorted(p for p, t in s.last_seen.items()
                      if p not in s.shut_down and now - t > s.heartbeat_timeout)
        if lost:
          names = ", ".join(str(p) for p in lost)
          s.error = (f"process {names} stopped sending heartbeats for more than "
                     f"{s.heartbeat_timeout:g} s (it died or is unreachable); the "
                     "multi-process program cannot continue")
          s.cv.notify_all()

  def _connect(self, req) -> None:
    s = self._state
    pid, n, token = int(req["process_id"]), int(req["num_processes"]), req["token"]
    with s.cv:
      s.fail_if_broken()
      if n != s.num_processes:
        raise CoordinationError(
            f"process {pid} was started with num_processes={n}, but the coordinator "
            f"(process 0) has num_processes={s.num_processes}; start every process with the "
            "same num_processes")
      if not 0 <= pid < s.num_processes:
        raise CoordinationError(f"process_id={pid} is outside [0, {s.num_processes})")
      if s.incarnations.get(pid, token) != token:
        raise CoordinationError(
            f"two processes were started with process_id={pid}; give each process its own "
            f"process_id in [0, {s.num_processes})")
      s.incarnations[pid] = token
      s.last_seen[pid] = time.monotonic()
      s.cv.notify_all()
      missing = lambda: sorted(set(range(s.num_processes)) - set(s.incarnations))
      try:
        s.wait(lambda: not missing(), float(req["timeout_s"]), "every process to connect")
      except CoordinationError as e:
        if s.error is None:
          raise CoordinationError(f"{e}; processes {missing()} of {s.num_processes} never "
                                  "connected (were they started, with this coordinator "
                                  "address?)") from None
        raise

  def _heartbeat(self, req) -> None:
    s = self._state
    with s.cv:
      pid = int(req["process_id"])
      if s.incarnations.get(pid) != req["token"]:
        raise CoordinationError(f"process {pid} is not connected to this coordinator")
      s.last_seen[pid] = time.monotonic()
      s.fail_if_broken()

  def _set(self, req) -> None:
    s = self._state
    with s.cv:
      s.fail_if_broken()
      key = req["key"]
      if key in s.kv and not req.get("allow_overwrite", False):
        raise CoordinationError(f"key {key!r} is already set")
      s.kv[key] = base64.b64decode(req["value"])
      s.cv.notify_all()

  def _get(self, req) -> str:
    s = self._state
    key = req["key"]
    with s.cv:
      s.wait(lambda: key in s.kv, req["timeout_ms"] / 1000, f"key {key!r} to be set")
      return base64.b64encode(s.kv[key]).decode()

  def _try_get(self, req) -> str | None:
    s = self._state
    with s.cv:
      s.fail_if_broken()
      value = s.kv.get(req["key"])
      return None if value is None else base64.b64encode(value).decode()

  def _dir_get(self, req) -> list[list[str]]:
    s = self._state
    prefix = req["prefix"]
    with s.cv:
      s.fail_if_broken()
      return [[k, base64.b64encode(v).decode()] for k, v in sorted(s.kv.items())
              if k.startswith(prefix)]

  def _delete(self, req) -> None:
    s = self._state
    with s.cv:
      s.kv.pop(req["key"], None)

  def _barrier(self, req) -> None:
    s = self._state
    name, pid = req["barrier_id"], int(req["process_id"])
    members = set(req.get("process_ids") or range(s.num_processes))
    with s.cv:
      arrived = s.barriers.setdefault(name, set())
      arrived.add(pid)
      s.cv.notify_all()
      try:
        s.wait(lambda: members <= arrived, req["timeout_ms"] / 1000, f"barrier {name!r}")
      except CoordinationError as e:
        if s.error is None:
          raise CoordinationError(f"{e}; processes {sorted(members - arrived)} did not "
                                  "reach it") from None
        raise

  def _shutdown(self, req) -> None:
    s = self._state
    with s.cv:
      s.shut_down.add(int(req["process_id"]))
      s.cv.notify_all()
      alive = lambda: set(s.incarnations) <= s.shut_down
      # A lost process cannot take part in the shutdown barrier: do not wait for it.
      if s.error is None:
        try:
          s.wait(alive, req["timeout_s"], "every process to call shutdown")
        except CoordinationError as e:
          raise CoordinationError(f"{e}; processes {sorted(set(s.incarnations) - s.shut_down)}"
                                  " did not") from None

  def stop(self) -> None:
    self._stop.set()
    self._server.stop(grace=1.0).wait(5.0)


# ------------------------------------------------------------------ client


class CoordinationClient:
  """One process's connection to the coordinator (the `distributed_client` of jaxlib)."""

  def __init__(self, address: str, process_id: int, num_processes: int,
               init_timeout: float, heartbeat_timeout: float, shutdown_timeout: float):
    grpc = import_grpc()
    self._grpc = grpc
    self.address, self.process_id = address, process_id
    self.num_processes = num_processes
    self._heartbeat_timeout = heartbeat_timeout
    self._shutdown_timeout = shutdown_timeout
    self._token = f"{process_id}-{time.time_ns()}-{id(self)}"
    # Process 0 may start listening after the others try: retry often, so joining
    # takes about as long as the slowest process takes to start, not gRPC's backoff.
    self._channel = grpc.insecure_channel(address, options=[
        ("grpc.initial_reconnect_backoff_ms", 100), ("grpc.min_reconnect_backoff_ms", 100),
        ("grpc.max_reconnect_backoff_ms", 1000)])
    self._calls = {}
    self._error: str | None = None
    self._stop = threading.Event()
    self._heartbeats: threading.Thread | None = None
    self._init_timeout = init_timeout

  def _call(self, method: str, request: dict[str, Any], timeout: float | None,
            wait_for_ready: bool = False):
    call = self._calls.get(method)
    if call is None:
      call = self._calls[method] = self._channel.unary_unary(f"/{_SERVICE}/{method}")
    try:
      reply = _decode(call(_encode(request), timeout=timeout, wait_for_ready=wait_for_ready))
    except self._grpc.RpcError as e:
      if self._error is not None:
        raise CoordinationError(self._error) from None
      if method == "Ping" and e.code() in (self._grpc.StatusCode.DEADLINE_EXCEEDED,
                                              self._grpc.StatusCode.UNAVAILABLE):
        raise CoordinationError(
            f"process {self.process_id} could not reach the coordinator at {self.address} "
            f"within initialization_timeout={self._init_timeout:g} s; check "
            "coordinator_address (host and port of process 0) and that process 0 was "
            f"started ({e.code().name})") from None
      raise CoordinationError(f"the coordinator at {self.address} did not answer {method}: "
                              f"{e.code().name}: {e.details()}") from None
    if "error" in reply:
      raise CoordinationError(reply["error"])
    return reply["ok"]

  def connect(self) -> None:
    """Joins the group: returns once every process has connected."""
    # wait_for_ready: the ping waits (reconnecting) until process 0 listens; the service
    # answers it at once, so a missed deadline means the coordinator is unreachable.
    deadline = time.monotonic() + self._init_timeout
    self._call("Ping", {}, timeout=self._init_timeout, wait_for_ready=True)
    left = max(0.1, deadline - time.monotonic())
    self._call("Connect", {"process_id": self.process_id, "num_processes": self.num_processes,
                           "token": self._token, "timeout_s": left}, timeout=left + 5)
    self._heartbeats = threading.Thread(target=self._beat, name="jax-coordination-heartbeat",
                                        daemon=True)
    self._heartbeats.start()

  def _beat(self) -> None:
    period = max(0.05, min(1.0, self._heartbeat_timeout / 5))
    silent_since = time.monotonic()
    while not self._stop.wait(period):
      try:
        self._call("Heartbeat", {"process_id": self.process_id, "token": self._token},
                   timeout=period * 4)
        silent_since = time.monotonic()
      except CoordinationError as e:
        if "did not answer" not in str(e):
          self._error = str(e)
          return
        if time.monotonic() - silent_since > self._heartbeat_timeout:
          self._error = (f"the coordinator (process 0, {self.address}) stopped answering for "
                         f"more than {self._heartbeat_timeout:g} s (it died or is unreachable)")
          return

  @property
  def heartbeat_timeout(self) -> float:
    return self._heartbeat_timeout

  @property
  def error(self) -> str | None:
    """Why the group is broken (a lost process), or None while it is healthy."""
    return self._error

  # The key-value store, with the names of JAX's distributed runtime client.
  def key_value_set_bytes(self, key: str, value: bytes, allow_overwrite: bool = False) -> None:
    self._call("Set", {"key": key, "value": base64.b64encode(bytes(value)).decode(),
                       "allow_overwrite": allow_overwrite}, timeout=self._init_timeout)

  def key_value_set(self, key: str, value: str, allow_overwrite: bool = False) -> None:
    self.key_value_set_bytes(key, value.encode(), allow_overwrite)

  def blocking_key_value_get_bytes(self, key: str, timeout_in_ms: int) -> bytes:
    value = self._call("Get", {"key": key, "timeout_ms": int(timeout_in_ms)},
                       timeout=timeout_in_ms / 1000 + 5)
    return base64.b64decode(value)

  def blocking_key_value_get(self, key: str, timeout_in_ms: int) -> str:
    return self.blocking_key_value_get_bytes(key, timeout_in_ms).decode()

  def key_value_try_get_bytes(self, key: str) -> bytes | None:
    value = self._call("TryGet", {"key": key}, timeout=self._init_timeout)
    return None if value is None else base64.b64decode(value)

  def key_value_try_get(self, key: str) -> str | None:
    value = self.key_value_try_get_bytes(key)
    return None if value is None else value.decode()

  def key_value_dir_get_bytes(self, prefix: str) -> list[tuple[str, bytes]]:
    return [(k, base64.b64decode(v))
            for k, v in self._call("DirGet", {"prefix": prefix}, timeout=self._init_timeout)]

  def key_value_dir_get(self, prefix: str) -> list[tuple[str, str]]:
    return [(k, v.decode()) for k, v in self.key_value_dir_get_bytes(prefix)]

  def key_value_delete(self, key: str) -> None:
    self._call("Delete", {"key": key}, timeout=self._init_timeout)

  def wait_at_barrier(self, barrier_id: str, timeout_in_ms: int, process_ids=None) -> None:
    self._call("Barrier", {"barrier_id": barrier_id, "process_id": self.process_id,
                           "timeout_ms": int(timeout_in_ms),
                           "process_ids": None if process_ids is None else list(process_ids)},
               timeout=timeout_in_ms / 1000 + 5)

  def shutdown(self) -> None:
    """The shutdown barrier, then the end of heartbeats and of the connection."""
    try:
      if self._error is None:
        self._call("Shutdown", {"process_id": self.process_id,
                                "timeout_s": self._shutdown_timeout},
                   timeout=self._shutdown_timeout + 5)
    finally:
      self.close()

  def close(self) -> None:
    """Stops the heartbeats and closes the connection (no shutdown barrier)."""
    self._stop.set()
    if self._heartbeats is not None and self._heartbeats is not threading.current_thread():
      self._heartbeats.join(5.0)
    self._channel.close()
