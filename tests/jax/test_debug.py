"""jax.debug: print and callback run with the runtime values under jit, vmap and grad."""

import logging

import numpy as np
import pytest

import jax
import jax.numpy as jnp


def _f(x):
  jax.debug.print("x={x} sum={s}", x=x, s=x.sum())
  return x * 2


def test_print_eager(capsys):
  _f(jnp.arange(3.0))
  assert capsys.readouterr().out == "x=[0. 1. 2.] sum=3.0\n"


def test_print_under_jit(backend, capsys):
  out = jax.jit(_f)(jnp.arange(3.0))
  np.testing.assert_array_equal(out, [0.0, 2.0, 4.0])
  assert capsys.readouterr().out == "x=[0. 1. 2.] sum=3.0\n"


def test_print_on_every_call_of_a_cached_jit(backend, capsys):
  f = jax.jit(_f)
  for i in range(3):
    f(jnp.full(2, float(i)))
  assert capsys.readouterr().out == (
      "x=[0. 0.] sum=0.0\nx=[1. 1.] sum=2.0\nx=[2. 2.] sum=4.0\n")


def test_print_survives_dead_code_elimination(backend, capsys):
  def g(x):
    jax.debug.print("{}", x + 1)  # nothing uses this value
    return x

  jax.jit(g)(jnp.float32(2.0))
  assert capsys.readouterr().out == "3.0\n"


def test_print_under_vmap_once_per_element(backend, capsys):
  jax.jit(jax.vmap(_f))(jnp.arange(4.0).reshape(2, 2))
  assert capsys.readouterr().out == "x=[0. 1.] sum=1.0\nx=[2. 3.] sum=5.0\n"


def test_print_under_grad_sees_primals(backend, capsys):
  g = jax.grad(lambda x: _f(x).sum())(jnp.arange(3.0))
  np.testing.assert_array_equal(g, [2.0, 2.0, 2.0])
  assert capsys.readouterr().out == "x=[0. 1. 2.] sum=3.0\n"


def test_print_format_spec(capsys):
  jax.debug.print("{:.2f} and {}", jnp.float32(1.0 / 3), 7)
  assert capsys.readouterr().out == "0.33 and 7\n"


def test_callback_receives_numpy_values(backend):
  seen = []

  def f(x, y):
    jax.debug.callback(lambda a, b: seen.append((a, b["k"])), x, {"k": y})
    return x + y

  jax.jit(f)(jnp.arange(3, dtype=jnp.int32), jnp.int32(5))
  (a, b), = seen
  assert isinstance(a, np.ndarray) and a.dtype == np.int32
  np.testing.assert_array_equal(a, [0, 1, 2])
  assert int(b) == 5


def test_callback_must_return_none():
  with pytest.raises(TypeError, match="must return None"):
    jax.debug.callback(lambda x: x, jnp.float32(1.0))


def test_callback_rejects_non_arrays():
  with pytest.raises(TypeError, match="arrays or scalars"):
    jax.debug.callback(lambda x: None, "text")


def test_breakpoint_not_supported():
  with pytest.raises(NotImplementedError, match="jax.debug.print"):
    jax.debug.breakpoint()


def test_log_goes_to_jax_logger(caplog):
  with caplog.at_level(logging.INFO, logger="jax"):
    jax.debug.log("v={}", jnp.float32(1.5))
  assert "v=1.5" in caplog.text


def test_visualize_array_sharding(backend, capsys):
  jax.debug.visualize_array_sharding(jnp.ones((4, 2)))
  lines = capsys.readouterr().out.splitlines()
  assert len(lines) == 1 and lines[0].startswith("[:, :]")
  assert str(jax.devices()[0]) in lines[0]


def test_visualize_array_sharding_rejects_tracers():
  with pytest.raises(ValueError, match="concrete"):
    jax.jit(lambda x: jax.debug.visualize_array_sharding(x) or x)(jnp.ones(2))


def test_inspect_array_sharding(backend):
  got = []
  x = jnp.ones(3)
  jax.debug.inspect_array_sharding(x, callback=got.append)
  assert got == [x.sharding]


# ----------------------------------------------------------------------------- io_callback


def test_io_callback_returns_values_and_is_never_dropped(backend):
  from jax.experimental import io_callback
  log = []

  def host(x):
    log.append(np.asarray(x).copy())
    return (x * 2).astype(np.float32)

  def f(x):
    return io_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x) + 1

  x = jnp.arange(2.0)
  np.testing.assert_array_equal(f(x), [1.0, 3.0])
  np.testing.assert_array_equal(jax.jit(f)(x), [1.0, 3.0])
  out = jax.vmap(f)(jnp.arange(6.0).reshape(3, 2))
  np.testing.assert_array_equal(out, 2 * np.arange(6.0).reshape(3, 2) + 1)
  assert len(log) == 2 + 3  # vmap: once per element

  def unused(x):
    io_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    return x

  jax.jit(unused)(x)
  assert len(log) == 6


def test_io_callback_has_no_derivative():
  from jax.experimental import io_callback
  f = lambda x: io_callback(lambda v: v, jax.ShapeDtypeStruct((), jnp.float32), x)
  with pytest.raises(ValueError, match="JVP"):
    jax.grad(f)(1.0)


def test_debug_callbacks_inside_control_flow_run(backend):
  # A compiled cond/while/scan keeps only what its outputs need; the callbacks in
  # their bodies must still run, once per step, in order.
  seen = []

  def body(c, a):
    jax.debug.callback(lambda v: seen.append(float(v)), c)
    return c + a, c * a

  carry, ys = jax.lax.scan(body, 1.0, jnp.arange(3.0))
  assert seen == [1.0, 1.0, 2.0]
  assert float(carry) == 4.0 and ys.tolist() == [0.0, 1.0, 4.0]
  seen.clear()
  carry, ys = jax.jit(lambda x: jax.lax.scan(body, x, jnp.arange(3.0), reverse=True))(1.0)
  assert seen == [1.0, 3.0, 4.0] and ys.tolist() == [0.0, 3.0, 2.0]
  seen.clear()
  jax.jit(lambda x: jax.lax.cond(x > 0, lambda y: body(y, 1.0)[0], lambda y: y, x))(5.0)
  assert seen == [5.0]
  seen.clear()
  jax.lax.while_loop(lambda c: c < 3.0, lambda c: body(c, 1.0)[0], 0.0)
  assert seen == [0.0, 1.0, 2.0]


def test_debug_callbacks_inside_pmap_run_for_every_instance(backend):
  seen = []

  def f(x):
    jax.debug.callback(lambda v: seen.append(float(v)), x)
    return jax.lax.pmean(x, "i")

  out = jax.pmap(f, axis_name="i")(jnp.array([1.0, -2.0]))
  assert sorted(seen) == [-2.0, 1.0]
  np.testing.assert_allclose(out, [-0.5, -0.5])
