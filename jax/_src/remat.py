"""`checkpoint` / `remat` as a primitive: save less for the backward pass, recompute the rest.

`remat` carries the function's closed jaxpr and a policy. Evaluating, staging,
lowering and batching it just run (or transform) the jaxpr. Its partial-evaluation
rule is where memory is traded for compute: differentiating splits the jaxpr into
a known (primal) part and an unknown (tangent) part joined by residuals; a
residual is passed from the forward pass only if the policy saves the equation
that computes it (or it is an input); every other residual is recomputed from the
inputs inside the unknown `remat` equation, i.e. during the backward pass.
"""

from __future__ import annotations

import functools
from typing import Callable

from jax._src import core
from jax._src import tree_util
from jax._src.util import ensure_index_tuple
from jax._src.core import ClosedJaxpr, JaxprEqn, Var
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.interpreters import partial_eval as pe
from jax._src.lowering import hlo
from jax._src.ad_checkpoint import Recompute

remat_p = core.Primitive("checkpoint", multiple_results=True)


def _run(jaxpr: ClosedJaxpr, args):
  return core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, args)


remat_p.def_impl(lambda *args, jaxpr, **_: _run(jaxpr, args))
remat_p.def_abstract_eval(lambda *avals, jaxpr, **_: list(jaxpr.out_avals))
hlo.lowering_rules[remat_p] = (
    lambda ctx, *args, jaxpr, **_: hlo.lower_jaxpr_into(ctx.comp, jaxpr.jaxpr, jaxpr.consts, args))


def _jvp(primals, tangents, *, jaxpr, policy, prevent_cse):
  outs = remat_p.bind(*primals, *tangents, jaxpr=ad.jvp_jaxpr(jaxpr), policy=policy,
                      prevent_cse=prevent_cse)
  n = len(outs) // 2
  return outs[:n], outs[n:]


def _batch(axis, vals, dims, *, jaxpr, policy, prevent_cse):
  new = batching.vmap_jaxpr(jaxpr, axis, dims)
  outs = remat_p.bind(*vals, jaxpr=new, policy=policy, prevent_cse=prevent_cse)
  return outs, [0] * len(outs)


def _transpose(cts, *args, jaxpr, policy, prevent_cse):
  linear = [ad.is_undefined_primal(x) for x in args]
  new = ad.transpose_jaxpr(jaxpr, linear)
  residuals = [x for x in args if not ad.is_undefined_primal(x)]
  cts = [ad.instantiate_zeros(c, a) for c, a in zip(cts, jaxpr.out_avals)]
  outs = iter(remat_p.bind(*residuals, *cts, jaxpr=new, policy=policy, prevent_cse=prevent_cse))
  return [next(outs) if lin else None for lin in linear]


def _saveable_vars(known: core.Jaxpr, policy: Callable | None) -> list[Var]:
  """Values of the forward pass that the policy lets us keep for the backward pass."""
  if policy is None:
    return []
  return [v for eqn in known.eqns
          if _saves(policy(eqn.primitive, *[x.aval for x in eqn.inputs], **eqn.params))
          for v in eqn.out_binders]


def _saves(decision) -> bool:
  # Policies answer True/False, or with the markers Saveable / Offloadable / Recompute.
  return not isinstance(decision, Recompute) and decision is not Recompute and bool(decision)


def _recompute_jaxpr(known: core.Jaxpr, n_consts: int, num_res: int, saveable: list[Var]):
  """(consts, known inputs, used saveable values) -> residuals, recomputing the rest.

  Returns the jaxpr and the saveable values it actually uses (those are saved).
  """
  given = set(saveable)
  eqns = [e for e in known.eqns if not all(v in given for v in e.out_binders)]
  residuals = known.outs[len(known.outs) - num_res:]
  full = core.Jaxpr([], list(known.invars) + saveable, eqns, residuals)
  pruned = pe.dce_jaxpr(full)
  used = {x for e in pruned.eqns for x in e.inputs if isinstance(x, Var)}
  used |= {x for x in residuals if isinstance(x, Var)}
  saved = [v for v in saveable if v in used]
  jaxpr = core.Jaxpr(known.invars[:n_consts], list(known.invars[n_consts:]) + saved,
                     pruned.eqns, residuals)
  return jaxpr, saved


