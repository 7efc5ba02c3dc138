"""The execution layer: one compile path, one set of caches, the compile log.

Compiles are counted through `jax_log_compiles`, as a user would: every compile
logs a WARNING "Compiling <kind>(<name>) ..." on the "jax._src.dispatch" logger.
"""

import gc
import logging
import os
import subprocess
import sys
import weakref

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax._src import callback, core, execution, shard_map, shard_map_jit
from jax._src.config import config
from jax._src.jit_primitive import jit_p
from jax._src.lax import control_flow, reductions
from jax.sharding import PartitionSpec as P

pytestmark = pytest.mark.usefixtures("backend")


@pytest.fixture
def compiles(caplog):
  """A function returning the names of the modules compiled so far in the test."""
  config.update("jax_log_compiles", True)
  caplog.set_level(logging.WARNING, logger="jax._src.dispatch")
  yield lambda: [r.args[0] for r in caplog.records
                 if r.name == "jax._src.dispatch" and r.getMessage().startswith("Compiling ")]
  config.update("jax_log_compiles", False)


def _count(compiles, name):
  return sum(1 for n in compiles() if n == name)


def test_log_compiles_flag_exists_and_defaults_off():
  assert config.read("jax_log_compiles") is False
  assert "jax_log_compiles" in config.flag_names()


def test_compile_log_message_names_function_and_types(compiles, caplog):
  def logged_fn(x):
    return x * 3

  jax.jit(logged_fn)(jnp.ones((2, 3), jnp.float32))
  messages = [r.getMessage() for r in caplog.records if "logged_fn" in r.getMessage()]
  assert messages[0].startswith("Compiling jit(logged_fn) with global shapes and types")
  assert "ShapedArray(float32[2,3])" in messages[0]  # the types printed as JAX prints them
  assert any(m.startswith("Finished XLA compilation of jit(logged_fn) in") for m in messages)
  assert all(r.levelno == logging.WARNING for r in caplog.records if "logged_fn" in r.getMessage())


def test_no_log_when_flag_off(caplog):
  caplog.set_level(logging.DEBUG, logger="jax._src.dispatch")

  def quiet_fn(x):
    return x - 1

  jax.jit(quiet_fn)(jnp.ones(5))
  assert not [r for r in caplog.records if "quiet_fn" in r.getMessage()]


def test_new_jit_wrapper_per_call_traces_and_compiles_once(compiles):
  traces = []

  def once_fn(x):
    traces.append(1)
    return jnp.sin(x) * 2 + 1

  x = jnp.arange(8, dtype=jnp.float32)
  for _ in range(100):
    out = jax.jit(once_fn)(x)
  np.testing.assert_allclose(out, np.sin(np.arange(8, dtype=np.float32)) * 2 + 1, rtol=1e-6)
  assert len(traces) == 1
  assert _count(compiles, "jit(once_fn)") == 1


def test_new_wrapper_gets_native_fast_path_entry():
  def fast_fn(x):
    return x + 1

  x = jnp.ones(4)
  jax.jit(fast_fn)(x)
  again = jax.jit(fast_fn)
  again(x)
  assert len(again._fast_cache) == 1  # the second wrapper's later calls run natively


def test_static_args_and_shapes_compile_again(compiles):
  def static_fn(x, n):
    return x * n

  x = jnp.ones(3)
  for _ in range(3):
    np.testing.assert_allclose(jax.jit(static_fn, static_argnums=1)(x, 2), [2, 2, 2])
  assert _count(compiles, "jit(static_fn)") == 1
  np.testing.assert_allclose(jax.jit(static_fn, static_argnums=1)(x, 5), [5, 5, 5])
  assert _count(compiles, "jit(static_fn)") == 2
  jax.jit(static_fn, static_argnums=1)(jnp.ones(4), 5)
  assert _count(compiles, "jit(static_fn)") == 3
  jax.jit(static_fn, static_argnums=1)(jnp.ones(4, jnp.int32), 5)
  assert _count(compiles, "jit(static_fn)") == 4
  jax.jit(static_fn, static_argnums=1)(jnp.ones(4), 5)  # every earlier one is still cached
  assert _count(compiles, "jit(static_fn)") == 4


