"""jax.experimental.jet: Taylor series against closed-form derivatives, the specialised
rules against the generic one, under jit and vmap."""

import math

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import jet as jetmod
from jax.experimental.jet import jet

pytestmark = pytest.mark.usefixtures("backend")


def test_faa_di_bruno_on_sin():
  h0, h1, h2 = 0.5 ** 3, 0.5 ** 2, 0.5
  f0, (f1, f2) = jet(jnp.sin, (h0,), ((h1, h2),))
  np.testing.assert_allclose(f0, np.sin(h0), rtol=1e-6)
  np.testing.assert_allclose(f1, np.cos(h0) * h1, rtol=1e-6)
  np.testing.assert_allclose(f2, -np.sin(h0) * h1 ** 2 + np.cos(h0) * h2, rtol=1e-6)


def test_high_order_derivatives_of_a_composite():
  f = lambda x: jnp.exp(2 * x) * x          # d^k/dx^k = 2^(k-1) e^{2x} (2x + k)
  y, terms = jet(f, (1.,), ((1., 0., 0., 0.),))
  want = [2 ** (k - 1) * np.exp(2.) * (2 + k) for k in range(1, 5)]
  np.testing.assert_allclose(terms, want, rtol=1e-5)
  np.testing.assert_allclose(y, np.exp(2.), rtol=1e-6)


def test_several_inputs_and_pytree_output():
  f = lambda x, y: {"p": x * y, "s": jnp.sin(x) + y}
  out, series = jet(f, (2., 3.), ((1., 0.), (0.5, 0.)))
  # x(t) = 2 + t, y(t) = 3 + t/2: (x y)'' = 2 x' y' = 1.
  np.testing.assert_allclose(series["p"], [3. + 1., 1.], rtol=1e-6)
  np.testing.assert_allclose(series["s"], [np.cos(2.) + 0.5, -np.sin(2.)], rtol=1e-6)
  assert float(out["p"]) == 6.


def test_specialised_rules_match_the_generic_rule():
  x, terms = jnp.array([0.3, -1.2]), ([1., 0.5], [0.2, -0.1], [0.3, 0.7])
  for prim, fn in [(lax.exp_p, jnp.exp), (lax.tanh_p, jnp.tanh), (lax.logistic_p, jax.nn.sigmoid),
                   (lax.log_p, lambda v: jnp.log(v + 2.))]:
    assert prim in jetmod.jet_rules
    with_rule = jet(fn, (x,), ([jnp.asarray(t) for t in terms],))
    saved = jetmod.jet_rules.pop(prim)
    try:
      generic = jet(fn, (x,), ([jnp.asarray(t) for t in terms],))
    finally:
      jetmod.jet_rules[prim] = saved
    for a, b in zip(with_rule[1], generic[1]):
      np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_zero_rules_and_linear_rules():
  _, (d1, d2) = jet(jnp.floor, (1.5,), ((1., 1.),))
  assert float(d1) == 0. and float(d2) == 0.
  _, (d1, d2) = jet(lambda v: jnp.sum(2 * v), (jnp.ones(3),), ((jnp.ones(3), jnp.ones(3)),))
  assert float(d1) == 6. and float(d2) == 6.
  assert jetmod.fact(5) == 120 and repr(jetmod.zero_series) == "ZeroSeries"


def test_custom_jvp_functions_use_their_rule():
  @jax.custom_jvp
  def softplus(v):
    return jnp.log1p(jnp.exp(v))
  softplus.defjvp(lambda p, t: (softplus(p[0]), jax.nn.sigmoid(p[0]) * t[0]))
  _, terms = jet(softplus, (0.2,), ((1., 0., 0.),))
  s = 1 / (1 + math.exp(-0.2))
  np.testing.assert_allclose(terms, [s, s * (1 - s), s * (1 - s) * (1 - 2 * s)], rtol=1e-5)


def test_jit_and_vmap():
  f = jax.jit(lambda x: jet(jnp.tanh, (x,), ((1., 0.),)))
  y, (d1, d2) = f(0.3)
  t = np.tanh(0.3)
  np.testing.assert_allclose([d1, d2], [1 - t ** 2, -2 * t * (1 - t ** 2)], rtol=1e-5)
  xs = jnp.array([0.1, 0.2, 0.3])
  _, (dd,) = jax.vmap(lambda x: jet(jnp.exp, (x,), ((1.,),)))(xs)
  np.testing.assert_allclose(dd, np.exp(xs), rtol=1e-6)


def test_errors():
  with pytest.raises(ValueError, match="same length"):
    jet(lambda a, b: a * b, (1., 2.), ((1.,), (1., 2.)))
  with pytest.raises(ValueError, match="not an array"):
    jet(lambda a: a, ((1., 2.),), ((1.,),))
  with pytest.raises(ValueError, match="shape"):
    jet(jnp.sin, (jnp.ones(2),), ((jnp.ones(3),),))
