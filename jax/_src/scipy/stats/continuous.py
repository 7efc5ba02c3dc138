"""Univariate continuous distributions of jax.scipy.stats, in SciPy's loc/scale form.

Every density is written in log space first (pdf = exp(logpdf)); outside the support
logpdf is -inf, the CDF 0 or 1. Tail functions use the complementary special function
(sf through the upper incomplete gamma, logsf through log_ndtr(-z), ...) so they stay
accurate where 1 - cdf would cancel.
"""

from __future__ import annotations

import math

import numpy as np

from jax._src.numpy import namespace as jnp
from jax._src.numpy.util import promote_args_inexact
from jax._src.scipy import special as sp
from jax._src.scipy import special_more as sp2

_LOG_2PI = math.log(2 * math.pi)


def _z(name, x, loc, scale, *params):
  x, loc, scale, *params = promote_args_inexact(name, x, loc, scale, *params)
  return (x - loc) / scale, scale, params


def _log1mexp(x):
  """log(1 - exp(x)) for x <= 0, accurate at both ends."""
  return jnp.where(x > -math.log(2), jnp.log(-jnp.expm1(x)), jnp.log1p(-jnp.exp(x)))

# ----------------------------------------------------------------------------- norm


def norm_logpdf(x, loc=0, scale=1):
  z, scale, _ = _z("norm.logpdf", x, loc, scale)
  return -0.5 * (z * z) - 0.5 * _LOG_2PI - jnp.log(scale)


def norm_pdf(x, loc=0, scale=1):
  return jnp.exp(norm_logpdf(x, loc, scale))


def norm_cdf(x, loc=0, scale=1):
  z, _, _ = _z("norm.cdf", x, loc, scale)
  return sp.ndtr(z)


def norm_logcdf(x, loc=0, scale=1):
  z, _, _ = _z("norm.logcdf", x, loc, scale)
  return sp.log_ndtr(z)


def norm_sf(x, loc=0, scale=1):
  z, _, _ = _z("norm.sf", x, loc, scale)
  return sp.ndtr(-z)


def norm_logsf(x, loc=0, scale=1):
  z, _, _ = _z("norm.logsf", x, loc, scale)
  return sp.log_ndtr(-z)


def norm_ppf(q, loc=0, scale=1):
  q, loc, scale = promote_args_inexact("norm.ppf", q, loc, scale)
  return sp.ndtri(q) * scale + loc


def norm_isf(q, loc=0, scale=1):
  q, loc, scale = promote_args_inexact("norm.isf", q, loc, scale)
  return -sp.ndtri(q) * scale + loc

# ----------------------------------------------------------------------------- expon


def expon_logpdf(x, loc=0, scale=1):
  z, scale, _ = _z("expon.logpdf", x, loc, scale)
  return jnp.where(z < 0, -np.inf, -z - jnp.log(scale))


def expon_pdf(x, loc=0, scale=1):
  return jnp.exp(expon_logpdf(x, loc, scale))


def expon_cdf(x, loc=0, scale=1):
  z, _, _ = _z("expon.cdf", x, loc, scale)
  return jnp.where(z < 0, 0.0, -jnp.expm1(-jnp.maximum(z, 0)))


def expon_logcdf(x, loc=0, scale=1):
  z, _, _ = _z("expon.logcdf", x, loc, scale)
  return jnp.where(z < 0, -np.inf, _log1mexp(-jnp.maximum(z, 0)))


def expon_sf(x, loc=0, scale=1):
  z, _, _ = _z("expon.sf", x, loc, scale)
  return jnp.where(z < 0, 1.0, jnp.exp(-z))


def expon_logsf(x, loc=0, scale=1):
  z, _, _ = _z("expon.logsf", x, loc, scale)
  return jnp.where(z < 0, 0.0, -z)


def expon_ppf(q, loc=0, scale=1):
  q, loc, scale = promote_args_inexact("expon.ppf", q, loc, scale)
  out = -jnp.log1p(-q) * scale + loc
  return jnp.where((q < 0) | (q > 1), np.nan, out)

# ----------------------------------------------------------------------------- uniform


