"""Events, durations and scalars reported to registered listeners (`jax.monitoring`).

jax records an event whenever something noteworthy happens (e.g. a compilation);
listeners (metrics exporters) receive them. Nothing is recorded unless a listener
is registered.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Callable

_event_listeners: list[Callable] = []
_event_duration_listeners: list[Callable] = []
_event_time_span_listeners: list[Callable] = []
_scalar_listeners: list[Callable] = []


def record_event(event: str, **kwargs) -> None:
  """Report that `event` happened (`kwargs` are string/int/bool attributes)."""
  for listener in list(_event_listeners):
    listener(event, **kwargs)


def record_event_duration_secs(event: str, duration: float, **kwargs) -> None:
  """Report that `event` took `duration` seconds."""
  for listener in list(_event_duration_listeners):
    listener(event, float(duration), **kwargs)


def record_event_time_span(event: str, start_time: float, end_time: float, **kwargs) -> None:
  """Report that `event` ran from `start_time` to `end_time` (seconds since the epoch)."""
  for listener in list(_event_time_span_listeners):
    listener(event, float(start_time), float(end_time), **kwargs)


def record_scalar(event: str, value: float | int, **kwargs) -> None:
  """Report a scalar measurement named `event`."""
  for listener in list(_scalar_listeners):
    listener(event, value, **kwargs)


@contextmanager
def measure_event_duration(event: str, **kwargs):
  """Record the duration of the block as `event` (a helper for jax's own timings)."""
  start = time.perf_counter()
  try:
    yield
  finally:
    record_event_duration_secs(event, time.perf_counter() - start, **kwargs)


def register_event_listener(callback: Callable) -> None:
  _event_listeners.append(callback)


def register_event_duration_secs_listener(callback: Callable) -> None:
  _event_duration_listeners.append(callback)


def register_event_time_span_listener(callback: Callable) -> None:
  _event_time_span_listeners.append(callback)


def register_scalar_listener(callback: Callable) -> None:
  _scalar_listeners.append(callback)


def _unregister(listeners: list, callback: Callable, what: str) -> None:
  if callback not in listeners:
    raise AssertionError(f"{callback!r} is not a registered {what} listener")
  listeners.remove(callback)


def unregister_event_listener(callback: Callable) -> None:
  _unregister(_event_listeners, callback, "event")


def unregister_event_duration_listener(callback: Callable) -> None:
  _unregister(_event_duration_listeners, callback, "event duration")


def unregister_event_time_span_listener(callback: Callable) -> None:
  _unregister(_event_time_span_listeners, callback, "event time span")


def unregister_scalar_listener(callback: Callable) -> None:
  _unregister(_scalar_listeners, callback, "scalar")


def clear_event_listeners() -> None:
  """Remove every listener of every kind."""
  for listeners in (_event_listeners, _event_duration_listeners, _event_time_span_listeners,
                    _scalar_listeners):
    listeners.clear()
