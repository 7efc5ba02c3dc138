"""lax's n-ary elementwise ops take rank-0 operands beside arrays, as JAX 0.10.2's do:
jaxprs read `mul 2.0:f32[] a` (tfp's Lambda bijector inverts such jaxprs), and the
ops differentiate, batch and lower with the scalar broadcast. Values from JAX 0.10.2."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax
from jax.extend import core as xcore

X = np.arange(3.0, dtype=np.float32)


def _single_eqn(f, *args):
  jaxpr = jax.make_jaxpr(f)(*args).jaxpr
  assert len(jaxpr.eqns) == 1, jaxpr
  return jaxpr.eqns[0]


@pytest.mark.parametrize("f, prim, kinds", [
    (lambda x: 2. * x, "mul", (xcore.Literal, xcore.Var)),
    (lambda x: x + 3., "add", (xcore.Var, xcore.Literal)),
    (lambda x: x / 2., "div", (xcore.Var, xcore.Literal)),
    (lambda x: x ** 2.5, "pow", (xcore.Var, xcore.Literal)),
    (lambda x: jnp.maximum(x, 0.), "max", (xcore.Var, xcore.Literal)),
    (lambda x: x > 0., "gt", (xcore.Var, xcore.Literal)),
])
def test_python_scalar_stays_a_literal_operand(f, prim, kinds):
  eqn = _single_eqn(f, jnp.zeros(3))
  assert eqn.primitive.name == prim
  assert tuple(type(v) for v in eqn.invars) == kinds
  assert eqn.outvars[0].aval.shape == (3,)


def test_values_match_numpy():
  s = np.float32(2.0)
  np.testing.assert_array_equal(lax.mul(s, X), 2 * X)
  np.testing.assert_array_equal(jax.jit(lax.add)(X, 1.0), X + 1)
  np.testing.assert_array_equal(lax.max(X, np.float32(1.0)), [1, 1, 2])
  np.testing.assert_array_equal(lax.lt(X, np.float32(1.0)), [True, False, False])
  np.testing.assert_allclose(lax.pow(X, np.float32(2.0)), X ** 2)
  np.testing.assert_array_equal(lax.shift_left(np.arange(3, dtype=np.int32), np.int32(2)),
                                [0, 4, 8])


def test_differentiation_sums_the_scalar_cotangent():
  f = lambda s, v: jnp.sum(lax.mul(s, v) + lax.sub(s, v) / lax.div(v + 1, s))
  s = np.float32(2.0)
  # JAX 0.10.2: (9.166667, [-4, 0.5, 1.3333333]).
  for g in (jax.grad(f, (0, 1)), jax.jit(jax.grad(f, (0, 1)))):
    gs, gv = g(s, X)
    np.testing.assert_allclose(gs, 9.166667, rtol=1e-6)
    np.testing.assert_allclose(gv, [-4.0, 0.5, 1.3333333], rtol=1e-6)
  np.testing.assert_allclose(jax.grad(lambda s: lax.max(X, s).sum())(np.float32(1.0)), 1.5)
  np.testing.assert_allclose(jax.grad(lambda s: lax.pow(X + 1, s).sum())(np.float32(2.0)),
                             12.660099, rtol=1e-6)
  primal, tangent = jax.jvp(lambda s: lax.rem(X + 5, s), (np.float32(3.0),), (np.float32(1.0),))
  np.testing.assert_array_equal(primal, [2, 0, 1])
  np.testing.assert_array_equal(tangent, [-1, -2, -2])


def test_vmap_with_batched_and_unbatched_scalars():
  f = lambda s, v: jnp.sum(lax.mul(s, v) + lax.sub(s, v) / lax.div(v + 1, s))
  ones = np.ones((2, 3), np.float32)
  np.testing.assert_allclose(jax.vmap(f)(np.arange(2.0, dtype=np.float32), ones), [0.0, 3.0])
  np.testing.assert_allclose(jax.vmap(f, (None, 0))(np.float32(3.0), ones), [18.0, 18.0])
  gs, gv = jax.vmap(jax.grad(f, (0, 1)))(np.arange(1.0, 3.0, dtype=np.float32), ones)
  np.testing.assert_allclose(gs, [4.5, 7.5])
  np.testing.assert_allclose(gv, np.full((2, 3), 0.5))


def test_operands_of_two_shapes_are_refused():
  with pytest.raises(TypeError, match=r"mul got incompatible shapes for broadcasting: \(2,\), \(3,\)"):
    lax.mul(np.ones(2, np.float32), np.ones(3, np.float32))


def test_lambda_style_inversion_reads_one_variable_per_equation():
  # What tfp's Lambda bijector does: each equation has one variable and one literal.
  jaxpr = jax.make_jaxpr(lambda x: jnp.exp(2.0 * x + 1.0))(jnp.zeros(4)).jaxpr
  for eqn in jaxpr.eqns:
    assert sum(isinstance(v, xcore.Var) for v in eqn.invars) == 1
