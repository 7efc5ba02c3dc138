"""Elementwise primitives: one block per primitive (define, jvp/transpose, batching, lowering).

Operands of n-ary ops must have equal dtypes. Their shapes broadcast as JAX's do:
rank-0 operands may stand beside arrays (a jaxpr reads `mul 2.0:f32[] a`), and operands
of one rank may have size-1 dimensions where others have any size (`div a:f32[50]
b:f32[1]`); jax.numpy adds leading size-1 dimensions before calling these. Python
scalars are accepted and take the dtype of the other operand, weakly typed.
"""

from __future__ import annotations

import enum
import math

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.core import ShapedArray
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lax import shape as lax_shape
from jax._src.lax.precision import EnumMeta, check_accuracy
from jax._src.lax.utils import (late_op, register_late_ops, same_dtypes, same_shapes,
                                standard_primitive)
from jax._src.lowering import hlo
from jax._src import array

# The operand kinds an op accepts, for the ops other lax modules define (special, special_gamma).
KIND_FLOAT = "float"
KIND_NUMBER = "number"
KIND_INTEGER = "integer"  # ints and bools (bitwise ops)
KIND_INTEGER_ONLY = "integer only"  # ints, not bools (bit counts)
KIND_REAL_FLOAT = "real floating"
KIND_SIGNED = "signed"  # every number type but unsigned ints (abs)
KIND_ANY = "any"


def _check_kind(name, aval, kind):
  dt = aval.dtype
  ok = {KIND_FLOAT: dtypes.is_inexact(dt), KIND_NUMBER: dt != dtypes.bool_,
        KIND_INTEGER: dtypes.kind(dt) in "iub", KIND_INTEGER_ONLY: dtypes.kind(dt) in "iu",
        KIND_REAL_FLOAT: dtypes.is_float(dt),
        KIND_SIGNED: dt != dtypes.bool_ and dtypes.kind(dt) != "u",
        KIND_ANY: True}[kind]
  if not ok:
    raise TypeError(f"{name} does not accept dtype {dt.name} (got {aval.str_short(short_dtypes=True)})")


def _unary_abstract_eval(name, kind):
  def rule(x, **_):
    _check_kind(name, x, kind)
    return x
  return rule


def _nary_shape(name, avals) -> tuple:
  """The result shape, by JAX's rule: operands that are not rank-0 have one rank, and in
  each dimension their sizes agree or are 1 (size-1 dimensions and rank-0 operands
  broadcast)."""
  shapes = [a.shape for a in avals if a.shape != ()]
  if not shapes:
    return ()
  ranks = {len(s) for s in shapes}
  if len(ranks) > 1:
    raise TypeError(f"{name}: arrays must have the same number of dimensions, got {ranks}")
  out = []
  for sizes in zip(*shapes):
    sizes = set(sizes) - {1}
    if len(sizes) > 1:
      raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                      f"{', '.join(str(a.shape) for a in avals)}.")
    out.append(sizes.pop() if sizes else 1)
  return tuple(out)


def _nary_abstract_eval(name, kind, out_dtype=None, broadcasting=True):
  def rule(*xs, **_):
    if not broadcasting:
      same_shapes(name, *xs)
    shape = _nary_shape(name, xs)
    same_dtypes(name, *xs)
    _check_kind(name, xs[0], kind)
    if out_dtype is not None:  # comparisons: weak when every operand is
      return ShapedArray(shape, out_dtype, all(x.weak_type for x in xs))
    return ShapedArray(shape, xs[0].dtype, all(x.weak_type for x in xs))
  return rule


def unary(name: str, opcode: str | None, kind: str = KIND_NUMBER) -> core.Primitive:
  prim = standard_primitive(name, _unary_abstract_eval(name, kind))
  batching.defvectorized(prim)
  if opcode is not None:
    hlo.def_elementwise_lowering(prim, opcode)
  return prim


# The n-ary primitives that broadcast: their rules are wrapped at the end of this module.
_NARY: list[core.Primitive] | None = []


def nary(name: str, opcode: str | None, kind: str = KIND_NUMBER, out_dtype=None,
         broadcasting: bool = True) -> core.Primitive:
  """An elementwise primitive of several operands. Without `broadcasting` (primitives
  defined after this module, whose rules are not wrapped) operands have one shape."""
  prim = standard_primitive(name, _nary_abstract_eval(name, kind, out_dtype, broadcasting))
  batching.defbroadcasting(prim, size_one=broadcasting)
  if opcode is not None:
    hlo.def_elementwise_lowering(prim, opcode)
  if broadcasting:
    if _NARY is None:  # its rules would not be wrapped (see the end of this module)
      raise RuntimeError(f"{name}: n-ary primitives defined outside this module take "
                         "broadcasting=False")
    _NARY.append(prim)
  _bind_types_python_scalars(prim)
  return prim


def _bind_types_python_scalars(prim: core.Primitive) -> None:
  """As in JAX, a binary primitive bound directly (`lax.pow_p.bind(x, 2)`, as code that
  inverts jaxprs does) takes a Python scalar beside an array: the scalar gets the array's
  dtype, weakly, before binding (rank-0 arrays need nothing: the rules take them)."""
  plain_bind = prim.bind

  def bind(*args, **params):
    if len(args) == 2 and dtypes.is_python_scalar(args[0]) != dtypes.is_python_scalar(args[1]):
      args = match_scalar(*args)
    return plain_bind(*args, **params)

  prim.bind = bind


def match_scalar(x, y):
  """Give a Python-scalar operand the dtype (weakly) of the other operand."""
  if dtypes.is_python_scalar(x) and not dtypes.is_python_scalar(y):
    x = convert_element_type(x, core.get_aval(y).dtype, True)
  elif dtypes.is_python_scalar(y) and not dtypes.is_python_scalar(x):
    y = convert_element_type(y, core.get_aval(x).dtype, True)
  return x, y


def _nary_match(x, y):
  """Operands for an n-ary primitive: dtypes matched; rank-0 ones stay rank-0."""
  return match_scalar(x, y)


