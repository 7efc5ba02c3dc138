"""jax.profiler writes a Chrome trace of annotations; jax.monitoring calls its listeners."""

import json
import os
import threading

import pytest

import jax
from jax import monitoring, profiler


def _trace_file(log_dir):
  found = []
  for root, _, files in os.walk(log_dir):
    found += [os.path.join(root, f) for f in files if f.endswith(".trace.json")]
  assert len(found) == 1, found
  with open(found[0]) as f:
    return json.load(f)["traceEvents"]


def test_trace_records_annotations(tmp_path):
  @profiler.annotate_function
  def work(x):
    return x + 1

  with profiler.trace(str(tmp_path)):
    with profiler.TraceAnnotation("outer", size=3):
      work(1)
    with profiler.StepTraceAnnotation("train", step_num=7):
      pass
  events = {e["name"]: e for e in _trace_file(tmp_path)}
  assert set(events) == {"outer", "train", "test_trace_records_annotations.<locals>.work"}
  outer, inner = events["outer"], events["test_trace_records_annotations.<locals>.work"]
  assert outer["ph"] == "X" and outer["args"] == {"size": "3"}
  assert outer["ts"] <= inner["ts"] and inner["ts"] + inner["dur"] <= outer["ts"] + outer["dur"]
  assert events["train"]["args"] == {"step_num": "7"}
  assert outer["tid"] == threading.get_ident()


def test_annotations_outside_a_trace_record_nothing(tmp_path):
  with profiler.TraceAnnotation("ignored"):
    pass
  profiler.start_trace(str(tmp_path))
  path = profiler.stop_trace()
  assert os.path.exists(path) and _trace_file(tmp_path) == []


def test_start_stop_errors(tmp_path):
  with pytest.raises(RuntimeError, match="No profile"):
    profiler.stop_trace()
  profiler.start_trace(str(tmp_path))
  try:
    with pytest.raises(RuntimeError, match="already been started"):
      profiler.start_trace(str(tmp_path))
  finally:
    profiler.stop_trace()


def test_step_annotation_needs_step_num():
  with pytest.raises(ValueError, match="step_num"):
    profiler.StepTraceAnnotation("train")


def test_unsupported_profiler_services_say_so():
  with pytest.raises(NotImplementedError, match="remote profiling"):
    profiler.start_server(9999)
  with pytest.raises(NotImplementedError, match="memory profile"):
    profiler.device_memory_profile()


def test_monitoring_listeners():
  events, durations, spans, scalars = [], [], [], []
  listeners = [
      (monitoring.register_event_listener, monitoring.unregister_event_listener,
       lambda e, **kw: events.append((e, kw))),
      (monitoring.register_event_duration_secs_listener,
       monitoring.unregister_event_duration_listener,
       lambda e, d, **kw: durations.append((e, d))),
      (monitoring.register_event_time_span_listener,
       monitoring.unregister_event_time_span_listener,
       lambda e, s, t, **kw: spans.append((e, t - s))),
      (monitoring.register_scalar_listener, monitoring.unregister_scalar_listener,
       lambda e, v, **kw: scalars.append((e, v))),
  ]
  for register, _, fn in listeners:
    register(fn)
  try:
    monitoring.record_event("/test/event", tag="x")
    monitoring.record_event_duration_secs("/test/duration", 0.25)
    monitoring.record_event_time_span("/test/span", 10.0, 12.5)
    monitoring.record_scalar("/test/scalar", 3)
  finally:
    for _, unregister, fn in listeners:
      unregister(fn)
  assert events == [("/test/event", {"tag": "x"})]
  assert durations == [("/test/duration", 0.25)]
  assert spans == [("/test/span", 2.5)]
  assert scalars == [("/test/scalar", 3)]
  monitoring.record_event("/test/after")  # no listener left
  assert len(events) == 1
  with pytest.raises(AssertionError, match="not a registered"):
    monitoring.unregister_event_listener(listeners[0][2])
