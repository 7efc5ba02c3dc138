"""Elementwise jax.numpy functions with NumPy promotion and broadcasting.

Binary functions that NumPy exposes as ufuncs are `jnp.ufunc` objects (see
`ufunc_objects.py`), so `jnp.add.reduce`, `jnp.multiply.accumulate`, ... work.
"""

from __future__ import annotations

import math

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src import prng
from jax._src.custom_derivatives import custom_jvp
from jax._src.lax import elementwise as lax
from jax._src.lax import shape as lax_shape
from jax._src.lax import special as lax_special
from jax._src.numpy.ufunc_objects import ufunc
from jax._src.numpy.util import (same_array_types, asarray_like, broadcast_shapes, broadcast_to,
                                 check_arraylike, late_op, promote_args, promote_args_inexact,
                                 promote_args_nary, promote_dtypes, promote_shapes,
                                 register_late_ops)
from jax._src.api import jit
from jax._src.lax.control_flow import while_loop
from jax._src.lax.reductions import reduce_or
from jax._src.numpy.reductions import all as all_


def _dtype(x) -> np.dtype:
  return core.get_aval(x).dtype


def _is_bool(x) -> bool:
  return _dtype(x) == dtypes.bool_


def _plain_bool(x) -> bool:
  """`_is_bool` of an array or scalar; False for an object converted through its
  `__jax_array__` (which promotion converts first)."""
  try:
    return _is_bool(x)
  except TypeError:
    return False


def _is_int(x) -> bool:
  return dtypes.is_integer(_dtype(x))


def _is_float(x) -> bool:
  return dtypes.is_float(_dtype(x))


def _is_complex(x) -> bool:
  return dtypes.is_complex(_dtype(x))


def _const(like, value):
  return lax_shape.full_like(like, value)


def _zeros(like):
  return _const(like, 0)


def _bools(like, value: bool):
  return lax_shape.full(core.get_aval(like).shape, value, dtypes.bool_)


def _named(name):
  def deco(fn):
    fn.__name__ = name
    return fn
  return deco


def _compiled(fn):
  """`fn` made what JAX's jnp functions are: an eager call on jax arrays is one
  cached native call per input signature; inside other computations `fn` is traced
  in place (see `jit(inline=True)`)."""
  return jit(fn, inline=True)


def _binary(lax_fn, name, inexact=False):
  """x op y for one of lax's n-ary ops (which broadcast rank-0 operands themselves)."""
  @_named(name)
  def fn(x, y, /):
    return lax_fn(*promote_args_nary(name, x, y, inexact=inexact))
  return fn


def _unary(lax_fn, name, inexact=True):
  promote = promote_args_inexact if inexact else promote_args

  @_named(name)
  def fn(x, /):
    return lax_fn(*promote(name, x))
  return _compiled(fn)


def _make_ufunc(fn, name, identity=None, nin=2, positional=None):
  return ufunc(fn, nin, 1, name=name, identity=identity, positional=positional)


# ----------------------------------------------------------------------------- arithmetic


def _same_numeric_arrays(x, y) -> bool:
  """Two jax arrays of one non-boolean type: no promotion, broadcasting or scalar matching."""
  return same_array_types((x, y)) and x.aval.dtype != dtypes.bool_


def _arithmetic(name, prim, lax_fn, bool_fn):
  """x op y: straight to `prim` when both operands are arrays of one numeric type
  (the common eager case), else NumPy promotion first; booleans use `bool_fn`
  (a lax function, or the message of the TypeError they raise)."""
  @_named(name)
  def promoted(x, y, /):
    x, y = promote_args_nary(name, x, y)
    if not _is_bool(x):
      return lax_fn(x, y)
    if isinstance(bool_fn, str):
      raise TypeError(bool_fn)
    return bool_fn(x, y)

  # With one boolean operand the conversion and the op are compiled together, as JAX's
  # jnp functions are jitted whole: the compiler then sees `x * convert(p)` and selects,
  # so an infinity times False is 0 (as on XLA) rather than NaN.
  with_boolean = _compiled(promoted)

  @_named(name)
  def fn(x, y, /):
    if _same_numeric_arrays(x, y):
      return prim.bind(x, y)
    if _plain_bool(x) != _plain_bool(y):
      check_arraylike(name, x, y)  # before tracing, which would take a list as a pytree
      return with_boolean(x, y)
    return promoted(x, y)
  return fn


_add = _arithmetic("add", lax.add_p, lax.add, lax.bitwise_or)
_subtract = _arithmetic("subtract", lax.sub_p, lax.sub,
                        "jnp.subtract does not support boolean inputs; use jnp.logical_xor "
                        "or jnp.bitwise_xor instead.")
_multiply = _arithmetic("multiply", lax.mul_p, lax.mul, lax.bitwise_and)
_maximum = _arithmetic("maximum", lax.max_p, lax.max, lax.bitwise_or)
_minimum = _arithmetic("minimum", lax.min_p, lax.min, lax.bitwise_and)


