"""Types that custom derivative rules may meet (`jax.custom_derivatives`).

Tangents here are always materialised arrays, so rules never receive a
`SymbolicZero`; the type exists so that rules written to handle both kinds (by
`isinstance` checks) work unchanged.
"""

from __future__ import annotations

from typing import Any

from jax._src import core
from jax._src import tree_util
from jax._src.interpreters import ad


class SymbolicZero:
  """A zero tangent known only by its type (`aval`)."""

  def __init__(self, aval: core.ShapedArray):
    self.aval = aval

  shape = property(lambda self: self.aval.shape)
  dtype = property(lambda self: self.aval.dtype)

  def __repr__(self):
    return f"SymbolicZero({self.aval.str_short()})"

  def instantiate(self):
    return ad.zeros_like_aval(self.aval)

  @classmethod
  def from_primal_value(cls, val) -> SymbolicZero:
    return cls(core.get_aval(val))


class CustomVJPPrimal:
  """A primal input of a custom_vjp forward rule, with whether it is perturbed."""

  def __init__(self, value: Any, perturbed: bool):
    self.value, self.perturbed = value, perturbed

  def __repr__(self):
    return f"CustomVJPPrimal(value={self.value!r}, perturbed={self.perturbed})"


def zero_from_primal(val, symbolic_zeros: bool = False):
  """Zero tangents shaped like `val` (symbolic ones if `symbolic_zeros`)."""
  def zero(x):
    aval = core.get_aval(x)
    return SymbolicZero(aval) if symbolic_zeros else ad.zeros_like_aval(aval)

  return tree_util.tree_map(zero, val)
