"""checkpoint/remat gradients equal plain gradients; checkpoint_name and the policies."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import ad_checkpoint
from jax.ad_checkpoint import checkpoint_name, checkpoint_policies as cp
from jax.extend.core import primitives


def _f(x, w):
  h = checkpoint_name(jnp.tanh(x @ w), "hidden")
  return jnp.sum(jnp.sin(h) ** 2)


X = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
W = np.linspace(0, 1, 12, dtype=np.float32).reshape(3, 4)


@pytest.mark.parametrize("policy", [None, cp.nothing_saveable, cp.everything_saveable,
                                    cp.dots_saveable, cp.save_only_these_names("hidden")])
def test_checkpoint_gradients_equal_plain(backend, policy):
  plain = jax.grad(_f, argnums=(0, 1))(X, W)
  remat = jax.jit(jax.grad(ad_checkpoint.checkpoint(_f, policy=policy), argnums=(0, 1)))(X, W)
  for a, b in zip(plain, remat):
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_remat_is_checkpoint(backend):
  assert ad_checkpoint.remat is ad_checkpoint.checkpoint
  g = jax.grad(ad_checkpoint.remat(lambda x: jnp.sin(x) * x))(0.3)
  np.testing.assert_allclose(g, np.cos(0.3) * 0.3 + np.sin(0.3), rtol=1e-6)


def test_checkpoint_name_is_identity_with_a_named_equation(backend):
  f = lambda x: checkpoint_name(x * 2, "double") + 1
  closed = jax.make_jaxpr(f)(1.0)
  names = [(e.primitive.name, e.params.get("name")) for e in closed.jaxpr.eqns]
  assert ("name", "double") in names
  assert float(jax.jit(f)(3.0)) == 7.0
  assert float(jax.grad(f)(3.0)) == 2.0
  np.testing.assert_array_equal(jax.vmap(f)(jnp.arange(3.0)), [1.0, 3.0, 5.0])


def test_checkpoint_name_on_pytrees_and_bad_names():
  out = checkpoint_name({"a": jnp.ones(2), "b": 3.0}, "t")
  assert set(out) == {"a", "b"}
  with pytest.raises(TypeError, match="string"):
    checkpoint_name(1.0, 3)


def _eqn_of(fun, prim_name, *args):
  eqns = jax.make_jaxpr(fun)(*args).jaxpr.eqns
  return next(e for e in eqns if e.primitive.name == prim_name)


def _decide(policy, eqn):
  return bool(policy(eqn.primitive, *[v.aval for v in eqn.invars], **eqn.params))


def test_name_based_policies():
  named = _eqn_of(lambda x: checkpoint_name(x, "a"), "name", 1.0)
  other = _eqn_of(lambda x: checkpoint_name(x, "b"), "name", 1.0)
  sin = _eqn_of(jnp.sin, "sin", 1.0)
  assert _decide(cp.save_only_these_names("a"), named)
  assert not _decide(cp.save_only_these_names("a"), other)
  assert not _decide(cp.save_only_these_names("a"), sin)
  assert not _decide(cp.save_any_names_but_these("a"), named)
  assert _decide(cp.save_any_names_but_these("a"), other)
  assert not _decide(cp.save_any_names_but_these("a"), sin)
  both = cp.save_from_both_policies(cp.save_only_these_names("a"), cp.save_only_these_names("b"))
  assert _decide(both, named) and _decide(both, other) and not _decide(both, sin)
  offload = cp.save_and_offload_only_these_names(names_which_can_be_saved=["a"],
                                                 names_which_can_be_offloaded=["b"])
  assert _decide(offload, named) and _decide(offload, other)


def test_dot_policies():
  dot = _eqn_of(lambda a, b: a @ b, "dot_general", X, W)
  bdot = _eqn_of(lambda a, b: jnp.einsum("bij,bjk->bik", a, b), "dot_general",
                 np.ones((2, 2, 3), np.float32), np.ones((2, 3, 4), np.float32))
  sin = _eqn_of(jnp.sin, "sin", 1.0)
  assert _decide(cp.dots_saveable, dot) and _decide(cp.dots_saveable, bdot)
  assert not _decide(cp.dots_saveable, sin)
  assert _decide(cp.dots_with_no_batch_dims_saveable, dot)
  assert not _decide(cp.dots_with_no_batch_dims_saveable, bdot)
  assert _decide(cp.everything_saveable, sin) and not _decide(cp.nothing_saveable, dot)
  assert dot.primitive is primitives.dot_general_p


def _backward_primitives(policy, fun=_f):
  """Primitive names in the linear (backward-side) function of checkpoint(fun)."""
  _, f_lin = jax.linearize(ad_checkpoint.checkpoint(fun, policy=policy), X, W)
  names = []

  def walk(jaxpr):
    for e in jaxpr.eqns:
      names.append(e.primitive.name)
      for p in e.params.values():
        if hasattr(p, "jaxpr"):
          walk(p.jaxpr)

  walk(jax.make_jaxpr(f_lin)(X, W).jaxpr)
  return names


def test_policy_decides_what_is_recomputed(backend):
  # Saving nothing: the backward side recomputes tanh(x @ w) and sin from the inputs.
  nothing = _backward_primitives(cp.nothing_saveable)
  assert "tanh" in nothing and "sin" in nothing
  # Saving everything: the backward side only has the linear work left.
  everything = _backward_primitives(cp.everything_saveable)
  assert "tanh" not in everything and "sin" not in everything
  # Saving the named product: its dot is not recomputed (the two tangent dots remain).
  g = lambda x, w: jnp.sum(jnp.sin(checkpoint_name(x @ w, "z")))
  assert _backward_primitives(cp.nothing_saveable, g).count("dot_general") == 3
  assert _backward_primitives(cp.save_only_these_names("z"), g).count("dot_general") == 2
  assert _backward_primitives(cp.save_only_these_names("other"), g).count("dot_general") == 3
  assert _backward_primitives(cp.dots_saveable, g).count("dot_general") == 2


def test_checkpoint_under_vmap_and_static_args(backend):
  f = ad_checkpoint.checkpoint(lambda x, n: jnp.sin(x) * n, static_argnums=1)
  np.testing.assert_allclose(jax.vmap(lambda x: f(x, 3))(jnp.arange(3.0)),
                             3 * np.sin(np.arange(3.0)), rtol=1e-6)
  np.testing.assert_allclose(jax.grad(lambda x: f(x, 2))(0.5), 2 * np.cos(0.5), rtol=1e-6)
  g = jax.jit(jax.vmap(jax.grad(ad_checkpoint.checkpoint(lambda x: jnp.sin(x) ** 2))))
  np.testing.assert_allclose(g(jnp.arange(3.0)), np.sin(2 * np.arange(3.0)), rtol=1e-5,
                             atol=1e-6)
