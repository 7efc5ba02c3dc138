"""Discrete and multivariate distributions of jax.scipy.stats, plus mode, rankdata, sem.

Probability mass functions are -inf in log space (0 as pmf) off the integer support,
as SciPy's are; multivariate_normal factors the covariance by Cholesky.
"""

from __future__ import annotations

import math

import numpy as np

from jax._src.numpy import namespace as jnp
from jax._src.lax import linalg as lax_linalg
from jax._src.numpy.util import promote_args_inexact, promote_dtypes_inexact
from jax._src.scipy import special as sp
from jax._src.scipy import special_more as sp2


def _off_integers(k):
  return k != jnp.floor(k)

# ----------------------------------------------------------------------------- bernoulli


def bernoulli_logpmf(k, p, loc=0):
  k, p, loc = promote_args_inexact("bernoulli.logpmf", k, p, loc)
  k = k - loc
  out = jnp.where(k == 1, jnp.log(p), jnp.log1p(-p))
  return jnp.where((k == 0) | (k == 1), out, -np.inf)


def bernoulli_pmf(k, p, loc=0):
  return jnp.exp(bernoulli_logpmf(k, p, loc))


def bernoulli_cdf(k, p):
  k, p = promote_args_inexact("bernoulli.cdf", k, p)
  out = jnp.where(k < 0, 0.0, jnp.where(k < 1, 1 - p, 1.0))
  return jnp.where((p < 0) | (p > 1), np.nan, out)


def bernoulli_ppf(q, p):
  q, p = promote_args_inexact("bernoulli.ppf", q, p)
  out = jnp.where(q == 0, -1.0, jnp.where(q <= 1 - p, 0.0, 1.0))  # SciPy: ppf(0) = -1
  return jnp.where((q < 0) | (q > 1) | (p < 0) | (p > 1), np.nan, out)

# ----------------------------------------------------------------------------- poisson, geom


def poisson_logpmf(k, mu, loc=0):
  k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
  k = k - loc
  out = sp.xlogy(k, mu) - sp.gammaln(k + 1) - mu
  return jnp.where((k < 0) | _off_integers(k), -np.inf, out)


def poisson_pmf(k, mu, loc=0):
  return jnp.exp(poisson_logpmf(k, mu, loc))


def poisson_cdf(k, mu, loc=0):
  k, mu, loc = promote_args_inexact("poisson.cdf", k, mu, loc)
  k = jnp.floor(k - loc)
  return jnp.where(k < 0, 0.0, sp2.gammaincc(jnp.maximum(k, 0) + 1, mu))


def poisson_entropy(mu, loc=0):
  """-sum_k pmf(k) log pmf(k), summed over k up to mu + 20 sqrt(mu) + 40 (the remaining
  mass is below float precision)."""
  mu, loc = promote_args_inexact("poisson.entropy", mu, loc)
  mu_max = float(np.max(np.asarray(mu))) if _is_concrete(mu) else 1e4
  n = int(mu_max + 20 * math.sqrt(max(mu_max, 1.0)) + 40)
  k = jnp.arange(n, dtype=mu.dtype).reshape((n,) + (1,) * jnp.ndim(mu))
  logp = poisson_logpmf(k, mu)
  return -jnp.sum(jnp.where(jnp.isfinite(logp), jnp.exp(logp) * logp, 0.0), axis=0)


def _is_concrete(x) -> bool:
  try:
    np.asarray(x)
    return True
  except Exception:  # a tracer: the bound falls back to a fixed size
    return False


def geom_logpmf(k, p, loc=0):
  k, p, loc = promote_args_inexact("geom.logpmf", k, p, loc)
  k = k - loc
  out = sp.xlog1py(k - 1, -p) + jnp.log(p)
  return jnp.where((k < 1) | _off_integers(k), -np.inf, out)


def geom_pmf(k, p, loc=0):
  return jnp.exp(geom_logpmf(k, p, loc))

# ----------------------------------------------------------------------------- binomial family


def _log_comb(n, k):
  return sp.gammaln(n + 1) - sp.gammaln(k + 1) - sp.gammaln(n - k + 1)


def binom_logpmf(k, n, p, loc=0):
  k, n, p, loc = promote_args_inexact("binom.logpmf", k, n, p, loc)
  k = k - loc
  out = _log_comb(n, k) + sp.xlogy(k, p) + sp.xlog1py(n - k, -p)
  return jnp.where((k < 0) | (k > n) | _off_integers(k), -np.inf, out)


