"""Multidimensional histograms: histogramdd and histogram2d.

Each sample coordinate is binned with searchsorted over that dimension's edges (index 0
and nb + 1 catch the values outside), the per-dimension bins are flattened into one index
and counted with bincount, and the outer ring of overflow bins is cut off again.
"""

from __future__ import annotations

import numpy as np

from jax._src import core
from jax._src.numpy import reductions
from jax._src.numpy import ufuncs
from jax._src.numpy.creation import asarray, ones_like, zeros
from jax._src.numpy.shape_ops import reshape, stack
from jax._src.numpy.sorting import bincount, histogram_bin_edges, searchsorted
from jax._src.numpy.util import check_arraylike_strict, promote_dtypes_inexact


def _bin_index(x, edges):
  """Bin of each x: 1..nb inside (the last edge belongs to bin nb), 0 / nb+1 outside."""
  nb = edges.shape[0] - 1
  idx = searchsorted(edges, x, side="right")
  return ufuncs.where(x == edges[nb], idx - 1, idx)


def _per_dim(value, d: int, name: str):
  if value is None or np.ndim(value) == 0 and not isinstance(value, (list, tuple)):
    return [value] * d
  if len(value) != d:
    raise ValueError(f"jnp.histogramdd: {name} must have one entry per dimension ({d})")
  return list(value)


def histogramdd(sample, bins=10, range=None, weights=None, density=None):  # noqa: A002
  """Counts of the (N, D) `sample` in a D-dimensional grid of bins; returns (hist, edges)."""
  check_arraylike_strict("histogramdd", sample)
  (sample,) = promote_dtypes_inexact(asarray(sample))
  if sample.ndim != 2:
    raise ValueError(f"jnp.histogramdd: sample must be 2-D (N, D), got shape {sample.shape}")
  n, d = sample.shape
  if isinstance(bins, (int, np.integer)) or (core.is_valid_jaxval(bins) and np.ndim(bins) == 0):
    bins_per = [bins] * d
  else:
    bins_per = _per_dim(bins, d, "bins")
  ranges = [None] * d if range is None else _per_dim(range, d, "range")
  if weights is not None:
    weights = asarray(weights)
    if weights.shape != (n,):
      raise ValueError(f"jnp.histogramdd: weights must have shape ({n},), got "
                       f"{weights.shape}")
  edges, flat, dims = [], None, []
  for k in np.arange(d):
    x = sample[:, int(k)]
    e = histogram_bin_edges(x, bins_per[k], ranges[k], weights)
    edges.append(e)
    dims.append(e.shape[0] + 1)
    idx = _bin_index(x, e)
    flat = idx if flat is None else flat * dims[-1] + idx
  total = int(np.prod(dims))
  w = ones_like(sample[:, 0]) if weights is None else weights
  counts = bincount(flat, w, length=total) if n else zeros((total,), sample.dtype)
  counts = reshape(counts, tuple(dims))
  inner = tuple(slice(1, -1) for _ in dims)
  hist = counts[inner]
  if density:
    hist = hist / reductions.sum(hist)
    for k, e in enumerate(edges):
      shape = [1] * d
      shape[k] = e.shape[0] - 1
      hist = hist / reshape(e[1:] - e[:-1], tuple(shape))
  return hist, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):  # noqa: A002
  """2-D histogram of the points (x, y); returns (hist, xedges, yedges)."""
  check_arraylike_strict("histogram2d", x, y)
  x, y = asarray(x), asarray(y)
  if x.shape != y.shape or x.ndim != 1:
    raise ValueError("jnp.histogram2d: x and y must be 1-D arrays of the same length")
  sample = stack(promote_dtypes_inexact(x, y), axis=1)
  if isinstance(bins, (list, tuple)) and len(bins) != 2:
    # A single sequence of edges is shared by both axes.
    bins = [bins, bins]
  elif core.is_valid_jaxval(bins) and np.ndim(bins) == 1:
    bins = [bins, bins]
  hist, (xe, ye) = histogramdd(sample, bins, range, weights, density)
  return hist, xe, ye