def match_and_broadcast(x, y):
  """Give a Python-scalar operand the dtype (weakly) of the other operand, and broadcast
  a rank-0 operand to the other's shape (for primitives that need equal shapes)."""
  x, y = match_scalar(x, y)
  xa, ya = core.get_aval(x), core.get_aval(y)
  if xa.shape != ya.shape and (xa.shape == () or ya.shape == ()):
    shape = xa.shape or ya.shape
    x = lax_shape.broadcast_in_dim(x, shape, ()) if xa.shape == () else x
    y = lax_shape.broadcast_in_dim(y, shape, ()) if ya.shape == () else y
  return x, y


def const_like(like, value):
  """`value` as an array shaped and typed like `like`."""
  return lax_shape.full_like(like, value)


# ----------------------------------------------------------------------------- convert_element_type


def _convert_abstract_eval(x, *, new_dtype, weak_type):
  return ShapedArray(x.shape, new_dtype, weak_type)


convert_element_type_p = standard_primitive("convert_element_type", _convert_abstract_eval)


def convert_element_type(operand, new_dtype, weak_type: bool = False):
  x = operand
  new_dtype = dtypes.canonicalize_dtype(new_dtype)
  if isinstance(x, (core.Tracer, array.ArrayImpl)):
    aval = x.aval
    if aval.dtype == new_dtype and aval.weak_type == weak_type:
      return x  # already that type (a host-backed array stays the same object)
  if (isinstance(x, core.Tracer) or (isinstance(x, array.ArrayImpl) and not x.is_host_backed)
      or isinstance(new_dtype, dtypes.ExtendedDType)):
    # (Values of extended dtypes have no host form: they live in traced programs.)
    return convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=bool(weak_type))
  # A concrete host value: convert now, without compiling anything, exactly as the
  # compiled `convert` would (so constants and eager results equal jitted ones).
  value = np.asarray(x)
  if isinstance(x, np.ndarray):  # as an argument to jit would be, e.g. float64 -> float32
    with np.errstate(over="ignore"):
      value = value.astype(dtypes.canonicalize_dtype(value.dtype), copy=False)
  if value.dtype == new_dtype:  # nothing to convert: values (denormals too) kept as they are
    return array.host_array(value, weak_type)
  result = host_convert(value, new_dtype)
  if _has_denormals(value) or (dtypes.is_inexact(value.dtype) and _has_denormals(result)):
    # The CPU backend reads denormals as zero and flushes denormal results, as
    # XLA:CPU does, in ways numpy cannot mirror per type pair: the device decides.
    source = array.host_array(value, bool(getattr(x, "weak_type", False)))
    return convert_element_type_p.bind(source, new_dtype=new_dtype, weak_type=bool(weak_type))
  return array.host_array(result, weak_type)


def _has_denormals(value: np.ndarray) -> bool:
  if not dtypes.is_inexact(value.dtype) or value.size == 0:
    return False
  parts = (value.real, value.imag) if dtypes.is_complex(value.dtype) else (value,)
  tiny = dtypes.finfo(parts[0].dtype).tiny
  with np.errstate(invalid="ignore"):
    return any(bool(np.any((p != 0) & (np.abs(p) < tiny))) for p in parts)


def host_convert(value: np.ndarray, new_dtype) -> np.ndarray:
  """`value` converted to `new_dtype` with XLA's `convert` semantics, on the host.

  numpy's casts differ where C leaves the result undefined: XLA maps NaN to 0 and
  saturates out-of-range floats to the integer type's bounds (negative values to 0
  for unsigned types), where numpy gives platform garbage. A complex operand
  loses its imaginary part first, also when converting to bool.
  """
  new_dtype = np.dtype(new_dtype)
  if dtypes.is_complex(value.dtype) and not dtypes.is_complex(new_dtype):
    value = value.real
  if dtypes.is_float(value.dtype) and dtypes.kind(new_dtype) in "iu":
    return _float_to_int(value, new_dtype)
  if new_dtype in dtypes.narrow_int_dtypes and dtypes.kind(value.dtype) in "iub":
    return _wrap_to_narrow_int(value, new_dtype)
  with np.errstate(over="ignore", invalid="ignore"):
    return value.astype(new_dtype)


def _wrap_to_narrow_int(value: np.ndarray, new_dtype: np.dtype) -> np.ndarray:
  """Integers to int4 and friends keep their low bits, as XLA's convert does (ml_dtypes
  refuses some of these casts)."""
  bits = dtypes.iinfo(new_dtype).bits
  low = value.astype(np.int64) & ((1 << bits) - 1)
  if dtypes.kind(new_dtype) == "i":
    low = np.where(low >= 1 << (bits - 1), low - (1 << bits), low)
  return low.astype(new_dtype)


def _float_to_int(value: np.ndarray, new_dtype: np.dtype) -> np.ndarray:
  wide = np.trunc(value.astype(np.float64))  # exact for every float type
  info = dtypes.iinfo(new_dtype)  # ml_dtypes knows int4 too
  # float(info.max) rounds up to a power of two for 64-bit types, so `>=` also
  # catches the values just past the largest integer that float64 can hold.
  low, high, nan = wide <= float(info.min), wide >= float(info.max), np.isnan(wide)
  inside = np.where(low | high | nan, 0.0, wide)
  out = inside.astype(np.int64 if dtypes.kind(new_dtype) == "i" else np.uint64).astype(new_dtype)
  out[low] = info.min
  out[high] = info.max
  return out


def _convert_jvp(primals, tangents, *, new_dtype, weak_type):
  (x,), (t,) = primals, tangents
  out = convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type)
  if dtypes.is_differentiable(new_dtype) and dtypes.is_differentiable(core.get_aval(x).dtype):
    return out, convert_element_type_p.bind(t, new_dtype=new_dtype, weak_type=weak_type)
  return out, ad.zeros_like(out)


