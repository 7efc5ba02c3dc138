"""jax.scipy.ndimage.map_coordinates: order-0/1 interpolation at given coordinates.

Each output value is a weighted sum over the 2^ndim (order 1) or single
(order 0) neighbouring grid points; out-of-range neighbours are remapped by the
boundary mode, or replaced by cval in 'constant' mode.
"""

from __future__ import annotations

import functools
import itertools
import operator

import numpy as np

from jax._src.numpy import namespace as jnp


def _mirror(i, n):
  if n == 1:
    return jnp.zeros_like(i)
  period = 2 * n - 2
  i = jnp.abs(i) % period
  return jnp.where(i >= n, period - i, i)


def _reflect(i, n):
  period = 2 * n
  i = i % period
  return jnp.where(i >= n, period - 1 - i, i)


_REMAP = {
    "constant": lambda i, n: i,
    "nearest": lambda i, n: jnp.clip(i, 0, n - 1),
    "wrap": lambda i, n: i % n,
    "mirror": _mirror,
    "reflect": _reflect,
}


def _neighbours(coord, n, order, mode):
  """[(index, weight, valid)] along one axis."""
  if order == 0:
    # Halves round up, as in JAX (not numpy's half-to-even).
    corners = [(jnp.floor(coord + 0.5).astype(jnp.int32), jnp.ones_like(coord))]
  else:
    lower = jnp.floor(coord)
    frac = coord - lower
    lower = lower.astype(jnp.int32)
    corners = [(lower, 1 - frac), (lower + 1, frac)]
  out = []
  for index, weight in corners:
    valid = (index >= 0) & (index < n) if mode == "constant" else None
    out.append((_REMAP[mode](index, n), weight, valid))
  return out


def map_coordinates(input, coordinates, order: int, mode: str = "constant", cval=0.0):
  """input evaluated at `coordinates` (one array per input axis) by order-0/1 splines."""
  input = jnp.asarray(input)
  coordinates = [jnp.asarray(c) for c in coordinates]
  if len(coordinates) != input.ndim:
    raise ValueError("coordinates must be a sequence of length input.ndim, but "
                     f"{len(coordinates)} != {input.ndim}")
  order = operator.index(order)
  if order not in (0, 1):
    raise NotImplementedError("jax.scipy.ndimage.map_coordinates currently requires "
                              f"order<=1, got {order}")
  if mode not in _REMAP:
    raise NotImplementedError(f"jax.scipy.ndimage.map_coordinates does not yet support "
                              f"mode {mode!r}")
  shape = np.broadcast_shapes(*[c.shape for c in coordinates])
  ftype = jnp.result_type(input, *coordinates, 1.0)
  coordinates = [jnp.broadcast_to(c, shape).astype(ftype) for c in coordinates]
  per_axis = [_neighbours(c, n, order, mode) for c, n in zip(coordinates, input.shape)]
  result = jnp.zeros(shape, ftype)
  for corner in itertools.product(*per_axis):
    indices = tuple(jnp.clip(i, 0, n - 1) for (i, _, _), n in zip(corner, input.shape))
    value = input[indices].astype(ftype)
    valids = [v for _, _, v in corner if v is not None]
    if valids:
      value = jnp.where(functools.reduce(jnp.logical_and, valids), value,
                        jnp.asarray(cval, ftype))
    weight = functools.reduce(operator.mul, [w for _, w, _ in corner])
    result = result + weight * value
  if np.issubdtype(input.dtype, np.integer):
    return jnp.floor(result + 0.5).astype(input.dtype)
  return result.astype(input.dtype)