add = _make_ufunc(_add, "add", identity=0)
subtract = _make_ufunc(_subtract, "subtract")
multiply = _make_ufunc(_multiply, "multiply", identity=1)
true_divide = divide = _make_ufunc(_binary(lax.div, "true_divide", inexact=True), "true_divide",
                                   positional=("x1", "x2"))
maximum = _make_ufunc(_maximum, "maximum")
minimum = _make_ufunc(_minimum, "minimum")
arctan2 = _make_ufunc(_binary(lax.atan2, "arctan2", inexact=True), "arctan2",
                      positional=("x1", "x2"))


def fmax(x1, x2, /):
  """Elementwise maximum that ignores NaNs (NaN only when both are NaN)."""
  x1, x2 = promote_args("fmax", x1, x2)
  if not dtypes.is_inexact(_dtype(x1)):
    return _maximum(x1, x2)
  return lax.select(isnan(x1), x2, lax.select(isnan(x2), x1, lax.max(x1, x2)))


def fmin(x1, x2, /):
  x1, x2 = promote_args("fmin", x1, x2)
  if not dtypes.is_inexact(_dtype(x1)):
    return _minimum(x1, x2)
  return lax.select(isnan(x1), x2, lax.select(isnan(x2), x1, lax.min(x1, x2)))


fmax = _make_ufunc(fmax, "fmax")
fmin = _make_ufunc(fmin, "fmin")


def _negative(x, /):
  (x,) = promote_args("negative", x)
  if _is_bool(x):
    raise TypeError("jnp.negative does not support boolean inputs; use jnp.logical_not.")
  return lax.neg(x)


negative = _make_ufunc(_negative, "negative", nin=1)


@_compiled
def positive(x, /):
  return promote_args("positive", x)[0]


@_compiled
def sign(x, /):
  (x,) = promote_args("sign", x)
  if _is_bool(x):
    return x
  return lax.sign(x)


@_compiled
def absolute(x, /):
  (x,) = promote_args("absolute", x)
  return x if dtypes.kind(_dtype(x)) in "ub" else lax.abs(x)


abs = absolute  # noqa: A001


@_compiled
def square(x, /):
  (x,) = promote_args("square", x)
  if _is_bool(x):
    return x
  return lax.integer_pow(x, 2)


@_compiled
def reciprocal(x, /):
  (x,) = promote_args_inexact("reciprocal", x)
  return lax.integer_pow(x, -1)


# ----------------------------------------------------------------------------- powers


def _integer_power(x, y):
  """x ** y for integer arrays by square-and-multiply, wrapping like C.

  Only the low 6 bits of y are used, whatever the width, as in JAX: any larger
  exponent overflows for every base but 0, 1 and -1, whose powers depend on those bits.
  """
  acc = lax.select(lax.bitwise_and(lax.eq(x, _zeros(x)), lax.ne(y, _zeros(y))),
                   _zeros(x), _const(x, 1))
  one = _const(y, 1)
  for _ in range(6):
    odd = lax.ne(lax.bitwise_and(y, one), _zeros(y))
    acc = lax.select(odd, lax.mul(acc, x), acc)
    x = lax.mul(x, x)
    y = lax.shift_right_logical(y, one)
  return acc


def _ndim(x) -> int:
  return core.get_aval(x).ndim


def _power(x1, x2, /):
  if type(x2) is int and type(x1) is not bool:
    (x1,) = promote_args("power", x1)
    if not _is_bool(x1) and (x2 >= 0 or dtypes.is_inexact(_dtype(x1))):
      return lax.integer_pow(x1, x2)
  x1, x2 = promote_args_nary("power", x1, x2)
  dt = _dtype(x1)
  if dtypes.is_inexact(dt):
    return lax.pow(x1, x2)
  x1, x2 = promote_shapes(x1, x2)
  if dt == dtypes.bool_:  # True ** anything is True, False ** 0 is True
    return lax.bitwise_or(x1, lax.bitwise_not(x2))
  return _integer_power(x1, x2)


class _PowerUfunc(ufunc):
  """`power`, whose Python int exponents stay static (an `integer_pow`, exact for
  negative bases and defined for complex ones) instead of becoming traced arguments."""

  def __call__(self, x1, x2, /, **kwargs):
    if type(x2) is int and not kwargs:
      return self._func(x1, x2)
    return super().__call__(x1, x2, **kwargs)


power = pow = _PowerUfunc(_power, name="power", nin=2, nout=1)  # noqa: A001


def _float_power(x1, x2, /):
  return lax.pow(*promote_args_inexact("float_power", x1, x2))


float_power = _make_ufunc(_float_power, "float_power", positional=("x", "y"))

# ----------------------------------------------------------------------------- division