def _convert_lowering(ctx, x, *, new_dtype, weak_type):
  if x.aval.dtype == new_dtype:
    return x
  if isinstance(new_dtype, dtypes.ExtendedDType) or isinstance(x.aval.dtype, dtypes.ExtendedDType):
    # To or from an extended dtype: a convert between their physical element types.
    if dtypes.physical_dtype(x.aval.dtype) == dtypes.physical_dtype(new_dtype):
      return x
    return ctx.op("convert", ctx.avals_out[0], x)
  if dtypes.is_complex(x.aval.dtype) and not dtypes.is_complex(new_dtype):
    # The real part alone is converted (to bool too), as in JAX.
    x = ctx.op("real", x.aval.update(dtype=_real_dtype(x.aval.dtype)), x)
    if x.aval.dtype == new_dtype:
      return x
  if new_dtype == dtypes.bool_:
    zero = ctx.full(0, x.aval.update(weak_type=False))
    return ctx.op("compare", ctx.avals_out[0], x, zero, attrs="direction=NE")
  return ctx.op("convert", ctx.avals_out[0], x)


ad.jvp_rules[convert_element_type_p] = _convert_jvp
ad.transpose_rules[convert_element_type_p] = lambda ct, x, **_: [
    convert_element_type(ct, x.aval.dtype, x.aval.weak_type)]
batching.defvectorized(convert_element_type_p)
hlo.lowering_rules[convert_element_type_p] = _convert_lowering


# ----------------------------------------------------------------------------- arithmetic

add_p = nary("add", "add")
def add(x, y): return add_p.bind(*_nary_match(x, y))
ad.transpose_rules[add_p] = lambda ct, x, y: [ct, ct]

sub_p = nary("sub", "subtract")
def sub(x, y): return sub_p.bind(*_nary_match(x, y))
ad.transpose_rules[sub_p] = lambda ct, x, y: [ct, neg(ct)]


def _add_sub_jvp(prim, sign_of_second):
  """add/sub are linear, but their jvp takes symbolic zeros (where deflinear's binds
  every tangent): a constant operand (`x + 3.0`) adds no tangent equations, so a
  Jacobian that is constant shows as one in the jaxpr."""

  def rule(primals, tangents):
    out = prim.bind(*primals)
    tx, ty = tangents
    x_zero, y_zero = type(tx) is ad.Zero, type(ty) is ad.Zero
    if not (x_zero or y_zero):
      return out, prim.bind(tx, ty)
    if x_zero and y_zero:
      return out, ad.Zero(core.get_aval(out))
    t = tx if y_zero else (ty if sign_of_second > 0 else neg(ty))
    shape = core.get_aval(out).shape
    if core.get_aval(t).shape != shape:  # a rank-0 operand beside an array
      t = lax_shape.broadcast_in_dim(t, shape, ())
    return out, t

  ad.jvp_rules[prim] = rule
  ad.symbolic_zero_rules.add(prim)


_add_sub_jvp(add_p, 1)
_add_sub_jvp(sub_p, -1)

mul_p = nary("mul", "multiply")
def mul(x, y, *, out_dtype=None):
  """x * y; with out_dtype, both are widened to it first so the product is exact there."""
  if out_dtype is not None:
    x, y = convert_element_type(x, out_dtype), convert_element_type(y, out_dtype)
  return mul_p.bind(*_nary_match(x, y))
ad.defjvp(mul_p, lambda t, x, y: mul(t, y), lambda t, x, y: mul(x, t))
ad.transpose_rules[mul_p] = lambda ct, x, y: (
    [mul(ct, y), None] if ad.is_undefined_primal(x) else [None, mul(x, ct)])

div_p = nary("div", "divide")
def div(x, y): return div_p.bind(*_nary_match(x, y))
# d(x/y)/dy as JAX writes it, -t x y^-2 (its rounding differs from -t (x / y^2)).
ad.defjvp(div_p, lambda t, x, y: div(t, y),
          lambda t, x, y: mul(mul(neg(t), x), integer_pow(y, -2)))
ad.transpose_rules[div_p] = lambda ct, x, y: [div(ct, y), None]

rem_p = nary("rem", "remainder")
def rem(x, y): return rem_p.bind(*_nary_match(x, y))
ad.defjvp(rem_p, lambda t, x, y: t,
          lambda t, x, y: mul(neg(t), mul(sign(div(x, y)), floor(abs(div(x, y))))))

pow_p = nary("pow", "power", KIND_FLOAT)
def pow(x, y): return pow_p.bind(*_nary_match(x, y))  # noqa: A001 (lax name)
ad.defjvp2(pow_p, lambda t, ans, x, y: mul(t, mul(y, pow(x, sub(y, const_like(y, 1))))),
           lambda t, ans, x, y: mul(t, mul(log(x), ans)))

max_p = nary("max", "maximum", KIND_ANY)
def max(x, y): return max_p.bind(*_nary_match(x, y))  # noqa: A001 (lax name)

min_p = nary("min", "minimum", KIND_ANY)
def min(x, y): return min_p.bind(*_nary_match(x, y))  # noqa: A001 (lax name)


def _minmax_jvp(prim, pick):
  # Ties split the tangent evenly, as JAX does.
  def rule(primals, tangents):
    x, y = primals
    tx, ty = tangents
    out = prim.bind(x, y)  # the weights take its shape: x and y may broadcast
    half = const_like(out, 0.5)
    wx = select(pick(x, y), const_like(out, 1), select(eq(x, y), half, const_like(out, 0)))
    wy = sub(const_like(out, 1), wx)
    return out, add(mul(tx, wx), mul(ty, wy))
  return rule


ad.jvp_rules[max_p] = _minmax_jvp(max_p, lambda x, y: gt(x, y))
ad.jvp_rules[min_p] = _minmax_jvp(min_p, lambda x, y: lt(x, y))

atan2_p = nary("atan2", "atan2", KIND_FLOAT)
def atan2(x, y): return atan2_p.bind(*_nary_match(x, y))
ad.defjvp(atan2_p, lambda t, x, y: mul(t, div(y, add(mul(x, x), mul(y, y)))),
          lambda t, x, y: mul(t, div(neg(x), add(mul(x, x), mul(y, y)))))

neg_p = unary("neg", "negate")
def neg(x): return neg_p.bind(x)
ad.deflinear(neg_p, lambda ct, x: [neg(ct)])

sign_p = unary("sign", "sign")
def sign(x): return sign_p.bind(x)
ad.defjvp_zero(sign_p)