def binom_pmf(k, n, p, loc=0):
  return jnp.exp(binom_logpmf(k, n, p, loc))


def nbinom_logpmf(k, n, p, loc=0):
  k, n, p, loc = promote_args_inexact("nbinom.logpmf", k, n, p, loc)
  k = k - loc
  out = (sp.gammaln(n + k) - sp.gammaln(k + 1) - sp.gammaln(n) + sp.xlogy(n, p)
         + sp.xlog1py(k, -p))
  return jnp.where((k < 0) | _off_integers(k), -np.inf, out)


def nbinom_pmf(k, n, p, loc=0):
  return jnp.exp(nbinom_logpmf(k, n, p, loc))


def betabinom_logpmf(k, n, a, b, loc=0):
  k, n, a, b, loc = promote_args_inexact("betabinom.logpmf", k, n, a, b, loc)
  k = k - loc
  out = _log_comb(n, k) + sp.betaln(k + a, n - k + b) - sp.betaln(a, b)
  out = jnp.where((k < 0) | (k > n) | _off_integers(k), -np.inf, out)
  return jnp.where((a <= 0) | (b <= 0), np.nan, out)


def betabinom_pmf(k, n, a, b, loc=0):
  return jnp.exp(betabinom_logpmf(k, n, a, b, loc))

# ----------------------------------------------------------------------------- multivariate


def multinomial_logpmf(x, n, p):
  """x and p along the last axis; -inf unless the counts sum to n."""
  x, n, p = promote_dtypes_inexact(jnp.asarray(x), jnp.asarray(n), jnp.asarray(p))
  out = sp.gammaln(n + 1) + jnp.sum(sp.xlogy(x, p) - sp.gammaln(x + 1), axis=-1)
  ok = (jnp.sum(x, axis=-1) == n) & jnp.all((x >= 0) & ~_off_integers(x), axis=-1)
  return jnp.where(ok, out, -np.inf)


def multinomial_pmf(x, n, p):
  return jnp.exp(multinomial_logpmf(x, n, p))


def dirichlet_logpdf(x, alpha):
  """x has the K categories on its first axis (SciPy's layout); alpha is (K,)."""
  x, alpha = promote_dtypes_inexact(jnp.asarray(x), jnp.asarray(alpha))
  if jnp.ndim(alpha) != 1:
    raise ValueError(f"dirichlet: alpha must be one-dimensional, got shape {jnp.shape(alpha)}")
  k = alpha.shape[0]
  if x.shape[0] == k - 1:  # the last coordinate is implied
    x = jnp.concatenate([x, 1 - jnp.sum(x, axis=0, keepdims=True)], axis=0)
  if x.shape[0] != k:
    raise ValueError(f"dirichlet: x has {x.shape[0]} categories on axis 0, alpha has {k}")
  a = alpha.reshape((k,) + (1,) * (x.ndim - 1))
  log_norm = jnp.sum(sp.gammaln(alpha)) - sp.gammaln(jnp.sum(alpha))
  out = jnp.sum(sp.xlogy(a - 1, x), axis=0) - log_norm
  inside = jnp.all(x >= 0, axis=0) & (jnp.abs(jnp.sum(x, axis=0) - 1) < 1e-4)
  return jnp.where(inside, out, -np.inf)


def dirichlet_pdf(x, alpha):
  return jnp.exp(dirichlet_logpdf(x, alpha))


def multivariate_normal_logpdf(x, mean, cov, allow_singular=None):
  """log N(x; mean, cov) with a scalar, (n,) diagonal or (n, n) covariance; x (..., n)."""
  if allow_singular is not None:
    raise NotImplementedError("multivariate_normal.logpdf: allow_singular is not supported")
  x, mean, cov = promote_dtypes_inexact(jnp.asarray(x), jnp.asarray(mean), jnp.asarray(cov))
  if jnp.ndim(mean) == 0:  # one-dimensional distribution
    return -0.5 * ((x - mean) ** 2 / cov + jnp.log(2 * math.pi * cov))
  n = mean.shape[-1]
  if jnp.ndim(cov) < 2:
    cov = jnp.eye(n, dtype=x.dtype) * cov
  if cov.shape[-2:] != (n, n):
    raise ValueError(f"multivariate_normal: cov of shape {cov.shape} does not match mean {n}")
  chol = lax_linalg.cholesky(cov)
  d = x - mean
  batch = jnp.broadcast_shapes(d.shape[:-1], chol.shape[:-2])
  d = jnp.broadcast_to(d, batch + (n,))
  chol = jnp.broadcast_to(chol, batch + (n, n))
  y = lax_linalg.triangular_solve(chol, d[..., None], left_side=True, lower=True)[..., 0]
  log_det = jnp.sum(jnp.log(jnp.diagonal(chol, axis1=-2, axis2=-1)), axis=-1)
  return -0.5 * jnp.sum(y * y, axis=-1) - log_det - 0.5 * n * math.log(2 * math.pi)