def _float_divmod(x1, x2):
  """(x1 // x2, x1 mod x2) for floats, computed as JAX does (CPython's float_divmod).

  The quotient comes from (x1 - fmod) / x2, exact up to rounding, corrected by one where
  fmod's sign must flip, then rounded; x2 == 0 divides x1 itself so x // 0 is +-inf.
  """
  mod = lax.rem(x1, x2)
  x2_zero = lax.eq(x2, _zeros(x2))
  div = lax.div(lax.select(x2_zero, x1, lax.sub(x1, mod)), x2)
  flip = lax.bitwise_and(lax.ne(mod, _zeros(mod)), lax.ne(lax.sign(x2), lax.sign(mod)))
  mod = lax.select(flip, lax.add(mod, x2), mod)
  div = lax.select(flip, lax.sub(div, _const(div, 1)), div)
  return lax.round(div), mod


def _int_floor_divide(x1, x2):
  if dtypes.kind(_dtype(x1)) == "u":
    return lax.div(x1, x2)
  # Rounds toward -inf where the signs differ and the division is inexact. Compared
  # through sign(), so x // 0 is XLA's quotient -1 minus one, as in JAX.
  q = lax.div(x1, x2)
  needs_fix = lax.bitwise_and(lax.ne(lax.sign(x1), lax.sign(x2)),
                              lax.ne(lax.rem(x1, x2), _zeros(q)))
  return lax.select(needs_fix, lax.sub(q, _const(q, 1)), q)


def _floor_divide(x1, x2, /):
  x1, x2 = promote_args("floor_divide", x1, x2)
  dt = _dtype(x1)
  if dt == dtypes.bool_:
    raise TypeError("jnp.floor_divide does not support boolean inputs.")
  if dtypes.is_complex(dt):
    raise TypeError("jnp.floor_divide does not support complex-valued inputs.")
  if dtypes.is_float(dt):
    return _float_divmod(x1, x2)[0]
  return _int_floor_divide(x1, x2)


def _remainder(x1, x2, /):
  x1, x2 = promote_args("remainder", x1, x2)
  if dtypes.is_complex(_dtype(x1)):
    raise TypeError("jnp.remainder does not support complex-valued inputs.")
  if dtypes.kind(_dtype(x2)) in "iu":  # x % 0 is 0 for integers, as in JAX
    x2 = lax.select(lax.eq(x2, _zeros(x2)), _const(x2, 1), x2)
  r = lax.rem(x1, x2)
  if dtypes.kind(_dtype(r)) in "ub":
    return r
  fix = lax.bitwise_and(lax.ne(r, _zeros(r)),
                        lax.ne(lax.lt(r, _zeros(r)), lax.lt(x2, _zeros(x2))))
  return lax.select(fix, lax.add(r, x2), r)


def _fmod(x1, x2, /):
  x1, x2 = promote_args("fmod", x1, x2)
  if dtypes.kind(_dtype(x2)) in "iu":  # x fmod 0 is 0 for integers, as in JAX
    x2 = lax.select(lax.eq(x2, _zeros(x2)), _const(x2, 1), x2)
  return lax.rem(x1, x2)


floor_divide = _make_ufunc(_floor_divide, "floor_divide")
remainder = mod = _make_ufunc(_remainder, "remainder")
fmod = _make_ufunc(_fmod, "fmod")


def divmod(x1, x2, /):  # noqa: A001
  x1, x2 = promote_args("divmod", x1, x2)
  if dtypes.is_float(_dtype(x1)):
    return _float_divmod(x1, x2)
  return floor_divide(x1, x2), remainder(x1, x2)


# ----------------------------------------------------------------------------- comparisons

def _key_comparison(fn, name):
  """`fn` that also compares typed keys (whether each key's data equals the other's), as
  JAX's equal and not_equal do; keys against anything else is an error."""
  @_named(name)
  def compare(x, y, /):
    x_key, y_key = prng.is_key(x), prng.is_key(y)
    if x_key and y_key:
      same = keys_equal(x, y)
      return same if name == "equal" else lax.bitwise_not(same)
    if x_key or y_key:
      raise TypeError(f"{name} does not accept dtypes {_dtype_name(x)}, {_dtype_name(y)}.")
    return fn(x, y)
  return compare


def keys_equal(x, y):
  """Elementwise over broadcast key arrays: whether the keys hold the same data."""
  if x.dtype != y.dtype:
    raise TypeError(f"equal does not accept dtypes {x.dtype}, {y.dtype}.")
  k = len(x.dtype.impl.key_shape)
  same = _equal_numbers(prng.random_unwrap(x), prng.random_unwrap(y))
  return all_(same, axis=tuple(range(-k, 0)))


def _dtype_name(x) -> str:
  return str(x.dtype) if prng.is_key(x) else _dtype(x).name


_equal_numbers = _binary(lax.eq, "equal")
equal = _make_ufunc(_key_comparison(_equal_numbers, "equal"), "equal")
not_equal = _make_ufunc(_key_comparison(_binary(lax.ne, "not_equal"), "not_equal"), "not_equal")
less = _make_ufunc(_binary(lax.lt, "less"), "less")
less_equal = _make_ufunc(_binary(lax.le, "less_equal"), "less_equal")
greater = _make_ufunc(_binary(lax.gt, "greater"), "greater")
greater_equal = _make_ufunc(_binary(lax.ge, "greater_equal"), "greater_equal")

