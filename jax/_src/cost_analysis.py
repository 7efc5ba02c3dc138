"""What a compiled computation costs, estimated from its jaxpr (`Lowered.cost_analysis()`,
`Compiled.cost_analysis()`): flops, transcendental operations and bytes accessed, counted
the way XLA's cost analysis counts them."""

from __future__ import annotations

import math

import numpy as np

from jax._src import core
from jax._src.lax import elementwise

_ARITHMETIC_COLLECTIVES = frozenset({"psum", "pmax", "pmin"})
_TRANSCENDENTAL = frozenset({
    "exp", "exp2", "expm1", "log", "log1p", "logistic", "pow", "sqrt", "rsqrt", "cbrt",
    "tanh", "sin", "cos", "tan", "atan2", "erf", "erfc", "erf_inv", "lgamma", "digamma",
    "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh"})

# lax's elementwise primitives: one flop per element they produce.
_ARITHMETIC = frozenset(p for p in vars(elementwise).values() if isinstance(p, core.Primitive))


def _nbytes(aval) -> int:
  return math.prod(aval.shape) * np.dtype(aval.dtype).itemsize


def estimate_cost(jaxpr: core.Jaxpr) -> dict[str, float]:
  """Per-device flops, transcendentals and bytes accessed of `jaxpr`: one flop per element
  an arithmetic op produces (one transcendental for exp, log, tanh, ...), n - m for a
  reduction of n elements to m (an all-reduce: one per element), 2*M*N*K for a dot, and every operand and result read or
  written once. The bodies of calls and control flow count once."""
  flops = transcendentals = accessed = 0
  for eqn in jaxpr.eqns:
    subs = list(core.subjaxprs(eqn))
    if subs:
      for sub in map(estimate_cost, subs):
        flops += sub["flops"]
        transcendentals += sub["transcendentals"]
        accessed += sub["bytes accessed"]
      continue
    ins = [x.aval for x in eqn.inputs]
    outs = [v.aval for v in eqn.out_binders]
    accessed += sum(map(_nbytes, ins + outs))
    name = eqn.primitive.name
    if name == "dot_general":
      (lc, _), _ = eqn.params["dimension_numbers"]
      flops += 2 * math.prod(outs[0].shape) * math.prod(ins[0].shape[d] for d in lc)
    elif name.startswith("reduce_"):
      flops += max(math.prod(ins[0].shape) - math.prod(outs[0].shape), 0)
    elif name in _ARITHMETIC_COLLECTIVES:
      flops += math.prod(ins[0].shape)
    elif name in _TRANSCENDENTAL:
      transcendentals += math.prod(outs[0].shape)
    elif eqn.primitive in _ARITHMETIC:
      flops += math.prod(outs[0].shape)
  return {"flops": float(flops), "transcendentals": float(transcendentals),
          "bytes accessed": float(accessed)}
