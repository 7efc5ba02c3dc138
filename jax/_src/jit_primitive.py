"""The `jit` primitive: a call of a closed jaxpr, compiled as a unit.

One block with all its rules: eager impl (compile + run), abstract eval, JVP,
partial evaluation (trace- and jaxpr-level), transpose, batching and lowering
(inlined into the caller's computation).
"""

from __future__ import annotations

from typing import Callable

from jax._src import callback
from jax._src import core
from jax._src import execution
from jax._src import op_by_op
from jax._src.core import ClosedJaxpr, JaxprEqn, Var
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.interpreters import partial_eval as pe
from jax._src.interpreters import physical
from jax._src.lax.utils import rules_by_expansion
from jax._src.lowering import hlo

jit_p = core.Primitive("jit", multiple_results=True)


# How jaxprs holding shard_maps or taking sharded arguments run: shard_map, a layer
# above, registers these when it is imported (see `register_spmd_runners`).
_spmd: dict[str, Callable] = {}


def register_spmd_runners(*, contains_shard_map: Callable, run: Callable,
                          run_op_by_op: Callable, partitioned_jit: Callable) -> None:
  """`contains_shard_map(jaxpr)`; `run(closed, args, name)`, the SPMD program's results or
  None; `run_op_by_op(closed, args)`; `partitioned_jit(closed, args, name)`, the results of
  a jit over sharded arguments or None."""
  _spmd.update(contains_shard_map=contains_shard_map, run=run, run_op_by_op=run_op_by_op,
               partitioned_jit=partitioned_jit)


def donation_params(donated_invars) -> dict:
  """The `donated_invars` parameter of a jit equation; absent when nothing is donated."""
  return {"donated_invars": tuple(donated_invars)} if donated_invars and any(donated_invars) else {}


def _jit_impl(*args, jaxpr: ClosedJaxpr, name: str, donated_invars=None):
  """Compile and run on one device, unless arguments are split over a mesh (SPMD).

  A jaxpr holding a shard_map runs as one SPMD program over its mesh
  (shard_map_jit.py), or, when it does not partition, equation by equation with
  each shard_map its own multi-device program. Donation
  (`donated_invars`, one flag per argument) applies to the single-device program.
  """
  if execution.memo(jaxpr, "needs_physical", lambda: physical.needed(jaxpr)):
    # Typed keys (extended dtypes) run as their data; results come back typed.
    return physical.run(jaxpr, args, lambda pj, pargs: _jit_impl(
        *pargs, jaxpr=pj, name=name, donated_invars=donated_invars), execution.memo)
  if has_shard_map(jaxpr):
    outs = _spmd["run"](jaxpr, args, name)
    if outs is not None:
      return outs
    return _spmd["run_op_by_op"](jaxpr, args)
  if needs_host_callbacks(jaxpr):
    return op_by_op.run_op_by_op(jaxpr, args, callback.contains_callback)
  if has_effects(jaxpr):
    return op_by_op.run_op_by_op(jaxpr, args, op_by_op.has_effects)
  outs = _spmd["partitioned_jit"](jaxpr, args, name) if _spmd else None
  if outs is None:
    outs = execution.compile_jaxpr(jaxpr, name, donated=donated_invars)(*args)
  outs = execution.place_by_type(outs, jaxpr.out_avals, args)
  execution.check_special_values(f"jit({name})", outs)
  return outs


def needs_host_callbacks(jaxpr: ClosedJaxpr) -> bool:
  """A callback in a backend whose plugin cannot call back into Python: run it eagerly."""
  found = execution.memo(jaxpr, "has_callback", lambda: callback.contains_callback(jaxpr.jaxpr))
  return found and not callback.supports_host_callbacks(execution.get_backend())


def has_effects(jaxpr: ClosedJaxpr) -> bool:
  """Side-effecting equations (jax.debug callbacks) are run eagerly, equation by equation:
  the CPU compiler keeps only what the outputs depend on, which would drop them."""
  return execution.memo(jaxpr, "has_effects", lambda: core.any_eqn(
      jaxpr.jaxpr, lambda eqn: eqn.primitive in pe.effectful_primitives))