def test_options_are_part_of_the_key():
  def donor_fn(x):
    return x * 2

  jax.jit(donor_fn)(jnp.ones(4))
  y = jnp.ones(4)
  out = jax.jit(donor_fn, donate_argnums=0)(y)
  np.testing.assert_allclose(out, [2, 2, 2, 2])
  assert y.is_deleted()  # the donating wrapper did not reuse the non-donating executable
  z = jnp.ones(4)
  jax.jit(donor_fn)(z)
  assert not z.is_deleted()


def test_clear_caches_makes_next_call_compile(compiles):
  def cleared_fn(x):
    return x * 7

  x = jnp.ones(3)
  jf = jax.jit(cleared_fn)
  jf(x)
  jf(x)
  jax.jit(cleared_fn)(x)
  assert _count(compiles, "jit(cleared_fn)") == 1
  jax.clear_caches()
  assert len(jf._fast_cache) == 0
  np.testing.assert_allclose(jf(x), [7, 7, 7])  # the live wrapper's native entry went too
  assert _count(compiles, "jit(cleared_fn)") == 2
  jax.clear_caches()
  jax.jit(cleared_fn)(x)
  assert _count(compiles, "jit(cleared_fn)") == 3


def test_clear_caches_empties_primitive_cache(compiles):
  x = jnp.ones((3, 5, 7), jnp.float32)
  jnp.cos(x)
  jnp.cos(x)
  assert _count(compiles, "jit(cos)") == 1
  jax.clear_caches()
  jnp.cos(x)
  assert _count(compiles, "jit(cos)") == 2


def test_primitive_cache_keeps_the_most_recent_executables(compiles, monkeypatch):
  from jax._src import execution  # the bound is internal; lowered here to see it work
  monkeypatch.setattr(execution, "_PRIMITIVE_CACHE_SIZE", 2)
  jax.clear_caches()
  xs = [jnp.ones((n, 3), jnp.float32) for n in (2, 3, 4)]
  before = len(compiles())
  for x in xs:
    np.testing.assert_allclose(jax.lax.sin(x), np.sin(np.ones(x.shape)), rtol=1e-6)
  assert len(execution._primitive_cache) == 2
  assert len(compiles()) - before == 3
  jax.lax.sin(xs[2])  # still cached
  assert len(compiles()) - before == 3
  np.testing.assert_allclose(jax.lax.sin(xs[0]), np.sin(np.ones((2, 3))), rtol=1e-6)
  assert len(compiles()) - before == 4  # evicted, so compiled again
  assert len(execution._primitive_cache) == 2
  jax.clear_caches()


def test_wrapper_clear_cache_is_per_function(compiles):
  def a_fn(x):
    return x + 1

  def b_fn(x):
    return x + 2

  x = jnp.ones(2)
  ja, jb = jax.jit(a_fn), jax.jit(b_fn)
  ja(x), jb(x)
  ja.clear_cache()
  ja(x), jb(x)
  assert _count(compiles, "jit(a_fn)") == 2
  assert _count(compiles, "jit(b_fn)") == 1


def test_cache_entry_goes_with_the_function():
  def make():
    def dying_fn(x):
      return x * 11
    return dying_fn

  fn = make()
  x = jnp.ones(3)
  traced = jax.jit(fn).trace(x)
  jaxpr_ref = weakref.ref(traced.jaxpr)
  np.testing.assert_allclose(jax.jit(fn)(x), [11, 11, 11])
  assert execution.has_function_cache(fn)
  fn_ref = weakref.ref(fn)
  del fn, traced
  gc.collect()
  assert fn_ref() is None  # the caches did not keep the function alive
  assert jaxpr_ref() is None  # nor its traced jaxpr, whose executable went with it


class _Unweakrefable:
  __slots__ = ()

  def __call__(self, x):
    return x * 4


class _Unhashable:
  __hash__ = None

  def __eq__(self, other):
    return isinstance(other, _Unhashable)

  def __call__(self, x):
    return x * 5


def test_unweakrefable_and_unhashable_callables(compiles):
  f, g = _Unweakrefable(), _Unhashable()
  with pytest.raises(TypeError):
    weakref.ref(f)
  x = jnp.ones(2)
  for _ in range(3):
    np.testing.assert_allclose(jax.jit(f)(x), [4, 4])
    np.testing.assert_allclose(jax.jit(g)(x), [5, 5])
  assert _count(compiles, "jit(_Unweakrefable)") == 1
  assert _count(compiles, "jit(_Unhashable)") == 1


