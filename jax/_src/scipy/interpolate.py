"""jax.scipy.interpolate.RegularGridInterpolator: linear / nearest interpolation on
a rectilinear grid, extrapolating or filling outside it."""

from __future__ import annotations

import itertools

import numpy as np

from jax._src.numpy import namespace as jnp
from jax._src.tree_util import register_pytree_node


class RegularGridInterpolator:
  """Interpolate `values` given on the grid `points` (one increasing 1-D array per axis)."""

  def __init__(self, points, values, method: str = "linear", bounds_error: bool = False,
               fill_value=np.nan):
    if method not in ("linear", "nearest"):
      raise ValueError(f"method {method!r} is not defined")
    if bounds_error:
      raise NotImplementedError("`bounds_error` takes no effect under JIT; use "
                                "bounds_error=False")
    self.method = method
    self.bounds_error = bounds_error
    self.grid = tuple(jnp.asarray(p) for p in points)
    values = jnp.asarray(values)
    if len(self.grid) > values.ndim:
      raise ValueError(f"There are {len(self.grid)} point arrays, but values has "
                       f"{values.ndim} dimensions")
    for i, p in enumerate(self.grid):
      if p.ndim != 1 or p.shape[0] != values.shape[i]:
        raise ValueError(f"There are {p.shape} points and {values.shape[i]} values in "
                         f"dimension {i}")
    if not np.issubdtype(values.dtype, np.inexact):
      values = values.astype(jnp.result_type(values, 1.0))
    self.values = values
    self.fill_value = None if fill_value is None else jnp.asarray(fill_value,
                                                                   values.dtype)

  def __call__(self, xi, method=None):
    method = self.method if method is None else method
    if method not in ("linear", "nearest"):
      raise ValueError(f"method {method!r} is not defined")
    ndim = len(self.grid)
    xi = jnp.asarray(xi)
    if xi.shape[-1] != ndim:
      raise ValueError(f"The requested sample points xi have dimension {xi.shape[-1]}, but "
                       f"this RegularGridInterpolator has dimension {ndim}")
    batch = xi.shape[:-1]
    xi = xi.reshape(-1, ndim)
    indices, distances, outside = self._locate(xi)
    if method == "linear":
      out = self._linear(indices, distances)
    else:
      nearest = tuple(jnp.where(d <= 0.5, i, i + 1) for i, d in zip(indices, distances))
      out = self.values[nearest]
    if self.fill_value is not None:
      mask = outside.reshape(outside.shape + (1,) * (out.ndim - 1))
      out = jnp.where(mask, self.fill_value, out)
    return out.reshape(batch + self.values.shape[ndim:])

  def _locate(self, xi):
    indices, distances = [], []
    outside = jnp.zeros(xi.shape[:1], bool)
    for k, grid in enumerate(self.grid):
      x = xi[:, k]
      i = jnp.clip(jnp.searchsorted(grid, x) - 1, 0, grid.shape[0] - 2)
      distances.append((x - grid[i]) / (grid[i + 1] - grid[i]))
      indices.append(i)
      outside = outside | (x < grid[0]) | (x > grid[-1])
    return indices, distances, outside

  def _linear(self, indices, distances):
    out = 0
    extra = self.values.ndim - len(indices)
    for corner in itertools.product((0, 1), repeat=len(indices)):
      weight = 1
      for c, d in zip(corner, distances):
        weight = weight * (d if c else 1 - d)
      vals = self.values[tuple(i + c for i, c in zip(indices, corner))]
      out = out + vals * weight.reshape(weight.shape + (1,) * extra)
    return out


register_pytree_node(
    RegularGridInterpolator,
    lambda r: ((r.grid, r.values, r.fill_value), (r.method, r.bounds_error)),
    lambda aux, children: _rebuild(aux, children))


def _rebuild(aux, children):
  # Unflattening must not re-validate (children may be tracers or placeholders).
  obj = object.__new__(RegularGridInterpolator)
  obj.grid, obj.values, obj.fill_value = children
  obj.method, obj.bounds_error = aux
  return obj
