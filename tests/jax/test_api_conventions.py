"""Documented conventions of JAX's API that libraries rely on: vmap maps keyword
arguments over axis 0, a jitted function shows its wrapped function's signature,
jax.devices(platform) refuses a platform with no backend, jax.checking_leaks, and
jnp.array of a list of jax scalars in an ml_dtypes type."""

import inspect

import numpy as np
import pytest

import jax
import jax.numpy as jnp


def test_vmap_maps_keyword_arguments_over_axis_zero(backend):
  f = lambda x, y: x * 2 + y
  x = jnp.arange(6.0).reshape(3, 2)
  np.testing.assert_allclose(jax.vmap(f)(x=x, y=x), 3 * np.asarray(x))
  # in_axes covers the positional arguments only; y is still mapped.
  out = jax.vmap(f, in_axes=(None,))(jnp.ones(2), y=x)
  np.testing.assert_allclose(out, 2 + np.asarray(x))
  with pytest.raises(ValueError, match="inconsistent sizes"):
    jax.vmap(f)(x, y=jnp.ones((4, 2)))


def test_pmap_under_jit_maps_keyword_arguments(backend):
  f = jax.jit(jax.pmap(lambda x, y: x * 2 + y))
  x = jnp.array([[1, 2]])
  np.testing.assert_array_equal(f(x=x, y=x), [[3, 6]])


def test_jitted_function_shows_the_wrapped_signature():
  def f(x, y=2, *, z):
    return x
  jitted = jax.jit(f)
  assert str(inspect.signature(jitted, follow_wrapped=False)) == "(x, y=2, *, z)"


def test_devices_of_a_named_platform(backend):
  assert jax.devices("cpu") == jax.devices()
  assert jax.device_count("cpu") == len(jax.devices())
  with pytest.raises(RuntimeError, match="Unknown backend"):
    jax.devices("tpu")


def test_checking_leaks_turns_the_option_on_for_its_block():
  assert not jax.config.jax_check_tracer_leaks
  with jax.checking_leaks():
    assert jax.config.jax_check_tracer_leaks
  assert not jax.config.jax_check_tracer_leaks


def test_array_from_a_list_of_bfloat16_scalars(backend):
  v = jnp.bfloat16(128)
  out = jnp.array([v, v + 1], dtype=jnp.bfloat16)
  assert out.dtype == jnp.bfloat16
  np.testing.assert_array_equal(np.asarray(out, np.float32), [128.0, 129.0])
  nested = jnp.array([[jnp.float32(1)], [2.0]], dtype=jnp.float16)
  assert nested.dtype == np.float16 and nested.shape == (2, 1)


def test_symbolic_zero_fwd_rules_get_the_public_primal_type(backend):
  seen = []

  @jax.custom_vjp
  def f(x, y):
    return x * y

  def fwd(x, y):
    seen.append((type(x), type(y), x.perturbed, y.perturbed))
    # tree_map sees one leaf per input, as in JAX.
    assert jax.tree_util.tree_leaves((x, y)) == [x, y]
    return x.value * y.value, (x.value, y.value)

  def bwd(res, ct):
    x, y = res
    return ct * y, ct * x

  f.defvjp(fwd, bwd, symbolic_zeros=True)
  assert jax.grad(f)(2.0, 5.0) == 5.0
  assert seen[-1][:2] == (jax.custom_derivatives.CustomVJPPrimal,) * 2
  assert seen[-1][2:] == (True, False)
  zero = jax.custom_derivatives.SymbolicZero.from_primal_value(jnp.ones(2))
  assert isinstance(zero, jax.custom_derivatives.SymbolicZero) and zero.shape == (2,)


def test_eval_shape_accepts_abstract_values():
  from jax.core import ShapedArray
  out = jax.eval_shape(lambda a, b: a @ b, jnp.ones((2, 3)), ShapedArray((3, 4), np.float32))
  assert out.shape == (2, 4) and out.dtype == np.float32


def test_lowered_compiler_ir_in_hlo(backend):
  lowered = jax.jit(lambda x: jnp.dot(x, x, precision=jax.lax.Precision.HIGHEST)).lower(
      jnp.ones((2, 2)))
  text = lowered.compiler_ir(dialect="hlo").as_hlo_text()
  assert text == lowered.as_text() and "dot(" in text
  with pytest.raises(ValueError, match="dialect='hlo'"):
    lowered.compiler_ir()


@pytest.mark.parametrize("fn", [jnp.dot, jnp.matmul])
def test_dot_precision_is_kept_in_the_jaxpr_and_the_hlo(backend, fn):
  x = jnp.arange(4.0).reshape(2, 2)
  f = lambda a: fn(a, a, precision=jax.lax.Precision.HIGHEST)
  eqn = jax.make_jaxpr(f)(x).jaxpr.eqns[-1]
  assert eqn.params["precision"] == (jax.lax.Precision.HIGHEST,) * 2
  text = jax.jit(f).lower(x).as_text()
  assert "operand_precision={highest,highest}" in text
  np.testing.assert_allclose(jax.jit(f)(x), np.asarray(x) @ np.asarray(x))
  default = jax.jit(lambda a: fn(a, a)).lower(x).as_text()
  assert "operand_precision" not in default


class _ArraysOnly:
  """A pytree node that keeps only its array-valued fields as children (as some
  libraries' distributions do), so rebuilding it from placeholders loses them."""

  def __init__(self, a, b):
    self.a, self.b = a, b


def _flatten_arrays_only(node):
  fields = [("a", node.a), ("b", node.b)]
  kids = [v for _, v in fields if isinstance(v, (jax.Array, np.ndarray))]
  return kids, tuple(n for n, v in fields if isinstance(v, (jax.Array, np.ndarray)))


jax.tree_util.register_pytree_node(
    _ArraysOnly, _flatten_arrays_only,
    lambda names, kids: _ArraysOnly(**dict(zip(names, kids)), **{
        n: None for n in ("a", "b") if n not in names}))


def test_vmap_with_a_leaf_out_axes_does_not_rebuild_the_output(backend):
  out = jax.vmap(lambda x: _ArraysOnly(x.sum(keepdims=True), x * 2))(jnp.ones((3, 4)))
  assert out.a.shape == (3, 1) and out.b.shape == (3, 4)
  np.testing.assert_allclose(out.a[:, 0], [4.0, 4.0, 4.0])


def test_jitted_functions_are_named_as_in_jax():
  # chex recognises jitted functions by their type name, as JAX 0.10.2 names it
  def g(x):
    return x

  f = jax.jit(g)
  assert type(f).__name__ == "PjitFunction"
  assert repr(f) == f"<PjitFunction of {g!r}>"
  assert f.__wrapped__ is g