def test_eager_primitive_compiles_once_per_type(compiles):
  x = jnp.ones((2, 9, 4), jnp.float32)
  for _ in range(5):
    jnp.tanh(x)
  assert _count(compiles, "jit(tanh)") == 1


def test_pmap_wrapper_per_call_compiles_once(compiles):
  def pmapped_fn(x):
    return jax.lax.psum(x, "i")

  x = jnp.arange(8, dtype=jnp.float32).reshape(2, 4)
  for _ in range(3):
    out = jax.pmap(pmapped_fn, axis_name="i")(x)
  np.testing.assert_allclose(out, np.broadcast_to(np.arange(8).reshape(2, 4).sum(0), (2, 4)))
  assert _count(compiles, "pmap(pmapped_fn)") == 1


def test_x64_change_retraces():
  def x64_fn(x):
    return x + 1

  assert jax.jit(x64_fn)(1.0).dtype == np.float32
  config.update("jax_enable_x64", True)
  assert jax.jit(x64_fn)(1.0).dtype == np.float64


def test_no_cache_state_on_closed_jaxprs():
  def plain_fn(x):
    return x * 2

  closed = jax.jit(plain_fn).trace(jnp.ones(3)).jaxpr
  jax.jit(plain_fn)(jnp.ones(3))
  assert set(vars(closed)) == {"jaxpr", "consts"}


# ----------------------------------------------------------------------------- walkers


def _cb(x):
  return np.sin(x)


def _callback(y):
  return jax.pure_callback(_cb, jax.ShapeDtypeStruct(y.shape, y.dtype), y)


def test_subjaxprs_yields_every_nested_jaxpr():
  def f(x):
    a = jax.lax.cond(x[0] > 0, lambda y: y + 1, lambda y: y - 1, x)
    b = jax.lax.while_loop(lambda c: c[0] < 5, lambda c: c * 2, x)
    c, _ = jax.lax.scan(lambda c, y: (c + y, c), x[0], x)
    return a, b, c

  eqns = jax.make_jaxpr(f)(jnp.ones(3)).jaxpr.eqns
  by_prim = {e.primitive: list(core.subjaxprs(e)) for e in eqns}
  assert len(by_prim[control_flow.cond_p]) == 2
  assert len(by_prim[control_flow.while_p]) == 2
  assert len(by_prim[control_flow.scan_p]) == 1
  assert all(isinstance(j, core.Jaxpr) for js in by_prim.values() for j in js)


def test_callback_found_inside_cond_and_while():
  def in_cond(x):
    return jax.lax.cond(x[0] > 0, _callback, lambda y: y, x)

  def in_while(x):
    return jax.lax.while_loop(lambda c: c[0] < 3, lambda c: _callback(c) + c + 1, x)

  x = jnp.ones(3, jnp.float32)
  assert callback.contains_callback(jax.make_jaxpr(in_cond)(x).jaxpr)
  assert callback.contains_callback(jax.make_jaxpr(in_while)(x).jaxpr)
  assert not callback.contains_callback(jax.make_jaxpr(lambda y: y + 1)(x).jaxpr)
  np.testing.assert_allclose(jax.jit(in_cond)(x), np.sin(np.ones(3)), rtol=1e-6)
  expected = np.ones(3, np.float32)
  while expected[0] < 3:
    expected = np.sin(expected) + expected + 1
  np.testing.assert_allclose(jax.jit(in_while)(x), expected, rtol=1e-5)


def test_callback_in_cond_of_an_spmd_jit_is_not_partitioned():
  mesh = jax.make_mesh((2,), ("i",), axis_types=(jax.sharding.AxisType.Auto,))
  body = jax.shard_map(lambda y: y * 2, mesh=mesh, in_specs=P("i"), out_specs=P("i"))

  def f(x):
    return jax.lax.cond(x[0] > 0, _callback, lambda y: y, body(x))

  with pytest.raises(shard_map_jit.NotPartitionable, match="host callback"):
    jax.jit(f).lower(jnp.ones(4))


def _mesh_body():
  mesh = jax.make_mesh((4,), ("i",), axis_types=(jax.sharding.AxisType.Auto,))
  return jax.shard_map(lambda y: y * 2, mesh=mesh, in_specs=P("i"), out_specs=P("i"))


