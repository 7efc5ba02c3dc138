"""Tracers of a finished trace are freed at once (no cycle through the trace keeps them),
so values cached by weak reference do not hand out escaped tracers; a tracer used after
its trace ended raises UnexpectedTracerError."""

import gc
import weakref

import numpy as np
import pytest

import jax
import jax.numpy as jnp


def test_intermediate_tracers_die_with_their_trace(backend):
  x = jnp.float32(1.0)
  refs = []

  def f():
    y = x * 2
    refs.append(weakref.ref(y))
    return y + 1

  assert float(jax.jit(f)()) == 3.0
  assert refs[0]() is None  # without waiting for the cycle collector
  jax.make_jaxpr(f)()
  assert refs[1]() is None


def test_weak_cache_keyed_by_input_returns_concrete_values_after_jit(backend):
  # A cache of input -> output that holds the output weakly (as bijector caches do):
  # the entry made while tracing must be gone once the trace is over.
  x = jnp.arange(3.0)
  cache = weakref.WeakValueDictionary()

  class Box:
    def __init__(self, v):
      self.v = v

  def forward():
    hit = cache.get(id(x))
    if hit is None:
      hit = cache[id(x)] = Box(x * 2)
    return hit.v

  np.testing.assert_array_equal(jax.jit(forward)(), [0.0, 2.0, 4.0])
  out = forward()
  assert isinstance(out, jax.Array) and not isinstance(out, jax.core.Tracer)
  np.testing.assert_array_equal(out, [0.0, 2.0, 4.0])


def test_leaked_tracer_raises_unexpected_tracer_error(backend):
  leak = []

  def f(x):
    leak.append(x * 2)
    return x

  jax.jit(f)(1.0)
  gc.collect()
  with pytest.raises(jax.errors.UnexpectedTracerError):
    jax.jit(lambda y: y + leak[0])(1.0)
  with pytest.raises(jax.errors.UnexpectedTracerError):
    leak[0] + 1
