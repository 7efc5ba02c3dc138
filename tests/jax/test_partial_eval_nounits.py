"""jax.interpreters.partial_eval.trace_to_jaxpr_nounits: known inputs are computed
now, unknown ones are staged; results compared with JAX 0.10.2's (recorded) and numpy."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import core
from jax.api_util import flatten_fun_nokwargs
from jax.extend import linear_util as lu
from jax.interpreters import partial_eval as pe

X = np.arange(3.0, dtype=np.float32)
UNKNOWN = jax.ShapeDtypeStruct((3,), jnp.float32)


def _pvals(flat):
  return [pe.PartialVal.unknown(core.ShapedArray(x.shape, x.dtype))
          if isinstance(x, jax.ShapeDtypeStruct) else pe.PartialVal.known(x) for x in flat]


def _trace(f, args, instantiate=False):
  flat, tree = jax.tree_util.tree_flatten(args)
  f_flat, out_tree = flatten_fun_nokwargs(lu.wrap_init(f), tree)
  jaxpr, out_pvals, consts = pe.trace_to_jaxpr_nounits(f_flat, _pvals(flat), instantiate)
  return jaxpr, out_pvals, consts, out_tree()


def test_partial_val_is_jax_pair():
  known = pe.PartialVal.known(X)
  pv, const = known
  assert pv is None and const is X
  assert known.is_known() and known.get_known() is X
  assert known.get_aval() == core.ShapedArray((3,), np.float32)
  aval = core.ShapedArray((2,), np.float32)
  unknown = pe.PartialVal.unknown(aval)
  assert tuple(unknown) == (aval, None)
  assert not unknown.is_known() and unknown.get_known() is None and unknown.get_aval() == aval
  # JAX checks this only with jax_enable_checks; here a malformed pair always fails.
  with pytest.raises(ValueError, match="PartialVal"):
    pe.PartialVal((aval, X))


def test_known_outputs_are_values_and_unknown_ones_staged():
  # JAX 0.10.2: out_pvals [(None, [0, 2, 4]), (f32[3], None), (f32[3], None)];
  # 2 constvars (sin(a) and the scalar 3), 1 invar, 2 outvars.
  jaxpr, out_pvals, consts, out_tree = _trace(
      lambda a, b: (a * 2, jnp.sin(a) + b, b * 3), (X, UNKNOWN))
  assert out_tree == jax.tree_util.tree_structure((0, 0, 0))
  (pv0, c0), (pv1, c1), (pv2, c2) = out_pvals
  assert pv0 is None
  np.testing.assert_array_equal(np.asarray(c0), [0.0, 2.0, 4.0])
  assert (pv1, c1) == (core.ShapedArray((3,), np.float32), None)
  assert (pv2, c2) == (core.ShapedArray((3,), np.float32), None)
  assert len(jaxpr.invars) == 1 and len(jaxpr.outvars) == 2
  assert len(jaxpr.constvars) == len(consts)
  b = np.array([1.0, -2.0, 0.5], np.float32)
  out1, out2 = core.eval_jaxpr(jaxpr, consts, b)
  np.testing.assert_allclose(out1, np.sin(X) + b, rtol=1e-6)
  np.testing.assert_allclose(out2, b * 3)


def test_instantiate_makes_known_outputs_part_of_the_jaxpr():
  # JAX 0.10.2: both outputs unknown; a * 2 = [0, 2, 4] becomes a constant of the jaxpr.
  jaxpr, out_pvals, consts, _ = _trace(
      lambda a, b: (a * 2, jnp.sin(a) + b), (X, UNKNOWN), instantiate=True)
  assert [pv.is_known() for pv in out_pvals] == [False, False]
  b = np.ones(3, np.float32)
  out1, out2 = core.eval_jaxpr(jaxpr, consts, b)
  np.testing.assert_array_equal(out1, [0.0, 2.0, 4.0])
  np.testing.assert_allclose(out2, np.sin(X) + 1, rtol=1e-6)
  # Per output: only the first instantiated.
  _, out_pvals, _, _ = _trace(lambda a, b: (a * 2, a * 3), (X, UNKNOWN), instantiate=[True, False])
  assert [pv.is_known() for pv in out_pvals] == [False, True]


def test_all_known_runs_now_with_an_empty_jaxpr():
  jaxpr, out_pvals, consts, out_tree = _trace(lambda a: {"w": a + 1.0}, (X,))
  assert not jaxpr.invars and not jaxpr.outvars and not jaxpr.eqns and list(consts) == []
  [(pv, c)] = out_pvals
  assert pv is None
  np.testing.assert_array_equal(np.asarray(c), [1.0, 2.0, 3.0])
  assert jax.tree_util.tree_unflatten(out_tree, [c])["w"] is c


def test_known_inputs_reach_the_function_as_values():
  seen = []

  def f(a, b):
    seen.append(type(a))
    # Python control flow on a known input is allowed, as in JAX.
    return (a.sum() if float(a[1]) > 0 else -a.sum(), b + 1)

  _, out_pvals, _, _ = _trace(f, (jnp.asarray(X), UNKNOWN))
  assert not issubclass(seen[0], core.Tracer)
  assert out_pvals[0].is_known() and float(out_pvals[0].get_known()) == 3.0
  assert not out_pvals[1].is_known()


def test_unknown_output_that_depends_on_nothing_unknown_is_known():
  # An initializer that only uses the known key stays known: flax's lazy_init pattern.
  def init(key, x):
    w = jax.random.normal(key, (3, 2))
    return w, x @ w

  key = jax.random.key(0)
  _, out_pvals, _, _ = _trace(init, (key, UNKNOWN))
  assert out_pvals[0].is_known()
  np.testing.assert_array_equal(np.asarray(out_pvals[0].get_known()),
                                np.asarray(jax.random.normal(key, (3, 2))))
  assert out_pvals[1] == pe.PartialVal.unknown(core.ShapedArray((2,), np.float32))


def test_under_jit_known_values_may_be_tracers():
  @jax.jit
  def outer(a):
    _, out_pvals, _, _ = _trace(lambda p, q: (p * 2, q * p), (a, UNKNOWN))
    assert out_pvals[0].is_known() and not out_pvals[1].is_known()
    return out_pvals[0].get_known()

  np.testing.assert_array_equal(outer(X), X * 2)


def test_rejects_values_that_are_not_partial_vals():
  # (JAX asserts; here a TypeError names what was expected.)
  with pytest.raises(TypeError, match="PartialVal"):
    pe.trace_to_jaxpr_nounits(lambda a: [a], [X])
