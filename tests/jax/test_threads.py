"""Trace state is per thread: tracing in one thread never captures another's work."""

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax._src import core
from jax._src.lib import _jax

pytestmark = pytest.mark.usefixtures("backend")

_WAIT = 60  # seconds; a hang fails the test instead of the run


def _run_in_thread(fn):
  """Starts `fn` in a thread; returns (thread, errors) where errors collects its exception."""
  errors = []

  def body():
    try:
      fn()
    except BaseException as e:  # re-raised by the caller
      errors.append(e)

  t = threading.Thread(target=body)
  t.start()
  return t, errors


def _eager_and_jitted_work(results):
  results["eager"] = jnp.sin(np.float32(0.5)) + 1
  jf = jax.jit(lambda a: jnp.cos(a) * 3)
  x = jnp.arange(4.0)
  results["jit_first"] = jf(x)
  results["jit_cached"] = jf(x)  # the native fast path's call
  results["staging"] = core.is_staging() or _jax.jit.thread_staging()


def _check_eager_results(results):
  assert results["staging"] is False
  for key in ("eager", "jit_first", "jit_cached"):
    assert isinstance(results[key], jax.Array) and not isinstance(results[key], core.Tracer)
  np.testing.assert_allclose(results["eager"], np.sin(np.float32(0.5)) + 1, rtol=1e-6)
  for key in ("jit_first", "jit_cached"):
    np.testing.assert_allclose(results[key], np.cos(np.arange(4.0)) * 3, rtol=1e-6)


def _traced_fn(inside: threading.Event, done: threading.Event):
  def f(x):
    y = jnp.sin(x)
    inside.set()
    assert done.wait(_WAIT), "the other thread did not finish"
    return y * 2
  return f


def test_eager_thread_does_not_leak_into_a_tracing_thread():
  inside, done, results = threading.Event(), threading.Event(), {}

  def eager():
    assert inside.wait(_WAIT)
    try:
      _eager_and_jitted_work(results)
    finally:
      done.set()

  t, errors = _run_in_thread(eager)
  closed = jax.make_jaxpr(_traced_fn(inside, done))(np.float32(1.0))
  t.join(_WAIT)
  assert not errors, errors
  assert [e.primitive.name for e in closed.jaxpr.eqns] == ["sin", "mul"]
  _check_eager_results(results)
  assert not core.is_staging() and not _jax.jit.thread_staging()


def test_tracing_thread_does_not_capture_the_main_threads_work():
  inside, done, results, traced = threading.Event(), threading.Event(), {}, {}

  def trace():
    traced["jaxpr"] = jax.make_jaxpr(_traced_fn(inside, done))(np.float32(1.0))
    traced["staging_after"] = core.is_staging() or _jax.jit.thread_staging()

  t, errors = _run_in_thread(trace)
  assert inside.wait(_WAIT)
  try:
    _eager_and_jitted_work(results)
  finally:
    done.set()
  t.join(_WAIT)
  assert not errors, errors
  assert [e.primitive.name for e in traced["jaxpr"].jaxpr.eqns] == ["sin", "mul"]
  assert traced["staging_after"] is False
  _check_eager_results(results)


def test_a_new_thread_starts_eager_while_another_traces():
  seen = {}

  def probe():
    seen["stack"] = len(core.current_trace_stack())
    seen["staging"] = core.is_staging() or _jax.jit.thread_staging()

  def f(x):
    assert core.is_staging() and _jax.jit.thread_staging()
    t, errors = _run_in_thread(probe)
    t.join(_WAIT)
    assert not errors
    return x + 1

  jax.make_jaxpr(f)(1.0)
  assert seen == {"stack": 1, "staging": False}