def uniform_logpdf(x, loc=0, scale=1):
  x, loc, scale = promote_args_inexact("uniform.logpdf", x, loc, scale)
  inside = (x >= loc) & (x <= loc + scale)
  return jnp.where(inside, -jnp.log(scale), -np.inf)


def uniform_pdf(x, loc=0, scale=1):
  return jnp.exp(uniform_logpdf(x, loc, scale))


def uniform_cdf(x, loc=0, scale=1):
  z, _, _ = _z("uniform.cdf", x, loc, scale)
  return jnp.clip(z, 0.0, 1.0)


def uniform_ppf(q, loc=0, scale=1):
  q, loc, scale = promote_args_inexact("uniform.ppf", q, loc, scale)
  return jnp.where((q < 0) | (q > 1), np.nan, q * scale + loc)

# ----------------------------------------------------------------------------- cauchy


def cauchy_logpdf(x, loc=0, scale=1):
  z, scale, _ = _z("cauchy.logpdf", x, loc, scale)
  return -math.log(math.pi) - jnp.log(scale) - jnp.log1p(z * z)


def cauchy_pdf(x, loc=0, scale=1):
  return jnp.exp(cauchy_logpdf(x, loc, scale))


def _cauchy_tail(z):
  """P(Z > z) = arctan2(1, z) / pi, accurate for large z."""
  return jnp.arctan2(jnp.ones_like(z), z) / math.pi


def cauchy_cdf(x, loc=0, scale=1):
  z, _, _ = _z("cauchy.cdf", x, loc, scale)
  return _cauchy_tail(-z)


def cauchy_logcdf(x, loc=0, scale=1):
  return jnp.log(cauchy_cdf(x, loc, scale))


def cauchy_sf(x, loc=0, scale=1):
  z, _, _ = _z("cauchy.sf", x, loc, scale)
  return _cauchy_tail(z)


def cauchy_logsf(x, loc=0, scale=1):
  return jnp.log(cauchy_sf(x, loc, scale))


def _cauchy_std_ppf(q):
  """-cot(pi q), from the nearer end of (0, 1) so both tails keep relative accuracy."""
  lower = q <= 0.5
  out = jnp.where(lower, -1 / jnp.tan(math.pi * jnp.where(lower, q, 0.25)),
                  1 / jnp.tan(math.pi * jnp.where(lower, 0.75, 1 - q)))
  out = jnp.where(q == 0, -np.inf, jnp.where(q == 1, np.inf, out))
  return jnp.where((q < 0) | (q > 1), np.nan, out)


def cauchy_ppf(q, loc=0, scale=1):
  q, loc, scale = promote_args_inexact("cauchy.ppf", q, loc, scale)
  return loc + scale * _cauchy_std_ppf(q)


def cauchy_isf(q, loc=0, scale=1):
  q, loc, scale = promote_args_inexact("cauchy.isf", q, loc, scale)
  return loc - scale * _cauchy_std_ppf(q)


# ----------------------------------------------------------------------------- logistic


def logistic_logpdf(x, loc=0, scale=1):
  z, scale, _ = _z("logistic.logpdf", x, loc, scale)
  az = jnp.abs(z)
  return -az - 2 * jnp.log1p(jnp.exp(-az)) - jnp.log(scale)


def logistic_pdf(x, loc=0, scale=1):
  return jnp.exp(logistic_logpdf(x, loc, scale))


def logistic_cdf(x, loc=0, scale=1):
  z, _, _ = _z("logistic.cdf", x, loc, scale)
  return sp.expit(z)


def logistic_sf(x, loc=0, scale=1):
  z, _, _ = _z("logistic.sf", x, loc, scale)
  return sp.expit(-z)


def logistic_ppf(x, loc=0, scale=1):
  x, loc, scale = promote_args_inexact("logistic.ppf", x, loc, scale)
  return jnp.where((x < 0) | (x > 1), np.nan, sp.logit(x) * scale + loc)


def logistic_isf(x, loc=0, scale=1):
  x, loc, scale = promote_args_inexact("logistic.isf", x, loc, scale)
  return jnp.where((x < 0) | (x > 1), np.nan, -sp.logit(x) * scale + loc)

# ----------------------------------------------------------------------------- laplace


