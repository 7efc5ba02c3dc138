"""Dtypes: canonicalization (x64 on/off), weak types and the promotion lattice.

The lattice is the one JAX documents in "Type promotion semantics": the Python
scalar types ``int``, ``float`` and ``complex`` stand for *weak* integers, floats
and complexes, which adopt the dtype of whatever they are combined with.

    bool -> int -> {u8, i8, each 1/2/4-bit int};  u8 -> {u16, i16};  u16 -> {u32, i32}
    u32 -> {u64, i64};  i8 -> i16 -> i32 -> i64;  u64 -> float;  i64 -> float
    float -> {complex, bf16, f16, each 8-bit (and 4-bit) float};  bf16 -> f32;  f16 -> f32
    f32 -> {f64, c64};  f64 -> c128;  complex -> c64 -> c128

The narrow ints and floats have no node above them: they never promote implicitly.

The result type of several values is the least upper bound of their nodes. When
it is a Python scalar type the result is weakly typed, with that kind's default
dtype (float32/int32, or float64/int64 with jax_enable_x64).
"""

from __future__ import annotations

import abc
import functools
from typing import Any

import ml_dtypes
import numpy as np

from jax._src.config import enable_x64, numpy_dtype_promotion_mode

bool_ = np.dtype(np.bool_)
int8, int16, int32, int64 = (np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64))
uint8, uint16, uint32, uint64 = (np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
bfloat16 = np.dtype(ml_dtypes.bfloat16)
float16, float32, float64 = (np.dtype(t) for t in (np.float16, np.float32, np.float64))
complex64, complex128 = np.dtype(np.complex64), np.dtype(np.complex128)
# The narrow floats of ml_dtypes (8 bits and fewer). Each is its own lattice node
# with no way up: like JAX, they never promote implicitly to a wider float.
float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e4m3b11fnuz = (
    np.dtype(getattr(ml_dtypes, n)) for n in (
        "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
        "float8_e4m3b11fnuz"))
float8_e4m3, float8_e3m4, float8_e8m0fnu, float4_e2m1fn = (
    np.dtype(getattr(ml_dtypes, n)) for n in (
        "float8_e4m3", "float8_e3m4", "float8_e8m0fnu", "float4_e2m1fn"))
# Integers narrower than a byte (ml_dtypes stores one per byte): like the narrow floats,
# nodes with no way up; only bool and Python ints join them.
int1, int2, int4, uint1, uint2, uint4 = (
    np.dtype(getattr(ml_dtypes, n)) for n in ("int1", "int2", "int4", "uint1", "uint2", "uint4"))
narrow_int_dtypes = (int1, int2, int4, uint1, uint2, uint4)
narrow_signed_int_dtypes = (int1, int2, int4)
narrow_float_dtypes = (float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz,
                       float8_e4m3b11fnuz, float8_e4m3, float8_e3m4, float8_e8m0fnu,
                       float4_e2m1fn)
# Sets for the membership tests on hot paths (is_float runs for every traced op).
_NARROW_FLOATS = frozenset(narrow_float_dtypes)
_NARROW_INTS = frozenset(narrow_int_dtypes)
_NARROW_SIGNED_INTS = frozenset(narrow_signed_int_dtypes)
# The tangent type of integer and boolean values: a zero-size element, as in JAX.
float0 = np.dtype([("float0", np.void, 0)])

_WEAK_TYPES = (int, float, complex)
python_scalar_types = (bool, int, float, complex)

_LATTICE: dict[Any, tuple] = {
    bool_: (int,),
    int: (uint8, int8, *narrow_int_dtypes),
    uint8: (uint16, int16), uint16: (uint32, int32), uint32: (uint64, int64), uint64: (float,),
    int8: (int16,), int16: (int32,), int32: (int64,), int64: (float,),
    float: (complex, bfloat16, float16, *narrow_float_dtypes),
    **{narrow: () for narrow in narrow_float_dtypes + narrow_int_dtypes},
    bfloat16: (float32,), float16: (float32,), float32: (float64, complex64),
    float64: (complex128,),
    complex: (complex64,), complex64: (complex128,), complex128: (),
}


def _compute_upper_bounds() -> dict[Any, frozenset]:
  upper: dict[Any, frozenset] = {}

  def visit(node):
    if node not in upper:
      result = {node}
      for succ in _LATTICE[node]:
        result |= visit(succ)
      upper[node] = frozenset(result)
    return upper[node]

  for node in _LATTICE:
    visit(node)
  return upper


_UPPER = _compute_upper_bounds()

_X64_TO_X32 = {int64: int32, uint64: uint32, float64: float32, complex128: complex64}


def canonicalize_dtype(dt) -> np.dtype:
  """The dtype jax actually uses for `dt`: 64-bit types become 32-bit when x64 is off."""
  if isinstance(dt, ExtendedDType):
    return dt
  dt = np.dtype(dt)
  if not enable_x64():
    return _X64_TO_X32.get(dt, dt)
  return dt


def default_int_dtype() -> np.dtype:
  return int64 if enable_x64() else int32


def default_uint_dtype() -> np.dtype:
  return uint64 if enable_x64() else uint32


def default_float_dtype() -> np.dtype:
  return float64 if enable_x64() else float32


def default_complex_dtype() -> np.dtype:
  return complex128 if enable_x64() else complex64


def _default_for_kind(kind) -> np.dtype:
  if kind is int:
    return default_int_dtype()
  if kind is float:
    return default_float_dtype()
  if kind is complex:
    return default_complex_dtype()
  raise TypeError(kind)


# Python scalar type -> its dtype with x64 off and with it on.
python_scalar_dtypes = {bool: (bool_, bool_), int: (int32, int64), float: (float32, float64),
                        complex: (complex64, complex128)}


def scalar_type_dtype(t: type) -> np.dtype:
  """Canonical dtype of a Python scalar type (bool, int, float, complex)."""
  return python_scalar_dtypes[t][enable_x64()]


def is_python_scalar(x) -> bool:
  return type(x) in python_scalar_types


def _as_dtype_spec(x):
  """A dtype for type-like `x` (numpy scalar types, jnp scalar types, strings), else None."""
  if isinstance(x, np.dtype):
    return x
  if isinstance(x, str):
    return np.dtype(x)
  if isinstance(x, type):
    if issubclass(x, np.generic):
      return np.dtype(x)
    if isinstance(getattr(x, "dtype", None), np.dtype):  # jnp.float32 and friends
      return x.dtype
  return None


def dtype(x) -> np.dtype:
  """The canonical dtype of a value, dtype or type."""
  if type(x) in python_scalar_types:
    return scalar_type_dtype(type(x))
  if x in python_scalar_types if isinstance(x, type) else False:
    return scalar_type_dtype(x)
  spec = _as_dtype_spec(x)
  if spec is not None:
    return canonicalize_dtype(spec)
  if hasattr(x, "dtype"):
    return canonicalize_dtype(x.dtype)
  return canonicalize_dtype(np.result_type(x))


def is_weakly_typed(x) -> bool:
  if type(x) in _WEAK_TYPES:
    return True
  aval = getattr(x, "aval", None)
  return bool(getattr(aval, "weak_type", False))


def _lattice_node(dt: np.dtype, weak: bool):
  if weak and dt != bool_:
    if dt.kind in "iu":
      return int
    if dt.kind == "f":
      return float
    if dt.kind == "c":
      return complex
  return dt


@functools.lru_cache(maxsize=1024)
def _join(nodes: tuple) -> Any:
  common = frozenset.intersection(*(_UPPER[n] for n in nodes))
  for candidate in common:
    if _UPPER[candidate] == common:
      return candidate
  # Only the narrow floats and ints, with no node above them, can miss a common type.
  names = tuple(n.__name__ if isinstance(n, type) else str(n) for n in nodes)
  if any(n in _NARROW_FLOATS for n in nodes if isinstance(n, np.dtype)):
    what, example = "8-bit floats", "float32"
  else:
    what, example = "1-bit, 2-bit and 4-bit integers", "int32"
  raise TypePromotionError(
      f"Input dtypes {names} have no available implicit dtype promotion path. To avoid "
      f"unintended promotion, {what} do not support implicit promotion. If you'd like "
      "your inputs to be promoted to another type, you can do so explicitly using e.g. "
      f"x.astype('{example}')")


class TypePromotionError(ValueError):
  """Operands of different dtypes met under jax_numpy_dtype_promotion='strict'.

  Cast one operand explicitly (`x.astype(y.dtype)`), or allow implicit promotion
  with `jax.numpy_dtype_promotion('standard')`.
  """


def _weak_fits_strict(weak: type, strong: np.dtype | None) -> bool:
  """Whether a Python-scalar (weak) operand may join `strong` under strict promotion:
  weak ints join any number, weak floats floats and complexes, weak complexes complexes."""
  if strong is None:
    return True
  if strong == bool_:
    return False
  if weak is int:
    return True
  if weak is float:
    return is_inexact(strong)
  return is_complex(strong)


def _check_strict(nodes: tuple) -> None:
  strong = {canonicalize_dtype(n) for n in nodes if not isinstance(n, type)}
  weak = {n for n in nodes if isinstance(n, type)}  # Python scalars always join each other
  one = next(iter(strong)) if len(strong) == 1 else None
  if len(strong) > 1 or not all(_weak_fits_strict(w, one) for w in weak):
    names = tuple(n.__name__ if isinstance(n, type) else n.name for n in nodes)
    raise TypePromotionError(
        f"Input dtypes {names} have no available implicit dtype promotion path when "
        "jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to the desired "
        "output type, or set jax_numpy_dtype_promotion=standard.")


def promote_types(a, b) -> np.dtype:
  """Strong promotion of two dtypes on the jax lattice (like jnp.promote_types).
  Python's int, float and complex stand for their weak lattice nodes, as in JAX."""
  nodes = tuple(t if any(t is w for w in _WEAK_TYPES) else np.dtype(t) for t in (a, b))
  if numpy_dtype_promotion_mode() == "strict" and nodes[0] != nodes[1]:
    _check_strict(nodes)
  joined = _join(nodes)
  # Two Python scalar types join to one, whose numpy dtype JAX returns as it is.
  return np.dtype(joined) if isinstance(joined, type) else canonicalize_dtype(joined)


def _dtype_and_weak(x) -> tuple[np.dtype, bool]:
  if isinstance(x, type) and x in python_scalar_types:
    return scalar_type_dtype(x), x is not bool
  if type(x) in python_scalar_types:
    return scalar_type_dtype(type(x)), type(x) is not bool
  spec = _as_dtype_spec(x)
  if spec is not None:
    return spec, False
  return dtype(x), is_weakly_typed(x)


def _extended_dtype_of(x):
  dt = x if isinstance(x, ExtendedDType) else getattr(x, "dtype", None)
  return dt if isinstance(dt, ExtendedDType) else None


def result_type(*args, return_weak_type_flag: bool = False):
  """The promoted dtype of values/dtypes (and with the flag, whether it is weak)."""
  if not args:
    raise ValueError("at least one array or dtype is required")
  extended = [_extended_dtype_of(a) for a in args]
  if any(e is not None for e in extended):
    # An extended dtype (typed keys) combines with itself only.
    if any(e != extended[0] for e in extended):
      names = ", ".join(str(e) if e is not None else str(_dtype_and_weak(a)[0])
                        for a, e in zip(args, extended))
      raise TypeError(f"no common dtype of {names}: an extended dtype combines only with itself")
    return (extended[0], False) if return_weak_type_flag else extended[0]
  nodes = tuple(_lattice_node(*_dtype_and_weak(a)) for a in args)
  if len(set(nodes)) > 1 and numpy_dtype_promotion_mode() == "strict":
    _check_strict(nodes)
  node = _join(nodes) if len(set(nodes)) > 1 else nodes[0]
  if isinstance(node, type):
    out, weak = _default_for_kind(node), True
  else:
    out, weak = canonicalize_dtype(node), False
  return (out, weak) if return_weak_type_flag else out


def issubdtype(arg1, arg2) -> bool:
  a, b = arg1, arg2
  if isinstance(a, ExtendedDType):
    # An extended dtype is a subtype of `extended` and of its own scalar type only.
    return isinstance(b, type) and issubclass(a.type, b) and issubclass(b, extended)
  spec = _as_dtype_spec(a)
  a = a if spec is None else spec
  # jnp's scalar types name their dtype; abstract numpy types and Python's bool, int,
  # float and complex stay as they are (numpy reads the latter as bool, int64, ...).
  if isinstance(b, (str, np.dtype)) or (isinstance(b, type) and not issubclass(b, np.generic)):
    spec = _as_dtype_spec(b)
    b = b if spec is None else spec
  if isinstance(a, np.dtype) and (a == bfloat16 or a in _NARROW_FLOATS):
    # ml_dtypes' floats are not numpy floating subclasses, but JAX files them there.
    return b in (np.floating, np.inexact, np.number, np.generic) or (
        isinstance(b, np.dtype) and b == a) or (isinstance(b, type) and b is a.type)
  if isinstance(a, np.dtype) and a in _NARROW_INTS:
    kind = np.signedinteger if a in _NARROW_SIGNED_INTS else np.unsignedinteger
    return b in (kind, np.integer, np.number, np.generic) or (
        isinstance(b, np.dtype) and b == a) or (isinstance(b, type) and b is a.type)
  return np.issubdtype(a, b)


def is_float(dt) -> bool:
  if isinstance(dt, ExtendedDType):
    return False
  dt = np.dtype(dt)
  return dt.kind == "f" or dt == bfloat16 or dt in _NARROW_FLOATS


def kind(dt) -> str:
  """numpy's kind letter of `dt`, with ml_dtypes' types filed as JAX files them: bfloat16
  and the narrow floats are 'f', the narrow ints 'i' or 'u' (numpy says 'V')."""
  if isinstance(dt, ExtendedDType):
    return "V"
  dt = np.dtype(dt)
  if dt.kind != "V":
    return dt.kind
  if dt == bfloat16 or dt in _NARROW_FLOATS:
    return "f"
  if dt in _NARROW_INTS:
    return "i" if dt in _NARROW_SIGNED_INTS else "u"
  return dt.kind


def is_complex(dt) -> bool:
  return not isinstance(dt, ExtendedDType) and np.dtype(dt).kind == "c"


def is_inexact(dt) -> bool:
  return is_float(dt) or is_complex(dt)


def is_integer(dt) -> bool:
  if isinstance(dt, ExtendedDType):
    return False
  dt = np.dtype(dt)
  return dt.kind in "iu" or dt in _NARROW_INTS


def _info_dtype(dt) -> np.dtype:
  spec = _as_dtype_spec(dt)
  if spec is not None:
    return spec
  if isinstance(dt, type) and dt in python_scalar_types:
    return scalar_type_dtype(dt)
  return np.dtype(getattr(dt, "dtype", dt))


def finfo(dt):
  return ml_dtypes.finfo(_info_dtype(dt))


def iinfo(dt):
  return ml_dtypes.iinfo(_info_dtype(dt))


def to_inexact_dtype(dt) -> np.dtype:
  """The float dtype integer/bool inputs become for float-only functions (sin, mean...)."""
  dt = np.dtype(dt)
  return dt if is_inexact(dt) else default_float_dtype()


class TypePromotionError(ValueError):
  """Two dtypes have no common type under the active promotion rules."""


# ----------------------------------------------------------------------------- extended dtypes

DType = np.dtype


class extended(np.generic):
  """Abstract scalar type of extended (non-numpy) dtypes; only used with `issubdtype`."""


class ExtendedDType(abc.ABC):
  """Base of dtype objects that are not numpy dtypes (e.g. typed PRNG keys). A
  subclass names its scalar type (`type`, a subclass of `extended`) and the rules
  object that says how its values are represented (`_rules`)."""

  @property
  @abc.abstractmethod
  def type(self) -> type:
    ...

  @property
  @abc.abstractmethod
  def _rules(self) -> type:
    ...

  @property
  def name(self) -> str:
    return str(self)


def lowest_value(dt):
  """-inf, or the most negative finite value of floats that have no inf (most float8
  types): the identity of max."""
  dt = _info_dtype(dt)
  if is_complex(dt) or supports_inf(dt):
    return -np.inf
  return np.array(ml_dtypes.finfo(dt).min, dt)


def highest_value(dt):
  """+inf, or the largest finite value of floats that have no inf: the identity of min."""
  dt = _info_dtype(dt)
  if is_complex(dt) or supports_inf(dt):
    return np.inf
  return np.array(ml_dtypes.finfo(dt).max, dt)


def is_differentiable(dt) -> bool:
  """Whether values of `dt` have tangents: inexact dtypes, and extended dtypes whose
  rules give them a tangent dtype other than float0 (flax's fp8 meta types)."""
  if isinstance(dt, ExtendedDType):
    tangent = getattr(dt._rules, "tangent_dtype", None)
    return tangent is not None and tangent(dt) != float0
  return is_inexact(dt)


def extended_zero(dt):
  """The zero (additive identity) of the extended dtype `dt`, as its rules say."""
  return dt._rules.zero(dt)


def extended_add(dt, a, b):
  """a + b for values of the extended dtype `dt`, as its rules accumulate them."""
  return dt._rules.add(dt, a, b)


def physical_element_aval(dt):
  """The aval that holds one element of the extended dtype `dt` (typed keys: uint32[2])."""
  return dt._rules.physical_element_aval(dt)


def extended_zeros(aval):
  """Zeros of `aval`'s extended dtype with a physical form (keys with all-zero data)."""
  return aval.dtype._rules.zeros(aval)


def extended_from_physical(dt, data):
  """The value of extended dtype `dt` that `data` (its physical form) holds."""
  return dt._rules.make_value(dt, data)


def physical_dtype(dt):
  """The dtype that holds values of `dt` in memory and in HLO: its own, or for an
  extended dtype the element type its rules name."""
  if isinstance(dt, ExtendedDType):
    return np.dtype(dt._rules.physical_element_aval(dt).dtype)
  return np.dtype(dt)


def supports_inf(dt) -> bool:
  """Whether the floating dtype `dt` can represent infinity (some float8 types cannot)."""
  if not is_inexact(_info_dtype(dt)):
    return False
  if is_complex(_info_dtype(dt)):
    return True
  return bool(np.isinf(np.array(np.inf).astype(_info_dtype(dt))))
