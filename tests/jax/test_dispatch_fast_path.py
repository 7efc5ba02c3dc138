"""The fast paths of cached jit calls and eager primitives, and their fallbacks.

A cached jit call on plain arrays runs the executable straight from a per-function
cache; an eager primitive on arrays of one type skips promotion. Every unusual call
must still take the general path and give the same results as before.
"""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax._src import core
from jax._src.config import config
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

pytestmark = pytest.mark.usefixtures("backend")


def _arr(*shape, dtype=np.float32, start=0):
  return jnp.asarray(np.arange(start, start + int(np.prod(shape)), dtype=dtype).reshape(shape))


def test_cached_call_uses_fast_cache():
  traces = []

  def f(x):
    traces.append(1)
    return x * 2 + 1

  jf = jax.jit(f)
  x = _arr(16)
  np.testing.assert_allclose(jf(x), np.arange(16) * 2 + 1)
  assert len(jf._fast_cache) == 1
  for _ in range(3):
    np.testing.assert_allclose(jf(x), np.arange(16) * 2 + 1)
  assert len(traces) == 1
  assert len(jf._fast_cache) == 1


def test_new_shape_and_dtype_recompile():
  jf = jax.jit(lambda x: x + 1)
  a = jf(_arr(4))
  b = jf(_arr(5))
  c = jf(_arr(4, dtype=np.int32))
  assert a.shape == (4,) and b.shape == (5,) and c.shape == (4,)
  assert a.dtype == np.float32 and c.dtype == np.int32
  np.testing.assert_array_equal(c, np.arange(4) + 1)
  assert len(jf._fast_cache) == 3
  # Calling again with the first type reuses its entry.
  np.testing.assert_allclose(jf(_arr(4, start=10)), np.arange(10, 14) + 1)
  assert len(jf._fast_cache) == 3


def test_weak_type_is_part_of_the_signature():
  jf = jax.jit(lambda x: x * 2)
  strong = jnp.asarray(np.float32(3.0))
  weak = jax.jit(lambda: jnp.asarray(3.0) * 1)()  # a weakly typed f32[] array
  assert weak.weak_type and not strong.weak_type
  jf(strong)  # device-resident after the first use
  out_strong = jf(strong)
  out_weak = jf(weak)
  assert not out_strong.weak_type
  assert out_weak.weak_type
  assert repr(jf(weak)) == "Array(6., dtype=float32, weak_type=True)"


def test_tree_structure_is_part_of_the_signature():
  jf = jax.jit(lambda t: jax.tree_util.tree_map(lambda v: v + 1, t))
  x = _arr(3)
  assert isinstance(jf({"a": x}), dict)
  out = jf([x, x])
  assert isinstance(out, list) and len(out) == 2
  out = jf({"b": x})
  assert list(out) == ["b"]
  assert len(jf._fast_cache) == 3


def test_scalars_and_numpy_arguments_take_the_general_path():
  jf = jax.jit(lambda x, y: x * y)
  x = _arr(3)
  np.testing.assert_allclose(jf(x, 2.0), np.arange(3) * 2.0)
  np.testing.assert_allclose(jf(np.ones(3, np.float32), x), np.arange(3))
  assert jf(x, 2.0).dtype == np.float32


def test_tracer_arguments_fall_back():
  jf = jax.jit(lambda x: jnp.sin(x) * x)
  x = _arr(5)
  jf(x)
  g = jax.grad(lambda v: jf(v).sum())(x)
  xs = np.arange(5, dtype=np.float32)
  np.testing.assert_allclose(g, np.cos(xs) * xs + np.sin(xs), rtol=1e-5, atol=1e-6)
  batched = jax.vmap(jf)(_arr(2, 5))
  assert batched.shape == (2, 5)


def test_call_inside_outer_jit_is_staged_not_run():
  inner = jax.jit(lambda x: x + 1)
  x = _arr(4)
  inner(x)  # fills the fast cache
  closed = jax.make_jaxpr(lambda y: inner(x) * y)(x)
  # The inner call on the concrete `x` is staged into the outer jaxpr as a jit equation.
  assert any(eqn.primitive.name == "jit" for eqn in closed.jaxpr.eqns)
  np.testing.assert_allclose(jax.jit(lambda y: inner(x) * y)(x), (np.arange(4) + 1) * np.arange(4))


def test_static_args_and_kwargs():
  traces = []

  def f(x, n):
    traces.append(n)
    return x * n

  jf = jax.jit(f, static_argnums=1)
  x = _arr(3)
  np.testing.assert_allclose(jf(x, 2), np.arange(3) * 2)
  np.testing.assert_allclose(jf(x, 3), np.arange(3) * 3)
  np.testing.assert_allclose(jf(x, 2), np.arange(3) * 2)
  assert traces == [2, 3]
  jk = jax.jit(lambda x, *, scale: x * scale)
  np.testing.assert_allclose(jk(x, scale=_arr(3)), np.arange(3) ** 2)


def test_fast_path_donates():
  jf = jax.jit(lambda x: x + 1, donate_argnums=0)
  x = _arr(8)
  np.testing.assert_allclose(jf(x), np.arange(8) + 1)
  assert x.is_deleted()
  y = _arr(8)  # a cached call: the native path runs it and deletes y
  np.testing.assert_allclose(jf(jf(y)), np.arange(8) + 2)
  assert y.is_deleted() and len(jf._fast_cache) == 1