def laplace_logpdf(x, loc=0, scale=1):
  z, scale, _ = _z("laplace.logpdf", x, loc, scale)
  return -math.log(2) - jnp.log(scale) - jnp.abs(z)


def laplace_pdf(x, loc=0, scale=1):
  return jnp.exp(laplace_logpdf(x, loc, scale))


def laplace_cdf(x, loc=0, scale=1):
  z, _, _ = _z("laplace.cdf", x, loc, scale)
  half = 0.5 * jnp.exp(-jnp.abs(z))
  return jnp.where(z < 0, half, 1 - half)

# ----------------------------------------------------------------------------- gamma, chi2


def gamma_logpdf(x, a, loc=0, scale=1):
  z, scale, (a,) = _z("gamma.logpdf", x, loc, scale, a)
  zs = jnp.maximum(z, 0)
  out = sp.xlogy(a - 1, zs) - zs - sp.gammaln(a) - jnp.log(scale)
  return jnp.where(z < 0, -np.inf, out)


def gamma_pdf(x, a, loc=0, scale=1):
  return jnp.exp(gamma_logpdf(x, a, loc, scale))


def gamma_cdf(x, a, loc=0, scale=1):
  z, _, (a,) = _z("gamma.cdf", x, loc, scale, a)
  return sp2.gammainc(a, jnp.maximum(z, 0))


def gamma_logcdf(x, a, loc=0, scale=1):
  return jnp.log(gamma_cdf(x, a, loc, scale))


def gamma_sf(x, a, loc=0, scale=1):
  z, _, (a,) = _z("gamma.sf", x, loc, scale, a)
  return sp2.gammaincc(a, jnp.maximum(z, 0))


def gamma_logsf(x, a, loc=0, scale=1):
  return jnp.log(gamma_sf(x, a, loc, scale))


def chi2_logpdf(x, df, loc=0, scale=1):
  x, df, loc, scale = promote_args_inexact("chi2.logpdf", x, df, loc, scale)
  return gamma_logpdf(x, df / 2, loc, 2 * scale)


def chi2_pdf(x, df, loc=0, scale=1):
  return jnp.exp(chi2_logpdf(x, df, loc, scale))


def chi2_cdf(x, df, loc=0, scale=1):
  x, df, loc, scale = promote_args_inexact("chi2.cdf", x, df, loc, scale)
  return gamma_cdf(x, df / 2, loc, 2 * scale)


def chi2_logcdf(x, df, loc=0, scale=1):
  return jnp.log(chi2_cdf(x, df, loc, scale))


def chi2_sf(x, df, loc=0, scale=1):
  x, df, loc, scale = promote_args_inexact("chi2.sf", x, df, loc, scale)
  return gamma_sf(x, df / 2, loc, 2 * scale)


def chi2_logsf(x, df, loc=0, scale=1):
  return jnp.log(chi2_sf(x, df, loc, scale))

# ----------------------------------------------------------------------------- beta


def beta_logpdf(x, a, b, loc=0, scale=1):
  z, scale, (a, b) = _z("beta.logpdf", x, loc, scale, a, b)
  zc = jnp.clip(z, 0, 1)
  out = sp.xlogy(a - 1, zc) + sp.xlog1py(b - 1, -zc) - sp.betaln(a, b) - jnp.log(scale)
  return jnp.where((z < 0) | (z > 1), -np.inf, out)


def beta_pdf(x, a, b, loc=0, scale=1):
  return jnp.exp(beta_logpdf(x, a, b, loc, scale))


def beta_cdf(x, a, b, loc=0, scale=1):
  z, _, (a, b) = _z("beta.cdf", x, loc, scale, a, b)
  return sp2.betainc(a, b, jnp.clip(z, 0, 1))


def beta_logcdf(x, a, b, loc=0, scale=1):
  return jnp.log(beta_cdf(x, a, b, loc, scale))


def beta_sf(x, a, b, loc=0, scale=1):
  z, _, (a, b) = _z("beta.sf", x, loc, scale, a, b)
  return sp2.betainc(b, a, 1 - jnp.clip(z, 0, 1))


def beta_logsf(x, a, b, loc=0, scale=1):
  return jnp.log(beta_sf(x, a, b, loc, scale))

# ----------------------------------------------------------------------------- t