def _real_dtype(dt) -> np.dtype:
  """The component dtype of a complex dtype (other dtypes map to themselves)."""
  dt = np.dtype(dt)
  return {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}.get(dt, dt)


def _complex_dtype(dt) -> np.dtype:
  dt = np.dtype(dt)
  return dtypes.complex128 if dt == dtypes.float64 else dtypes.complex64


def _abs_abstract_eval(x):
  _check_kind("abs", x, KIND_SIGNED)
  return x.update(dtype=_real_dtype(x.dtype))


abs_p = standard_primitive("abs", _abs_abstract_eval)
def abs(x): return abs_p.bind(x)  # noqa: A001 (lax name)
batching.defvectorized(abs_p)
hlo.def_elementwise_lowering(abs_p, "abs")


def _abs_jvp(primals, tangents):
  (x,), (t,) = primals, tangents
  ans = abs(x)
  if not dtypes.is_complex(core.get_aval(x).dtype):  # slope +1 at 0, as JAX picks
    return ans, select(ge(x, const_like(x, 0)), t, neg(t))
  # d|z| = Re(conj(z) dz) / |z|, taken as 0 at z = 0
  safe = select(eq(ans, const_like(ans, 0)), const_like(ans, 1), ans)
  return ans, div(real(mul(conj(x), t)), safe)


ad.jvp_rules[abs_p] = _abs_jvp

floor_p = unary("floor", "floor", KIND_FLOAT)
def floor(x): return floor_p.bind(x)
ad.defjvp_zero(floor_p)

ceil_p = unary("ceil", "ceil", KIND_FLOAT)
def ceil(x): return ceil_p.bind(x)
ad.defjvp_zero(ceil_p)

class RoundingMethod(enum.IntEnum, metaclass=EnumMeta):
  AWAY_FROM_ZERO = 0
  TO_NEAREST_EVEN = 1


round_p = unary("round", None, KIND_FLOAT)
def round(x, rounding_method=0): return round_p.bind(x, rounding_method=int(rounding_method))  # noqa: A001
ad.defjvp_zero(round_p)
hlo.lowering_rules[round_p] = lambda ctx, x, *, rounding_method: ctx.op(
    "round-nearest-even" if rounding_method == 1 else "round-nearest-afz", ctx.avals_out[0], x)

def _is_finite_abstract_eval(x):
  _check_kind("is_finite", x, KIND_REAL_FLOAT)
  return x.update(dtype=dtypes.bool_, weak_type=False)


is_finite_p = standard_primitive("is_finite", _is_finite_abstract_eval)
def is_finite(x): return is_finite_p.bind(x)
ad.defjvp_zero(is_finite_p)
batching.defvectorized(is_finite_p)
hlo.def_elementwise_lowering(is_finite_p, "is-finite")

# ----------------------------------------------------------------------------- transcendental

exp_p = unary("exp", "exponential", KIND_FLOAT)
def exp(x, accuracy=None): check_accuracy("exp", accuracy); return exp_p.bind(x)
ad.defjvp2(exp_p, lambda t, ans, x: mul(t, ans))

exp2_p = unary("exp2", None, KIND_FLOAT)
def exp2(x, accuracy=None): check_accuracy("exp2", accuracy); return exp2_p.bind(x)
ad.defjvp2(exp2_p, lambda t, ans, x: mul(t, mul(ans, const_like(x, math.log(2)))))
hlo.lowering_rules[exp2_p] = lambda ctx, x: ctx.op(
    "exponential", x.aval, ctx.op("multiply", x.aval, x, ctx.full(math.log(2), x.aval)))

log_p = unary("log", "log", KIND_FLOAT)
def log(x, accuracy=None): check_accuracy("log", accuracy); return log_p.bind(x)
ad.defjvp(log_p, lambda t, x: div(t, x))

log1p_p = unary("log1p", "log-plus-one", KIND_FLOAT)
def log1p(x, accuracy=None): check_accuracy("log1p", accuracy); return log1p_p.bind(x)
ad.defjvp(log1p_p, lambda t, x: div(t, add(x, const_like(x, 1))))

expm1_p = unary("expm1", "exponential-minus-one", KIND_FLOAT)
def expm1(x, accuracy=None): check_accuracy("expm1", accuracy); return expm1_p.bind(x)
ad.defjvp2(expm1_p, lambda t, ans, x: mul(t, add(ans, const_like(ans, 1))))

tanh_p = unary("tanh", "tanh", KIND_FLOAT)
def tanh(x, accuracy=None): check_accuracy("tanh", accuracy); return tanh_p.bind(x)
ad.defjvp2(tanh_p, lambda t, ans, x: mul(t, sub(const_like(ans, 1), mul(ans, ans))))

logistic_p = unary("logistic", None, KIND_FLOAT)
def logistic(x, accuracy=None): check_accuracy("logistic", accuracy); return logistic_p.bind(x)
ad.defjvp2(logistic_p, lambda t, ans, x: mul(t, mul(ans, sub(const_like(ans, 1), ans))))


def _logistic_lowering(ctx, x):
  one = ctx.full(1, x.aval)
  e = ctx.op("exponential", x.aval, ctx.op("negate", x.aval, x))
  return ctx.op("divide", x.aval, one, ctx.op("add", x.aval, e, one))


hlo.lowering_rules[logistic_p] = _logistic_lowering

sin_p = unary("sin", "sine", KIND_FLOAT)
def sin(x, accuracy=None): check_accuracy("sin", accuracy); return sin_p.bind(x)
ad.defjvp(sin_p, lambda t, x: mul(t, cos(x)))

cos_p = unary("cos", "cosine", KIND_FLOAT)
def cos(x, accuracy=None): check_accuracy("cos", accuracy); return cos_p.bind(x)
ad.defjvp(cos_p, lambda t, x: neg(mul(t, sin(x))))

tan_p = unary("tan", "tan", KIND_FLOAT)
def tan(x, accuracy=None): check_accuracy("tan", accuracy); return tan_p.bind(x)
ad.defjvp2(tan_p, lambda t, ans, x: mul(t, add(const_like(ans, 1), mul(ans, ans))))