def test_shard_map_found_and_run_inside_cond():
  body = _mesh_body()

  def f(x):
    return jax.lax.cond(x[0] > 0, body, lambda y: y - 1, x)

  x = jnp.arange(1.0, 9.0)
  assert shard_map.contains_shard_map(jax.make_jaxpr(f)(x).jaxpr)
  np.testing.assert_allclose(jax.jit(f)(x), np.arange(1.0, 9.0) * 2)
  np.testing.assert_allclose(jax.jit(f)(-x), -np.arange(1.0, 9.0) - 1)
  with pytest.raises(shard_map_jit.NotPartitionable, match="inside control flow"):
    jax.jit(f).lower(x)


def test_shard_map_found_and_run_inside_while():
  body = _mesh_body()

  def f(x):
    return jax.lax.while_loop(lambda c: c[0] < 10, body, x)

  x = jnp.arange(1.0, 9.0)
  assert shard_map.contains_shard_map(jax.make_jaxpr(f)(x).jaxpr)
  np.testing.assert_allclose(jax.jit(f)(x), np.arange(1.0, 9.0) * 16)


def test_axis_index_in_cond_makes_output_vary():
  mesh = jax.make_mesh((4,), ("i",), axis_types=(jax.sharding.AxisType.Auto,))

  def body(y):
    return jax.lax.cond(y[0] > -1, lambda z: z + jax.lax.axis_index("i"), lambda z: z, y)

  f = jax.shard_map(body, mesh=mesh, in_specs=P(), out_specs=P())
  with pytest.raises(ValueError, match="varies over that axis"):
    f(jnp.zeros(4, jnp.int32))


def test_partition_rules_are_keyed_by_primitive():
  assert shard_map.partition_rules
  assert all(isinstance(p, core.Primitive) for p in shard_map.partition_rules)
  for prim in (jit_p, shard_map.shard_map_p, reductions.reduce_sum_p, reductions.argmax_p):
    assert prim in shard_map.partition_rules


# ----------------------------------------------------------------------------- devices


def _device_count_in_subprocess(cwd, **env) -> list:
  clean = {k: v for k, v in os.environ.items()
           if k not in ("JAX_NUM_CPU_DEVICES", "XLA_FLAGS", "JAX_LOG_COMPILES")}
  clean.update(env)
  code = ("import jax; from jax._src.config import config; "
          "print(jax.device_count(), config.jax_log_compiles)")
  # Run outside the source tree, so the installed jax and jaxlib are the ones imported.
  out = subprocess.run([sys.executable, "-c", code], env=clean, capture_output=True, text=True,
                       timeout=300, cwd=str(cwd))
  assert out.returncode == 0, out.stderr
  return out.stdout.split()


def test_xla_flags_force_host_device_count(tmp_path):
  assert _device_count_in_subprocess(
      tmp_path, XLA_FLAGS="--xla_force_host_platform_device_count=8") == ["8", "False"]


def test_num_cpu_devices_wins_over_xla_flags(tmp_path):
  flags = "--xla_cpu_enable_fast_math=false --xla_force_host_platform_device_count=8"
  assert _device_count_in_subprocess(tmp_path, XLA_FLAGS=flags, JAX_NUM_CPU_DEVICES="3",
                                     JAX_LOG_COMPILES="1") == ["3", "True"]


def test_bad_xla_flags_device_count_is_a_clear_error():
  from jax._src import xla_bridge
  assert xla_bridge._forced_host_device_count("--foo=1") is None
  assert xla_bridge._forced_host_device_count(
      "--xla_force_host_platform_device_count=2 --xla_force_host_platform_device_count=5") == 5
  with pytest.raises(xla_bridge.BackendError, match="positive integer, got 'many'"):
    xla_bridge._forced_host_device_count("--xla_force_host_platform_device_count=many")
  with pytest.raises(xla_bridge.BackendError, match="positive integer, got '0'"):
    xla_bridge._forced_host_device_count("--xla_force_host_platform_device_count=0")


def test_device_prints_as_jax_does(backend):
  # JAX 0.10.2's CPU devices: str is "cpu:<id>", repr names the class and id.
  d = jax.devices("cpu")[0]
  assert str(d) == f"cpu:{d.id}" and repr(d) == f"CpuDevice(id={d.id})"