# ----------------------------------------------------------------------------- bits and logic


def _integer_binary(lax_fn, name):
  @_named(name)
  def fn(x, y, /):
    x, y = promote_args_nary(name, x, y)
    if dtypes.kind(_dtype(x)) not in "iub":
      raise TypeError(f"jnp.{name} requires integer or boolean arguments, got {_dtype(x).name}")
    return lax_fn(x, y)
  return fn


bitwise_and = _make_ufunc(_integer_binary(lax.bitwise_and, "bitwise_and"), "bitwise_and", -1)
bitwise_or = _make_ufunc(_integer_binary(lax.bitwise_or, "bitwise_or"), "bitwise_or", 0)
bitwise_xor = _make_ufunc(_integer_binary(lax.bitwise_xor, "bitwise_xor"), "bitwise_xor", 0)


def _shift_right(x, y):
  if dtypes.kind(_dtype(x)) == "u":
    return lax.shift_right_logical(x, y)
  return lax.shift_right_arithmetic(x, y)


left_shift = _make_ufunc(_integer_binary(lax.shift_left, "left_shift"), "left_shift")
right_shift = _make_ufunc(_integer_binary(_shift_right, "right_shift"), "right_shift",
                          positional=("x1", "x2"))
bitwise_left_shift, bitwise_right_shift = left_shift, right_shift


@_compiled
def invert(x, /):
  (x,) = promote_args("invert", x)
  if dtypes.kind(_dtype(x)) not in "iub":
    raise TypeError(f"jnp.invert requires integer or boolean arguments, got {_dtype(x).name}")
  return lax.bitwise_not(x)


bitwise_not = bitwise_invert = invert


@_compiled
def bitwise_count(x, /):
  (x,) = promote_args("bitwise_count", x)
  if dtypes.kind(_dtype(x)) not in "iub":
    raise TypeError(f"jnp.bitwise_count requires integer arguments, got {_dtype(x).name}")
  counts = lax.population_count(absolute(x) if dtypes.kind(_dtype(x)) == "i" else x)
  return lax.convert_element_type(counts, dtypes.uint8)


def _to_bool(v):
  return v if _is_bool(v) else lax.ne(v, _zeros(v))


@_compiled
def logical_not(x, /):
  (x,) = promote_args("logical_not", x)
  return lax.bitwise_not(_to_bool(x))


def _logical(lax_fn, name):
  @_named(name)
  def fn(x, y, /):
    x, y = promote_args(name, x, y)
    return lax_fn(_to_bool(x), _to_bool(y))
  return fn


logical_and = _make_ufunc(_logical(lax.bitwise_and, "logical_and"), "logical_and", True)
logical_or = _make_ufunc(_logical(lax.bitwise_or, "logical_or"), "logical_or", False)
logical_xor = _make_ufunc(_logical(lax.bitwise_xor, "logical_xor"), "logical_xor", False)


def _gcd_loop(a, b):

  def cond(carry):
    return reduce_or(lax.ne(carry[1], _zeros(carry[1])), tuple(range(_ndim(carry[1]))))

  def body(carry):
    a, b = carry
    nonzero = lax.ne(b, _zeros(b))
    safe_b = lax.select(nonzero, b, _const(b, 1))
    return lax.select(nonzero, b, a), lax.select(nonzero, lax.rem(a, safe_b), _zeros(b))

  return while_loop(cond, body, (a, b))[0]


def _check_integers(name, x):
  if not dtypes.is_integer(_dtype(x)):
    raise ValueError(f"Arguments to jax.numpy.{name} must be integers.")


def _gcd(x1, x2, /):
  x1, x2 = promote_args("gcd", x1, x2)
  _check_integers("gcd", x1)
  return _gcd_loop(absolute(x1), absolute(x2))


def _lcm(x1, x2, /):
  x1, x2 = promote_args("lcm", x1, x2)
  _check_integers("lcm", x1)
  d = _gcd(x1, x2)
  safe_d = lax.select(lax.eq(d, _zeros(d)), _const(d, 1), d)
  return lax.select(lax.eq(d, _zeros(d)), _zeros(d),
                    absolute(lax.mul(x1, _int_floor_divide(x2, safe_d))))


gcd = _make_ufunc(_gcd, "gcd", identity=0)
lcm = _make_ufunc(_lcm, "lcm")

# ----------------------------------------------------------------------------- exponents and logs

exp = _unary(lax.exp, "exp")
exp2 = _unary(lax.exp2, "exp2")
log = _unary(lax.log, "log")
log1p = _unary(lax.log1p, "log1p")
expm1 = _unary(lax.expm1, "expm1")
sqrt = _unary(lax.sqrt, "sqrt")
cbrt = _unary(lax.cbrt, "cbrt")


@_compiled
def log2(x, /):
  (x,) = promote_args_inexact("log2", x)
  return lax.div(lax.log(x), lax.log(_const(x, 2)))


