"""Small SciPy modules on jax arrays: integrate.trapezoid and cluster.vq.vq."""

from __future__ import annotations

from jax._src.numpy import namespace as jnp


def trapezoid(y, x=None, dx=1.0, axis: int = -1):
  """Integral of y by the trapezoidal rule, with sample points x or spacing dx."""
  return jnp.trapezoid(y, x, dx=dx, axis=axis)


def vq(obs, code_book, check_finite: bool = True):
  """Index of the nearest code (Euclidean) for each observation, and that distance."""
  del check_finite
  obs, code_book = jnp.asarray(obs), jnp.asarray(code_book)
  if obs.ndim != code_book.ndim:
    raise ValueError("Observation and code_book should have the same rank")
  if obs.ndim == 1:
    obs, code_book = obs[:, None], code_book[:, None]
  if obs.ndim != 2 or obs.shape[1] != code_book.shape[1]:
    raise ValueError(f"obs {obs.shape} and code_book {code_book.shape} need the same number "
                     "of features")
  dtype = jnp.result_type(obs, code_book, 1.0)
  diff = obs[:, None, :].astype(dtype) - code_book[None, :, :].astype(dtype)
  dist = jnp.sqrt(jnp.sum(diff * jnp.conj(diff), axis=-1).real)
  code = jnp.argmin(dist, axis=1)
  return code, jnp.take_along_axis(dist, code[:, None], axis=1)[:, 0]