def t_logpdf(x, df, loc=0, scale=1):
  z, scale, (df,) = _z("t.logpdf", x, loc, scale, df)
  half = (df + 1) / 2
  return (sp.gammaln(half) - sp.gammaln(df / 2) - 0.5 * jnp.log(df * math.pi)
          - jnp.log(scale) - half * jnp.log1p(z * z / df))


def t_pdf(x, df, loc=0, scale=1):
  return jnp.exp(t_logpdf(x, df, loc, scale))

# ----------------------------------------------------------------------------- pareto


def pareto_logpdf(x, b, loc=0, scale=1):
  z, scale, (b,) = _z("pareto.logpdf", x, loc, scale, b)
  out = jnp.log(b) - (b + 1) * jnp.log(jnp.maximum(z, 1)) - jnp.log(scale)
  return jnp.where(z < 1, -np.inf, out)


def pareto_pdf(x, b, loc=0, scale=1):
  return jnp.exp(pareto_logpdf(x, b, loc, scale))


def pareto_logsf(x, b, loc=0, scale=1):
  z, _, (b,) = _z("pareto.logsf", x, loc, scale, b)
  return jnp.where(z < 1, 0.0, -b * jnp.log(jnp.maximum(z, 1)))


def pareto_sf(x, b, loc=0, scale=1):
  return jnp.exp(pareto_logsf(x, b, loc, scale))


def pareto_cdf(x, b, loc=0, scale=1):
  return -jnp.expm1(pareto_logsf(x, b, loc, scale))


def pareto_logcdf(x, b, loc=0, scale=1):
  return _log1mexp(pareto_logsf(x, b, loc, scale))


def pareto_ppf(q, b, loc=0, scale=1):
  q, b, loc, scale = promote_args_inexact("pareto.ppf", q, b, loc, scale)
  out = jnp.exp(-jnp.log1p(-q) / b) * scale + loc
  return jnp.where((q < 0) | (q > 1), np.nan, out)

# ----------------------------------------------------------------------------- gumbel


def gumbel_r_logpdf(x, loc=0, scale=1):
  z, scale, _ = _z("gumbel_r.logpdf", x, loc, scale)
  return -z - jnp.exp(-z) - jnp.log(scale)


def gumbel_r_pdf(x, loc=0, scale=1):
  return jnp.exp(gumbel_r_logpdf(x, loc, scale))


def gumbel_r_logcdf(x, loc=0, scale=1):
  z, _, _ = _z("gumbel_r.logcdf", x, loc, scale)
  return -jnp.exp(-z)


def gumbel_r_cdf(x, loc=0, scale=1):
  return jnp.exp(gumbel_r_logcdf(x, loc, scale))


def gumbel_r_sf(x, loc=0, scale=1):
  return -jnp.expm1(gumbel_r_logcdf(x, loc, scale))


def gumbel_r_logsf(x, loc=0, scale=1):
  return _log1mexp(gumbel_r_logcdf(x, loc, scale))


def gumbel_r_ppf(p, loc=0, scale=1):
  p, loc, scale = promote_args_inexact("gumbel_r.ppf", p, loc, scale)
  out = -jnp.log(-jnp.log(p)) * scale + loc
  return jnp.where((p < 0) | (p > 1), np.nan, out)


def gumbel_l_logpdf(x, loc=0, scale=1):
  z, scale, _ = _z("gumbel_l.logpdf", x, loc, scale)
  return z - jnp.exp(z) - jnp.log(scale)


def gumbel_l_pdf(x, loc=0, scale=1):
  return jnp.exp(gumbel_l_logpdf(x, loc, scale))


def gumbel_l_logsf(x, loc=0, scale=1):
  z, _, _ = _z("gumbel_l.logsf", x, loc, scale)
  return -jnp.exp(z)


def gumbel_l_sf(x, loc=0, scale=1):
  return jnp.exp(gumbel_l_logsf(x, loc, scale))


def gumbel_l_cdf(x, loc=0, scale=1):
  return -jnp.expm1(gumbel_l_logsf(x, loc, scale))


def gumbel_l_logcdf(x, loc=0, scale=1):
  return _log1mexp(gumbel_l_logsf(x, loc, scale))


