"""jax.make_user_context: a value jit's caches are keyed on (retrace when it changes)."""

import threading

import numpy as np
import pytest

import jax


def _counting_jit():
  traces = []

  @jax.jit
  def f(x):
    traces.append(1)
    return x * 2

  return f, traces


def test_changes_retrace_and_equal_values_hit_the_cache(backend):
  ctx = jax.make_user_context(default_value=None)
  f, traces = _counting_jit()
  np.testing.assert_allclose(float(f(1.0)), 2.0)
  f(1.0)
  assert len(traces) == 1
  with ctx(1):
    assert ctx.value == 1
    f(1.0)
    f(1.0)
  assert len(traces) == 2
  with ctx(2):
    f(1.0)
  assert len(traces) == 3
  with ctx(1):
    f(1.0)  # seen before
  assert len(traces) == 3
  assert ctx.value is None


def test_global_value_and_threads(backend):
  ctx = jax.make_user_context("a")
  f, traces = _counting_jit()
  f(np.float32(1))
  ctx.set_global("b")
  assert ctx.get_global() == "b" and ctx.value == "b"
  f(np.float32(1))
  assert len(traces) == 2
  seen = []
  with ctx("c"):
    t = threading.Thread(target=lambda: seen.append(ctx.value))
    t.start()
    t.join()
    assert ctx.value == "c"
  assert seen == ["b"]  # a `with` block sets the value in its own thread only
  ctx.set_global("a")


def test_unhashable_values_are_refused(backend):
  ctx = jax.make_user_context()
  with pytest.raises(TypeError):
    ctx([1, 2])
  with pytest.raises(TypeError):
    jax.make_user_context(default_value={})