def has_shard_map(jaxpr: ClosedJaxpr) -> bool:
  """Whether `jaxpr` holds a shard_map (then it runs as an SPMD program, see shard_map_jit)."""
  if not _spmd:
    return False
  return execution.memo(jaxpr, "has_shard_map",
                        lambda: _spmd["contains_shard_map"](jaxpr.jaxpr))


def _jit_abstract_eval(*avals, jaxpr: ClosedJaxpr, name: str, donated_invars=None):
  return jaxpr.out_avals


jit_p.def_impl(_jit_impl)
jit_p.def_abstract_eval(_jit_abstract_eval)


# Differentiation drops donation: the primal inputs are kept for the backward pass.
# Zero tangents stay symbolic across the call: the jitted JVP takes and returns only the
# nonzero ones, so rules inside (custom_vjp's fwd) see what is differentiated.
def _jit_jvp(primals, tangents, *, jaxpr: ClosedJaxpr, name: str, donated_invars=None):
  nonzeros = [type(t) is not ad.Zero for t in tangents]
  new, out_nonzeros = ad.jvp_jaxpr_nonzeros(jaxpr, nonzeros)
  outs = jit_p.bind(*primals, *(t for t in tangents if type(t) is not ad.Zero), jaxpr=new,
                    name=f"jvp_{name}")
  n = len(jaxpr.out_avals)
  nz_out = iter(outs[n:])
  return outs[:n], [next(nz_out) if nz else ad.Zero(a)
                    for a, nz in zip(jaxpr.out_avals, out_nonzeros)]


def _open(jaxpr: ClosedJaxpr):
  """The jaxpr with its consts turned into leading invars, plus those consts."""
  return pe.convert_constvars_jaxpr(jaxpr.jaxpr), list(jaxpr.consts)


def _closed(jaxpr: core.Jaxpr) -> ClosedJaxpr:
  return ClosedJaxpr(jaxpr, [])


def _jit_partial_eval(trace: pe.JaxprTrace, tracers, *, jaxpr: ClosedJaxpr, name: str,
                      donated_invars=None):
  open_jaxpr, consts = _open(jaxpr)
  unknowns = [False] * len(consts) + [not t.pval.is_known() for t in tracers]
  known, unknown, out_uks, num_res = pe.partial_eval_jaxpr(open_jaxpr, unknowns)
  known_ins = consts + [t.pval.get_known() for t in tracers if t.pval.is_known()]
  known_outs = jit_p.bind(*known_ins, jaxpr=_closed(known), name=name)
  n_known_out = len(known_outs) - num_res
  residuals = known_outs[n_known_out:]
  res_tracers = [trace.instantiate_const(trace.pure(r)) for r in residuals]
  uk_tracers = [t for t in tracers if not t.pval.is_known()]
  in_tracers = res_tracers + uk_tracers
  out_avals = [a for a, uk in zip(jaxpr.out_avals, out_uks) if uk]
  uk_outs = [pe.JaxprTracer(trace, pe.PartialVal.unknown(a), None) for a in out_avals]
  recipe = pe.JaxprEqnRecipe(jit_p, in_tracers, dict(jaxpr=_closed(unknown), name=name),
                             out_avals, uk_outs)
  for t in uk_outs:
    t.recipe = recipe
  known_it, uk_it = iter(known_outs[:n_known_out]), iter(uk_outs)
  return [next(uk_it) if uk else trace.pure(next(known_it)) for uk in out_uks]