@_compiled
def log10(x, /):
  (x,) = promote_args_inexact("log10", x)
  return lax.div(lax.log(x), lax.log(_const(x, 10)))


def _logaddexp(x1, x2, /):
  return _logaddexp_promoted(*promote_args_inexact("logaddexp", x1, x2))


def _replace_inf(x):
  return lax.select(isinf(x), _zeros(x), x)


@custom_jvp
def _logaddexp_promoted(x1, x2):
  amax = lax.max(x1, x2)
  delta = lax.sub(x1, x2)
  # delta is nan for equal infinities (and nan inputs): x1 + x2 is then the answer
  return lax.select(isnan(delta), lax.add(x1, x2),
                    lax.add(amax, lax.log1p(lax.exp(lax.neg(lax.abs(delta))))))


@_logaddexp_promoted.defjvp
def _logaddexp_jvp(primals, tangents):
  # d/dx1 log(e^x1 + e^x2) = e^(x1 - out); the expansion's max/abs would split ties
  x1, x2 = primals
  t1, t2 = tangents
  out = _logaddexp_promoted(x1, x2)
  r_out = _replace_inf(out)
  return out, lax.add(lax.mul(t1, lax.exp(lax.sub(_replace_inf(x1), r_out))),
                      lax.mul(t2, lax.exp(lax.sub(_replace_inf(x2), r_out))))


def _logaddexp2(x1, x2, /):
  x1, x2 = promote_args_inexact("logaddexp2", x1, x2)
  amax = lax.max(x1, x2)
  delta = lax.sub(x1, x2)
  ln2 = _const(x1, math.log(2))
  tail = lax.div(lax.log1p(lax.exp2(lax.neg(lax.abs(delta)))), ln2)
  return lax.select(isnan(delta), lax.add(x1, x2), lax.add(amax, tail))


logaddexp = _make_ufunc(_logaddexp, "logaddexp", identity=-np.inf)
logaddexp2 = _make_ufunc(_logaddexp2, "logaddexp2", identity=-np.inf)

# ----------------------------------------------------------------------------- trigonometry

sin = _unary(lax.sin, "sin")
cos = _unary(lax.cos, "cos")
tan = _unary(lax.tan, "tan")
tanh = _unary(lax.tanh, "tanh")
sinh = _unary(lax.sinh, "sinh")
cosh = _unary(lax.cosh, "cosh")
arcsin = asin = _unary(lax.asin, "arcsin")
arccos = acos = _unary(lax.acos, "arccos")
arctan = atan = _unary(lax.atan, "arctan")
arcsinh = asinh = _unary(lax.asinh, "arcsinh")
arccosh = acosh = _unary(lax.acosh, "arccosh")
arctanh = atanh = _unary(lax.atanh, "arctanh")
atan2 = arctan2


def _hypot(x1, x2, /):
  x1, x2 = promote_args_inexact("hypot", x1, x2)
  x1, x2 = lax.abs(x1), lax.abs(x2)
  any_inf = lax.bitwise_or(isinf(x1), isinf(x2))
  big, small = lax.max(x1, x2), lax.min(x1, x2)
  # big * sqrt(1 + (small/big)^2) does not overflow where small^2 + big^2 would
  is_zero = lax.eq(big, _zeros(big))
  ratio = lax.div(small, lax.select(is_zero, _const(big, 1), big))
  r = lax.select(is_zero, big, lax.mul(big, lax.sqrt(lax.add(_const(big, 1),
                                                                lax.mul(ratio, ratio)))))
  return lax.select(any_inf, _const(r, np.inf), r)


hypot = _make_ufunc(_hypot, "hypot")


@_compiled
def sinc(x, /):
  (x,) = promote_args_inexact("sinc", x)
  is_zero = lax.eq(x, _zeros(x))
  pi_x = lax.mul(_const(x, math.pi), lax.select(is_zero, _const(x, 1), x))
  return lax.select(is_zero, _const(x, 1), lax.div(lax.sin(pi_x), pi_x))


@_compiled
def deg2rad(x, /):
  (x,) = promote_args_inexact("deg2rad", x)
  return lax.mul(x, _const(x, math.pi / 180))


@_compiled
def rad2deg(x, /):
  (x,) = promote_args_inexact("rad2deg", x)
  return lax.mul(x, _const(x, 180 / math.pi))


radians, degrees = deg2rad, rad2deg

# ----------------------------------------------------------------------------- rounding


@_compiled
def floor(x, /):
  (x,) = promote_args("floor", x)
  return x if not dtypes.is_inexact(_dtype(x)) else lax.floor(x)


@_compiled
def ceil(x, /):
  (x,) = promote_args("ceil", x)
  return x if not dtypes.is_inexact(_dtype(x)) else lax.ceil(x)


@_compiled
def trunc(x, /):
  (x,) = promote_args("trunc", x)
  if not dtypes.is_inexact(_dtype(x)):
    return x
  return lax.select(lax.lt(x, _zeros(x)), lax.ceil(x), lax.floor(x))


