"""Elementwise jax.numpy functions with NumPy promotion and broadcasting."""

from __future__ import annotations

from jax._src import core
from jax._src import dtypes
from jax._src.lax import elementwise as lax
from jax._src.numpy.util import promote_args, promote_args_inexact


def _binary(lax_fn, name, inexact=False):
  promote = promote_args_inexact if inexact else promote_args

  def fn(x, y, /):
    return lax_fn(*promote(name, x, y))
  fn.__name__ = name
  return fn


def _unary(lax_fn, name, inexact=False):
  promote = promote_args_inexact if inexact else promote_args

  def fn(x, /):
    return lax_fn(*promote(name, x))
  fn.__name__ = name
  return fn


add = _binary(lax.add, "add")
subtract = _binary(lax.sub, "subtract")
multiply = _binary(lax.mul, "multiply")
true_divide = divide = _binary(lax.div, "true_divide", inexact=True)
maximum = _binary(lax.max, "maximum")
minimum = _binary(lax.min, "minimum")
arctan2 = _binary(lax.atan2, "arctan2", inexact=True)
equal = _binary(lax.eq, "equal")
not_equal = _binary(lax.ne, "not_equal")
less = _binary(lax.lt, "less")
less_equal = _binary(lax.le, "less_equal")
greater = _binary(lax.gt, "greater")
greater_equal = _binary(lax.ge, "greater_equal")
bitwise_and = _binary(lax.bitwise_and, "bitwise_and")
bitwise_or = _binary(lax.bitwise_or, "bitwise_or")
bitwise_xor = _binary(lax.bitwise_xor, "bitwise_xor")

negative = _unary(lax.neg, "negative")
sign = _unary(lax.sign, "sign")
exp = _unary(lax.exp, "exp", inexact=True)
exp2 = _unary(lax.exp2, "exp2", inexact=True)
log = _unary(lax.log, "log", inexact=True)
log1p = _unary(lax.log1p, "log1p", inexact=True)
expm1 = _unary(lax.expm1, "expm1", inexact=True)
sin = _unary(lax.sin, "sin", inexact=True)
cos = _unary(lax.cos, "cos", inexact=True)
tan = _unary(lax.tan, "tan", inexact=True)
tanh = _unary(lax.tanh, "tanh", inexact=True)
sqrt = _unary(lax.sqrt, "sqrt", inexact=True)
cbrt = _unary(lax.cbrt, "cbrt", inexact=True)
isfinite = _unary(lax.is_finite, "isfinite", inexact=True)


def positive(x, /):
  return promote_args("positive", x)[0]


def absolute(x, /):
  (x,) = promote_args("absolute", x)
  return x if core.get_aval(x).dtype.kind in "ub" else lax.abs(x)


abs = absolute  # noqa: A001


def floor(x, /):
  (x,) = promote_args_inexact("floor", x)
  return lax.floor(x)


def ceil(x, /):
  (x,) = promote_args_inexact("ceil", x)
  return lax.ceil(x)


def round(a, decimals: int = 0):  # noqa: A001
  (a,) = promote_args("round", a)
  if not dtypes.is_inexact(core.get_aval(a).dtype):
    return a
  if decimals == 0:
    return lax.round(a, 1)
  factor = 10.0 ** decimals
  return lax.div(lax.round(lax.mul(a, factor), 1), factor)


def square(x, /):
  (x,) = promote_args("square", x)
  return lax.integer_pow(x, 2)


def reciprocal(x, /):
  (x,) = promote_args_inexact("reciprocal", x)
  return lax.integer_pow(x, -1)


def power(x1, x2, /):
  if type(x2) is int and not isinstance(x1, bool):
    (x1,) = promote_args("power", x1)
    if x2 >= 0 or dtypes.is_inexact(core.get_aval(x1).dtype):
      return lax.integer_pow(x1, x2)
  x1, x2 = promote_args("power", x1, x2)
  if not dtypes.is_inexact(core.get_aval(x1).dtype):
    raise NotImplementedError("jnp.power with integer arrays as exponents is not supported yet")
  return lax.pow(x1, x2)


def floor_divide(x1, x2, /):
  x1, x2 = promote_args("floor_divide", x1, x2)
  dt = core.get_aval(x1).dtype
  if dtypes.is_inexact(dt):
    return lax.floor(lax.div(x1, x2))
  if dt.kind == "u" or dt == dtypes.bool_:
    return lax.div(x1, x2)
  q = lax.div(x1, x2)
  r = lax.rem(x1, x2)
  needs_fix = lax.bitwise_and(lax.ne(r, 0), lax.ne(lax.lt(r, 0), lax.lt(x2, 0)))
  return lax.select(needs_fix, lax.sub(q, 1), q)


def remainder(x1, x2, /):
  x1, x2 = promote_args("remainder", x1, x2)
  r = lax.rem(x1, x2)
  if core.get_aval(r).dtype.kind == "u":
    return r
  fix = lax.bitwise_and(lax.ne(r, 0), lax.ne(lax.lt(r, 0), lax.lt(x2, 0)))
  return lax.select(fix, lax.add(r, x2), r)


mod = remainder


def logical_not(x, /):
  (x,) = promote_args("logical_not", x)
  return lax.bitwise_not(lax.ne(x, 0) if core.get_aval(x).dtype != dtypes.bool_ else x)


def invert(x, /):
  (x,) = promote_args("invert", x)
  return lax.bitwise_not(x)


bitwise_not = invert


def _logical(lax_fn, name):
  def fn(x, y, /):
    x, y = promote_args(name, x, y)
    to_bool = lambda v: v if core.get_aval(v).dtype == dtypes.bool_ else lax.ne(v, 0)
    return lax_fn(to_bool(x), to_bool(y))
  fn.__name__ = name
  return fn


logical_and = _logical(lax.bitwise_and, "logical_and")
logical_or = _logical(lax.bitwise_or, "logical_or")
logical_xor = _logical(lax.bitwise_xor, "logical_xor")


def where(condition, x=None, y=None, /):
  if x is None or y is None:
    raise NotImplementedError("jnp.where with one argument (nonzero) is not supported yet")
  from jax._src.numpy.util import asarray_like, broadcast_shapes, broadcast_to, promote_dtypes
  condition = asarray_like(condition)
  x, y = promote_dtypes(x, y)
  shape = broadcast_shapes(*(core.get_aval(v).shape for v in (condition, x, y)))
  c = broadcast_to(condition, shape)
  if core.get_aval(c).dtype != dtypes.bool_:
    c = lax.ne(c, 0)
  return lax.select(c, broadcast_to(x, shape), broadcast_to(y, shape))


def clip(arr, min=None, max=None):  # noqa: A002
  if min is not None:
    arr = maximum(min, arr)
  if max is not None:
    arr = minimum(max, arr)
  return arr
