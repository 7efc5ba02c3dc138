"""`lax.Precision`: the precision requested of dot products and convolutions."""

from __future__ import annotations

import enum


class Precision(enum.Enum):
  """Precision of the products in `dot_general` and `conv_general_dilated`.

  `DEFAULT` is the fastest (bfloat16 passes on TPU), `HIGH` uses three bfloat16 passes,
  `HIGHEST` full float32. The names 'default'/'fastest'/'bfloat16', 'high'/
  'tensorfloat32'/'bfloat16_3x' and 'highest'/'float32' construct the same members.
  The CPU backend computes every float32 product in float32, which each level allows.
  """

  DEFAULT = 0
  HIGH = 1
  HIGHEST = 2

  @classmethod
  def _missing_(cls, value):
    if isinstance(value, str):
      member = _NAMES.get(value.lower())
      if member is not None:
        return cls[member]
    return None

  def __repr__(self):
    return f"Precision.{self.name}"

  def __str__(self):
    return self.name


_NAMES = {
    "default": "DEFAULT", "fastest": "DEFAULT", "bfloat16": "DEFAULT",
    "high": "HIGH", "tensorfloat32": "HIGH", "bfloat16_3x": "HIGH",
    "highest": "HIGHEST", "float32": "HIGHEST",
}


def canonicalize_precision(precision):
  """None, one Precision (or its name) for both operands, or a pair -> a hashable value."""
  if precision is None:
    return None
  if isinstance(precision, (Precision, str)):
    p = Precision(precision)
    return (p, p)
  if isinstance(precision, (tuple, list)) and len(precision) == 2:
    return tuple(None if p is None else Precision(p) for p in precision)
  raise ValueError(f"Precision argument must be None, a string in {sorted(_NAMES)}, a "
                   f"lax.Precision value or a tuple of two lax.Precision values or strings; "
                   f"got {precision}.")