def multivariate_normal_pdf(x, mean, cov):
  return jnp.exp(multivariate_normal_logpdf(x, mean, cov))

# ----------------------------------------------------------------------------- summaries


def _check_nan_policy(name, nan_policy):
  if nan_policy != "propagate":
    raise NotImplementedError(f"{name}: only nan_policy='propagate' is supported")


def sem(a, axis=0, ddof=1, nan_policy="propagate", *, keepdims=False):
  """The standard error of the mean: std(ddof) / sqrt(n)."""
  _check_nan_policy("sem", nan_policy)
  (a,) = promote_args_inexact("sem", a)
  if axis is None:
    a, axis = a.ravel(), 0
  n = a.shape[axis]
  return jnp.std(a, axis=axis, ddof=ddof, keepdims=keepdims) / math.sqrt(n)


def mode(a, axis=0, nan_policy="propagate", keepdims=False):
  """The most frequent value along `axis` (the smallest on ties) and its count."""
  _check_nan_policy("mode", nan_policy)
  a = jnp.asarray(a)
  if axis is None:
    a, axis = a.ravel(), 0
  a = jnp.moveaxis(a, axis, -1)
  s = jnp.sort(a, axis=-1)
  # count of each sorted value: compare every element with every other one
  counts = jnp.sum(s[..., :, None] == s[..., None, :], axis=-1)
  best = jnp.argmax(counts, axis=-1)[..., None]  # first maximum = smallest value
  value = jnp.take_along_axis(s, best, axis=-1)[..., 0]
  count = jnp.take_along_axis(counts, best, axis=-1)[..., 0]
  if keepdims:
    value, count = jnp.expand_dims(value, axis), jnp.expand_dims(count, axis)
  return ModeResult(value, count)


class ModeResult(tuple):
  """(mode, count), also available as attributes."""

  def __new__(cls, mode, count):
    return super().__new__(cls, (mode, count))

  @property
  def mode(self):
    return self[0]

  @property
  def count(self):
    return self[1]


_RANK_METHODS = ("average", "min", "max", "dense", "ordinal")


def rankdata(a, method="average", *, axis=None, nan_policy="propagate"):
  """Ranks from 1, ties resolved by `method` (average, min, max, dense, ordinal)."""
  _check_nan_policy("rankdata", nan_policy)
  if method not in _RANK_METHODS:
    raise ValueError(f"unknown method '{method}'; expected one of {_RANK_METHODS}")
  a = jnp.asarray(a)
  if axis is None:
    a, axis = a.ravel(), -1
  a = jnp.moveaxis(a, axis, -1)
  order = jnp.argsort(a, axis=-1, stable=True)
  s = jnp.take_along_axis(a, order, axis=-1)
  n = a.shape[-1]
  pos = jnp.broadcast_to(jnp.arange(1, n + 1), s.shape)
  if method == "ordinal":
    ranks_sorted = pos
  else:
    new_group = jnp.concatenate([jnp.ones(s.shape[:-1] + (1,), bool),
                                 s[..., 1:] != s[..., :-1]], axis=-1)
    dense = jnp.cumsum(new_group, axis=-1)
    if method == "dense":
      ranks_sorted = dense
    else:
      same = dense[..., :, None] == dense[..., None, :]
      lo = jnp.min(jnp.where(same, pos[..., None, :], n + 1), axis=-1)
      hi = jnp.max(jnp.where(same, pos[..., None, :], 0), axis=-1)
      ranks_sorted = {"min": lo, "max": hi, "average": (lo + hi) / 2}[method]
  inv = jnp.argsort(order, axis=-1)
  out = jnp.take_along_axis(ranks_sorted, inv, axis=-1)
  out = out.astype(float) if method == "average" else out
  return jnp.moveaxis(out, -1, axis)
