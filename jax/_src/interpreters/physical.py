"""Values of extended dtypes in their physical form, where jaxprs meet execution.

A typed PRNG key array of shape S is held as uint32[*S, 2]. Tracing, autodiff and
batching see the key type; before a jaxpr is lowered or run, `physicalize` rewrites it
so that every such value has its physical aval: each equation that touches one goes
through its primitive's rule in `rules` (structural ops add the trailing dimensions to
their parameters), and a higher-order equation (jit, cond, while, scan, ...) rebinds with
its inner jaxprs physicalized. `run` is the one boundary execution uses: arguments go in
as their data, results come back as values of their extended dtype.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Sequence

from jax._src import core
from jax._src import dtypes
from jax._src.core import ClosedJaxpr, Jaxpr, Literal
from jax._src.interpreters import partial_eval as pe

# rules[prim](ctx, *physical_inputs, **params) -> physical output(s), for equations whose
# inputs or outputs have an extended dtype with a physical form; `ctx` holds the
# equation's own (logical) avals.
rules: dict[core.Primitive, Callable] = {}


class RuleContext(NamedTuple):
  avals_in: list
  avals_out: list


# Concrete values of extended dtypes, by type: how to get the array holding their data.
value_data: dict[type, Callable[[Any], Any]] = {}


def _aval_needs(aval) -> bool:
  return core.has_physical_form(getattr(aval, "dtype", None))


def _jaxpr_needs(jaxpr: Jaxpr) -> bool:
  if any(_aval_needs(v.aval) for v in (*jaxpr.constvars, *jaxpr.invars)):
    return True
  for eqn in core.all_eqns(jaxpr):
    if any(_aval_needs(v.aval) for v in (*eqn.inputs, *eqn.out_binders)):
      return True
  return False


def needed(closed: ClosedJaxpr) -> bool:
  """Whether `closed` (or a jaxpr nested in it) holds a value with a physical form."""
  return _jaxpr_needs(closed.jaxpr)


def physicalize(closed: ClosedJaxpr) -> ClosedJaxpr:
  """`closed` with every extended-dtype value in its physical form (itself if none)."""
  if not needed(closed):
    return closed
  in_avals = [core.physical_aval(v.aval) for v in closed.jaxpr.invars]
  consts = [to_physical(c) for c in closed.consts]
  jaxpr, new_consts = pe.trace_to_jaxpr_dynamic(
      lambda *args: _eval(closed.jaxpr, consts, args), in_avals)
  return ClosedJaxpr(jaxpr, new_consts)


def _physical_param(value):
  if isinstance(value, ClosedJaxpr):
    return physicalize(value)
  if isinstance(value, Jaxpr):
    if not _jaxpr_needs(value):
      return value
    closed = physicalize(ClosedJaxpr(value, []))
    if closed.consts:
      raise NotImplementedError("a jaxpr parameter whose physical form needs constants")
    return closed.jaxpr
  if isinstance(value, tuple) and any(isinstance(v, (ClosedJaxpr, Jaxpr)) for v in value):
    return tuple(_physical_param(v) for v in value)
  return value


def _rebind_physical(prim: core.Primitive, *args, **params):
  """A higher-order equation: the same primitive over its physicalized jaxprs."""
  return prim.bind(*args, **{k: _physical_param(v) for k, v in params.items()})


def _eval(jaxpr: Jaxpr, consts: Sequence, args: Sequence) -> list:
  env: dict = {}

  def read(x):
    return core.literal_value(x) if isinstance(x, Literal) else env[x]

  env.update(zip(jaxpr.constvars, consts))
  env.update(zip(jaxpr.invars, args))
  for eqn in jaxpr.eqns:
    ins = [read(x) for x in eqn.inputs]
    touches = any(_aval_needs(v.aval) for v in (*eqn.inputs, *eqn.out_binders))
    rule = rules.get(eqn.primitive) if touches else None
    if rule is not None:
      ctx = RuleContext([x.aval for x in eqn.inputs], [v.aval for v in eqn.out_binders])
      outs = rule(ctx, *ins, **eqn.params)
    elif any(_jaxpr_needs(sub) for sub in core.subjaxprs(eqn)):
      outs = _rebind_physical(eqn.primitive, *ins, **eqn.params)
    elif touches:
      raise TypeError(f"{eqn.primitive.name} is not defined for arrays of dtype "
                      + ", ".join(sorted({str(v.aval.dtype) for v in (*eqn.inputs, *eqn.out_binders)
                                         if _aval_needs(v.aval)})))
    else:
      outs = eqn.primitive.bind(*ins, **eqn.params)
    outs = outs if eqn.primitive.multiple_results else [outs]
    env.update(zip(eqn.out_binders, outs))
  return [read(x) for x in jaxpr.outs]


class _LogicalArgs:
  """A host callback whose arguments arrive as data: gives it values of their own types
  (typed keys as keys). Other attributes are the wrapped callback's."""

  def __init__(self, callback, avals):
    self._callback, self._avals = callback, list(avals)

  def __call__(self, *args):
    return self._callback(*(from_physical(x, a) for x, a in zip(args, self._avals)))

  def __getattr__(self, name):
    return getattr(self._callback, name)


def callback_rule(prim: core.Primitive) -> Callable:
  """The rule of a host-callback primitive (its `callback` parameter is called with the
  operands): the callback gets the operands back in their own types."""
  def rule(ctx, *args, callback, **params):
    return prim.bind(*args, callback=_LogicalArgs(callback, ctx.avals_in), **params)
  return rule


def to_physical(x):
  """The data of a concrete extended-dtype value; any other value as it is."""
  convert = value_data.get(type(x))
  return x if convert is None else convert(x)


def from_physical(x, aval):
  """A result of `aval`'s type from its physical data."""
  if not _aval_needs(aval):
    return x
  return dtypes.extended_from_physical(aval.dtype, x)


class LogicalCallable:
  """A compiled physical program called with and returning values of their own types
  (ahead-of-time `compile()` of a function over typed keys). Other attributes are the
  program's."""

  def __init__(self, program, out_avals):
    self._program, self.out_avals = program, list(out_avals)

  def __call__(self, *args):
    outs = self._program(*(to_physical(a) for a in args))
    return [from_physical(o, a) for o, a in zip(outs, self.out_avals)]

  def __getattr__(self, name):
    return getattr(self._program, name)


def run(closed: ClosedJaxpr, args: Sequence, runner: Callable[[ClosedJaxpr, list], list],
        memo: Callable[[ClosedJaxpr, Any, Callable], Any]) -> list:
  """`runner(physical_jaxpr, physical_args)`, its results converted back to `closed`'s
  output types. `memo(closed, key, compute)` keeps the rewritten jaxpr with `closed`."""
  physical = memo(closed, "physical", lambda: physicalize(closed))
  outs = runner(physical, [to_physical(a) for a in args])
  return [from_physical(o, a) for o, a in zip(outs, closed.out_avals)]
