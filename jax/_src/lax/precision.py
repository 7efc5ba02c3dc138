"""`lax.Precision`: the precision requested of dot products and convolutions."""

from __future__ import annotations

import enum
from typing import Any, NamedTuple

import numpy as np


class EnumMeta(enum.EnumMeta):
  """Enum classes called as on current Pythons: `Cls(value, *values, ...)`."""

  def __call__(cls, value, *values, **kwargs):
    return super().__call__(value, *values, **kwargs)


class Precision(enum.Enum, metaclass=EnumMeta):
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


PrecisionLike = Any  # None, a Precision or its name, or a pair of them


class DotAlgorithm(NamedTuple):
  """An explicit dot algorithm: the operands' storage types, the accumulator type and how
  many passes of lower-precision products make up one product."""

  lhs_precision_type: Any
  rhs_precision_type: Any
  accumulation_type: Any
  lhs_component_count: int = 1
  rhs_component_count: int = 1
  num_primitive_operations: int = 1
  allow_imprecise_accumulation: bool = False

  def __hash__(self):
    return hash((np.dtype(self.lhs_precision_type), np.dtype(self.rhs_precision_type),
                 np.dtype(self.accumulation_type), self.lhs_component_count,
                 self.rhs_component_count, self.num_primitive_operations,
                 self.allow_imprecise_accumulation))


class DotAlgorithmPreset(enum.Enum, metaclass=EnumMeta):
  """Named dot algorithms: operand types, accumulator type (None: the backend's choice)."""

  DEFAULT = enum.auto()
  ANY_F8_ANY_F8_F32 = enum.auto()
  ANY_F8_ANY_F8_F32_FAST_ACCUM = enum.auto()
  ANY_F8_ANY_F8_ANY = enum.auto()
  ANY_F8_ANY_F8_ANY_FAST_ACCUM = enum.auto()
  F16_F16_F16 = enum.auto()
  F16_F16_F32 = enum.auto()
  BF16_BF16_BF16 = enum.auto()
  BF16_BF16_F32 = enum.auto()
  BF16_BF16_F32_X3 = enum.auto()
  BF16_BF16_F32_X6 = enum.auto()
  BF16_BF16_F32_X9 = enum.auto()
  TF32_TF32_F32 = enum.auto()
  TF32_TF32_F32_X3 = enum.auto()
  F32_F32_F32 = enum.auto()
  F64_F64_F64 = enum.auto()

  def __repr__(self):
    return f"DotAlgorithmPreset.{self.name}"

  def __str__(self):
    return self.name

  @property
  def accumulation_type(self):
    """The accumulator dtype, None when the backend picks it."""
    if self.name.startswith(("DEFAULT", "ANY_F8_ANY_F8_ANY")):
      return None
    return _PRESET_DTYPES[self.name.split("_")[2]]

  @property
  def supported_lhs_types(self):
    """The operand dtypes this algorithm accepts, None for any."""
    head = self.name.split("_")[0]
    if head in ("DEFAULT", "ANY"):
      return None
    return (_PRESET_DTYPES[head],)

  supported_rhs_types = supported_lhs_types


def _preset_dtypes():
  import ml_dtypes  # noqa: F401 (numpy learns the bfloat16 name from it)
  return {"F16": np.dtype(np.float16), "BF16": np.dtype(ml_dtypes.bfloat16),
          "TF32": np.dtype(np.float32), "F32": np.dtype(np.float32),
          "F64": np.dtype(np.float64)}


_PRESET_DTYPES = _preset_dtypes()


def canonicalize_dot_precision(precision):
  """`precision=` of dot_general: a Precision (pair), a DotAlgorithm or a preset."""
  if isinstance(precision, DotAlgorithmPreset):
    return precision
  if isinstance(precision, DotAlgorithm):
    return precision
  if isinstance(precision, str) and precision.upper() in DotAlgorithmPreset.__members__:
    if precision.lower() not in _NAMES:
      return DotAlgorithmPreset[precision.upper()]
  return canonicalize_precision(precision)


class AccuracyMode(enum.Enum, metaclass=EnumMeta):
  """The accuracy requested of a transcendental: DEFAULT, or HIGHEST (correctly rounded)."""

  DEFAULT = 1
  HIGHEST = 2


class Tolerance(NamedTuple):
  """The accuracy requested of a transcendental as an error bound."""

  atol: float = 0.0
  rtol: float = 0.0
  ulps: int = 0


def check_accuracy(name: str, accuracy) -> None:
  """Validates `accuracy=` of a transcendental.

  The CPU backend has one implementation per function, accurate to a few ulps; each
  request is accepted and served by it, as JAX does on backends without alternatives.
  """
  if accuracy is None or isinstance(accuracy, (AccuracyMode, Tolerance)):
    return
  raise TypeError(f"{name}: accuracy must be None, a lax.AccuracyMode or a lax.Tolerance, "
                  f"got {accuracy!r}")