def fix(x, out=None):
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.fix is not supported.")
  return trunc(x)


@_compiled
def rint(x, /):
  (x,) = promote_args_inexact("rint", x)
  if _is_complex(x):
    return lax.complex(rint(lax.real(x)), rint(lax.imag(x)))
  return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)


def round(a, decimals: int = 0, out=None):  # noqa: A001
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.round is not supported.")
  (a,) = promote_args("round", a)
  decimals = int(decimals)
  if not dtypes.is_inexact(_dtype(a)):
    if decimals < 0:
      raise NotImplementedError("integer np.round not implemented for decimals < 0")
    return a
  if _is_complex(a):
    return lax.complex(round(lax.real(a), decimals), round(lax.imag(a), decimals))
  even = lax.RoundingMethod.TO_NEAREST_EVEN
  if decimals == 0:
    return lax.round(a, even)
  factor = _const(a, 10.0 ** decimals)
  return lax.div(lax.round(lax.mul(a, factor), even), factor)


around = round_ = round


def modf(x, /, out=None):
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.modf is not supported.")
  (x,) = promote_args_inexact("modf", x)
  whole = trunc(x)
  return lax.sub(x, whole), whole


# ----------------------------------------------------------------------------- float bits


def _float_layout(dt):
  """(integer dtype of the same width, mantissa bits, exponent bias) of a float dtype."""
  info = dtypes.finfo(dt)
  int_dt = np.dtype({2: np.int16, 4: np.int32, 8: np.int64}[np.dtype(dt).itemsize])
  exp_bits = int(info.bits) - int(info.nmant) - 1
  return int_dt, int(info.nmant), (1 << (exp_bits - 1)) - 1


@_compiled
def signbit(x, /):
  (x,) = promote_args("signbit", x)
  dt = _dtype(x)
  if dt == dtypes.bool_:
    return _bools(x, False)
  if dt.kind in "iu":
    return lax.lt(x, _zeros(x))
  if dtypes.is_complex(dt):
    raise ValueError("jnp.signbit is not defined for complex-valued inputs.")
  int_dt = _float_layout(dt)[0]
  bits = lax.bitcast_convert_type(x, int_dt)
  return lax.lt(bits, lax_shape.full_like(bits, 0))


def _copysign(x1, x2, /):
  x1, x2 = promote_args_inexact("copysign", x1, x2)
  if _is_complex(x1):
    raise TypeError("jnp.copysign does not support complex-valued inputs")
  mag = lax.abs(x1)
  return lax.select(signbit(x2), lax.neg(mag), mag)


copysign = _make_ufunc(_copysign, "copysign")


def frexp(x, /):
  """(mantissa, exponent) with x = mantissa * 2**exponent and 0.5 <= |mantissa| < 1."""
  (x,) = promote_args_inexact("frexp", x)
  if _is_complex(x):
    raise TypeError("jnp.frexp does not support complex-valued inputs")
  dt = _dtype(x)
  int_dt, nmant, bias = _float_layout(dt)
  # Subnormals are scaled into the normal range first.
  is_sub = lax.bitwise_and(lax.lt(lax.abs(x), _const(x, dtypes.finfo(dt).tiny)),
                           lax.ne(x, _zeros(x)))
  scaled = lax.select(is_sub, lax.mul(x, _const(x, 2.0 ** (nmant + 1))), x)
  bits = lax.bitcast_convert_type(scaled, int_dt)
  c = lambda v: lax_shape.full_like(bits, v)
  exp_field = lax.bitwise_and(lax.shift_right_arithmetic(bits, c(nmant)),
                              c((1 << (int(dtypes.finfo(dt).bits) - nmant - 1)) - 1))
  exponent = lax.sub(exp_field, c(bias - 1))
  exponent = lax.select(is_sub, lax.sub(exponent, c(nmant + 1)), exponent)
  mant_bits = lax.bitwise_or(lax.bitwise_and(bits, c(~(((1 << (int(dtypes.finfo(dt).bits)
                                                                  - nmant - 1)) - 1) << nmant))),
                             c((bias - 1) << nmant))
  mantissa = lax.bitcast_convert_type(mant_bits, dt)
  special = lax.bitwise_or(lax.eq(x, _zeros(x)), lax.bitwise_not(lax.is_finite(x)))
  mantissa = lax.select(special, x, mantissa)
  exponent = lax.select(special, _zeros(exponent), exponent)
  return mantissa, lax.convert_element_type(exponent, dtypes.int32)


def _pow2(n, dt):
  """2.0 ** n for an integer array n within the normal exponent range of float dtype dt."""
  int_dt, nmant, bias = _float_layout(dt)
  n = lax.convert_element_type(n, int_dt)
  lo, hi = lax_shape.full_like(n, 1 - bias), lax_shape.full_like(n, bias)
  n = lax.max(lo, lax.min(hi, n))
  biased = lax.shift_left(lax.add(n, lax_shape.full_like(n, bias)), lax_shape.full_like(n, nmant))
  return lax.bitcast_convert_type(biased, dt)


