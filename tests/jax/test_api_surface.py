"""device_put/device_get, eval_shape with ShapeDtypeStruct, AOT stages, linear_transpose,
closure_convert, jit in/out shardings."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp


def f(x, y):
  return jnp.dot(x, y) + 1.0, jnp.sum(x)


X = np.arange(6.0, dtype=np.float32).reshape(2, 3)
Y = np.ones((3, 2), np.float32)


def test_device_put_get_block(backend):
  x = jax.device_put(np.arange(4.0, dtype=np.float32))
  d = jax.devices()[-1]
  y = jax.device_put(np.ones(2, np.float32), d)
  assert y.devices() == {d} and y.sharding == jax.sharding.SingleDeviceSharding(d)
  host = jax.device_get({"x": x, "y": y, "s": 1.5})
  assert isinstance(host["x"], np.ndarray) and host["s"] == 1.5
  np.testing.assert_array_equal(host["x"], np.arange(4.0))
  z = jax.block_until_ready({"a": x * 2})
  np.testing.assert_array_equal(z["a"], np.arange(4.0) * 2)
  # an array on another device still feeds computations correctly
  np.testing.assert_array_equal(jax.jit(lambda a: a + 1)(y), np.full(2, 2.0))
  assert jax.device_put(x) is x


def test_device_put_prefix_of_targets(backend):
  d0 = jax.devices()[0]
  out = jax.device_put((np.ones(2), [np.zeros(3)]), (d0, None))
  assert out[0].devices() == {d0}
  assert out[1][0].shape == (3,)


@pytest.mark.parametrize("target", ["not a device", 3, ("cpu", None), ["x", None]])
def test_device_put_to_something_that_is_not_a_placement(target):
  # A leaf that is neither a device nor a sharding, alone or inside a prefix
  # (it used to recurse without end).
  bad = target if isinstance(target, (str, int)) else target[0]
  with pytest.raises(TypeError, match=r"device_put: `device` must be a jax.Device, a Sharding, "
                     r"a PartitionSpec, "
                     rf"None or a pytree prefix of them, got {bad!r} of type {type(bad).__name__}"):
    jax.device_put((np.ones(2), np.zeros(3)), target)


def test_device_get_of_tracer_is_an_error(backend):
  with pytest.raises(TypeError, match="device_get"):
    jax.jit(lambda a: jax.device_get(a))(np.ones(2))


def test_eval_shape_with_shape_dtype_structs():
  out = jax.eval_shape(f, jax.ShapeDtypeStruct((2, 3), jnp.float32),
                       jax.ShapeDtypeStruct((3, 2), jnp.float32))
  assert out == (jax.ShapeDtypeStruct((2, 2), jnp.float32), jax.ShapeDtypeStruct((), jnp.float32))
  weak = jax.eval_shape(lambda a: a * 2, jax.ShapeDtypeStruct((), jnp.float32, weak_type=True))
  assert weak.weak_type and repr(weak) == ("ShapeDtypeStruct(shape=(), dtype=float32, "
                                           "weak_type=True)")
  s = jax.ShapeDtypeStruct((2, 3), np.float32)
  assert (s.ndim, s.size, len(s), s.sharding) == (2, 6, 2, None)


def test_trace_lower_compile(backend):
  traced = jax.jit(f).trace(X, Y)
  assert "dot_general" in str(traced.jaxpr)
  assert traced.out_info == (jax.ShapeDtypeStruct((2, 2), np.float32),
                             jax.ShapeDtypeStruct((), np.float32))
  lowered = traced.lower()
  assert lowered.as_text().startswith("HloModule jit_f")
  assert lowered.as_text(dialect="hlo") == lowered.as_text()
  with pytest.raises(ValueError, match="dialect"):
    lowered.as_text(dialect="stablehlo")
  assert lowered.in_tree == jax.tree_util.tree_structure(((1, 2), {}))
  assert lowered.out_tree == jax.tree_util.tree_structure((1, 2))
  # Flops and transcendentals as real JAX 0.10.2 reports them for these programs.
  cost = lowered.cost_analysis()
  assert cost["flops"] == 33.0 and cost["bytes accessed"] > 0
  assert lowered.compile().cost_analysis()["flops"] == 33.0
  exp_cost = jax.jit(lambda x: jnp.exp(x).sum()).lower(X).cost_analysis()
  assert (exp_cost["flops"], exp_cost["transcendentals"]) == (5.0, 6.0)
  compiled = lowered.compile()
  a, b = compiled(X, Y)
  np.testing.assert_allclose(a, X @ Y + 1)
  np.testing.assert_allclose(b, X.sum())
  assert "HloModule" in compiled.as_text()
  shardings = compiled.input_shardings
  assert len(shardings[0]) == 2 and len(compiled.output_shardings) == 2


def test_compiled_checks_arguments(backend):
  compiled = jax.jit(f).lower(X, Y).compile()
  with pytest.raises(TypeError, match="input pytree"):
    compiled(X)
  with pytest.raises(TypeError, match="Argument 1 compiled with f32\\[3,2\\] and called with "
                                      "f32\\[3,3\\]"):
    compiled(X, np.ones((3, 3), np.float32))


def test_lower_from_shape_dtype_structs(backend):
  compiled = jax.jit(f).lower(jax.ShapeDtypeStruct((2, 3), np.float32), Y).compile()
  np.testing.assert_allclose(compiled(X, Y)[0], X @ Y + 1)


def test_linear_transpose(backend):
  lt = jax.linear_transpose(lambda a: 2 * a + jnp.sum(a), np.zeros(3, np.float32))
  (ct,) = lt(np.arange(3.0, dtype=np.float32))
  np.testing.assert_allclose(ct, 2 * np.arange(3.0) + np.arange(3.0).sum())
  lt2 = jax.linear_transpose(lambda a, b: (a * 2, a + b), 1.0, 2.0)
  ca, cb = lt2((3.0, 4.0))
  assert (float(ca), float(cb)) == (10.0, 4.0)
  with pytest.raises(TypeError, match="cotangent type does not match"):
    lt(np.zeros(4, np.float32))
  with pytest.raises(TypeError, match="float or complex"):
    jax.linear_transpose(lambda a: a, np.int32(1))


def test_closure_convert(backend):
  w = jnp.arange(3.0)
  conv, consts = jax.closure_convert(lambda a: a * w, np.ones(3, np.float32))
  assert len(consts) == 1
  np.testing.assert_allclose(conv(np.ones(3, np.float32), *consts), np.arange(3.0))
  np.testing.assert_allclose(conv(np.ones(3, np.float32), consts[0] * 2), 2 * np.arange(3.0))


def test_jit_out_shardings_place_results(backend):
  d = jax.devices()[-1]
  out = jax.jit(lambda a: a * 2, out_shardings=jax.sharding.SingleDeviceSharding(d))(
      np.ones(2, np.float32))
  assert out.devices() == {d}
  np.testing.assert_array_equal(out, [2.0, 2.0])


def test_wrapping_a_callable_object_keeps_jit_state(backend):
  class Scale:
    def __init__(self):
      self._fun = "not jit's"  # copying the wrapped object's __dict__ would clobber jit's

    def __call__(self, a):
      return a * 3

  np.testing.assert_array_equal(jax.jit(Scale())(np.ones(2, np.float32)), [3.0, 3.0])


def test_print_environment_info_reports_versions_and_backend(backend, capsys):
  text = jax.print_environment_info(return_string=True)
  assert f"jax:          {jax.__version__}" in text
  assert "jaxlib:" in text and "cpu" in text
  assert jax.print_environment_info() is None
  assert "jax:" in capsys.readouterr().out
