"""jax.scipy.special: special functions built from lax operations.

None of these is a primitive: each is a composition of elementwise lax ops
(series, asymptotic expansions and rational approximations chosen per range),
so jit, vmap and grad all work through them. Where the derivative of the
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
from jax._src.numpy import ufuncs as jnp
from jax._src.numpy.util import promote_args_inexact, asarray_like

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _where(pred, x, y):
  return jnp.where(pred, x, y)


def _full_like(x, value):
  return lax_shape.full_like(x, value)


def _is_f64(x) -> bool:
  return core.get_aval(x).dtype == np.float64


def _polyval(coeffs, x):
  """Horner's rule, highest-degree coefficient first."""
  acc = _full_like(x, coeffs[0])
  for c in coeffs[1:]:
    acc = jnp.add(jnp.multiply(acc, x), c)
  return acc


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


# Chebyshev-fitted exponent for erfc (fractional error below 1.2e-7 for every x >= 0).
_ERFC_EXPONENT = (0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807,
                  -0.18628806, 0.09678418, 0.37409196, 1.00002368, -1.26551223)


def _erfc_continued_fraction(ax, terms: int = 60):
  """erfc(x) = exp(-x^2)/sqrt(pi) / (x + 1/2/(x + 1/(x + 3/2/(x + ...)))), for large x."""
  acc = ax
  for k in range(terms, 0, -1):
    acc = jnp.add(ax, jnp.divide(k / 2.0, acc))
  return jnp.divide(jnp.exp(jnp.negative(jnp.multiply(ax, ax))), jnp.multiply(acc, math.sqrt(math.pi)))


def _erfc_nonneg(ax):
  """erfc for ax >= 0 with relative accuracy in the tail (where 1 - erf cancels)."""
  if _is_f64(ax):
    # Below 2 the cancellation in 1 - erf costs at most a factor erfc(2)^-1 ~ 200 of relative
    # precision; from 2 on, 60 terms of the continued fraction are exact to rounding.
    safe = jnp.maximum(ax, 2.0)
    return _where(jnp.less(ax, 2.0), jnp.subtract(1.0, lax.erf(ax)), _erfc_continued_fraction(safe))
  t = jnp.divide(1.0, jnp.add(1.0, jnp.multiply(0.5, ax)))
  exponent = jnp.subtract(_polyval(_ERFC_EXPONENT, t), jnp.multiply(ax, ax))
  tail = jnp.multiply(t, jnp.exp(exponent))
  return _where(jnp.less(ax, 0.5), jnp.subtract(1.0, lax.erf(ax)), tail)


def erfc(x):
  (x,) = promote_args_inexact("erfc", x)
  pos = _erfc_nonneg(jnp.abs(x))
  return _where(jnp.less(x, 0), jnp.subtract(2.0, pos), pos)


def ndtr(x):
  """The standard normal CDF."""
  (x,) = promote_args_inexact("ndtr", x)
  return jnp.multiply(0.5, erfc(jnp.multiply(x, -1 / math.sqrt(2))))


def ndtri(p):
  """The inverse of ndtr."""
  (p,) = promote_args_inexact("ndtri", p)
  return jnp.multiply(math.sqrt(2), lax_special.erf_inv(jnp.subtract(jnp.multiply(2.0, p), 1.0)))


def log_ndtr(x):
  """log(ndtr(x)), accurate far into both tails."""
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
  for k in range(1, 8):
    term = jnp.multiply(term, jnp.multiply(inv2, -(2 * k - 1)))
    series = jnp.add(series, term)
  left = jnp.subtract(
      jnp.subtract(jnp.multiply(-0.5, jnp.multiply(xl, xl)), jnp.log(jnp.negative(xl))),
      _HALF_LOG_2PI)
  left = jnp.add(left, jnp.log(series))
  return _where(jnp.less(x, lower), left, _where(jnp.greater(x, 0.0), right, mid))


# ----------------------------------------------------------------------------- gamma family