sqrt_p = unary("sqrt", "sqrt", KIND_FLOAT)
def sqrt(x, accuracy=None): check_accuracy("sqrt", accuracy); return sqrt_p.bind(x)
ad.defjvp2(sqrt_p, lambda t, ans, x: div(t, mul(const_like(ans, 2), ans)))

rsqrt_p = unary("rsqrt", "rsqrt", KIND_FLOAT)
def rsqrt(x, accuracy=None): check_accuracy("rsqrt", accuracy); return rsqrt_p.bind(x)
ad.defjvp2(rsqrt_p, lambda t, ans, x: mul(t, mul(const_like(x, -0.5), div(ans, x))))

cbrt_p = unary("cbrt", "cbrt", KIND_FLOAT)
def cbrt(x, accuracy=None): check_accuracy("cbrt", accuracy); return cbrt_p.bind(x)
ad.defjvp2(cbrt_p, lambda t, ans, x: mul(t, div(ans, mul(const_like(x, 3), x))))

erf_p = unary("erf", "erf", KIND_FLOAT)
def erf(x): return erf_p.bind(x)
ad.defjvp(erf_p,
          lambda t, x: mul(t, mul(const_like(x, 2 / math.sqrt(math.pi)), exp(neg(mul(x, x))))))

# ----------------------------------------------------------------------------- complex parts


def _to_real_abstract_eval(name):
  def rule(x):
    if not dtypes.is_complex(x.dtype):
      raise TypeError(f"{name} requires a complex operand, got {x.str_short(short_dtypes=True)}")
    return x.update(dtype=_real_dtype(x.dtype))
  return rule


real_p = standard_primitive("real", _to_real_abstract_eval("real"))
def real(x): return real_p.bind(x)
batching.defvectorized(real_p)
hlo.def_elementwise_lowering(real_p, "real")
ad.deflinear(real_p, lambda ct, x: [complex(ct, const_like(ct, 0))])

imag_p = standard_primitive("imag", _to_real_abstract_eval("imag"))
def imag(x): return imag_p.bind(x)
batching.defvectorized(imag_p)
hlo.def_elementwise_lowering(imag_p, "imag")
ad.deflinear(imag_p, lambda ct, x: [complex(const_like(ct, 0), neg(ct))])


def _complex_abstract_eval(x, y):
  shape = _nary_shape("complex", (x, y))
  same_dtypes("complex", x, y)
  if x.dtype not in (dtypes.float32, dtypes.float64):
    raise TypeError(f"complex requires float32 or float64 operands, got {x.str_short(short_dtypes=True)}")
  return ShapedArray(shape, _complex_dtype(x.dtype), x.weak_type and y.weak_type)


complex_p = standard_primitive("complex", _complex_abstract_eval)
_NARY.append(complex_p)
def complex(x, y): return complex_p.bind(*match_scalar(x, y))  # noqa: A001 (lax name)
batching.defbroadcasting(complex_p)
hlo.def_elementwise_lowering(complex_p, "complex")
ad.deflinear(complex_p, lambda ct, x, y: [real(ct), imag(neg(ct))])


def _conj_abstract_eval(x):
  _check_kind("conj", x, KIND_FLOAT)
  if x.dtype.itemsize < 4:  # there is no complex type with 16-bit parts
    raise TypeError(f"conj does not accept dtype {x.dtype.name} (got {x.str_short(short_dtypes=True)})")
  return x.update(dtype=_complex_dtype(x.dtype)) if not dtypes.is_complex(x.dtype) else x


def _conj_lowering(ctx, x):
  out = ctx.avals_out[0]
  parts = out.update(dtype=_real_dtype(out.dtype))
  if not dtypes.is_complex(x.aval.dtype):
    return ctx.op("complex", out, ctx.convert(x, parts.dtype), ctx.full(0, parts))
  re = ctx.op("real", parts, x)
  im = ctx.op("negate", parts, ctx.op("imag", parts, x))
  return ctx.op("complex", out, re, im)


conj_p = standard_primitive("conj", _conj_abstract_eval)
def conj(x): return conj_p.bind(x)
batching.defvectorized(conj_p)
hlo.lowering_rules[conj_p] = _conj_lowering
ad.deflinear(conj_p, lambda ct, x: [
    conj(ct) if dtypes.is_complex(x.aval.dtype) else real(ct)])

# ----------------------------------------------------------------------------- inverse trig, hyperbolic
# XLA has no opcodes for these: they lower to expansions that stay accurate near 0
# and do not overflow early for large arguments.


def _expansion_unary(name, expansion):
  prim = unary(name, None, KIND_FLOAT)
  hlo.lowering_rules[prim] = hlo.lower_fun(expansion)
  return prim


def _one(x):
  return const_like(x, 1)


def _asin_expansion(x):
  return mul(const_like(x, 2), atan2(x, add(_one(x), sqrt(sub(_one(x), mul(x, x))))))


def _acos_expansion(x):
  # 2 atan2(sqrt(1 - x^2), 1 + x), except at x = -1 where it is pi
  r = mul(const_like(x, 2), atan2(sqrt(sub(_one(x), mul(x, x))), add(_one(x), x)))
  return select(eq(x, const_like(x, -1)), const_like(x, math.pi), r)


def _atan_expansion(x):
  return atan2(x, _one(x))


def _is_complex(x) -> bool:
  return dtypes.is_complex(core.get_aval(x).dtype)


# Complex operands take the textbook identities (through exp, log and sqrt, which the
# compiler has for complex types); the real expansions below compare magnitudes.


def _complex_sinh(x):
  return mul(const_like(x, 0.5), sub(exp(x), exp(neg(x))))


def _complex_cosh(x):
  return mul(const_like(x, 0.5), add(exp(x), exp(neg(x))))


def _complex_asinh(x):
  return log(add(x, sqrt(add(mul(x, x), _one(x)))))


def _complex_acosh(x):
  return log(add(x, mul(sqrt(add(x, _one(x))), sqrt(sub(x, _one(x))))))