_FUNCTIONS = [
    (lambda x: jnp.sin(x) * 2 + 1, lambda x: np.sin(x) * 2 + 1),
    (lambda x: jnp.cumsum(x * x), lambda x: np.cumsum(x * x)),
    (lambda x: jnp.exp(-x) - x, lambda x: np.exp(-x) - x),
    (lambda x: jnp.tanh(x) @ jnp.ones((x.shape[0], 2), x.dtype),
     lambda x: np.tanh(x) @ np.ones((x.shape[0], 2), x.dtype)),
    (lambda x: jnp.where(x > 0.5, x, -x).max(), lambda x: np.where(x > 0.5, x, -x).max()),
    (lambda x: jnp.sort(x)[::-1], lambda x: np.sort(x)[::-1]),
    (lambda x: (x - x.mean()) / (x.std() + 1), lambda x: (x - x.mean()) / (x.std() + 1)),
    (lambda x: jnp.abs(x - 0.25) + jnp.float32(3), lambda x: np.abs(x - 0.25) + np.float32(3)),
]


def test_eight_threads_trace_compile_and_call_concurrently():
  n_calls = 300
  start = threading.Barrier(len(_FUNCTIONS))
  failures = []

  def work(i):
    fn, ref = _FUNCTIONS[i]
    jf = jax.jit(fn)
    rng = np.random.default_rng(i)
    start.wait(_WAIT)
    for k in range(n_calls):
      n = 3 + k % 4  # a few shapes: new traces and compiles while the others run
      x_np = rng.random(n, dtype=np.float32)
      x = jnp.asarray(x_np)
      if k % 50 == 0:
        closed = jax.make_jaxpr(fn)(x)
        assert closed.jaxpr.eqns, "an empty jaxpr"
        assert not any(isinstance(c, core.Tracer) for c in closed.consts)
      out = jf(x) if k % 3 else fn(x)  # jitted, or op by op
      assert isinstance(out, jax.Array) and not isinstance(out, core.Tracer)
      np.testing.assert_allclose(np.asarray(out), ref(x_np), rtol=2e-5, atol=2e-6)

  threads = [_run_in_thread(lambda i=i: work(i)) for i in range(len(_FUNCTIONS))]
  for t, errors in threads:
    t.join(10 * _WAIT)
    assert not t.is_alive()
    failures.extend(errors)
  assert not failures, failures[:3]
  assert not core.is_staging()


def test_thread_local_staging_flag_follows_nested_traces():
  states = []

  def g(x):
    states.append(_jax.jit.thread_staging())
    with core.ensure_no_dynamic_trace():
      states.append(_jax.jit.thread_staging())
    states.append(_jax.jit.thread_staging())
    return x * 2

  jax.make_jaxpr(jax.vmap(g))(np.ones(3, np.float32))
  assert states == [True, False, True]
  assert _jax.jit.thread_staging() is False


def test_x64_flag_is_pushed_to_the_native_side():
  jax.jit(lambda x: x + 1)(jnp.ones(2))  # configures the fast path
  before = jax.config.jax_enable_x64
  try:
    jax.config.update("jax_enable_x64", not before)
    assert _jax.jit.x64() is (not before)
  finally:
    jax.config.update("jax_enable_x64", before)
  assert _jax.jit.x64() is before


_FIRST_USE_SCRIPT = textwrap.dedent("""
    import threading
    import numpy as np
    start = threading.Barrier(8)
    failures, results = [], {}

    def work(i):
      try:
        start.wait(60)
        import jax, jax.numpy as jnp  # the first use: backend, fast-path set-up
        jf = jax.jit(lambda x: jnp.sin(x) * i)
        for _ in range(20):
          out = jf(jnp.arange(4.0) + i)
        results[i] = (np.asarray(out), np.asarray(jax.make_jaxpr(jnp.cos)(1.0).jaxpr.eqns[0].primitive.name))
      except BaseException as e:
        failures.append(repr(e))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
      t.start()
    for t in threads:
      t.join()
    assert not failures, failures
    for i, (out, name) in results.items():
      np.testing.assert_allclose(out, np.sin(np.arange(4.0) + i) * i, rtol=1e-6)
      assert str(name) == "cos", name
    print("OK", len(results))
""")


def test_first_use_from_eight_threads_at_once(tmp_path):
  env = {k: v for k, v in os.environ.items() if not k.startswith("JAX_")}
  proc = subprocess.run([sys.executable, "-c", _FIRST_USE_SCRIPT], env=env, capture_output=True,
                        text=True, cwd=str(tmp_path), timeout=600)
  assert proc.returncode == 0, proc.stderr
  assert proc.stdout.split() == ["OK", "8"]