def _ldexp(x1, x2, /):
  check_arraylike("ldexp", x1, x2)
  if not dtypes.is_integer(dtypes.dtype(x2)) and dtypes.dtype(x2) != dtypes.bool_:
    raise ValueError(f"ldexp exponent must be an integer, got {dtypes.dtype(x2).name}")
  (x1,) = promote_args_inexact("ldexp", x1)
  x1, x2 = promote_shapes(x1, x2)
  if _is_complex(x1):
    raise TypeError("jnp.ldexp does not support complex-valued inputs")
  dt = _dtype(x1)
  x2 = lax.convert_element_type(x2, _float_layout(dt)[0])
  # Two factors cover every exponent from the smallest subnormal to overflow.
  half = _int_floor_divide(x2, lax_shape.full_like(x2, 2))
  rest = lax.sub(x2, half)
  return lax.mul(lax.mul(x1, _pow2(half, dt)), _pow2(rest, dt))


ldexp = _make_ufunc(_ldexp, "ldexp")


def _nextafter(x1, x2, /):
  return lax_special.nextafter(*promote_args_inexact("nextafter", x1, x2))


nextafter = _make_ufunc(_nextafter, "nextafter", positional=("x", "y"))


def _heaviside(x1, x2, /):
  x1, x2 = promote_args_inexact("heaviside", x1, x2)
  zero, one = _zeros(x1), _const(x1, 1)
  return lax.select(lax.lt(x1, zero), zero, lax.select(lax.gt(x1, zero), one, x2))


heaviside = _make_ufunc(_heaviside, "heaviside")

# ----------------------------------------------------------------------------- complex parts


@_compiled
def real(val, /):
  (val,) = promote_args("real", val)
  return lax.real(val) if _is_complex(val) else val


@_compiled
def imag(val, /):
  (val,) = promote_args("imag", val)
  return lax.imag(val) if _is_complex(val) else _zeros(val)


@_compiled
def conjugate(x, /):
  (x,) = promote_args("conjugate", x)
  return lax.conj(x) if _is_complex(x) else x


conj = conjugate


def angle(z, deg: bool = False):
  (z,) = promote_args_inexact("angle", z)
  if _is_complex(z):
    re, im = lax.real(z), lax.imag(z)
  else:
    re, im = z, _zeros(z)
  out = lax.atan2(im, re)
  return rad2deg(out) if deg else out


# ----------------------------------------------------------------------------- classification


@_compiled
def isfinite(x, /):
  (x,) = promote_args("isfinite", x)
  if _is_complex(x):
    return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
  if not dtypes.is_inexact(_dtype(x)):
    return _bools(x, True)
  return lax.is_finite(x)


@_compiled
def isinf(x, /):
  (x,) = promote_args("isinf", x)
  if _is_complex(x):
    return lax.bitwise_or(isinf(lax.real(x)), isinf(lax.imag(x)))
  if not dtypes.is_inexact(_dtype(x)):
    return _bools(x, False)
  return lax.eq(lax.abs(x), _const(x, np.inf))


@_compiled
def isnan(x, /):
  (x,) = promote_args("isnan", x)
  if not dtypes.is_inexact(_dtype(x)):
    return _bools(x, False)
  return lax.ne(x, x)


@_compiled
def _isposinf(x):
  (x,) = promote_args("isposinf", x)
  if not dtypes.is_inexact(_dtype(x)):
    return _bools(x, False)
  return lax.eq(x, _const(x, np.inf))


def isposinf(x, /, out=None):
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.isposinf is not supported.")
  return _isposinf(x)


@_compiled
def _isneginf(x):
  (x,) = promote_args("isneginf", x)
  if not dtypes.is_inexact(_dtype(x)):
    return _bools(x, False)
  return lax.eq(x, _const(x, -np.inf))


def isneginf(x, /, out=None):
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.isneginf is not supported.")
  return _isneginf(x)