def _complex_atanh(x):
  return mul(const_like(x, 0.5), sub(log(add(_one(x), x)), log(sub(_one(x), x))))


def _sinh_expansion(x):
  if _is_complex(x):
    return _complex_sinh(x)
  # Small |x|: (e - 1/e)/2 written with expm1 to keep precision; large |x|: exp(|x| - log 2)
  # so the result overflows only where sinh itself does.
  ax = abs(x)
  em1 = expm1(ax)
  small = mul(const_like(x, 0.5), add(em1, div(em1, add(em1, _one(x)))))
  large = exp(sub(ax, const_like(x, math.log(2))))
  return mul(sign(x), select(lt(ax, const_like(x, 10)), small, large))


def _cosh_expansion(x):
  if _is_complex(x):
    return _complex_cosh(x)
  ax = abs(x)
  half_log2 = const_like(x, math.log(2))
  return add(exp(sub(ax, half_log2)), exp(sub(neg(ax), half_log2)))


def _asinh_expansion(x):
  if _is_complex(x):
    return _complex_asinh(x)
  ax = abs(x)
  big = const_like(x, math.sqrt(float(dtypes.finfo(core.get_aval(x).dtype).max)) / 2)
  # log1p(|x| + x^2 / (1 + sqrt(1 + x^2))) is accurate near 0; log(2|x|) avoids x^2 overflow.
  sq = mul(ax, ax)
  near = log1p(add(ax, div(sq, add(_one(x), sqrt(add(_one(x), sq))))))
  far = add(log(ax), const_like(x, math.log(2)))
  return mul(sign(x), select(lt(ax, big), near, far))


def _acosh_expansion(x):
  if _is_complex(x):
    return _complex_acosh(x)
  big = const_like(x, math.sqrt(float(dtypes.finfo(core.get_aval(x).dtype).max)) / 2)
  near = log(add(x, sqrt(mul(add(x, _one(x)), sub(x, _one(x))))))
  far = add(log(x), const_like(x, math.log(2)))
  return select(lt(x, big), near, far)


def _atanh_expansion(x):
  if _is_complex(x):
    return _complex_atanh(x)
  # 0.5 log1p(2|x| / (1 - |x|)) with x's sign; |x| > 1 gives nan.
  ax = abs(x)
  r = mul(const_like(x, 0.5), log1p(div(mul(const_like(x, 2), ax), sub(_one(x), ax))))
  return select(gt(ax, _one(x)), const_like(x, math.nan), mul(sign(x), r))


asin_p = _expansion_unary("asin", _asin_expansion)
def asin(x): return asin_p.bind(x)
ad.defjvp(asin_p, lambda t, x: mul(t, rsqrt(sub(_one(x), mul(x, x)))))

acos_p = _expansion_unary("acos", _acos_expansion)
def acos(x): return acos_p.bind(x)
ad.defjvp(acos_p, lambda t, x: neg(mul(t, rsqrt(sub(_one(x), mul(x, x))))))

atan_p = _expansion_unary("atan", _atan_expansion)
def atan(x): return atan_p.bind(x)
ad.defjvp(atan_p, lambda t, x: div(t, add(_one(x), mul(x, x))))

sinh_p = _expansion_unary("sinh", _sinh_expansion)
def sinh(x): return sinh_p.bind(x)
ad.defjvp(sinh_p, lambda t, x: mul(t, cosh(x)))

cosh_p = _expansion_unary("cosh", _cosh_expansion)
def cosh(x): return cosh_p.bind(x)
ad.defjvp(cosh_p, lambda t, x: mul(t, sinh(x)))

asinh_p = _expansion_unary("asinh", _asinh_expansion)
def asinh(x): return asinh_p.bind(x)
ad.defjvp(asinh_p, lambda t, x: mul(t, rsqrt(add(mul(x, x), _one(x)))))

acosh_p = _expansion_unary("acosh", _acosh_expansion)
def acosh(x): return acosh_p.bind(x)
ad.defjvp(acosh_p, lambda t, x: mul(t, rsqrt(mul(sub(x, _one(x)), add(x, _one(x))))))

atanh_p = _expansion_unary("atanh", _atanh_expansion)
def atanh(x): return atanh_p.bind(x)
ad.defjvp(atanh_p, lambda t, x: div(t, sub(_one(x), mul(x, x))))

def _integer_pow_abstract_eval(x, *, y):
  _check_kind("integer_pow", x, KIND_NUMBER)
  if y < 0 and dtypes.kind(x.dtype) in "iu":
    raise TypeError(f"Integers cannot be raised to negative powers, got "
                    f"integer_pow({x.str_short(short_dtypes=True)}, {y})")
  return x


integer_pow_p = standard_primitive("integer_pow", _integer_pow_abstract_eval)
batching.defvectorized(integer_pow_p)
def integer_pow(x, y): return integer_pow_p.bind(x, y=int(y))


def _integer_pow_jvp(t, x, *, y):
  if y == 0:
    return ad.zeros_like(x)
  return mul(t, mul(const_like(x, y), integer_pow(x, y - 1)))


def _integer_pow_lowering(ctx, x, *, y):
  # Square-and-multiply, then 1/result for negative powers.
  aval = x.aval
  if y == 0:
    return ctx.full(1, aval)
  n, acc, base = y if y > 0 else -y, None, x
  while n:
    if n & 1:
      acc = base if acc is None else ctx.op("multiply", aval, acc, base)
    n >>= 1
    if n:
      base = ctx.op("multiply", aval, base, base)
  if y < 0:
    acc = ctx.op("divide", aval, ctx.full(1, aval), acc)
  return acc


ad.defjvp(integer_pow_p, _integer_pow_jvp)
hlo.lowering_rules[integer_pow_p] = _integer_pow_lowering

square_p = unary("square", None)
def square(x): return square_p.bind(x)
ad.defjvp(square_p, lambda t, x: mul(t, mul(const_like(x, 2), x)))
hlo.lowering_rules[square_p] = lambda ctx, x: ctx.op("multiply", x.aval, x, x)

# ----------------------------------------------------------------------------- bitwise / logical

not_p = unary("not", "not", KIND_INTEGER)
def bitwise_not(x): return not_p.bind(x)
ad.defjvp_zero(not_p)