def gumbel_l_ppf(p, loc=0, scale=1):
  p, loc, scale = promote_args_inexact("gumbel_l.ppf", p, loc, scale)
  out = jnp.log(-jnp.log1p(-p)) * scale + loc
  return jnp.where((p < 0) | (p > 1), np.nan, out)

# ----------------------------------------------------------------------------- gennorm


def gennorm_logpdf(x, beta):
  x, beta = promote_args_inexact("gennorm.logpdf", x, beta)
  return jnp.log(beta) - math.log(2) - sp.gammaln(1 / beta) - jnp.abs(x) ** beta


def gennorm_pdf(x, beta):
  return jnp.exp(gennorm_logpdf(x, beta))


def gennorm_cdf(x, beta):
  x, beta = promote_args_inexact("gennorm.cdf", x, beta)
  return 0.5 + 0.5 * jnp.sign(x) * sp2.gammainc(1 / beta, jnp.abs(x) ** beta)

# ----------------------------------------------------------------------------- truncnorm


def _log_mass(a, b):
  """log(ndtr(b) - ndtr(a)), taken on the side of zero where the tail is small."""
  upper = a > 0  # both limits in the right tail: use the reflected interval
  lo, hi = jnp.where(upper, -b, a), jnp.where(upper, -a, b)
  log_hi, log_lo = sp.log_ndtr(hi), sp.log_ndtr(lo)
  return log_hi + _log1mexp(log_lo - log_hi)


def _truncnorm_args(name, x, a, b, loc, scale):
  z, scale, (a, b) = _z(name, x, loc, scale, a, b)
  return z, scale, a, b


def truncnorm_logpdf(x, a, b, loc=0, scale=1):
  z, scale, a, b = _truncnorm_args("truncnorm.logpdf", x, a, b, loc, scale)
  out = -0.5 * z * z - 0.5 * _LOG_2PI - jnp.log(scale) - _log_mass(a, b)
  return jnp.where((z < a) | (z > b), -np.inf, out)


def truncnorm_pdf(x, a, b, loc=0, scale=1):
  return jnp.exp(truncnorm_logpdf(x, a, b, loc, scale))


def truncnorm_logcdf(x, a, b, loc=0, scale=1):
  z, _, a, b = _truncnorm_args("truncnorm.logcdf", x, a, b, loc, scale)
  zc = jnp.clip(z, a, b)
  out = _log_mass(a, zc) - _log_mass(a, b)
  out = jnp.where(z >= b, 0.0, out)
  return jnp.where(z <= a, -np.inf, out)


def truncnorm_cdf(x, a, b, loc=0, scale=1):
  return jnp.exp(truncnorm_logcdf(x, a, b, loc, scale))


def truncnorm_logsf(x, a, b, loc=0, scale=1):
  z, _, a, b = _truncnorm_args("truncnorm.logsf", x, a, b, loc, scale)
  zc = jnp.clip(z, a, b)
  out = _log_mass(zc, b) - _log_mass(a, b)
  out = jnp.where(z <= a, 0.0, out)
  return jnp.where(z >= b, -np.inf, out)


def truncnorm_sf(x, a, b, loc=0, scale=1):
  return jnp.exp(truncnorm_logsf(x, a, b, loc, scale))

# ----------------------------------------------------------------------------- circular


def vonmises_logpdf(x, kappa):
  x, kappa = promote_args_inexact("vonmises.logpdf", x, kappa)
  out = kappa * (jnp.cos(x) - 1) - _LOG_2PI - jnp.log(sp.i0e(kappa))
  return jnp.where(jnp.abs(x) <= math.pi, out, -np.inf)


def vonmises_pdf(x, kappa):
  return jnp.exp(vonmises_logpdf(x, kappa))


def wrapcauchy_logpdf(x, c):
  x, c = promote_args_inexact("wrapcauchy.logpdf", x, c)
  out = jnp.log1p(-c * c) - _LOG_2PI - jnp.log1p(c * c - 2 * c * jnp.cos(x))
  inside = (x >= 0) & (x <= 2 * math.pi) & (c > 0) & (c < 1)
  return jnp.where(inside, out, -np.inf)


def wrapcauchy_pdf(x, c):
  return jnp.exp(wrapcauchy_logpdf(x, c))