def _jit_partial_eval_jaxpr(eqn: JaxprEqn, unknowns):
  jaxpr: ClosedJaxpr = eqn.params["jaxpr"]
  name = eqn.params["name"]
  open_jaxpr, consts = _open(jaxpr)
  known, unknown, out_uks, num_res = pe.partial_eval_jaxpr(open_jaxpr, [False] * len(consts)
                                                           + list(unknowns))
  # The consts are folded back by closing the known jaxpr over them.
  known_closed = ClosedJaxpr(core.Jaxpr(known.invars[:len(consts)], known.invars[len(consts):],
                                        known.eqns, known.outs), consts)
  res_vars = [Var(v.aval) for v in known.outs[len(known.outs) - num_res:]]
  known_out_vars = [v for v, uk in zip(eqn.out_binders, out_uks) if not uk]
  known_eqn = JaxprEqn(jit_p, [x for x, uk in zip(eqn.inputs, unknowns) if not uk],
                       dict(jaxpr=known_closed, name=name), known_out_vars + res_vars)
  unknown_eqn = JaxprEqn(jit_p, res_vars + [x for x, uk in zip(eqn.inputs, unknowns) if uk],
                         dict(jaxpr=_closed(unknown), name=name),
                         [v for v, uk in zip(eqn.out_binders, out_uks) if uk])
  return [known_eqn], [unknown_eqn], out_uks


def _jit_transpose(cts, *args, jaxpr: ClosedJaxpr, name: str, donated_invars=None):
  linear = [ad.is_undefined_primal(x) for x in args]
  new = ad.transpose_jaxpr(jaxpr, linear)
  residuals = [x for x in args if not ad.is_undefined_primal(x)]
  cts = [ad.instantiate_zeros(c, a) for c, a in zip(cts, jaxpr.out_avals)]
  outs = iter(jit_p.bind(*residuals, *cts, jaxpr=new, name=f"transpose_{name}"))
  return [next(outs) if lin else None for lin in linear]


def _jit_batch(axis, vals, dims, *, jaxpr: ClosedJaxpr, name: str, donated_invars=None):
  new = batching.vmap_jaxpr(jaxpr, axis, dims, vals)
  outs = jit_p.bind(*vals, jaxpr=new, name=name, **donation_params(donated_invars))
  return outs, [0] * len(outs)


# A jit inside another computation is inlined; only the outermost call can donate.
def _jit_lowering(ctx: hlo.LoweringContext, *args, jaxpr: ClosedJaxpr, name: str,
                  donated_invars=None):
  return hlo.lower_jaxpr_into(ctx.comp, jaxpr.jaxpr, jaxpr.consts, args)


ad.jvp_rules[jit_p] = _jit_jvp
ad.symbolic_zero_rules.add(jit_p)
pe.partial_eval_rules[jit_p] = _jit_partial_eval
pe.partial_eval_jaxpr_rules[jit_p] = _jit_partial_eval_jaxpr
ad.transpose_rules[jit_p] = _jit_transpose
batching.batch_rules[jit_p] = _jit_batch
hlo.lowering_rules[jit_p] = _jit_lowering


# ----------------------------------------------------------------------------- call primitives

# Calls of a jaxpr that are not compiled as a unit: `closed_call_p` takes a ClosedJaxpr
# (`call_jaxpr`), `call_p` an open one without constants. Our tracing inlines such calls,
# so they appear only in jaxprs a library builds itself; libraries also key their own
# interpreters' rules by them (numpyro's provenance tracking).
closed_call_p = core.Primitive("closed_call", multiple_results=True)
closed_call_p.def_impl(lambda *args, call_jaxpr: core.eval_jaxpr(
    call_jaxpr.jaxpr, call_jaxpr.consts, args))
closed_call_p.def_abstract_eval(lambda *avals, call_jaxpr: list(call_jaxpr.out_avals))

call_p = core.Primitive("call", multiple_results=True)
call_p.def_impl(lambda *args, call_jaxpr: core.eval_jaxpr(call_jaxpr, (), args))
call_p.def_abstract_eval(lambda *avals, call_jaxpr: list(call_jaxpr.out_avals))
closed_call_p.call_primitive = call_p.call_primitive = True
# Differentiated, batched and lowered as the equations they call.
rules_by_expansion(closed_call_p, lambda *args, call_jaxpr: core.eval_jaxpr(
    call_jaxpr.jaxpr, call_jaxpr.consts, args), multiple_results=True)
rules_by_expansion(call_p, lambda *args, call_jaxpr: core.eval_jaxpr(call_jaxpr, (), args),
                   multiple_results=True)
