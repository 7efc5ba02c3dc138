"""Staging to jaxprs and partial evaluation.

Two traces live here:
- `DynamicJaxprTrace` stages *every* primitive into a jaxpr (make_jaxpr, jit). It
  is pushed as the dynamic main, so binds on constants are staged too.
- `JaxprTrace` splits a computation into a known part, which runs now on the
  trace below, and an unknown part, recorded as a jaxpr. linearize uses it to
  separate primal work (known) from tangent work (unknown).

`partial_eval_jaxpr` does the same split on an existing jaxpr (used by the rules
of primitives that carry jaxprs, such as jit). Primitives that need their own
behaviour register it in `partial_eval_jaxpr_rules` / `partial_eval_rules`.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.core import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, ShapedArray, Tracer, Var
from jax._src.name_stack import current_source_info, using_name_stack

# rule(trace, tracers, **params) -> out tracers (JaxprTrace)
partial_eval_rules: dict[core.Primitive, Callable] = {}
# rule(eqn, unknowns_in, instantiate) -> (known_eqns, unknown_eqns, unknowns_out, residual vars)
partial_eval_jaxpr_rules: dict[core.Primitive, Callable] = {}

# ----------------------------------------------------------------------------- staging


class DynamicJaxprTracer(Tracer):
  __slots__ = ("_aval",)

  def __init__(self, trace, aval: ShapedArray):
    self._trace = trace
    self._aval = aval

  aval = property(lambda self: self._aval)


class JaxprBuilder:
  """Collects equations, constants and tracer->var assignments while staging."""

  def __init__(self):
    self.eqns: list[JaxprEqn] = []
    self.tracer_to_var: dict[int, Var] = {}
    self.const_tracers: dict[int, DynamicJaxprTracer] = {}
    self.constvals: dict[Var, Any] = {}
    self.tracers: list[DynamicJaxprTracer] = []  # keeps ids alive

  def new_tracer(self, trace, aval) -> DynamicJaxprTracer:
    t = DynamicJaxprTracer(trace, aval)
    self.tracers.append(t)
    return t

  def add_var(self, tracer) -> Var:
    assert id(tracer) not in self.tracer_to_var
    v = self.tracer_to_var[id(tracer)] = Var(tracer.aval)
    return v

  def getvar(self, tracer) -> Var:
    v = self.tracer_to_var.get(id(tracer))
    if v is None:
      raise core.errors.UnexpectedTracerError(
          f"tracer {tracer} is not from this trace (it escaped from another jit or vmap)")
    return v

  def add_const(self, tracer, val) -> Var:
    v = self.add_var(tracer)
    self.constvals[v] = val
    return v

  def release(self) -> None:
    """Drop the tracers once the jaxpr is built. Each tracer refers to its trace and so
    to this builder: without this, the tracers of a finished trace live on until the
    cycle collector runs, and libraries that cache values in weak references (keyed by
    their inputs) would keep handing out tracers that escaped. A tracer used after its
    trace ended is then unknown here and raises UnexpectedTracerError."""
    self.tracers.clear()
    self.const_tracers.clear()
    self.tracer_to_var.clear()

  def build(self, in_tracers, out_tracers) -> tuple[Jaxpr, list]:
    constvars, constvals = list(self.constvals), list(self.constvals.values())
    jaxpr = Jaxpr(constvars, [self.getvar(t) for t in in_tracers], self.eqns,
                  [self.getvar(t) for t in out_tracers])
    jaxpr, constvals = inline_literals(jaxpr, constvals)
    return prune_unused_consts(jaxpr, constvals)


def _literalable(val) -> bool:
  if isinstance(val, Tracer) or isinstance(getattr(val, "dtype", None), dtypes.ExtendedDType):
    return False  # literals are numbers; a key (say) stays a constant
  if type(val) in dtypes.python_scalar_types:
    return True
  return np.shape(val) == () and not isinstance(val, Tracer)


def make_literal(val, aval: ShapedArray) -> Literal:
  if type(val) in core.concrete_array_types or (
      type(val) in dtypes.python_scalar_types and dtypes.dtype(type(val)) == aval.dtype):
    # A jax array or Python scalar stays one: re-evaluating the jaxpr hands the same
    # kind of value to rules (custom_vjp's fwd and bwd, libraries' primitives) as the
    # traced program did.
    return Literal(val, aval)
  return Literal(np.asarray(val, dtype=aval.dtype)[()], aval)


def literal_value(lit: Literal):
  return core.literal_value(lit)


def inline_literals(jaxpr: Jaxpr, consts: Sequence) -> tuple[Jaxpr, list]:
  lits = {v: make_literal(c, v.aval) for v, c in zip(jaxpr.constvars, consts) if _literalable(c)}
  if not lits:
    return jaxpr, list(consts)
  keep = [(v, c) for v, c in zip(jaxpr.constvars, consts) if v not in lits]
  sub = lambda x: lits.get(x, x) if isinstance(x, Var) else x
  eqns = [JaxprEqn(e.primitive, [sub(x) for x in e.inputs], e.params, e.out_binders,
                   source_info=e.source_info) for e in jaxpr.eqns]
  new = Jaxpr([v for v, _ in keep], jaxpr.invars, eqns, [sub(x) for x in jaxpr.outs])
  return new, [c for _, c in keep]


def prune_unused_consts(jaxpr: Jaxpr, consts: Sequence) -> tuple[Jaxpr, list]:
  used = {x for e in jaxpr.eqns for x in e.inputs if isinstance(x, Var)}
  used |= {x for x in jaxpr.outs if isinstance(x, Var)}
  keep = [(v, c) for v, c in zip(jaxpr.constvars, consts) if v in used]
  return Jaxpr([v for v, _ in keep], jaxpr.invars, jaxpr.eqns, jaxpr.outs), [c for _, c in keep]


class DynamicJaxprTrace(core.Trace):
  @property
  def builder(self) -> JaxprBuilder:
    return self.main.global_data

  def new_arg(self, aval: ShapedArray) -> DynamicJaxprTracer:
    t = self.builder.new_tracer(self, aval)
    self.builder.add_var(t)
    return t

  def get_or_make_const_tracer(self, val) -> DynamicJaxprTracer:
    t = self.builder.const_tracers.get(id(val))
    if t is None:
      t = self.builder.new_tracer(self, core.get_aval(val))
      self.builder.add_const(t, val)
      self.builder.const_tracers[id(val)] = t
      self.builder.tracers.append(val)  # keep `val` alive so its id stays unique
    return t

  pure = lift = get_or_make_const_tracer

  def process_primitive(self, primitive, tracers, params):
    avals_in = [t.aval for t in tracers]
    avals_out = primitive.abstract_eval(*avals_in, **params)
    avals_out = avals_out if primitive.multiple_results else [avals_out]
    outs = [self.builder.new_tracer(self, a) for a in avals_out]
    inputs = [self.builder.getvar(t) for t in tracers]
    binders = [self.builder.add_var(t) for t in outs]
    self.builder.eqns.append(JaxprEqn(primitive, inputs, params, binders,
                                      source_info=current_source_info()))
    return outs if primitive.multiple_results else outs[0]


def trace_to_jaxpr_dynamic(fun: Callable, in_avals: Sequence[ShapedArray]) -> tuple[Jaxpr, list]:
  """Stage `fun(*flat_args) -> flat_outs` into (jaxpr with constvars, consts)."""
  builder = JaxprBuilder()
  # The jaxpr's own names start here, as in JAX (the caller's scope names its call).
  with core.new_dynamic_main(DynamicJaxprTrace, builder) as main, using_name_stack(()):
    trace = DynamicJaxprTrace(main)
    tracers_in = [trace.new_arg(a) for a in in_avals]
    outs = fun(*tracers_in)
    tracers_out = [core.full_raise(trace, o) for o in outs]
    jaxpr, consts = builder.build(tracers_in, tracers_out)
  builder.release()
  return jaxpr, consts


def convert_constvars_jaxpr(jaxpr: Jaxpr) -> Jaxpr:
  """Turn constvars into leading invars."""
  return Jaxpr([], jaxpr.constvars + jaxpr.invars, jaxpr.eqns, jaxpr.outs)


def close_jaxpr(jaxpr: Jaxpr, consts: Sequence) -> tuple[ClosedJaxpr, list]:
  """A ClosedJaxpr holding the concrete consts, plus the tracer consts hoisted to invars.

  Returns (closed, hoisted): the closed jaxpr's invars are `hoisted + original invars`.
  """
  concrete = [(v, c) for v, c in zip(jaxpr.constvars, consts) if not isinstance(c, Tracer)]
  traced = [(v, c) for v, c in zip(jaxpr.constvars, consts) if isinstance(c, Tracer)]
  new = Jaxpr([v for v, _ in concrete], [v for v, _ in traced] + jaxpr.invars,
              jaxpr.eqns, jaxpr.outs)
  return ClosedJaxpr(new, [c for _, c in concrete]), [c for _, c in traced]


# ----------------------------------------------------------------------------- partial eval


class PartialVal(tuple):
  """A value that is either known now or only known by its abstract value.

  The pair is JAX's `(aval_or_None, const_or_None)`: `(None, value)` when known,
  `(aval, None)` when unknown, so code written for JAX can unpack `pv, const`.
  """

  def __new__(cls, xs):
    pv, const = xs
    if (pv is None) == (const is None):
      raise ValueError("PartialVal takes (None, value) when known or (aval, None) when "
                       f"unknown; got ({pv!r}, {const!r})")
    return tuple.__new__(cls, (pv, const))

  @classmethod
  def known(cls, val) -> PartialVal:
    return cls((None, val))

  @classmethod
  def unknown(cls, aval) -> PartialVal:
    return cls((aval, None))

  def is_known(self) -> bool:
    return self[0] is None

  def get_known(self):
    """The known value, or None when unknown."""
    return self[1] if self[0] is None else None

  def get_aval(self) -> ShapedArray:
    return core.get_aval(self[1]) if self[0] is None else self[0]


class LambdaBindingRecipe(NamedTuple):
  pass


class ConstRecipe(NamedTuple):
  val: Any


class JaxprEqnRecipe(NamedTuple):
  prim: core.Primitive
  tracers_in: list
  params: dict
  avals_out: list
  tracer_refs_out: list  # the output tracers (strong refs are fine here)
  source_info: Any = None


class JaxprTracer(Tracer):
  __slots__ = ("pval", "recipe", "_aval")

  def __init__(self, trace, pval: PartialVal, recipe):
    self._trace = trace
    self.pval = pval
    self.recipe = recipe
    self._aval = pval.get_aval()

  aval = property(lambda self: self._aval)

  def is_known(self) -> bool:
    return self.pval.is_known()

  def full_lower(self):
    if self.pval.is_known():
      return core.full_lower(self.pval.get_known())
    return self

  def to_concrete_value(self):
    return core.concrete_value(self.pval.get_known()) if self.pval.is_known() else None


class JaxprTrace(core.Trace):
  def new_arg(self, pval: PartialVal) -> JaxprTracer:
    return JaxprTracer(self, pval, LambdaBindingRecipe())

  def pure(self, val) -> JaxprTracer:
    return JaxprTracer(self, PartialVal.known(val), None)

  lift = pure

  def instantiate_const(self, tracer: JaxprTracer) -> JaxprTracer:
    if tracer.pval.is_known():
      return JaxprTracer(self, PartialVal.unknown(tracer.aval), ConstRecipe(tracer.pval.get_known()))
    return tracer

  def process_primitive(self, primitive, tracers, params):
    if all(t.pval.is_known() for t in tracers):
      return primitive.bind(*(t.pval.get_known() for t in tracers), **params)
    rule = partial_eval_rules.get(primitive)
    if rule is not None:
      return rule(self, tracers, **params)
    tracers_in = [self.instantiate_const(t) for t in tracers]
    avals_out = primitive.abstract_eval(*(t.aval for t in tracers_in), **params)
    avals_out = avals_out if primitive.multiple_results else [avals_out]
    outs = [JaxprTracer(self, PartialVal.unknown(a), None) for a in avals_out]
    recipe = JaxprEqnRecipe(primitive, tracers_in, params, avals_out, outs,
                            current_source_info())
    for t in outs:
      t.recipe = recipe
    return outs if primitive.multiple_results else outs[0]


def trace_to_jaxpr_nounits(fun, pvals: Sequence[PartialVal],
                           instantiate: Sequence[bool] | bool = False):
  """Run `fun(*flat_args) -> flat_outs` with some inputs known and some unknown.

  Known inputs are passed to `fun` as their values, so the work that depends only on
  them runs now; the rest is recorded. Returns (jaxpr, out_pvals, consts): the jaxpr
  (constvars bound to `consts`) takes the unknown inputs to the unknown outputs, and
  `out_pvals` holds each output's value when known. `instantiate` makes outputs
  unknown (part of the jaxpr) even when they are known. `fun` may be a WrappedFun.
  """
  if isinstance(instantiate, bool):
    instantiate_of = lambda n_out: [instantiate] * n_out
  else:
    instantiate_of = lambda n_out: list(instantiate)
  return trace_partial(getattr(fun, "call_wrapped", fun), pvals, instantiate_of)


def trace_partial(call: Callable, pvals: Sequence[PartialVal],
                  instantiate_of: Callable[[int], Sequence[bool]]):
  """`trace_to_jaxpr_nounits` with the outputs to instantiate chosen once their number
  is known (`instantiate_of(n_out)`)."""
  pvals = list(pvals)
  for pv in pvals:
    if not isinstance(pv, PartialVal):
      raise TypeError(f"trace_to_jaxpr_nounits takes PartialVals, got {type(pv).__name__}")
  with core.new_main(JaxprTrace) as main:
    trace = JaxprTrace(main)
    unknown_in = [trace.new_arg(pv) for pv in pvals if not pv.is_known()]
    it = iter(unknown_in)
    args = [pv.get_known() if pv.is_known() else next(it) for pv in pvals]
    outs = [core.full_raise(trace, o) for o in call(*args)]
    instantiate = instantiate_of(len(outs))
    if len(instantiate) != len(outs):
      raise ValueError(f"instantiate has {len(instantiate)} entries for {len(outs)} outputs")
    outs = [trace.instantiate_const(t) if inst else t for t, inst in zip(outs, instantiate)]
    jaxpr, consts = tracers_to_jaxpr(unknown_in, [t for t in outs if not t.is_known()])
    out_pvals = [t.pval for t in outs]
  return jaxpr, out_pvals, consts


def tracers_to_jaxpr(tracers_in, tracers_out) -> tuple[Jaxpr, list]:
  tracer_to_var: dict[int, Var] = {id(t): Var(t.aval) for t in tracers_in}
  constvar_to_val: dict[int, tuple[Var, Any]] = {}
  processed: set[int] = set()
  eqns: list[JaxprEqn] = []
  for t in _toposort(tracers_out):
    recipe = t.recipe
    if isinstance(recipe, LambdaBindingRecipe):
      if id(t) not in tracer_to_var:
        raise core.errors.UnexpectedTracerError("a partial-eval input escaped its trace")
    elif isinstance(recipe, ConstRecipe):
      var = tracer_to_var[id(t)] = Var(t.aval)
      constvar_to_val[id(var)] = (var, recipe.val)
    elif isinstance(recipe, JaxprEqnRecipe):
      if id(recipe) in processed:
        continue
      processed.add(id(recipe))
      binders = []
      for out in recipe.tracer_refs_out:
        binders.append(tracer_to_var.setdefault(id(out), Var(out.aval)))
      eqns.append(JaxprEqn(recipe.prim, [tracer_to_var[id(x)] for x in recipe.tracers_in],
                           recipe.params, binders, source_info=recipe.source_info))
  constvars = [v for v, _ in constvar_to_val.values()]
  consts = [c for _, c in constvar_to_val.values()]
  jaxpr = Jaxpr(constvars, [tracer_to_var[id(t)] for t in tracers_in], eqns,
                [tracer_to_var[id(t)] for t in tracers_out])
  return inline_literals(jaxpr, consts)


def _parents(t) -> list:
  r = t.recipe
  return list(r.tracers_in) if isinstance(r, JaxprEqnRecipe) else []


def _toposort(out_nodes) -> list:
  """Parents before children, iteratively (deep graphs must not hit the recursion limit)."""
  order, state = [], {}
  for root in out_nodes:
    stack = [(root, False)]
    while stack:
      node, done = stack.pop()
      if done:
        if state.get(id(node)) != 2:
          state[id(node)] = 2
          order.append(node)
        continue
      if id(node) in state:
        continue
      state[id(node)] = 1
      stack.append((node, True))
      for p in reversed(_parents(node)):
        if id(p) not in state:
          stack.append((p, False))
      # a multi-output recipe: its sibling outputs share the eqn; handled by `processed`
  return order


# ----------------------------------------------------------------------------- jaxpr-level


def partial_eval_jaxpr(jaxpr: Jaxpr, unknowns_in: Sequence[bool],
                       instantiate: Sequence[bool] | bool = False):
  """Split `jaxpr` (no constvars) into known and unknown jaxprs.

  known:   known invars -> known outs + residuals
  unknown: residuals + unknown invars -> unknown outs
  Returns (known, unknown, unknowns_out, num_residuals).
  """
  assert not jaxpr.constvars
  if isinstance(instantiate, bool):
    instantiate = [instantiate] * len(jaxpr.outs)
  unknown: set[Var] = {v for v, uk in zip(jaxpr.invars, unknowns_in) if uk}
  known_eqns, unknown_eqns = [], []
  for eqn in jaxpr.eqns:
    uks = [isinstance(x, Var) and x in unknown for x in eqn.inputs]
    rule = partial_eval_jaxpr_rules.get(eqn.primitive)
    if any(uks) and rule is not None:
      k_eqns, u_eqns, uks_out = rule(eqn, uks)
      known_eqns += k_eqns
      unknown_eqns += u_eqns
      unknown.update(v for v, uk in zip(eqn.out_binders, uks_out) if uk)
    elif any(uks):
      unknown_eqns.append(eqn)
      unknown.update(eqn.out_binders)
    else:
      known_eqns.append(eqn)
  unknowns_out = [isinstance(x, Var) and x in unknown for x in jaxpr.outs]
  uk_defined = {v for e in unknown_eqns for v in e.out_binders}
  uk_defined |= {v for v, uk in zip(jaxpr.invars, unknowns_in) if uk}
  residuals: list[Var] = []
  seen: set[Var] = set()

  def note(x):
    if isinstance(x, Var) and x not in uk_defined and x not in seen:
      seen.add(x)
      residuals.append(x)

  for e in unknown_eqns:
    for x in e.inputs:
      note(x)
  outs_unknown = []
  for x, uk, inst in zip(jaxpr.outs, unknowns_out, instantiate):
    if uk or inst:
      note(x)
      outs_unknown.append(x)
  known_outs = [x for x, uk, inst in zip(jaxpr.outs, unknowns_out, instantiate)
                if not (uk or inst)]
  known = Jaxpr([], [v for v, uk in zip(jaxpr.invars, unknowns_in) if not uk], known_eqns,
                known_outs + residuals)
  res_binders = {v: Var(v.aval) for v in residuals}
  rename = lambda x: res_binders.get(x, x) if isinstance(x, Var) else x
  unknown_eqns = [JaxprEqn(e.primitive, [rename(x) for x in e.inputs], e.params, e.out_binders,
                           source_info=e.source_info) for e in unknown_eqns]
  unknown_jaxpr = Jaxpr([], [res_binders[v] for v in residuals] +
                        [v for v, uk in zip(jaxpr.invars, unknowns_in) if uk],
                        unknown_eqns, [rename(x) for x in outs_unknown])
  unknowns_out = [uk or inst for uk, inst in zip(unknowns_out, instantiate)]
  return known, unknown_jaxpr, unknowns_out, len(residuals)


# Primitives run for their side effect (e.g. jax.debug callbacks): never dropped as dead.
effectful_primitives: set = set()


def _is_effectful(eqn: JaxprEqn) -> bool:
  return eqn.primitive in effectful_primitives


def has_effects(eqn: JaxprEqn) -> bool:
  """Whether running `eqn` does something besides computing its results: an effectful
  primitive, or a cond, loop or call whose body holds one (a print in a branch)."""
  return _is_effectful(eqn) or any(core.any_eqn(sub, _is_effectful)
                                   for sub in core.subjaxprs(eqn))


def dce_jaxpr(jaxpr: Jaxpr) -> Jaxpr:
  """Drop equations whose results are unused, except those with effects."""
  live = {x for x in jaxpr.outs if isinstance(x, Var)}
  kept = []
  for eqn in reversed(jaxpr.eqns):
    if any(v in live for v in eqn.out_binders) or has_effects(eqn):
      kept.append(eqn)
      live.update(x for x in eqn.inputs if isinstance(x, Var))
  return Jaxpr(jaxpr.constvars, jaxpr.invars, kept[::-1], jaxpr.outs)


# ----------------------------------------------------------------------------- registrars


def def_partial_eval_jaxpr_rule(prim: core.Primitive, jaxpr_rule: Callable) -> None:
  """Register `jaxpr_rule` for jaxprs, and a JaxprTrace rule derived from it.

  The trace rule builds a one-equation jaxpr for the call, splits it with
  `jaxpr_rule`, evaluates the known equations now and records the unknown ones.
  """
  partial_eval_jaxpr_rules[prim] = jaxpr_rule

  def trace_rule(trace: JaxprTrace, tracers, **params):
    in_vars = [Var(t.aval) for t in tracers]
    avals_out = prim.abstract_eval(*(t.aval for t in tracers), **params)
    avals_out = avals_out if prim.multiple_results else [avals_out]
    out_vars = [Var(a) for a in avals_out]
    unknowns = [not t.pval.is_known() for t in tracers]
    known_eqns, unknown_eqns, _ = jaxpr_rule(JaxprEqn(prim, in_vars, params, out_vars), unknowns)
    values = {v: t.pval.get_known() for v, t in zip(in_vars, tracers) if t.pval.is_known()}
    read = lambda x: literal_value(x) if isinstance(x, Literal) else values[x]
    for eqn in known_eqns:
      outs = eqn.primitive.bind(*map(read, eqn.inputs), **eqn.params)
      values.update(zip(eqn.out_binders, outs if eqn.primitive.multiple_results else [outs]))
    tracer_of = {v: t for v, t in zip(in_vars, tracers) if not t.pval.is_known()}

    def get_tracer(x):
      if isinstance(x, Literal):
        return trace.instantiate_const(trace.pure(literal_value(x)))
      if x not in tracer_of:
        tracer_of[x] = trace.instantiate_const(trace.pure(values[x]))
      return tracer_of[x]

    for eqn in unknown_eqns:
      ins = [get_tracer(x) for x in eqn.inputs]
      outs = [JaxprTracer(trace, PartialVal.unknown(v.aval), None) for v in eqn.out_binders]
      recipe = JaxprEqnRecipe(eqn.primitive, ins, eqn.params, [v.aval for v in eqn.out_binders],
                              outs)
      for v, t in zip(eqn.out_binders, outs):
        t.recipe = recipe
        tracer_of[v] = t
    results = [tracer_of[v] if v in tracer_of else trace.pure(values[v]) for v in out_vars]
    return results if prim.multiple_results else results[0]

  partial_eval_rules[prim] = trace_rule


def partial_eval_closed(closed: ClosedJaxpr, unknowns: Sequence[bool],
                        instantiate: Sequence[bool] | bool = False):
  """`partial_eval_jaxpr` for a ClosedJaxpr (its consts stay with the known side).

  Returns (known ClosedJaxpr, unknown ClosedJaxpr, unknowns_out, num_residuals).
  """
  open_jaxpr = convert_constvars_jaxpr(closed.jaxpr)
  n = len(closed.consts)
  known, unknown, out_uks, num_res = partial_eval_jaxpr(open_jaxpr, [False] * n + list(unknowns),
                                                        instantiate)
  known_closed = ClosedJaxpr(Jaxpr(known.invars[:n], known.invars[n:], known.eqns, known.outs),
                             closed.consts)
  return known_closed, ClosedJaxpr(unknown, []), out_uks, num_res
