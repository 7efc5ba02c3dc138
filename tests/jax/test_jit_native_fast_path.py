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
  jf(x, 2.0)  # a first call with a Python scalar leaf: a miss
  assert len(calls) == 4
  jax.grad(lambda v: jf(v).sum())(x)  # tracing
  assert len(calls) == 5


def test_python_scalar_arguments_stay_native():
  jf = jax.jit(lambda x, s: x * s)
  calls = _count_python_calls(jf)
  x = _arr(3)
  for s in (2.0, 3.0, -1.5):
    np.testing.assert_allclose(jf(x, s), np.arange(3) * s)
  assert calls == [2]
  (_, leaves, _), = jf._fast_cache
  assert [(str(d), shape, weak) for d, shape, weak in leaves] == [
      ("float32", (3,), False), ("float32", (), True)]
  out = jf(_arr(3, dtype=np.int32), 2)  # a weak int32 scalar keeps the array's int32
  assert out.dtype == np.int32 and not out.weak_type
  np.testing.assert_array_equal(out, [0, 2, 4])
  assert jnp.add(x, True).dtype == np.float32 and jnp.add(1, True).dtype == np.int32
  np.testing.assert_allclose(jf(_arr(2, dtype=np.complex64), 1j), [0, 1j])
  assert calls == [2, 2, 2]  # one miss per new signature


def test_python_scalar_that_does_not_fit_raises():
  jf = jax.jit(lambda x, s: x + s)
  x = _arr(3, dtype=np.int32)
  jf(x, 1)
  with pytest.raises(OverflowError):
    jf(x, 2 ** 40)  # int32 without x64: the general path raises
  with pytest.raises(OverflowError):
    jnp.arange(3) + 2 ** 40


def test_python_scalars_follow_x64():
  jf = jax.jit(lambda s: s * 2)
  assert jf(3).dtype == np.int32 and jf(1.5).dtype == np.float32
  jax.config.update("jax_enable_x64", True)
  try:
    assert jf(3).dtype == np.int64 and jf(1.5).dtype == np.float64
    assert int(jf(2 ** 40)) == 2 ** 41
  finally:
    jax.config.update("jax_enable_x64", False)
  assert jf(3).dtype == np.int32


def test_jnp_functions_are_native_cached_calls_and_inline_when_traced():
  x = _arr(4)
  jnp.add(x, x), jnp.add(x, 1.0), jnp.sin(x)  # fill the caches
  for f in (jnp.add, jnp.sin):
    calls = _count_python_calls(f)
    try:
      for _ in range(3):
        np.testing.assert_allclose(jnp.add(x, x), np.arange(4) * 2)
        np.testing.assert_allclose(x + 1.0, np.arange(4) + 1)
        np.testing.assert_allclose(jnp.sin(x), np.sin(np.arange(4)), rtol=1e-6)
      assert calls == []
    finally:
      del f._call_python
  jaxpr = jax.make_jaxpr(lambda v: jnp.sin(-v) + 1.0)(x)
  names = [e.primitive.name for e in jaxpr.jaxpr.eqns]
  assert names[:2] == ["neg", "sin"] and names[-1] == "add" and "jit" not in names
  np.testing.assert_allclose(jax.jit(lambda v: jnp.sin(-v) + 1.0)(x), np.sin(-np.arange(4)) + 1,
                             rtol=1e-6)


def test_power_keeps_python_int_exponents_static():
  z = jnp.asarray(np.array([1 + 2j, -3 + 0.5j], np.complex64))
  np.testing.assert_allclose(z ** 2, np.array([1 + 2j, -3 + 0.5j]) ** 2, rtol=1e-6)
  assert [e.primitive.name for e in jax.make_jaxpr(lambda v: v ** 3)(_arr(2)).jaxpr.eqns] == [
      "integer_pow"]
  np.testing.assert_allclose(jnp.power(_arr(3), 0.5), np.sqrt(np.arange(3)), rtol=1e-6)


def test_jitted_function_is_a_method_on_a_class():
  class Scaled:
    def __init__(self, k):
      self.k = k
    apply = jax.jit(lambda self, x: x * self.k, static_argnums=0)

  np.testing.assert_allclose(Scaled(3.0).apply(_arr(2)), [0, 3])
  assert Scaled.apply is Scaled.__dict__["apply"]


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


def test_failing_donating_call_raises_its_own_error():
  # The first output takes over x's memory, so each run consumes x before it fails
  # allocating the second output (1 TiB): the error must be the run's, not a rerun's
  # complaint that x was donated.
  jf = jax.jit(lambda x: (x + 1, jnp.broadcast_to(x[0], (2**38,))), donate_argnums=0)
  with pytest.raises(_jax.XlaRuntimeError, match="RESOURCE_EXHAUSTED: .*out of host memory"):
    jf(_arr(4))
  assert len(jf._fast_cache) == 1
  calls = _count_python_calls(jf)
  with pytest.raises(_jax.XlaRuntimeError, match="RESOURCE_EXHAUSTED: .*out of host memory") as e:
    jf(_arr(4))
  assert "donated" not in str(e.value)
  assert calls == []  # raised by the cached run itself, never retried


def test_fast_path_reads_documented_public_attributes_only():
  from jax._src import core

  class NoBuffer:
    aval = None

  with pytest.raises(TypeError, match="has no attribute single_device_buffer"):
    _jax.jit.configure(NoBuffer, core.ShapedArray, {})
  h = jnp.asarray(np.arange(3, dtype=np.float32))
  assert h.is_host_backed and h.single_device_buffer is None
  (buf,) = h.device_buffers()
  assert h.single_device_buffer is buf
  h.delete()
  assert h.single_device_buffer is None
  out = jax.jit(lambda x: x * 2)(_arr(3))
  assert out.single_device_buffer is out.device_buffers()[0]
  stacked = jax.pmap(lambda x: x * 2)(jnp.ones((1, 3)))  # pmap-stacked: not plain
  assert stacked.is_sharded and stacked.single_device_buffer is None


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
