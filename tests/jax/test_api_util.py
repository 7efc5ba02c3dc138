"""jax.api_util (flatten_fun, debug_info) and the call primitives of
jax.extend.core.primitives, as a library's own interpreter uses them."""

import jax
import jax.extend.linear_util as lu
import jax.numpy as jnp
import numpy as np
from jax.api_util import debug_info, flatten_fun
from jax.extend.core import primitives


def _f(x, y=1.0):
  return {"sum": x + y, "x": x}


def test_flatten_fun_takes_and_returns_leaves():
  flat, in_tree = jax.tree.flatten(((2.0,), {"y": 3.0}))
  wrapped, out_tree = flatten_fun(lu.wrap_init(_f), in_tree)
  assert wrapped.call_wrapped(*flat) == [5.0, 2.0]
  assert out_tree() == jax.tree.structure({"sum": 0, "x": 0})


def test_flatten_fun_traces_into_a_jaxpr():
  flat, in_tree = jax.tree.flatten(((2.0,), {"y": 3.0}))
  wrapped, out_tree = flatten_fun(lu.wrap_init(_f), in_tree)
  jaxpr = jax.make_jaxpr(wrapped.call_wrapped)(*flat)
  assert len(jaxpr.jaxpr.invars) == 2 and len(jaxpr.jaxpr.outvars) == 2
  assert jax.tree.unflatten(out_tree(), jax.extend.core.jaxpr_as_fun(jaxpr)(*flat))["sum"] == 5.0


def test_debug_info_names_the_function_and_its_argument_leaves():
  info = debug_info("jit", _f, ({"a": 1.0, "b": 2.0},), {"y": 3.0})
  assert info.traced_for == "jit" and info.func_name == "_f"
  assert info.arg_names == ("x['a']", "x['b']", "y")
  static = debug_info("jit", _f, (1.0, 2.0), {}, static_argnums=(1,))
  assert static.arg_names == ("x",)


def test_jit_equations_use_the_exported_jit_primitive():
  jaxpr = jax.make_jaxpr(lambda x: jax.jit(lambda y: y * 2)(x))(1.0)
  eqn = jaxpr.jaxpr.eqns[0]
  assert eqn.primitive is primitives.jit_p
  assert isinstance(eqn.params["jaxpr"], jax.extend.core.ClosedJaxpr)


def test_closed_call_primitive_evaluates_its_jaxpr(backend):
  closed = jax.make_jaxpr(lambda x: jnp.sin(x) * 2)(1.0)
  out = primitives.closed_call_p.bind(jnp.float32(0.5), call_jaxpr=closed)
  np.testing.assert_allclose(out[0], 2 * np.sin(0.5), rtol=1e-6)
  out = primitives.call_p.bind(jnp.float32(0.5), call_jaxpr=closed.jaxpr)
  np.testing.assert_allclose(out[0], 2 * np.sin(0.5), rtol=1e-6)


def test_flatten_fun_nokwargs_takes_positional_leaves():
  from jax.api_util import flatten_fun_nokwargs
  flat, in_tree = jax.tree.flatten((2.0, {"y": 3.0}))
  wrapped, out_tree = flatten_fun_nokwargs(lu.wrap_init(lambda x, d: (x * d["y"], x)), in_tree)
  assert wrapped.call_wrapped(*flat) == [6.0, 2.0]
  assert out_tree() == jax.tree.structure((0, 0))


def test_primitives_say_whether_they_call_or_map_a_jaxpr():
  assert not jax.lax.add_p.call_primitive and not jax.lax.add_p.map_primitive
  assert primitives.closed_call_p.call_primitive and primitives.call_p.call_primitive
  assert not primitives.jit_p.call_primitive
