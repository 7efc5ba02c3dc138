"""jax.scipy.special: special functions built from lax operations.

The gamma family, erfc and the exponentially scaled Bessel functions bind the
lax special-function primitives; the rest are compositions of elementwise lax
ops (series, asymptotic expansions and rational approximations chosen per
range), so jit, vmap and grad all work through them. Where the derivative of the
composition would be wrong or inaccurate at a boundary (xlogy at 0, logsumexp's
shift), the function carries a custom JVP or a stop_gradient.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from jax._src import core
from jax._src.custom_derivatives import custom_jvp, stop_gradient
from jax._src.lax import elementwise as lax
from jax._src.lax import reductions as lax_red
from jax._src.lax import shape as lax_shape
from jax._src.lax import special as lax_special
from jax._src.lax import special_gamma as lax_gamma
from jax._src.numpy import ufuncs as jnp
from jax._src.numpy.util import promote_args_inexact, asarray_like

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _where(pred, x, y):
  return jnp.where(pred, x, y)


def _full_like(x, value):
  return lax_shape.full_like(x, value)


def _is_f64(x) -> bool:
  return core.get_aval(x).dtype == np.float64


# ----------------------------------------------------------------------------- logistic family


def expit(x):
  (x,) = promote_args_inexact("expit", x)
  return lax.logistic(x)


def logit(x):
  (x,) = promote_args_inexact("logit", x)
  return lax.log(lax.div(x, lax.sub(_full_like(x, 1), x)))


# ----------------------------------------------------------------------------- error functions


def erf(x):
  (x,) = promote_args_inexact("erf", x)
  return lax.erf(x)


def erfinv(x):
  (x,) = promote_args_inexact("erfinv", x)
  return lax_special.erf_inv(x)


def erfc(x):
  (x,) = promote_args_inexact("erfc", x)
  return lax_gamma.erfc(x)


def ndtr(x):
  """The standard normal CDF."""
  (x,) = promote_args_inexact("ndtr", x)
  return jnp.multiply(0.5, erfc(jnp.multiply(x, -1 / math.sqrt(2))))


def ndtri(p):
  """The inverse of ndtr."""
  (p,) = promote_args_inexact("ndtri", p)
  return jnp.multiply(math.sqrt(2), lax_special.erf_inv(jnp.subtract(jnp.multiply(2.0, p), 1.0)))


def log_ndtr(x, series_order: int = 3):
  """log(ndtr(x)), accurate far into both tails; the left tail is an asymptotic series with
  `series_order` terms."""
  if not isinstance(series_order, (int, np.integer)) or isinstance(series_order, bool):
    raise TypeError("series_order must be a Python integer.")
  if series_order < 0:
    raise ValueError("series_order must be non-negative.")
  if series_order > 30:
    raise ValueError("series_order must be <= 30.")
  (x,) = promote_args_inexact("log_ndtr", x)
  lower = -20.0 if _is_f64(x) else -10.0
  # Negative side: the CDF itself is representable to full relative precision.
  mid = jnp.log(ndtr(jnp.clip(x, lower, 0.0)))
  # Positive side: log(1 - q) with q = ndtr(-x) small and accurate.
  right = jnp.log1p(jnp.negative(ndtr(jnp.negative(jnp.maximum(x, 0.0)))))
  # Left tail: Mills-ratio asymptotic series.
  xl = jnp.minimum(x, lower)
  inv2 = jnp.divide(1.0, jnp.multiply(xl, xl))
  series = _full_like(xl, 1.0)
  term = _full_like(xl, 1.0)
  for k in range(1, int(series_order) + 1):
    term = jnp.multiply(term, jnp.multiply(inv2, -(2 * k - 1)))
    series = jnp.add(series, term)
  left = jnp.subtract(
      jnp.subtract(jnp.multiply(-0.5, jnp.multiply(xl, xl)), jnp.log(jnp.negative(xl))),
      _HALF_LOG_2PI)
  left = jnp.add(left, jnp.log(series))
  return _where(jnp.less(x, lower), left, _where(jnp.greater(x, 0.0), right, mid))


# ----------------------------------------------------------------------------- gamma family

def gammaln(x):
  """log|Gamma(x)|."""
  (x,) = promote_args_inexact("gammaln", x)
  return lax_gamma.lgamma(x)


def _gamma_sign(x):
  # Gamma is negative on (-2k-1, -2k) for k >= 0.
  negative = jnp.logical_and(jnp.less(x, 0),
                             jnp.equal(jnp.remainder(jnp.floor(x), 2.0), 1.0))
  return _where(negative, _full_like(x, -1.0), _full_like(x, 1.0))


def gammasgn(x):
  (x,) = promote_args_inexact("gammasgn", x)
  return _gamma_sign(x)


def gamma(x):
  (x,) = promote_args_inexact("gamma", x)
  pole = jnp.logical_and(jnp.less_equal(x, 0), jnp.equal(x, jnp.floor(x)))
  out = jnp.multiply(_gamma_sign(x), jnp.exp(gammaln(x)))
  return _where(pole, _full_like(x, np.nan), out)


def betaln(a, b):
  a, b = promote_args_inexact("betaln", a, b)
  return jnp.subtract(jnp.add(gammaln(a), gammaln(b)), gammaln(jnp.add(a, b)))


def beta(a, b):
  a, b = promote_args_inexact("beta", a, b)
  sign = jnp.multiply(jnp.multiply(_gamma_sign(a), _gamma_sign(b)), _gamma_sign(jnp.add(a, b)))
  return jnp.multiply(sign, jnp.exp(betaln(a, b)))


def digamma(x):
  """d/dx log Gamma(x)."""
  (x,) = promote_args_inexact("digamma", x)
  return lax_gamma.digamma(x)


def multigammaln(a, d: int):
  """log of the multivariate gamma function of dimension d."""
  d = operator.index(d)
  (a,) = promote_args_inexact("multigammaln", a)
  total = _full_like(a, d * (d - 1) / 4 * math.log(math.pi))
  for j in range(d):
    total = jnp.add(total, gammaln(jnp.subtract(a, j / 2)))
  return total


# ----------------------------------------------------------------------------- Bessel functions


def i0e(x):
  (x,) = promote_args_inexact("i0e", x)
  return lax_gamma.bessel_i0e(x)


def i0(x):
  (x,) = promote_args_inexact("i0", x)
  return jnp.multiply(jnp.exp(jnp.abs(x)), i0e(x))


def i1e(x):
  (x,) = promote_args_inexact("i1e", x)
  return lax_gamma.bessel_i1e(x)


def i1(x):
  (x,) = promote_args_inexact("i1", x)
  return jnp.multiply(jnp.exp(jnp.abs(x)), i1e(x))


# ----------------------------------------------------------------------------- x log y family


@custom_jvp
def xlogy(x, y):
  """x * log(y), defined as 0 where x == 0 (even when y == 0)."""
  x, y = promote_args_inexact("xlogy", x, y)
  safe = jnp.multiply(x, jnp.log(y))
  return _where(jnp.equal(x, 0), _full_like(safe, 0.0), safe)


@xlogy.defjvp
def _xlogy_jvp(primals, tangents):
  x, y = primals
  tx, ty = tangents
  out = xlogy(x, y)
  return out, jnp.add(jnp.multiply(tx, jnp.log(y)), jnp.multiply(ty, jnp.divide(x, y)))


@custom_jvp
def xlog1py(x, y):
  """x * log1p(y), defined as 0 where x == 0."""
  x, y = promote_args_inexact("xlog1py", x, y)
  safe = jnp.multiply(x, jnp.log1p(y))
  return _where(jnp.equal(x, 0), _full_like(safe, 0.0), safe)


@xlog1py.defjvp
def _xlog1py_jvp(primals, tangents):
  x, y = primals
  tx, ty = tangents
  out = xlog1py(x, y)
  return out, jnp.add(jnp.multiply(tx, jnp.log1p(y)), jnp.multiply(ty, jnp.divide(x, jnp.add(y, 1.0))))


def entr(x):
  """-x log x for x > 0, 0 at 0, -inf for x < 0."""
  (x,) = promote_args_inexact("entr", x)
  pos = jnp.negative(xlogy(x, x))
  return _where(jnp.less(x, 0), _full_like(x, -np.inf), pos)


def kl_div(p, q):
  p, q = promote_args_inexact("kl_div", p, q)
  inner = jnp.add(jnp.subtract(xlogy(p, jnp.divide(p, q)), p), q)
  invalid = jnp.logical_or(jnp.less(p, 0), jnp.less(q, 0))
  zero_p = jnp.logical_and(jnp.equal(p, 0), jnp.greater_equal(q, 0))
  return _where(invalid, _full_like(p, np.inf), _where(zero_p, q, inner))


def rel_entr(p, q):
  p, q = promote_args_inexact("rel_entr", p, q)
  both_pos = jnp.logical_and(jnp.greater(p, 0), jnp.greater(q, 0))
  inner = xlogy(p, jnp.divide(p, q))
  zero_p = jnp.logical_and(jnp.equal(p, 0), jnp.greater_equal(q, 0))
  return _where(both_pos, inner, _where(zero_p, _full_like(p, 0.0), _full_like(p, np.inf)))


# ----------------------------------------------------------------------------- logsumexp / softmax


def reduce_axes(ndim: int, axis) -> tuple[int, ...]:
  if axis is None:
    return tuple(range(ndim))
  axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
  out = []
  for a in axes:
    a = int(a)
    if not -ndim <= a < max(ndim, 1):
      raise ValueError(f"axis {a} is out of bounds for array of dimension {ndim}")
    out.append(a % ndim if ndim else 0)
  if len(set(out)) != len(out):
    raise ValueError(f"duplicate value in 'axis': {axis}")
  return tuple(sorted(out))


def keep_dims(x, shape, axes):
  """Reshape a reduced value so the reduced axes are kept with size 1."""
  return lax_shape.reshape(x, tuple(1 if i in axes else s for i, s in enumerate(shape)))


def broadcast_back(x, shape, axes):
  kept = tuple(i for i in range(len(shape)) if i not in axes)
  return lax_shape.broadcast_in_dim(x, tuple(shape), kept)


def logsumexp(a, axis=None, b=None, keepdims: bool = False, return_sign: bool = False,
              where=None):
  """log(sum(b * exp(a))) along `axis`, computed with the maximum shifted out."""
  if b is not None:
    a, b = promote_args_inexact("logsumexp", a, b)
    a = _where(jnp.not_equal(b, 0), a, _full_like(a, -np.inf))
  else:
    (a,) = promote_args_inexact("logsumexp", a)
  shape = core.get_aval(a).shape
  axes = reduce_axes(len(shape), axis)
  if where is not None:
    where = lax_shape.broadcast_in_dim(asarray_like(where), shape, tuple(
        range(len(shape) - core.get_aval(asarray_like(where)).ndim, len(shape)))) \
        if core.get_aval(asarray_like(where)).shape != shape else asarray_like(where)
    a_for_max = _where(where, a, _full_like(a, -np.inf))
  else:
    a_for_max = a
  amax = lax_red.reduce_max(a_for_max, axes)
  amax = stop_gradient(_where(lax.is_finite(amax), amax, _full_like(amax, 0.0)))
  exp_a = jnp.exp(jnp.subtract(a, broadcast_back(amax, shape, axes)))
  if b is not None:
    exp_a = jnp.multiply(exp_a, b)
  if where is not None:
    exp_a = _where(where, exp_a, _full_like(exp_a, 0.0))
  sumexp = lax_red.reduce_sum(exp_a, axes)
  sign = lax.sign(sumexp)
  out = jnp.add(jnp.log(jnp.abs(sumexp)), amax)
  if keepdims:
    out, sign = keep_dims(out, shape, axes), keep_dims(sign, shape, axes)
  if return_sign:
    return out, sign
  if b is not None:
    out = _where(jnp.less(sign, 0), _full_like(out, np.nan), out)
  return out


def softmax(x, axis=-1):
  (x,) = promote_args_inexact("softmax", x)
  shape = core.get_aval(x).shape
  axes = reduce_axes(len(shape), axis)
  unnormalized = jnp.exp(jnp.subtract(x, broadcast_back(lax_red.reduce_max(x, axes), shape, axes)))
  return jnp.divide(unnormalized,
                    broadcast_back(lax_red.reduce_sum(unnormalized, axes), shape, axes))


def log_softmax(x, axis=-1):
  (x,) = promote_args_inexact("log_softmax", x)
  shape = core.get_aval(x).shape
  axes = reduce_axes(len(shape), axis)
  shifted = jnp.subtract(x, stop_gradient(
      broadcast_back(lax_red.reduce_max(x, axes), shape, axes)))
  lse = jnp.log(lax_red.reduce_sum(jnp.exp(shifted), axes))
  return jnp.subtract(shifted, broadcast_back(lse, shape, axes))

