"""Rule completeness: every primitive lists which rules it has; missing ones are known."""

import gc

import jax  # noqa: F401 (registers every primitive)
from jax._src import core
from jax._src.interpreters import ad, batching
from jax._src.interpreters import physical
from jax._src.lowering import hlo

# Primitives that legitimately lack a rule (with the reason).
NO_TRANSPOSE_NEEDED = "non-linear"
EXPECTED_MISSING_BATCH = {"iota": "takes no operands", "axis_index": "takes no operands"}
# custom_lin only exists inside linear jaxprs built by linearize: it is transposed (calling
# the user's bwd), never differentiated, batched or lowered.
ONLY_TRANSPOSED = {"custom_lin"}
# Every primitive lowers (collectives lower to cross-replica HLO under pmap).
NOT_LOWERED_YET: set = set()
NO_JVP_YET = {"pmax", "pmin"}
# lapack_call is a raw LAPACK-style kernel used only inside the lowering of the
# linalg primitives, which carry the derivative rules.
NO_JVP_YET |= {"lapack_call"}
# Reductions to a form (and the rank-1 Cholesky update) that JAX does not differentiate either.
NO_JVP_YET |= {"hessenberg", "householder_product", "schur", "tridiagonal", "cholesky_update"}


# jax.experimental.hijax boxes run eagerly only here: staging, differentiating or
# batching them raises NotImplementedError (flax's default mode does not use them).
EAGER_ONLY = {"new_box", "get_box"}


def all_primitives():
  gc.collect()  # primitives that tests made and dropped are not the library's
  return {p for p in gc.get_objects() if isinstance(p, core.Primitive)}


def test_every_primitive_has_core_rules():
  missing = []
  for p in sorted(all_primitives(), key=lambda p: p.name):
    if p.name in ONLY_TRANSPOSED:
      assert p in ad.transpose_rules, p.name
      continue
    if p.name in EAGER_ONLY:
      continue
    if p.abstract_eval is None:
      missing.append(f"{p.name}: abstract_eval")
    if p not in ad.jvp_rules and p.name not in NO_JVP_YET:
      missing.append(f"{p.name}: jvp")
    # random_wrap/random_unwrap are rewritten away before lowering (keys become their
    # data): their physical rules stand for lowering rules.
    lowered = p in hlo.lowering_rules or p in physical.rules
    if not lowered and p.name not in NOT_LOWERED_YET:
      missing.append(f"{p.name}: lowering")
    if p not in batching.batch_rules and p.name not in EXPECTED_MISSING_BATCH:
      missing.append(f"{p.name}: batching")
  assert not missing, "missing rules:\n" + "\n".join(missing)


def test_linear_primitives_have_transposes():
  linear = ["add", "sub", "neg", "mul", "div", "reduce_sum", "broadcast_in_dim", "reshape",
            "transpose", "squeeze", "rev", "slice", "concatenate", "pad", "convert_element_type",
            "select_n", "dot_general", "add_any", "jit", "cond", "scan", "dynamic_slice",
            "dynamic_update_slice", "custom_lin"]
  names = {p.name for p in ad.transpose_rules}
  assert not [n for n in linear if n not in names]


def test_call_primitives_differentiate_batch_and_lower_as_their_body():
  import numpy as np
  import jax.numpy as jnp
  from jax._src.jit_primitive import call_p, closed_call_p
  closed = jax.make_jaxpr(lambda x: jnp.sin(x) * 2.0)(1.0)
  x = np.array([0.1, 0.7, 1.3], np.float32)

  def via_closed(v):
    return closed_call_p.bind(v, call_jaxpr=closed)[0]

  def via_open(v):
    return call_p.bind(v, call_jaxpr=closed.jaxpr)[0]

  for f in (via_closed, via_open):
    np.testing.assert_allclose(jax.jit(jax.vmap(f))(x), np.sin(x) * 2, rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(jax.grad(f))(x), np.cos(x) * 2, rtol=1e-6)


def test_constant_operands_add_no_tangent_equations():
  # A constant operand's tangent is a symbolic zero: the jaxpr is JAX 0.10.2's, with
  # no multiplications or additions of zeros (distrax reads a constant Jacobian off it).
  jaxpr = jax.make_jaxpr(lambda x, t: jax.jvp(lambda x: 2.0 * x + 3.0 - x, (x,), (t,)))(1.0, 1.0)
  assert [e.primitive.name for e in jaxpr.eqns] == ["mul", "mul", "add", "sub", "sub"]
  jaxpr = jax.make_jaxpr(lambda x, t: jax.jvp(lambda x: 3.0 - x, (x,), (t,)))(1.0, 1.0)
  assert [e.primitive.name for e in jaxpr.eqns] == ["sub", "neg"]
  # The Jacobian of an affine map does not depend on the input.
  jac = jax.make_jaxpr(jax.jacfwd(lambda x: 2.0 * x + 3.0))(1.0).jaxpr
  dependent = set(jac.invars)
  for eqn in jac.eqns:
    if any(v in dependent for v in eqn.invars if isinstance(v, core.Var)):
      dependent.update(eqn.outvars)
  assert not any(v in dependent for v in jac.outvars)