def _partial_eval_jaxpr(eqn: JaxprEqn, unknowns):
  closed: ClosedJaxpr = eqn.params["jaxpr"]
  policy, prevent_cse = eqn.params["policy"], eqn.params["prevent_cse"]
  params = dict(policy=policy, prevent_cse=prevent_cse)
  n_consts = len(closed.consts)
  open_jaxpr = pe.convert_constvars_jaxpr(closed.jaxpr)
  known, unknown, out_uks, num_res = pe.partial_eval_jaxpr(
      open_jaxpr, [False] * n_consts + list(unknowns))
  recompute, saved = _recompute_jaxpr(known, n_consts, num_res,
                                      _saveable_vars(known, policy))
  recompute = ClosedJaxpr(recompute, closed.consts)
  n_known_out = len(known.outs) - num_res

  # Forward: the known outputs and the saved values only.
  fwd = core.Jaxpr(known.invars[:n_consts], known.invars[n_consts:], known.eqns,
                   known.outs[:n_known_out] + saved)
  fwd = ClosedJaxpr(pe.dce_jaxpr(fwd), closed.consts)
  saved_vars = [Var(v.aval) for v in saved]
  known_in = [x for x, uk in zip(eqn.inputs, unknowns) if not uk]
  unknown_in = [x for x, uk in zip(eqn.inputs, unknowns) if uk]
  known_eqn = JaxprEqn(remat_p, known_in, dict(jaxpr=fwd, **params),
                       [v for v, uk in zip(eqn.out_binders, out_uks) if not uk] + saved_vars)

  # Backward side: recompute the residuals from the inputs and saved values, then run
  # the unknown part.
  def bwd(*args):
    n_saved, n_known = len(saved_vars), len(known_in)
    given, kin, ukin = args[:n_saved], args[n_saved:n_saved + n_known], args[n_saved + n_known:]
    residuals = _run(recompute, [*kin, *given])
    return core.eval_jaxpr(unknown, [], [*residuals, *ukin])

  avals = [v.aval for v in saved_vars] + [x.aval for x in known_in + unknown_in]
  bwd_jaxpr, consts = pe.trace_to_jaxpr_dynamic(bwd, avals)
  bwd_closed, hoisted = pe.close_jaxpr(bwd_jaxpr, consts)
  assert not hoisted
  unknown_eqn = JaxprEqn(remat_p, saved_vars + known_in + unknown_in,
                         dict(jaxpr=bwd_closed, **params),
                         [v for v, uk in zip(eqn.out_binders, out_uks) if uk])
  return [known_eqn], [unknown_eqn], out_uks


ad.jvp_rules[remat_p] = _jvp
batching.batch_rules[remat_p] = _batch
ad.transpose_rules[remat_p] = _transpose
pe.def_partial_eval_jaxpr_rule(remat_p, _partial_eval_jaxpr)


def checkpoint(fun: Callable | None = None, *, prevent_cse: bool = True, policy=None,
               static_argnums: int | tuple[int, ...] = (),
               static_argnames: str | tuple[str, ...] = (), concrete: bool = False) -> Callable:
  """`fun`, differentiated by recomputing its intermediates in the backward pass instead
  of storing them (except those `policy` saves). Results are those of `fun`. Arguments
  named by static_argnums/static_argnames are passed as they are (not traced)."""
  if concrete:
    raise NotImplementedError("The `concrete` option to jax.checkpoint was removed in JAX; "
                              "mark the arguments static with static_argnums instead.")
  if fun is None:
    return functools.partial(checkpoint, prevent_cse=prevent_cse, policy=policy,
                             static_argnums=static_argnums, static_argnames=static_argnames)
  static = ensure_index_tuple(static_argnums)
  static_names = ((static_argnames,) if isinstance(static_argnames, str)
                  else tuple(static_argnames))

  @functools.wraps(fun)
  def wrapped(*args, **kwargs):
    static_args = {i: args[i] for i in static}
    static_kwargs = {k: v for k, v in kwargs.items() if k in static_names}
    kwargs = {k: v for k, v in kwargs.items() if k not in static_names}
    dyn = [a for i, a in enumerate(args) if i not in static]
    leaves, in_tree = tree_util.tree_flatten((dyn, kwargs))
    store = {}

    def flat(*xs):
      d, kw = tree_util.tree_unflatten(in_tree, xs)
      it = iter(d)
      full = [static_args[i] if i in static_args else next(it) for i in range(len(args))]
      out = fun(*full, **kw, **static_kwargs)
      out_leaves, store["tree"] = tree_util.tree_flatten(out)
      return out_leaves

    jaxpr, consts = pe.trace_to_jaxpr_dynamic(flat, [core.get_aval(x) for x in leaves])
    closed, hoisted = pe.close_jaxpr(jaxpr, consts)
    outs = remat_p.bind(*hoisted, *leaves, jaxpr=closed, policy=policy,
                        prevent_cse=bool(prevent_cse))
    return tree_util.tree_unflatten(store["tree"], outs)

  return wrapped


remat = checkpoint