def test_x64_flag_change_recompiles():
  jf = jax.jit(lambda x: x + 1)
  x = _arr(3, dtype=np.int32)
  assert jf(x).dtype == np.int32
  config.update("jax_enable_x64", True)
  y = jnp.asarray(np.arange(3, dtype=np.int64))
  assert jf(y).dtype == np.int64
  assert jf(x).dtype == np.int32
  config.update("jax_enable_x64", False)
  assert jf(x).dtype == np.int32


def test_sharded_inputs_fall_back():
  devices = jax.devices()
  if len(devices) < 2:
    pytest.skip("needs several devices")
  mesh = Mesh(np.array(devices[:2]), ("x",))
  value = np.arange(8, dtype=np.float32)
  xs = jax.device_put(value, NamedSharding(mesh, P("x")))
  jf = jax.jit(lambda v: v * 2)
  np.testing.assert_allclose(jf(xs), value * 2)
  plain = jnp.asarray(value)
  np.testing.assert_allclose(jf(plain), value * 2)
  np.testing.assert_allclose(jf(plain), value * 2)
  np.testing.assert_allclose(jf(xs), value * 2)
  # Another device than the default one is not "plain" either.
  other = jax.device_put(value, devices[1])
  np.testing.assert_allclose(jf(other), value * 2)


def test_aot_stages_unchanged():
  jf = jax.jit(lambda x: x + 1)
  x = _arr(4)
  jf(x)
  compiled = jf.lower(x).compile()
  np.testing.assert_allclose(compiled(x), np.arange(4) + 1)
  with pytest.raises(TypeError):
    compiled(_arr(5))
  jf.clear_cache()
  assert not jf._fast_cache
  np.testing.assert_allclose(jf(x), np.arange(4) + 1)


def test_errors_unchanged():
  jf = jax.jit(lambda x: x + 1)
  with pytest.raises(TypeError):
    jf("not an array")


def test_eager_same_type_operands():
  x, y = _arr(16), _arr(16, start=1)
  np.testing.assert_allclose(jnp.add(x, y), np.arange(16) * 2 + 1)
  # Mixed dtypes and shapes still promote and broadcast.
  out = jnp.add(x, _arr(16, dtype=np.int32))
  assert out.dtype == np.float32
  out = jnp.add(_arr(2, 1), _arr(1, 3))
  assert out.shape == (2, 3)
  # Two weakly typed operands keep the weak type.
  w = jnp.add(1.0, 2.0)
  assert w.weak_type
  assert jnp.add(w, w).weak_type
  # Boolean add is logical or.
  b = jnp.asarray(np.array([True, False]))
  np.testing.assert_array_equal(jnp.add(b, b), [True, False])
  # Float-only functions on integers still promote to float.
  i = _arr(3, dtype=np.int32)
  assert jnp.true_divide(i, i).dtype == np.float32


def test_eager_host_array_is_moved_once():
  x = jnp.asarray(np.arange(4, dtype=np.float32))
  assert x.is_host_backed
  jnp.add(x, x)
  assert not x.is_host_backed  # the same object now holds its device buffer
  buf = x.device_buffers()[0]
  jnp.add(x, x)
  assert x.device_buffers()[0] is buf


def test_eager_inside_trace_is_staged():
  x = _arr(3)
  closed = jax.make_jaxpr(lambda y: jnp.add(x, x) + y)(x)
  assert [e.primitive.name for e in closed.jaxpr.eqns].count("add") == 2
  assert not core.is_staging() and len(core.current_trace_stack()) == 1


def test_eager_weak_and_strong_operands_promote():
  strong = _arr(3)
  w = jax.jit(lambda: jnp.full((3,), 2.0) * 1.0)()  # f32[3], same dtype and shape
  out = jnp.multiply(jnp.add(1.0, 1.0), strong)  # weak scalar times strong vector
  assert not out.weak_type and out.shape == (3,)
  np.testing.assert_allclose(out, np.arange(3) * 2.0)
  for fn, ref in [(jnp.maximum, np.maximum), (jnp.minimum, np.minimum),
                  (jnp.subtract, np.subtract), (jnp.multiply, np.multiply)]:
    np.testing.assert_allclose(fn(strong, w), ref(np.arange(3, dtype=np.float32), 2.0))
  b = jnp.asarray(np.array([True, False]))
  with pytest.raises(TypeError, match="boolean"):
    jnp.subtract(b, b)
  np.testing.assert_array_equal(jnp.maximum(b, b), [True, False])


def test_dict_arguments_key_on_their_keys():
  jf = jax.jit(lambda d, y: {k: v * y for k, v in d.items()})
  x, y = _arr(3), _arr(3, start=1)
  out = jf({"b": x, "a": y}, y)
  np.testing.assert_allclose(out["a"], np.arange(1, 4) ** 2)
  np.testing.assert_allclose(out["b"], np.arange(3) * np.arange(1, 4))
  # Same keys, values swapped: a cache hit that must keep the key order straight.
  out = jf({"a": x, "b": y}, y)
  np.testing.assert_allclose(out["a"], np.arange(3) * np.arange(1, 4))
  np.testing.assert_allclose(out["b"], np.arange(1, 4) ** 2)
  assert len(jf._fast_cache) == 1
  out = jf({"a": x, "c": y}, y)
  assert sorted(out) == ["a", "c"]
  assert len(jf._fast_cache) == 2
  # A nested structure goes through tree_flatten.
  nested = jax.jit(lambda d: d["n"][0] + d["a"])
  np.testing.assert_allclose(nested({"a": x, "n": [y]}), np.arange(3) + np.arange(1, 4))
  np.testing.assert_allclose(nested({"a": x, "n": [y]}), np.arange(3) + np.arange(1, 4))
  assert len(nested._fast_cache) == 1
