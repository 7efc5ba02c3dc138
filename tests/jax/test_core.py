"""Tracing to jaxprs, check_jaxpr, printing, transformations staged (no execution)."""

import re

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax
from jax._src import core
from jax._src import errors


def prims(closed):
  return [e.primitive.name for e in closed.jaxpr.eqns]


def test_make_jaxpr_prints_like_jax():
  jaxpr = jax.make_jaxpr(lambda x: x * 2)(1.0)
  text = str(jaxpr)
  assert "a:f32[]" in text and "mul a 2.0:f32[]" in text
  core.check_jaxpr(jaxpr.jaxpr)


def test_broadcasting_and_promotion_staged():
  jaxpr = jax.make_jaxpr(lambda x, y: x + y)(np.ones((3, 1), np.float32),
                                            np.ones((1, 4), np.float32))
  # As in JAX 0.10.2: add broadcasts the size-1 dimensions itself.
  assert prims(jaxpr) == ["add"]
  assert jaxpr.out_avals[0].shape == (3, 4)


def test_check_jaxpr_catches_bad_types():
  jaxpr = jax.make_jaxpr(lambda x: jnp.sin(x))(np.ones(3, np.float32)).jaxpr
  eqn = jaxpr.eqns[0]
  bad = core.Var(core.ShapedArray((4,), np.float32))
  jaxpr.eqns[0] = core.JaxprEqn(eqn.primitive, eqn.inputs, eqn.params, [bad])
  with pytest.raises(core.JaxprTypeError):
    core.check_jaxpr(jaxpr)


def test_grad_of_jit_and_jit_of_grad_stage():
  f = lambda x: jnp.sum(jnp.sin(x) * x)
  x = np.ones(3, np.float32)
  a = jax.make_jaxpr(jax.grad(jax.jit(f)))(x)
  b = jax.make_jaxpr(jax.jit(jax.grad(f)))(x)
  for j in (a, b):
    core.check_jaxpr(j.jaxpr)
    assert j.out_avals[0] == core.ShapedArray((3,), np.float32)
  assert "jit" in prims(a)


def test_vmap_stage():
  f = jax.vmap(lambda a, b: jnp.dot(a, b), in_axes=(0, None))
  jaxpr = jax.make_jaxpr(f)(np.ones((5, 4), np.float32), np.ones(4, np.float32))
  assert jaxpr.out_avals[0].shape == (5,)
  core.check_jaxpr(jaxpr.jaxpr)


def test_nested_vmap_and_out_axes():
  f = jax.vmap(jax.vmap(lambda x: x * 2), out_axes=1)
  jaxpr = jax.make_jaxpr(f)(np.ones((2, 3), np.float32))
  assert jaxpr.out_avals[0].shape == (3, 2)


def test_jvp_staged_shapes():
  jaxpr = jax.make_jaxpr(lambda x, t: jax.jvp(jnp.tanh, (x,), (t,)))(1.0, 1.0)
  assert len(jaxpr.out_avals) == 2


def test_tracer_bool_error():
  with pytest.raises(errors.TracerBoolConversionError):
    jax.make_jaxpr(lambda x: 1 if x > 0 else 0)(1.0)


def test_tracer_array_conversion_error():
  with pytest.raises(errors.TracerArrayConversionError):
    jax.make_jaxpr(lambda x: np.asarray(x))(1.0)


def test_jit_static_argnums_cache():
  calls = []

  def f(x, n):
    calls.append(n)
    return x * n

  jf = jax.jit(f, static_argnums=1)
  jf.lower(np.ones(2, np.float32), 3)
  jf.lower(np.ones(2, np.float32), 3)
  jf.lower(np.ones(2, np.float32), 4)
  jf.lower(np.ones(3, np.float32), 4)
  assert calls == [3, 4, 4]


def test_lax_shape_errors():
  with pytest.raises(TypeError):
    jax.make_jaxpr(lambda x: lax.add(x, jnp.ones(4)))(np.ones(3, np.float32))
  with pytest.raises(TypeError):
    jax.make_jaxpr(lambda x: jnp.reshape(x, (4,)))(np.ones(3, np.float32))


def test_indexing_staged():
  jaxpr = jax.make_jaxpr(lambda x: x[1:, ::-1, None, 0])(np.ones((3, 4, 5), np.float32))
  assert jaxpr.out_avals[0].shape == (2, 4, 1)


def test_trace_state_clean_only_outside_transformations():
  import jax
  from jax._src import core as core_impl
  assert core_impl.trace_state_clean()
  seen = []
  jax.jit(lambda x: seen.append(core_impl.trace_state_clean()) or x)(1.0)
  jax.grad(lambda x: seen.append(core_impl.trace_state_clean()) or x)(1.0)
  jax.vmap(lambda x: seen.append(core_impl.trace_state_clean()) or x)(jax.numpy.ones(2))
  assert seen == [False, False, False] and core_impl.trace_state_clean()


def test_shaped_array_takes_jax_keyword_type_parts():
  import numpy as np
  from jax._src.core import ShapedArray
  a = ShapedArray((2, 3), np.float32, sharding=None, manual_axis_type=None, memory_space=None)
  assert a == ShapedArray((2, 3), np.float32)


def test_jnp_dtype_is_numpys_class():
  import numpy as np
  import jax.numpy as jnp
  assert jnp.dtype is np.dtype
  assert jnp.dtype(jnp.ones(2)) == np.float32 and jnp.dtype("bfloat16") == jnp.bfloat16