# Lanczos approximation, g = 7, nine terms.
_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012,
            9.9843695780195716e-6, 1.5056327351493116e-7)


def _lgamma_lanczos(x):
  """log|Gamma(x)| for x >= 0.5."""
  z = jnp.subtract(x, 1.0)
  acc = _full_like(z, _LANCZOS[0])
  for i, c in enumerate(_LANCZOS[1:], start=1):
    acc = jnp.add(acc, jnp.divide(c, jnp.add(z, float(i))))
  t = jnp.add(z, _LANCZOS_G + 0.5)
  return jnp.add(jnp.subtract(jnp.multiply(jnp.add(z, 0.5), jnp.log(t)), t),
                 jnp.add(jnp.log(acc), _HALF_LOG_2PI))


def _sin_pi(x):
  """sin(pi x), with the argument reduced first so that integers give exact zeros."""
  r = jnp.subtract(x, jnp.multiply(2.0, jnp.floor(jnp.multiply(x, 0.5))))  # in [0, 2)
  return jnp.sin(jnp.multiply(math.pi, r))


def gammaln(x):
  """log|Gamma(x)|."""
  (x,) = promote_args_inexact("gammaln", x)
  reflect = jnp.less(x, 0.5)
  direct = _lgamma_lanczos(_where(reflect, jnp.subtract(1.0, x), x))
  sin_term = jnp.abs(_sin_pi(x))
  reflected = jnp.subtract(jnp.log(jnp.divide(math.pi, sin_term)), direct)
  return _where(reflect, reflected, direct)


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
  """d/dx log Gamma(x): recurrence up to x >= 6, then the asymptotic series."""
  (x,) = promote_args_inexact("digamma", x)
  reflect = jnp.less(x, 0.5)
  y = _where(reflect, jnp.subtract(1.0, x), x)
  shift = _full_like(y, 0.0)
  for k in range(6):
    shift = jnp.add(shift, jnp.divide(1.0, jnp.add(y, float(k))))
  w = jnp.add(y, 6.0)
  inv2 = jnp.divide(1.0, jnp.multiply(w, w))
  # Bernoulli-number terms: 1/12, -1/120, 1/252, -1/240, 1/132 over even powers of w.
  tail = jnp.multiply(inv2, _polyval((1 / 132, -1 / 240, 1 / 252, -1 / 120, 1 / 12), inv2))
  psi = jnp.subtract(jnp.subtract(jnp.subtract(jnp.log(w), jnp.divide(0.5, w)), tail), shift)
  # psi(1 - x) - psi(x) = pi / tan(pi x)
  r = jnp.subtract(x, jnp.floor(x))
  cot = jnp.divide(math.pi, jnp.tan(jnp.multiply(math.pi, r)))
  reflected = jnp.subtract(psi, cot)
  pole = jnp.logical_and(jnp.less_equal(x, 0), jnp.equal(x, jnp.floor(x)))
  out = _where(reflect, reflected, psi)
  return _where(pole, _full_like(x, np.nan), out)


def multigammaln(a, d: int):
  """log of the multivariate gamma function of dimension d."""
  d = operator.index(d)
  (a,) = promote_args_inexact("multigammaln", a)
  total = _full_like(a, d * (d - 1) / 4 * math.log(math.pi))
  for j in range(d):
    total = jnp.add(total, gammaln(jnp.subtract(a, j / 2)))
  return total


# ----------------------------------------------------------------------------- Bessel functions