def nan_to_num(x, copy: bool = True, nan=0.0, posinf=None, neginf=None):
  (x,) = promote_args("nan_to_num", x)
  dt = _dtype(x)
  if not dtypes.is_inexact(dt):
    return x
  if dtypes.is_complex(dt):
    parts = [nan_to_num(p, nan=nan, posinf=posinf, neginf=neginf)
             for p in (lax.real(x), lax.imag(x))]
    return lax.complex(*parts)
  info = dtypes.finfo(dt)
  posinf = float(info.max) if posinf is None else posinf
  neginf = float(info.min) if neginf is None else neginf
  out = lax.select(isnan(x), _const(x, nan), x)
  out = lax.select(isposinf(out), _const(x, posinf), out)
  return lax.select(isneginf(out), _const(x, neginf), out)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
  if prng.is_key(a) or prng.is_key(b):
    return equal(a, b)  # keys are close only when equal, as in JAX
  a, b = promote_args("isclose", a, b)
  dt = _dtype(a)
  if not dtypes.is_inexact(dt):
    # Integers compare through the default float type, as NumPy's formula does.
    a, b = promote_args_inexact("isclose", a, b)
    dt = _dtype(a)
  part = lambda v: lax.real(v) if dtypes.is_complex(dt) else v
  tol_dtype = _dtype(part(a))
  # Tolerances may be arrays: everything broadcasts together, as in NumPy.
  atol_, rtol_ = (lax.convert_element_type(asarray_like(v), tol_dtype) for v in (atol, rtol))
  shape = broadcast_shapes(*(core.get_aval(v).shape for v in (a, b, atol_, rtol_)))
  a, b, atol_, rtol_ = (broadcast_to(v, shape) for v in (a, b, atol_, rtol_))
  tol = lax.add(atol_, lax.mul(rtol_, lax.abs(b)))
  out = lax.le(lax.abs(lax.sub(a, b)), tol)
  a_inf, b_inf = isinf(a), isinf(b)
  out = lax.select(lax.bitwise_or(a_inf, b_inf),
                   lax.bitwise_and(lax.bitwise_and(a_inf, b_inf), lax.eq(a, b)), out)
  if equal_nan:
    out = lax.bitwise_or(out, lax.bitwise_and(isnan(a), isnan(b)))
  return out


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
  return all_(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan: bool = False):
  if prng.is_key(a1) and prng.is_key(a2):
    if a1.dtype != a2.dtype:
      return lax_shape.full((), False, dtypes.bool_)
    a1, a2 = prng.random_unwrap(a1), prng.random_unwrap(a2)  # equal keys: equal key data
  a1, a2 = asarray_like(a1), asarray_like(a2)
  if core.get_aval(a1).shape != core.get_aval(a2).shape:
    return lax_shape.full((), False, dtypes.bool_)
  a1, a2 = promote_dtypes(a1, a2)
  eq = lax.eq(a1, a2)
  if equal_nan:
    eq = lax.bitwise_or(eq, lax.bitwise_and(isnan(a1), isnan(a2)))
  return lax.convert_element_type(all_(eq), dtypes.bool_)


def array_equiv(a1, a2):
  try:
    a1, a2 = promote_args("array_equiv", a1, a2)
  except ValueError:
    return lax_shape.full((), False, dtypes.bool_)
  return lax.convert_element_type(all_(lax.eq(a1, a2)), dtypes.bool_)


# ----------------------------------------------------------------------------- selection


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
  if x is None and y is None:
    return late_op("nonzero")(condition, size=size, fill_value=fill_value)
  if x is None or y is None:
    raise ValueError("Either both or neither of the x and y arguments should be provided to "
                     f"jax.numpy.where, got {x} and {y}.")
  condition = asarray_like(condition)
  x, y = promote_dtypes(x, y)
  shape = broadcast_shapes(*(core.get_aval(v).shape for v in (condition, x, y)))
  c = broadcast_to(condition, shape)
  if not _is_bool(c):
    c = lax.ne(c, _zeros(c))
  return lax.select(c, broadcast_to(x, shape), broadcast_to(y, shape))


def clip(arr=None, /, min=None, max=None, *, a=None, a_min=None, a_max=None):  # noqa: A002
  arr = a if arr is None else arr
  min = a_min if min is None else min  # noqa: A001
  max = a_max if max is None else max  # noqa: A001
  if min is not None:
    arr = _maximum(min, arr)
  if max is not None:
    arr = _minimum(max, arr)
  return arr


# The ufuncs that JAX exposes as plain functions, with their parameters (True: the
# parameters may also be passed by keyword).
_PLAIN_FUNCTION_PARAMS = {
    "arctan2": (("x1", "x2"), False), "copysign": (("x1", "x2"), False),
    "divide": (("x1", "x2"), False), "floor_divide": (("x1", "x2"), False),
    "fmod": (("x1", "x2"), False), "heaviside": (("x1", "x2"), False),
    "hypot": (("x1", "x2"), False), "ldexp": (("x1", "x2"), False),
    "remainder": (("x1", "x2"), False), "power": (("x1", "x2"), False),
    "right_shift": (("x1", "x2"), False), "left_shift": (("x", "y"), False),
    "equal": (("x", "y"), False), "not_equal": (("x", "y"), False),
    "greater": (("x", "y"), False), "greater_equal": (("x", "y"), False),
    "less": (("x", "y"), False), "less_equal": (("x", "y"), False),
    "float_power": (("x", "y"), False), "nextafter": (("x", "y"), False),
    "fmax": (("x1", "x2"), True), "fmin": (("x1", "x2"), True),
    "gcd": (("x1", "x2"), True), "lcm": (("x1", "x2"), True),
}
for _name, (_params, _keywords) in _PLAIN_FUNCTION_PARAMS.items():
  globals()[_name].set_plain_signature(_params, _keywords)
del _name, _params, _keywords

# shape_ops, below this module, multiplies by scalars with it (see util.late_op).
register_late_ops(multiply=multiply)
