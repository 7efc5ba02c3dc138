"""Host-side tracing (`jax.profiler`).

`start_trace(log_dir)` begins a session; while it runs, every `TraceAnnotation`
(and `annotate_function` call) is recorded with its thread and start/end times.
`stop_trace()` writes them as a Chrome trace-event file
`<log_dir>/plugins/profile/<timestamp>/<host>.trace.json`, viewable in Perfetto or
chrome://tracing. Device-side activity is not captured: the CPU plugin exposes no
profiler. Outside a session annotations cost one clock read and record nothing.
"""

from __future__ import annotations

import functools
import json
import os
import socket
import threading
import time
from contextlib import contextmanager
from typing import Callable


class _Session:
  def __init__(self, log_dir: str):
    self.log_dir = os.fspath(log_dir)
    self.events: list[dict] = []
    self.lock = threading.Lock()
    self.start = time.time()

  def add(self, name: str, start: float, end: float, args: dict) -> None:
    event = {"name": name, "ph": "X", "pid": os.getpid(), "tid": threading.get_ident(),
             "ts": start * 1e6, "dur": (end - start) * 1e6}
    if args:
      event["args"] = {k: str(v) for k, v in args.items()}
    with self.lock:
      self.events.append(event)

  def write(self) -> str:
    stamp = time.strftime("%Y_%m_%d_%H_%M_%S", time.localtime(self.start))
    folder = os.path.join(self.log_dir, "plugins", "profile", stamp)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{socket.gethostname()}.trace.json")
    with open(path, "w") as f:
      json.dump({"traceEvents": self.events, "displayTimeUnit": "ms"}, f)
    return path


_session: _Session | None = None
_session_lock = threading.Lock()


def start_trace(log_dir, create_perfetto_link: bool = False,
                create_perfetto_trace: bool = False, profiler_options=None) -> None:
  """Begin recording annotations; only one trace may run at a time."""
  del create_perfetto_link, create_perfetto_trace, profiler_options
  global _session
  with _session_lock:
    if _session is not None:
      raise RuntimeError("Profile has already been started. Only one profile may be run at "
                         "a time.")
    _session = _Session(log_dir)


def stop_trace() -> str:
  """End the running trace and write its file; returns the file's path."""
  global _session
  with _session_lock:
    if _session is None:
      raise RuntimeError("No profile started")
    session, _session = _session, None
  return session.write()


@contextmanager
def trace(log_dir, create_perfetto_link: bool = False, create_perfetto_trace: bool = False,
          profiler_options=None):
  """Record annotations made inside the block into a trace under `log_dir`."""
  start_trace(log_dir, create_perfetto_link, create_perfetto_trace, profiler_options)
  try:
    yield
  finally:
    stop_trace()


class TraceAnnotation:
  """A named span in the trace (a context manager; usable around any code)."""

  def __init__(self, name: str, **kwargs):
    self.name, self.kwargs = name, kwargs
    self._start = None

  def __enter__(self):
    self._start = time.time()
    return self

  def __exit__(self, *exc):
    session = _session
    if session is not None and self._start is not None:
      session.add(self.name, self._start, time.time(), self.kwargs)
    return False


class StepTraceAnnotation(TraceAnnotation):
  """A span marking one training step (`step_num` is recorded with it)."""

  def __init__(self, name: str, **kwargs):
    if "step_num" not in kwargs:
      raise ValueError("StepTraceAnnotation needs a step_num keyword argument")
    super().__init__(name, **kwargs)


def annotate_function(func: Callable, name: str | None = None, **decorator_kwargs) -> Callable:
  """Wrap `func` so each call is a TraceAnnotation named `name` (default: its name)."""
  name = name or getattr(func, "__qualname__", getattr(func, "__name__", "function"))

  @functools.wraps(func)
  def wrapper(*args, **kwargs):
    with TraceAnnotation(name, **decorator_kwargs):
      return func(*args, **kwargs)

  return wrapper



def start_server(port: int, requires_backend: bool = True):
  """Remote profiling needs a profiler service, which this jax does not have."""
  raise NotImplementedError("jax.profiler.start_server: remote profiling is not supported; "
                            "use jax.profiler.start_trace/stop_trace to record a trace file")


def register_subprocess(pid: int, port: int) -> None:
  """Collecting a subprocess's profile needs the profiler service, which is not here."""
  raise NotImplementedError("jax.profiler.register_subprocess: remote profiling is not "
                            "supported; record a trace in each process with start_trace")


def stop_server() -> None:
  raise RuntimeError("No profiler server is running")


def device_memory_profile(backend: str | None = None) -> bytes:
  """Device memory profiles (pprof) are not produced by the CPU plugin."""
  raise NotImplementedError("jax.profiler.device_memory_profile: the backend exposes no "
                            "memory profile")


def save_device_memory_profile(filename, backend: str | None = None) -> None:
  with open(filename, "wb") as f:
    f.write(device_memory_profile(backend))


# ----------------------------------------------------------------------------- reading traces


class ProfileOptions:
  """Options of a trace: how much host, Python and device activity to record."""

  def __init__(self):
    self.host_tracer_level = 2
    self.python_tracer_level = 0
    self.device_tracer_level = 1
    self.start_timestamp_ns = 0
    self.duration_ms = 0
    self.advanced_configuration: dict = {}
    self.raise_error_on_start_failure = False

  def __repr__(self):
    return (f"ProfileOptions(host_tracer_level={self.host_tracer_level}, "
            f"python_tracer_level={self.python_tracer_level}, "
            f"device_tracer_level={self.device_tracer_level})")


class ProfileEvent:
  """One recorded span: its name, start and duration (nanoseconds) and its arguments."""

  def __init__(self, record: dict):
    self.name = record.get("name", "")
    self.start_ns = float(record.get("ts", 0.)) * 1e3
    self.duration_ns = float(record.get("dur", 0.)) * 1e3
    self.stats = tuple((record.get("args") or {}).items())

  @property
  def end_ns(self) -> float:
    return self.start_ns + self.duration_ns

  def __repr__(self):
    return f"ProfileEvent(name={self.name!r}, duration_ns={self.duration_ns:.0f})"


class _ProfileLine:
  def __init__(self, line_id, events):
    self.id, self.name = line_id, f"thread {line_id}"
    self.events = events


class ProfilePlane:
  """The events of one source (here: the host), grouped in lines (one per thread)."""

  def __init__(self, name: str, events: list[dict]):
    self.name = name
    by_thread: dict = {}
    for e in events:
      by_thread.setdefault(e.get("tid", 0), []).append(ProfileEvent(e))
    self.lines = [_ProfileLine(t, evs) for t, evs in by_thread.items()]

  @property
  def stats(self) -> tuple:
    return ()

  def __repr__(self):
    return f"ProfilePlane(name={self.name!r}, lines={len(self.lines)})"


class ProfileData:
  """A recorded trace, read back: its planes, lines and events."""

  def __init__(self, trace: dict):
    self._trace = trace
    self.planes = [ProfilePlane("/host:CPU", trace.get("traceEvents", []))]

  @classmethod
  def from_file(cls, path) -> ProfileData:
    with open(path) as f:
      return cls(json.load(f))

  @classmethod
  def from_serialized_xspace(cls, data: bytes) -> ProfileData:
    return cls(json.loads(data))

  def find_plane_with_name(self, name: str) -> ProfilePlane | None:
    return next((p for p in self.planes if p.name == name), None)
