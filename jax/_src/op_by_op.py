"""Eager jit of a jaxpr that is no single program: run it equation by equation.

Used when a jaxpr holds what no one compiled module can (a shard_map over its own
devices, a host callback the backend cannot make): each equation is bound on its
own, and control flow whose bodies hold such things runs here in Python.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from jax._src import core
from jax._src.lax import control_flow


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


# Equations that hold jaxprs and can be interpreted here. A nested jit holding a
# shard_map is bound instead (it may still be one SPMD program of its own).
_host_rules = {control_flow.cond_p: _cond_on_host, control_flow.while_p: _while_on_host}