def _bessel_ie(ax, nu: int):
  """exp(-x) I_nu(x) for x >= 0 and nu in {0, 1}: power series below 15, Hankel series above."""
  terms = 60 if _is_f64(ax) else 40
  small = jnp.minimum(ax, 15.0)
  q = jnp.multiply(0.25, jnp.multiply(small, small))
  # sum_k q^k / (k! (k + nu)!), by Horner from the highest term down.
  coeffs = [1.0 / (math.factorial(k) * math.factorial(k + nu)) for k in range(terms)]
  series = _polyval(coeffs[::-1], q)
  if nu == 1:
    series = jnp.multiply(series, jnp.multiply(0.5, small))
  series = jnp.multiply(series, jnp.exp(jnp.negative(small)))
  large = jnp.maximum(ax, 15.0)
  inv8x = jnp.divide(1.0, jnp.multiply(8.0, large))
  total = _full_like(large, 1.0)
  term = _full_like(large, 1.0)
  for k in range(1, 20):
    term = jnp.multiply(term, jnp.multiply(inv8x, ((2 * k - 1) ** 2 - 4 * nu * nu) / k))
    total = jnp.add(total, term)
  asym = jnp.divide(total, jnp.sqrt(jnp.multiply(2 * math.pi, large)))
  return _where(jnp.less_equal(ax, 15.0), series, asym)


def i0e(x):
  (x,) = promote_args_inexact("i0e", x)
  return _bessel_ie(jnp.abs(x), 0)


def i0(x):
  (x,) = promote_args_inexact("i0", x)
  return jnp.multiply(jnp.exp(jnp.abs(x)), i0e(x))


def i1e(x):
  (x,) = promote_args_inexact("i1e", x)
  out = _bessel_ie(jnp.abs(x), 1)
  return _where(jnp.less(x, 0), jnp.negative(out), out)


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


def _reduce_axes(ndim: int, axis) -> tuple[int, ...]:
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


def _keep_dims(x, shape, axes):
  """Reshape a reduced value so the reduced axes are kept with size 1."""
  return lax_shape.reshape(x, tuple(1 if i in axes else s for i, s in enumerate(shape)))


def _broadcast_back(x, shape, axes):
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
  axes = _reduce_axes(len(shape), axis)
  if where is not None:
    where = lax_shape.broadcast_in_dim(asarray_like(where), shape, tuple(
        range(len(shape) - core.get_aval(asarray_like(where)).ndim, len(shape)))) \
        if core.get_aval(asarray_like(where)).shape != shape else asarray_like(where)
    a_for_max = _where(where, a, _full_like(a, -np.inf))
  else:
    a_for_max = a
  amax = lax_red.reduce_max(a_for_max, axes)
  amax = stop_gradient(_where(lax.is_finite(amax), amax, _full_like(amax, 0.0)))
  exp_a = jnp.exp(jnp.subtract(a, _broadcast_back(amax, shape, axes)))
  if b is not None:
    exp_a = jnp.multiply(exp_a, b)
  if where is not None:
    exp_a = _where(where, exp_a, _full_like(exp_a, 0.0))
  sumexp = lax_red.reduce_sum(exp_a, axes)
  sign = lax.sign(sumexp)
  out = jnp.add(jnp.log(jnp.abs(sumexp)), amax)
  if keepdims:
    out, sign = _keep_dims(out, shape, axes), _keep_dims(sign, shape, axes)
  if return_sign:
    return out, sign
  if b is not None:
    out = _where(jnp.less(sign, 0), _full_like(out, np.nan), out)
  return out


def softmax(x, axis=-1):
  (x,) = promote_args_inexact("softmax", x)
  shape = core.get_aval(x).shape
  axes = _reduce_axes(len(shape), axis)
  unnormalized = jnp.exp(jnp.subtract(x, _broadcast_back(lax_red.reduce_max(x, axes), shape, axes)))
  return jnp.divide(unnormalized,
                    _broadcast_back(lax_red.reduce_sum(unnormalized, axes), shape, axes))


def log_softmax(x, axis=-1):
  (x,) = promote_args_inexact("log_softmax", x)
  shape = core.get_aval(x).shape
  axes = _reduce_axes(len(shape), axis)
  shifted = jnp.subtract(x, stop_gradient(
      _broadcast_back(lax_red.reduce_max(x, axes), shape, axes)))
  lse = jnp.log(lax_red.reduce_sum(jnp.exp(shifted), axes))
  return jnp.subtract(shifted, _broadcast_back(lse, shape, axes))