and_p = nary("and", "and", KIND_INTEGER)
def bitwise_and(x, y): return and_p.bind(*_nary_match(x, y))
ad.defjvp_zero(and_p)

or_p = nary("or", "or", KIND_INTEGER)
def bitwise_or(x, y): return or_p.bind(*_nary_match(x, y))
ad.defjvp_zero(or_p)

xor_p = nary("xor", "xor", KIND_INTEGER)
def bitwise_xor(x, y): return xor_p.bind(*_nary_match(x, y))
ad.defjvp_zero(xor_p)

population_count_p = unary("population_count", "popcnt", KIND_INTEGER_ONLY)
def population_count(x): return population_count_p.bind(x)
ad.defjvp_zero(population_count_p)

clz_p = unary("clz", "count-leading-zeros", KIND_INTEGER_ONLY)
def clz(x): return clz_p.bind(x)
ad.defjvp_zero(clz_p)

# Shift amounts >= the bit width give 0 (logical) or the sign fill (arithmetic), as in XLA.

shift_left_p = nary("shift_left", "shift-left", KIND_INTEGER)
def shift_left(x, y): return shift_left_p.bind(*_nary_match(x, y))
ad.defjvp_zero(shift_left_p)

shift_right_logical_p = nary("shift_right_logical", "shift-right-logical", KIND_INTEGER)
def shift_right_logical(x, y): return shift_right_logical_p.bind(*_nary_match(x, y))
ad.defjvp_zero(shift_right_logical_p)

shift_right_arithmetic_p = nary("shift_right_arithmetic", "shift-right-arithmetic", KIND_INTEGER)
def shift_right_arithmetic(x, y): return shift_right_arithmetic_p.bind(*_nary_match(x, y))
ad.defjvp_zero(shift_right_arithmetic_p)

# ----------------------------------------------------------------------------- bitcast_convert_type


