"""JAX's rule-table names over ours (`jax.interpreters.ad/batching/mlir`).

The JVP and transpose tables are ours (same dict objects, same rule signatures).
JAX's batching rules take `(batched_args, batch_dims, **params)` where ours take
the axis data first, so `primitive_batchers` is a mapping that adapts on write
(and on read of rules registered here directly). Lowering rules take our
`hlo.LoweringContext`: rules written with `mlir.lower_fun` work unchanged.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Callable

from jax._src import core
from jax._src.interpreters import batching
from jax._src.lowering import hlo
from jax._src.custom_derivatives_public import SymbolicZero
from jax._src.interpreters import ad


class _AdaptedBatchRule:
  """Our-style rule calling a JAX-style rule (which does not take the axis data)."""

  def __init__(self, rule: Callable):
    self.rule = rule

  def __call__(self, axis_data, vals, dims, **params):
    return self.rule(vals, dims, **params)


class _PrimitiveBatchers(MutableMapping):
  """`batching.batch_rules` seen through JAX's rule signature."""

  def __getitem__(self, prim):
    rule = batching.batch_rules[prim]
    if isinstance(rule, _AdaptedBatchRule):
      return rule.rule
    return lambda vals, dims, **params: rule(_axis_data_for(dims, vals), vals, dims, **params)

  def __setitem__(self, prim, rule):
    batching.batch_rules[prim] = _AdaptedBatchRule(rule)

  def __delitem__(self, prim):
    del batching.batch_rules[prim]

  def __iter__(self):
    return iter(batching.batch_rules)

  def __len__(self):
    return len(batching.batch_rules)


def _axis_data_for(dims, vals) -> batching.AxisData:
  for x, d in zip(vals, dims):
    if d is not batching.not_mapped:
      return batching.AxisData(core.get_aval(x).shape[d], None)
  raise ValueError("a batching rule was called with no batched argument")


primitive_batchers = _PrimitiveBatchers()


class _AdaptedAxisBatchRule:
  """Our-style rule calling a rule of `(axis_size, axis_name, trace_type, args, dims)`."""

  def __init__(self, rule: Callable):
    self.rule = rule

  def __call__(self, axis_data, vals, dims, **params):
    return self.rule(axis_data.size, axis_data.name, batching.BatchTrace, vals, dims, **params)


class _AxisPrimitiveBatchers(_PrimitiveBatchers):
  """Batching rules that also need the axis size and name (`axis_primitive_batchers`)."""

  def __getitem__(self, prim):
    rule = batching.batch_rules[prim]
    if isinstance(rule, _AdaptedAxisBatchRule):
      return rule.rule
    return lambda size, name, trace_type, vals, dims, **params: rule(
        batching.AxisData(size, name), vals, dims, **params)

  def __setitem__(self, prim, rule):
    batching.batch_rules[prim] = _AdaptedAxisBatchRule(rule)


axis_primitive_batchers = _AxisPrimitiveBatchers()


def register_lowering(prim: core.Primitive, rule: Callable, platform: str | None = None,
                      **_) -> Callable:
  """Lower `prim` with `rule(ctx, *operands, **params)` (for every platform here)."""
  del platform  # one lowering serves every backend: HLO text is portable
  hlo.lowering_rules[prim] = rule
  return rule


def lower_fun(fun: Callable, multiple_results: bool = True) -> Callable:
  """A lowering rule that inlines `fun(*operands, **params)`, written with jax ops."""
  return hlo.lower_fun(fun, multiple_results=multiple_results)


def instantiate_zeros(tangent, aval=None):
  """A materialised tangent: symbolic zeros (`Zero`, or None with `aval`) become arrays."""
  if isinstance(tangent, SymbolicZero):
    return ad.zeros_like_aval(tangent.aval)
  if tangent is None:
    if aval is None:
      raise TypeError("instantiate_zeros(None) needs the tangent's aval")
    return ad.zeros_like_aval(aval)
  return tangent


def deflinear(prim: core.Primitive, transpose_rule: Callable) -> None:
  """A primitive linear in all its arguments, with JAX's transpose convention:
  `transpose_rule(cotangent, **params)` returns the cotangents of the inputs (it never
  sees the inputs, which a linear primitive's transpose does not need)."""
  ad.deflinear(prim, lambda ct, *args, **params: transpose_rule(ct, **params))
