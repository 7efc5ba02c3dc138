"""JAX's constructor parameters of stages, jaxpr pieces, linear_util and checkify.Error."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import stages
from jax.experimental import checkify
from jax.extend import core as jcore
from jax.extend import linear_util as lu


def _traced(backend):
  return jax.jit(lambda x, y: (x * y, x + 1.0)).trace(np.float32(2), np.float32(3))


def test_wrapped_is_the_protocol_of_jitted_functions(backend):
  assert isinstance(jax.jit(jnp.sin), stages.Wrapped)
  assert not isinstance(np.sin, stages.Wrapped)


def test_traced_from_jax_parameters(backend):
  t = _traced(backend)
  closed = t.jaxpr
  rebuilt = stages.Traced(closed.in_avals, {"jaxpr": closed, "name": "f"}, t.in_tree, t.out_tree,
                          [])
  out = rebuilt.lower().compile()(np.float32(2), np.float32(3))
  np.testing.assert_allclose(np.asarray(out[0]), 6.0)
  np.testing.assert_allclose(np.asarray(out[1]), 3.0)
  with pytest.raises(TypeError, match="jaxpr"):
    stages.Traced(closed.in_avals, {}, t.in_tree, t.out_tree, [])


def test_lowered_and_compiled_from_jax_parameters(backend):
  t = _traced(backend)
  lowered = stages.Lowered(t.jaxpr, t.args_info, t.out_tree)
  assert "multiply" in lowered.as_text()
  compiled = lowered.compile()
  np.testing.assert_allclose(np.asarray(compiled(np.float32(4), np.float32(5))[0]), 20.0)
  again = stages.Compiled(compiled._exe, [], t.args_info, t.out_tree)
  np.testing.assert_allclose(np.asarray(again(np.float32(4), np.float32(5))[1]), 5.0)
  positional = stages.Compiled(compiled._exe, [], t.args_info[0], t.out_tree, no_kwargs=True)
  np.testing.assert_allclose(np.asarray(positional(np.float32(1), np.float32(5))[0]), 5.0)
  with pytest.raises(TypeError, match="positional arguments only"):
    positional(np.float32(1), y=np.float32(5))
  with pytest.raises(TypeError, match="ArgInfo"):
    stages.Lowered(t.jaxpr, ([1.0], {}), t.out_tree)
  with pytest.raises(TypeError, match="ClosedJaxpr"):
    stages.Lowered("not a jaxpr", t.args_info, t.out_tree)


def test_arg_info_fields(backend):
  info = stages.ArgInfo(_aval=jax.core.ShapedArray((2,), np.float32), donated=True)
  assert info.shape == (2,) and info.dtype == np.float32 and info.donated


def test_jaxpr_and_eqn_in_jax_order(backend):
  closed = jax.make_jaxpr(lambda x: jnp.sin(x) * 2.0)(np.float32(1))
  j, eqn = closed.jaxpr, closed.jaxpr.eqns[0]
  e2 = jcore.JaxprEqn(eqn.invars, eqn.outvars, eqn.primitive, eqn.params, frozenset(), None, None)
  assert e2 == eqn and e2.primitive is eqn.primitive and e2.effects == frozenset()
  rebuilt = jcore.Jaxpr(j.constvars, j.invars, j.outvars, [e2] + list(j.eqns[1:]),
                        effects=frozenset(), debug_info=None, is_high=False)
  assert rebuilt.outvars == j.outvars and len(rebuilt.eqns) == len(j.eqns)
  out = jcore.jaxpr_as_fun(jcore.ClosedJaxpr(rebuilt, closed.consts))(np.float32(0.5))
  np.testing.assert_allclose(np.asarray(out[0]), np.sin(np.float32(0.5)) * 2, rtol=1e-6)
  with pytest.raises(TypeError, match="Primitive"):
    jcore.JaxprEqn([], [], "sin", {}, frozenset(), None, None)


def test_var_qdd_and_find_top_trace(backend):
  v = jcore.Var(jax.core.ShapedArray((), np.float32), initial_qdd=None, final_qdd=None)
  assert v.initial_qdd is None and v.final_qdd is None
  assert jcore.find_top_trace(_=[1.0]) is not None


def test_linear_util_curried_and_with_aux2(backend):
  def add_k(f, k, x):
    return f(x) + k

  f = lu.transformation2(add_k, lu.wrap_init(lambda x: x * 3), 10)
  assert f.call_wrapped(2) == 16

  def record(f, store, x):
    out = f(x)
    store.store(out % 2)
    return out

  g, aux = lu.transformation_with_aux2(record, lu.wrap_init(lambda x: x + 1), use_eq_store=True)
  assert g.call_wrapped(2) == 3 and aux() == 1
  assert g.call_wrapped(4) == 5 and aux() == 1  # an equal value may be stored again
  with pytest.raises(lu.StoreException):
    g.call_wrapped(5)
  h, aux_h = lu.transformation_with_aux2(record, lu.wrap_init(lambda x: x), unk_names=True)
  assert h.call_wrapped(3) == 3 and aux_h() == 1


def test_wrapped_fun_fields(backend):
  composed = lu.WrappedFun(f=lambda x: x, f_transformed=lambda x: x * 7, transforms=(), stores=(),
                           params=(), in_type=None, debug_info=None)
  assert composed.call_wrapped(3) == 21
  with pytest.raises(ValueError, match="stores"):
    lu.WrappedFun(lambda x: x, None, (), (None,), (), None, None)


def test_checkify_error_from_fields(backend):
  err = checkify.Error({"a": np.bool_(False), "b": np.bool_(True)}, {"a": 0, "b": 1},
                       {0: "first", 1: "x was {}"}, {"b": np.int32(7)})
  assert err.get() == "x was 7"
  with pytest.raises(checkify.JaxRuntimeError, match="x was 7"):
    err.throw()
  ok = checkify.Error({"a": np.bool_(False)}, {"a": 0}, {0: "first"}, {})
  assert ok.get() is None
  with pytest.raises(ValueError, match="no metadata"):
    checkify.Error({"a": True}, {"a": 3}, {}, {})
