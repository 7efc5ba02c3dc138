"""Eager jit of a jaxpr that is no single program: run it equation by equation.

Used when a jaxpr holds what no one compiled module can (a shard_map over its own
devices, a host callback the backend cannot make): each equation is bound on its
own, and control flow whose bodies hold such things runs here in Python.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from jax._src import core
from jax._src.interpreters import partial_eval as pe
from jax._src.lax import control_flow
from jax._src.lax import shape as lax_shape


def run_op_by_op(closed: core.ClosedJaxpr, args, on_host: Callable[[core.Jaxpr], bool]) -> list:
  """Eager jit of a jaxpr that is no single program: equation by equation, each
  shard_map its own program. Control flow whose bodies no compiled module can hold
  (`on_host(body)`: a shard_map, or a callback the backend cannot make) runs in
  Python: the branch taken, the loop iterated here."""
  return _eval(closed.jaxpr, closed.consts, args, on_host)


def _eval(jaxpr: core.Jaxpr, consts, args, on_host) -> list:
  env: dict = {}

  def read(x):
    return core.literal_value(x) if isinstance(x, core.Literal) else env[x]

  env.update(zip(jaxpr.constvars, consts))
  env.update(zip(jaxpr.invars, args))
  for eqn in jaxpr.eqns:
    ins = [read(x) for x in eqn.inputs]
    rule = _host_rules.get(eqn.primitive)
    if rule is not None and any(map(on_host, core.subjaxprs(eqn))):
      run = lambda closed, xs: _eval(closed.jaxpr, closed.consts, xs, on_host)
      outs = rule(run, ins, **eqn.params)
    else:
      outs = eqn.primitive.bind(*ins, **eqn.params)
      outs = outs if eqn.primitive.multiple_results else [outs]
    env.update(zip(eqn.out_binders, outs))
  return [read(x) for x in jaxpr.outs]


def _cond_on_host(run, ins, *, branches):
  index = min(max(int(np.asarray(ins[0])), 0), len(branches) - 1)
  return run(branches[index], ins[1:])


def _while_on_host(run, ins, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
  cc, bc = ins[:cond_nconsts], ins[cond_nconsts:cond_nconsts + body_nconsts]
  carry = ins[cond_nconsts + body_nconsts:]
  while bool(np.asarray(run(cond_jaxpr, [*cc, *carry])[0])):
    carry = run(body_jaxpr, [*bc, *carry])
  return carry


def _scan_on_host(run, ins, *, jaxpr, length, num_consts, num_carry, reverse=False, **_):
  consts = ins[:num_consts]
  carry, xs = ins[num_consts:num_consts + num_carry], ins[num_consts + num_carry:]
  steps = []
  for i in (range(length - 1, -1, -1) if reverse else range(length)):
    outs = run(jaxpr, [*consts, *carry, *(_row(x, i) for x in xs)])
    carry = outs[:num_carry]
    steps.append(outs[num_carry:])
  if reverse:
    steps.reverse()
  ys_avals = jaxpr.out_avals[num_carry:]
  ys = [_stack([step[k] for step in steps], aval, length) for k, aval in enumerate(ys_avals)]
  return [*carry, *ys]


def _row(x, i: int):
  shape = core.get_aval(x).shape
  row = lax_shape.slice(x, (i,) + (0,) * (len(shape) - 1), (i + 1,) + tuple(shape[1:]))
  return lax_shape.reshape(row, tuple(shape[1:]))


def _stack(rows, aval, length: int):
  if not rows:
    return lax_shape.full((0, *aval.shape), 0, aval.dtype)
  dims = tuple(range(1, len(aval.shape) + 1))
  return lax_shape.concatenate(
      [lax_shape.broadcast_in_dim(r, (1, *aval.shape), dims) for r in rows], 0)


# Equations that hold jaxprs and can be interpreted here. A nested jit holding a
# shard_map is bound instead (it may still be one SPMD program of its own).
_host_rules = {control_flow.cond_p: _cond_on_host, control_flow.while_p: _while_on_host,
               control_flow.scan_p: _scan_on_host}


def has_effects(jaxpr: core.Jaxpr) -> bool:
  """Whether `jaxpr` (or one nested in it) runs side effects such as jax.debug callbacks."""
  return core.any_eqn(jaxpr, lambda eqn: eqn.primitive in pe.effectful_primitives)


def _closed_jaxprs(params) -> list:
  found = []
  for v in params.values():
    for item in (v if isinstance(v, tuple) else (v,)):
      if isinstance(item, core.ClosedJaxpr):
        found.append(item)
  return found


def _effects_run_in_python(prim: core.Primitive) -> None:
  """Eager control flow whose bodies have side effects runs here, equation by equation:
  a compiled module keeps only what its outputs depend on, which would drop them."""
  compiled = prim.impl

  def impl(*args, **params):
    if any(has_effects(c.jaxpr) for c in _closed_jaxprs(params)):
      run = lambda closed, xs: _eval(closed.jaxpr, closed.consts, xs, has_effects)
      return _host_rules[prim](run, list(args), **params)
    return compiled(*args, **params)

  prim.def_impl(impl)


for _prim in _host_rules:
  _effects_run_in_python(_prim)