def test_vmap_out_axes_none_for_a_batched_output_names_its_path():
  # JAX 0.10.2's message, with the key path of the offending output.
  with pytest.raises(ValueError, match=re.escape(
      "at vmap out_axes['b'][0], got axis spec None but output was batched on axis 0")):
    jax.vmap(lambda x: {"a": x, "b": [x * 2, 1.0]}, out_axes={"a": 0, "b": [None, None]})(
        jnp.ones(3))
  with pytest.raises(ValueError, match=re.escape(
      "at vmap out_axes, got axis spec None but output was batched on axis 0")):
    jax.vmap(lambda x: x, out_axes=None)(jnp.ones(3))
  out = jax.vmap(lambda x: (x, 1.0), out_axes=(0, None))(jnp.ones(3))
  assert out[0].shape == (3,) and float(out[1]) == 1.0


def test_abstract_value_text_as_jax_prints_it():
  a = jax.typeof(jnp.ones((2, 3)))
  assert (str(a), repr(a)) == ("float32[2,3]", "ShapedArray(float32[2,3])")
  assert a.str_short() == "float32[2,3]" and a.str_short(short_dtypes=True) == "f32[2,3]"
  w = jax.typeof(1.0)
  assert (str(w), repr(w)) == ("~float32[]", "ShapedArray(float32[], weak_type=True)")
  assert str(jax.typeof(jnp.ones(2, jnp.bfloat16))) == "bfloat16[2]"
  # jaxprs keep the short names
  assert "a:f32[3]" in str(jax.make_jaxpr(lambda x: x * 2)(jnp.ones(3)))


def test_vmap_inconsistent_sizes_message_names_each_argument():
  x = jnp.ones([1, 2])
  with pytest.raises(ValueError, match=re.escape(
      "vmap got inconsistent sizes for array axes to be mapped:\n"
      "  * one axis had size 1: axis 0 of argument a of type float32[1,2];\n"
      "  * one axis had size 2: axis 1 of argument b of type float32[1,2]")):
    jax.vmap(lambda a, b: None, in_axes=(0, 1))(x, x)
  with pytest.raises(ValueError, match=re.escape(
      "  * most axes (2 of them) had size 3, e.g. axis 0 of argument a of type float32[3];\n"
      "  * one axis had size 4: axis 0 of argument c['k'] of type float32[4]")):
    jax.vmap(lambda a, b, c: None)(jnp.ones(3), jnp.ones(3), {"k": jnp.ones(4)})


def test_equations_carry_the_name_stack_they_were_traced_in():
  def f(x):
    with jax.named_scope("outer"):
      y = jnp.sin(x)
      with jax.named_scope("inner"):
        return y * 2

  jaxpr = jax.make_jaxpr(f)(1.0)
  assert [(e.primitive.name, str(e.source_info.name_stack)) for e in jaxpr.eqns] == [
      ("sin", "outer"), ("mul", "outer/inner")]
  g = jax.make_jaxpr(jax.named_call(lambda x: x + 1, name="nc"))(1.0)
  assert [str(e.source_info.name_stack) for e in g.eqns] == ["nc"]
  assert str(jax.make_jaxpr(lambda x: x + 1)(1.0).eqns[0].source_info.name_stack) == ""


def _named_sum(x):
  with jax.named_scope("outer"):
    y = jnp.sin(x)
    with jax.named_scope("inner"):
      z = y * 2
  return z.sum()


def _stacks(jaxpr):
  return [(e.primitive.name, str(e.source_info.name_stack)) for e in jaxpr.eqns]


def test_transformations_wrap_the_name_stack_as_jax_prints_it():
  # Recorded from JAX 0.10.2 (our jaxprs may hold extra equations, e.g. broadcasts).
  grad_stacks = _stacks(jax.make_jaxpr(jax.grad(_named_sum))(jnp.ones(3)))
  for want in [("sin", "jvp(outer)"), ("cos", "jvp(outer)"), ("mul", "jvp(outer)/inner"),
               ("reduce_sum", "jvp()"), ("broadcast_in_dim", "transpose(jvp())"),
               ("mul", "transpose(jvp(outer))/inner"), ("mul", "transpose(jvp(outer))")]:
    assert want in grad_stacks
  assert _stacks(jax.make_jaxpr(jax.vmap(_named_sum))(jnp.ones((2, 3)))) == [
      ("sin", "vmap(outer)"), ("mul", "vmap(outer)/inner"), ("reduce_sum", "vmap()")]
  # A traced function's names start at its own top: the scope around make_jaxpr is not
  # part of them, and a jit's inner equations are named relative to the jit.
  with jax.named_scope("top"):
    closed = jax.make_jaxpr(jax.jit(_named_sum))(jnp.ones(3))
  assert _stacks(closed) == [("jit", "")]
  assert _stacks(closed.eqns[0].params["jaxpr"]) == [
      ("sin", "outer"), ("mul", "outer/inner"), ("reduce_sum", "")]


def test_closed_jaxpr_reads_through_to_its_jaxpr():
  closed = jax.make_jaxpr(lambda x: x + 1)(1.0)
  assert closed.invars == closed.jaxpr.invars and closed.outvars == closed.jaxpr.outvars
  assert closed.constvars == [] and closed.effects == frozenset()
  assert closed.map_jaxpr(lambda j: j).jaxpr is closed.jaxpr
