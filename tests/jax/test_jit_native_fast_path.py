"""The native side of the cached jit call: what reaches Python and what does not."""

import gc
import threading
import weakref

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax._src.lib import _jax

pytestmark = pytest.mark.usefixtures("backend")


def _arr(*shape, dtype=np.float32, start=0):
  return jnp.asarray(np.arange(start, start + int(np.prod(shape)), dtype=dtype).reshape(shape))


def _count_python_calls(jf):
  """Wraps the jitted function's Python path; returns the list of calls it records."""
  calls = []
  python_path = jf._call_python

  def counting(args, kwargs):
    calls.append(len(args))
    return python_path(args, kwargs)

  jf._call_python = counting
  return calls


def test_cached_calls_stay_native():
  jf = jax.jit(lambda d, y: {k: v * y for k, v in d.items()})
  calls = _count_python_calls(jf)
  x, y = _arr(4), _arr(4, start=1)
  first = jf({"a": x, "b": y}, y)
  assert calls == [2]
  for _ in range(3):
    out = jf({"b": x, "a": y}, y)  # same structure and types: a hit
  assert calls == [2]
  np.testing.assert_allclose(out["a"], np.arange(1, 5) ** 2)
  np.testing.assert_allclose(out["b"], np.arange(4) * np.arange(1, 5))
  np.testing.assert_allclose(first["a"], np.arange(4) * np.arange(1, 5))
  jf({"a": x, "b": y}, _arr(4, dtype=np.int32))  # another dtype: a miss
  assert calls == [2, 2]


def test_unusual_calls_reach_python():
  jf = jax.jit(lambda x, scale=1.0: x * scale)
  calls = _count_python_calls(jf)
  x = _arr(3)
  jf(x)
  jf(x)
  assert len(calls) == 1
  jf(x, scale=2.0)  # keyword arguments
  jf(np.ones(3, np.float32))  # a numpy leaf
  jf(x, 2.0)  # a Python scalar leaf
  assert len(calls) == 4
  jax.grad(lambda v: jf(v).sum())(x)  # tracing
  assert len(calls) == 5


def test_signature_entries_describe_the_cache():
  jf = jax.jit(lambda x: x + 1)
  jf(_arr(2))
  jf(_arr(2, 2, dtype=np.int32))
  entries = jf._fast_cache
  sigs = sorted((str(leaves[0][0]), leaves[0][1], leaves[0][2], x64)
                for _, leaves, x64 in entries)
  assert sigs == [("float32", (2,), False, False), ("int32", (2, 2), False, False)]
  assert all(tree == jax.tree_util.tree_structure((0,)) for tree, _, _ in entries)
  jf.clear_cache()
  assert jf._fast_cache == []


def test_deleted_argument_raises_like_the_general_path():
  jf = jax.jit(lambda x: x + 1)
  x = _arr(3)
  jf(x)
  x.delete()
  with pytest.raises(Exception) as native:
    jf(x)
  with pytest.raises(type(native.value)):
    jax.jit(lambda x: x + 1)(x)


def test_host_backed_argument_is_moved_once_and_hits():
  jf = jax.jit(lambda x: x * 2)
  calls = _count_python_calls(jf)
  jf(_arr(4))
  x = jnp.asarray(np.arange(4, dtype=np.float32))
  assert x.is_host_backed
  np.testing.assert_allclose(jf(x), np.arange(4) * 2)
  assert calls == [1] and not x.is_host_backed


def test_calls_from_many_threads():
  jf = jax.jit(lambda d: d["a"] * 2 + d["b"])
  xs = [_arr(8, start=i) for i in range(4)]
  jf({"a": xs[0], "b": xs[0]})
  errors = []

  def work(i):
    try:
      for _ in range(100):
        out = jf({"a": xs[i], "b": xs[i]})
        np.testing.assert_allclose(out, (np.arange(8) + i) * 3)
    except Exception as e:  # reported below
      errors.append(e)

  threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
  for t in threads:
    t.start()
  for t in threads:
    t.join()
  assert not errors
  assert len(jf._fast_cache) == 1


def test_jitted_function_in_a_cycle_is_collected():
  class Holder:
    pass

  holder = Holder()
  holder.f = jax.jit(lambda x, h=holder: x + 1)
  holder.f(_arr(2))
  alive = weakref.ref(holder)
  del holder
  gc.collect()
  assert alive() is None


def test_subclass_keeps_python_attributes():
  def f(x):
    """Adds one."""
    return x + 1

  jf = jax.jit(f)
  assert jf.__name__ == "f" and jf.__doc__ == "Adds one." and jf.__wrapped__ is f
  assert isinstance(jf, _jax.jit.JitFunction)