def _bitcast_abstract_eval(x, *, new_dtype):
  old, new = x.dtype, np.dtype(new_dtype)
  if dtypes.bool_ in (old, new):
    raise TypeError("bitcast_convert_type does not accept bool")
  if old.itemsize == new.itemsize:
    return ShapedArray(x.shape, new, False)
  if old.itemsize > new.itemsize:  # one element becomes a trailing axis of several
    return ShapedArray((*x.shape, old.itemsize // new.itemsize), new, False)
  if not x.shape or x.shape[-1] != new.itemsize // old.itemsize:
    raise TypeError(f"bitcast_convert_type from {old.name} to {new.name} needs a last axis of "
                    f"size {new.itemsize // old.itemsize}, got {x.str_short(short_dtypes=True)}")
  return ShapedArray(x.shape[:-1], new, False)


bitcast_convert_type_p = standard_primitive("bitcast_convert_type", _bitcast_abstract_eval)


def bitcast_convert_type(operand, new_dtype):
  x = operand
  new_dtype = dtypes.canonicalize_dtype(new_dtype)
  if core.get_aval(x).dtype == new_dtype:
    return x
  return bitcast_convert_type_p.bind(x, new_dtype=new_dtype)


ad.defjvp_zero(bitcast_convert_type_p)
batching.defvectorized(bitcast_convert_type_p)
hlo.lowering_rules[bitcast_convert_type_p] = lambda ctx, x, *, new_dtype: ctx.op(
    "bitcast-convert", ctx.avals_out[0], x)

# ----------------------------------------------------------------------------- comparisons


def _comparison(name: str, direction: str) -> core.Primitive:
  prim = nary(name, None, KIND_ANY, out_dtype=dtypes.bool_)
  ad.defjvp_zero(prim)
  hlo.lowering_rules[prim] = lambda ctx, x, y: ctx.op(
      "compare", ctx.avals_out[0], x, y, attrs=f"direction={direction}")
  return prim


eq_p = _comparison("eq", "EQ")
def eq(x, y): return eq_p.bind(*_nary_match(x, y))

ne_p = _comparison("ne", "NE")
def ne(x, y): return ne_p.bind(*_nary_match(x, y))

lt_p = _comparison("lt", "LT")
def lt(x, y): return lt_p.bind(*_nary_match(x, y))

le_p = _comparison("le", "LE")
def le(x, y): return le_p.bind(*_nary_match(x, y))

gt_p = _comparison("gt", "GT")
def gt(x, y): return gt_p.bind(*_nary_match(x, y))

ge_p = _comparison("ge", "GE")
def ge(x, y): return ge_p.bind(*_nary_match(x, y))

# ----------------------------------------------------------------------------- select_n


def _select_n_abstract_eval(which, *cases):
  if which.dtype != dtypes.bool_ and dtypes.kind(which.dtype) not in "iu":
    raise TypeError(f"select_n: predicate must be bool or int, got {which.str_short(short_dtypes=True)}")
  same_shapes("select_n", *cases)
  same_dtypes("select_n", *cases)
  if which.shape not in ((), cases[0].shape):
    raise TypeError(f"select_n: predicate {which.str_short(short_dtypes=True)} does not match {cases[0].str_short(short_dtypes=True)}")
  return ShapedArray(cases[0].shape, cases[0].dtype, all(c.weak_type for c in cases))


select_n_p = standard_primitive("select_n", _select_n_abstract_eval)


def select_n(which, *cases):
  return select_n_p.bind(which, *cases)


def select(pred, on_true, on_false):
  return select_n_p.bind(pred, on_false, on_true)


def _select_n_jvp(primals, tangents):
  which, *cases = primals
  return select_n(which, *cases), select_n(which, *tangents[1:])


def _select_n_transpose(ct, which, *cases):
  zeros = ad.zeros_like(ct)
  outs = [None]
  for i, c in enumerate(cases):
    if ad.is_undefined_primal(c):
      picks = [zeros] * len(cases)
      picks[i] = ct
      outs.append(select_n(which, *picks))
    else:
      outs.append(None)
  return outs


def _select_n_batch(axis, vals, dims):
  which, *cases = vals
  wdim, *cdims = dims
  if core.get_aval(which).ndim - (wdim is not None) == 0 and wdim is not None:
    # A batched scalar predicate: broadcast it to the cases' (batched) shape.
    cases = [batching.bdim_at_front(c, d, axis.size) for c, d in zip(cases, cdims)]
    which = batching.moveaxis(which, wdim, 0)
    shape = core.get_aval(cases[0]).shape
    return select_n(lax_shape.broadcast_in_dim(which, shape, (0,)), *cases), 0
  moved = [batching.bdim_at_front(v, d, axis.size) for v, d in zip(vals, dims)]
  if core.get_aval(which).ndim == 0 and wdim is None:
    moved[0] = which
  return select_n(*moved), 0


def _select_n_lowering(ctx, which, *cases):
  out = ctx.avals_out[0]
  if which.aval.shape != out.shape:
    which = ctx.op("broadcast", which.aval.update(shape=out.shape), which, attrs="dimensions={}")
  return _select_tree(ctx, out, which, list(cases))


def _select_tree(ctx, out, which, cases, offset=0):
  """select_n as a balanced tree of `select`s: which < offset + mid picks the lower half."""
  if len(cases) == 1:
    return cases[0]
  if which.aval.dtype == dtypes.bool_:
    return ctx.op("select", out, which, cases[1], cases[0])
  mid = len(cases) // 2
  bound = ctx.full(offset + mid, which.aval.update(weak_type=False))
  pred = ctx.op("compare", which.aval.update(dtype=dtypes.bool_), which, bound,
                attrs="direction=LT")
  lo = _select_tree(ctx, out, which, cases[:mid], offset)
  hi = _select_tree(ctx, out, which, cases[mid:], offset + mid)
  return ctx.op("select", out, pred, lo, hi)


ad.jvp_rules[select_n_p] = _select_n_jvp
ad.transpose_rules[select_n_p] = _select_n_transpose
batching.batch_rules[select_n_p] = _select_n_batch
hlo.lowering_rules[select_n_p] = _select_n_lowering

# ----------------------------------------------------------------------------- add_any (AD's adder)

batching.defbroadcasting(ad.add_any_p, size_one=False)  # tangents of one shape
ad.add_any_p.def_impl(lambda x, y: add(x, y))
hlo.def_elementwise_lowering(ad.add_any_p, "add")

# ----------------------------------------------------------------------------- broadcasting
# The n-ary primitives broadcast as JAX's do: rank-0 operands, and size-1 dimensions
# of operands of the result's rank. Their rules are written for operands of the result's
# shape, so each is wrapped: the lowering broadcasts operands first; the JVP gives the
# rule tangents of the result's shape (primals stay as they are, so a jaxpr keeps
# `div a:f32[50] b:f32[1]` and the compiler sees what b was computed from); a transpose
# sums the cotangent over the dimensions its operand was broadcast along.


def _mixed(avals) -> bool:
  return len({a.shape for a in avals}) > 1


def _broadcasting_lowering(rule):
  def lowering(ctx, *args, **params):
    shape = ctx.avals_out[0].shape
    if all(a.shape == shape for a in ctx.avals_in):
      return rule(ctx, *args, **params)
    args = [x if a.shape == shape else
            ctx.broadcast_in_dim(x, a.update(shape=shape, weak_type=False), range(a.ndim))
            for x, a in zip(args, ctx.avals_in)]
    ctx = hlo.LoweringContext(ctx.comp, ctx.prefix, [a.update(shape=shape) for a in ctx.avals_in],
                              ctx.avals_out)
    return rule(ctx, *args, **params)
  return lowering


def _broadcast_tangent(t, shape):
  if type(t) is ad.Zero:
    return ad.Zero(t.aval.update(shape=shape))
  aval = core.get_aval(t)
  return t if aval.shape == shape else lax_shape.broadcast_in_dim(t, shape, tuple(range(aval.ndim)))


def _broadcasting_jvp(prim, rule):
  def jvp(primals, tangents, **params):
    avals = [core.get_aval(p) for p in primals]
    if not _mixed(avals):
      return rule(primals, tangents, **params)
    shape = _nary_shape(prim.name, avals)
    return rule(primals, [_broadcast_tangent(t, shape) for t in tangents], **params)
  return jvp


def _unbroadcast(ct, aval):
  """The cotangent of an operand of shape `aval.shape` that was broadcast to ct's shape."""
  if ct is None or type(ct) is ad.Zero:
    return ct if ct is None else ad.Zero(aval)
  shape = core.get_aval(ct).shape
  if shape == aval.shape:
    return ct
  dims = tuple(i for i in range(len(shape)) if aval.ndim == 0 or aval.shape[i] != shape[i])
  summed = late_op("reduce_sum")(ct, dims)
  return lax_shape.reshape(summed, aval.shape) if aval.ndim else summed


def _broadcasting_transpose(prim, rule):
  def transpose(ct, *args, **params):
    avals = [x.aval if ad.is_undefined_primal(x) else core.get_aval(x) for x in args]
    if not _mixed(avals):
      return rule(ct, *args, **params)
    shape = _nary_shape(prim.name, avals)
    full = [ad.UndefinedPrimal(a.update(shape=shape)) if ad.is_undefined_primal(x) else x
            for x, a in zip(args, avals)]
    cts = rule(ct, *full, **params)
    return [_unbroadcast(c, a) for c, a in zip(cts, avals)]
  return transpose


def _broadcast_operands(prim: core.Primitive) -> None:
  if prim in hlo.lowering_rules:
    hlo.lowering_rules[prim] = _broadcasting_lowering(hlo.lowering_rules[prim])
  if prim in ad.jvp_rules:
    ad.jvp_rules[prim] = _broadcasting_jvp(prim, ad.jvp_rules[prim])
  if prim in ad.transpose_rules:
    ad.transpose_rules[prim] = _broadcasting_transpose(prim, ad.transpose_rules[prim])


for _prim in _NARY:
  _broadcast_operands(_prim)
_NARY = None  # primitives made later take `broadcasting=False`

# lax.shape, below this module, needs these (see utils.late_op).
register_late_ops(convert_element_type=convert_element_type, sub=sub)
