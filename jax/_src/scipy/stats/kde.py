"""gaussian_kde: a weighted Gaussian kernel density estimate, as scipy.stats.gaussian_kde.

The kernel covariance is the weighted data covariance times factor**2, the factor
from Scott's or Silverman's rule on the effective sample size (or given). The class
is a pytree, so estimates pass through jit and vmap.
"""

from __future__ import annotations

from jax._src.numpy import linalg as jnp_linalg
from jax._src.numpy import namespace as jnp
from jax._src import random_distributions as rdist
from jax._src import random as jrandom
from jax._src import tree_util
from jax._src.numpy.util import promote_dtypes_inexact
from jax._src.scipy import special as sp
from jax._src.scipy.stats import discrete


@tree_util.register_pytree_node_class
class gaussian_kde:  # noqa: N801 (SciPy's name)
  """Gaussian kernel density estimate of `dataset` (shape (d, n), or (n,) for d = 1)."""

  def __init__(self, dataset, bw_method=None, weights=None):
    (dataset,) = promote_dtypes_inexact(jnp.atleast_2d(jnp.asarray(dataset)))
    d, n = dataset.shape
    if n <= 1:
      raise ValueError("gaussian_kde: dataset must contain more than one point")
    if weights is None:
      weights = jnp.full((n,), 1.0 / n, dataset.dtype)
    else:
      weights = jnp.asarray(weights, dataset.dtype)
      if weights.shape != (n,):
        raise ValueError(f"gaussian_kde: weights must have shape ({n},), got {weights.shape}")
      weights = weights / jnp.sum(weights)
    neff = 1 / jnp.sum(weights * weights)
    if bw_method is None or bw_method == "scott":
      factor = neff ** (-1.0 / (d + 4))
    elif bw_method == "silverman":
      factor = (neff * (d + 2) / 4.0) ** (-1.0 / (d + 4))
    elif isinstance(bw_method, str):
      raise ValueError("gaussian_kde: bw_method must be 'scott', 'silverman', a scalar or a "
                       "callable")
    elif callable(bw_method):
      self.dataset, self.weights, self.neff, self.d, self.n = dataset, weights, neff, d, n
      factor = bw_method(self)
    else:
      factor = bw_method
    mean = dataset @ weights
    centered = dataset - mean[:, None]
    data_cov = (centered * weights) @ centered.T / (1 - jnp.sum(weights * weights))
    self._set(dataset, weights, jnp.asarray(factor, dataset.dtype), data_cov, neff)

  def _set(self, dataset, weights, factor, data_cov, neff):
    self.dataset, self.weights, self.factor, self.neff = dataset, weights, factor, neff
    self.d, self.n = dataset.shape
    self._data_covariance = data_cov
    self.covariance = data_cov * factor ** 2
    self.inv_cov = jnp_linalg.inv(self.covariance)

  def tree_flatten(self):
    return (self.dataset, self.weights, self.factor, self._data_covariance, self.neff), None

  @classmethod
  def tree_unflatten(cls, aux, children):
    obj = object.__new__(cls)
    obj._set(*children)
    return obj

  def _points(self, points):
    points = jnp.atleast_2d(jnp.asarray(points, self.dataset.dtype))
    if points.shape[0] != self.d:
      if points.shape == (1, self.d):
        points = points.T
      else:
        raise ValueError(f"gaussian_kde: points have dimension {points.shape[0]}, "
                         f"dataset has dimension {self.d}")
    return points

  def logpdf(self, x):
    """log of the estimated density at the columns of x (shape (d, m))."""
    points = self._points(x)
    diff = points.T[:, None, :] - self.dataset.T[None, :, :]  # (m, n, d)
    log_k = discrete.multivariate_normal_logpdf(diff, jnp.zeros(self.d, self.dataset.dtype),
                                                self.covariance)
    return sp.logsumexp(log_k, axis=1, b=self.weights[None, :])

  def evaluate(self, points):
    return jnp.exp(self.logpdf(points))

  __call__ = evaluate
  pdf = evaluate

  def integrate_gaussian(self, mean, cov):
    """The integral of the estimate times the Gaussian N(mean, cov)."""
    mean = jnp.atleast_1d(jnp.asarray(mean, self.dataset.dtype))
    cov = jnp.atleast_2d(jnp.asarray(cov, self.dataset.dtype))
    if mean.shape != (self.d,) or cov.shape != (self.d, self.d):
      raise ValueError("gaussian_kde.integrate_gaussian: mean and cov must match the dimension")
    log_k = discrete.multivariate_normal_logpdf(self.dataset.T, mean, self.covariance + cov)
    return jnp.sum(self.weights * jnp.exp(log_k))

  def integrate_box_1d(self, low, high):
    """The estimate's mass in [low, high] (one-dimensional data only)."""
    if self.d != 1:
      raise ValueError("gaussian_kde.integrate_box_1d: the data must be one-dimensional")
    std = jnp.sqrt(self.covariance[0, 0])
    lo = (low - self.dataset[0]) / std
    hi = (high - self.dataset[0]) / std
    return jnp.sum(self.weights * (sp.ndtr(hi) - sp.ndtr(lo)))

  def integrate_kde(self, other):
    """The integral of the product of two estimates of the same dimension."""
    if other.d != self.d:
      raise ValueError("gaussian_kde.integrate_kde: the estimates differ in dimension")
    diff = self.dataset.T[:, None, :] - other.dataset.T[None, :, :]
    log_k = discrete.multivariate_normal_logpdf(diff, jnp.zeros(self.d, self.dataset.dtype),
                                                self.covariance + other.covariance)
    return jnp.sum(self.weights[:, None] * other.weights[None, :] * jnp.exp(log_k))

  def resample(self, key, shape=()):
    """Draws of shape (d,) + shape: a data point chosen by weight plus kernel noise."""
    shape = tuple(shape)
    k_choice, k_noise = jrandom.split(key)
    ind = jrandom.choice(k_choice, self.n, shape=shape, p=self.weights)
    noise = rdist.multivariate_normal(k_noise, jnp.zeros(self.d, self.dataset.dtype),
                                      self.covariance, shape)
    return self.dataset[:, ind] + jnp.moveaxis(noise, -1, 0)

  def set_bandwidth(self, bw_method=None):
    raise NotImplementedError("gaussian_kde is immutable; build a new one with bw_method")

  def integrate_box(self, low_bounds, high_bounds, maxpts=None):
    raise NotImplementedError("gaussian_kde.integrate_box needs a multivariate normal CDF, "
                              "which is not available")
