"""jax.checkpoint stages its function as JAX does: the body runs on tracers under a trace
of its own (libraries detect stateful calls inside it from the trace state), and custom
linear primitives registered with ad.deflinear transpose with JAX's convention."""

import numpy as np

import jax
import jax.numpy as jnp
from jax.extend import core as jex_core
from jax.interpreters import ad


def test_checkpoint_body_runs_on_tracers_under_its_own_trace(backend):
  outer = jex_core.get_opaque_trace_state()
  seen = []

  def f(x):
    seen.append((isinstance(x, jax.core.Tracer), jex_core.get_opaque_trace_state() == outer))
    return jnp.sin(x) * 2

  np.testing.assert_allclose(jax.checkpoint(f)(jnp.ones(1)), [2 * np.sin(1.0)], rtol=1e-6)
  np.testing.assert_allclose(jax.remat(f)(1.0), 2 * np.sin(1.0), rtol=1e-6)
  assert seen == [(True, False), (True, False)]
  np.testing.assert_allclose(jax.grad(jax.checkpoint(f))(1.0), 2 * np.cos(1.0), rtol=1e-6)


def test_checkpoint_is_one_equation_in_a_jaxpr(backend):
  jaxpr = jax.make_jaxpr(jax.checkpoint(lambda x: jnp.sin(x) * 2))(1.0)
  assert len(jaxpr.eqns) == 1
  inner = jaxpr.eqns[0].params["jaxpr"]
  assert [e.primitive.name for e in getattr(inner, "jaxpr", inner).eqns] == ["sin", "mul"]


def test_checkpoint_policies_are_the_named_policies(backend):
  from jax import ad_checkpoint  # the policies' home module
  assert jax.checkpoint_policies is ad_checkpoint.checkpoint_policies
  f = jax.checkpoint(lambda x: jnp.sin(x @ x), policy=jax.checkpoint_policies.dots_saveable)
  x = jnp.arange(4.0).reshape(2, 2) / 4
  np.testing.assert_allclose(jax.grad(lambda x: f(x).sum())(x),
                             jax.grad(lambda x: jnp.sin(x @ x).sum())(x), rtol=1e-6)


def test_deflinear_transpose_gets_the_cotangent_and_params(backend):
  calls = []
  p = jex_core.Primitive("scale_by_k")
  p.def_impl(lambda x, *, k: x * k)
  p.def_abstract_eval(lambda x, *, k: x)

  def transpose(ct, **params):
    calls.append(sorted(params))
    return (ct * params["k"],)

  ad.deflinear(p, transpose)
  try:
    assert float(jax.grad(lambda x: p.bind(x, k=3.0))(2.0)) == 3.0
    assert calls == [["k"]]
  finally:  # a test primitive must not outlive the test in ad's rule tables
    for table in vars(ad).values():
      if isinstance(table, dict):
        table.pop(p, None)
