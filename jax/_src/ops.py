"""jax.ops: segment reductions (scatter-combine of rows into num_segments buckets).

Ids outside [0, num_segments) are dropped, as with JAX's default scatter mode;
empty segments hold the reduction's identity (0, 1, -inf/min, +inf/max).
"""

from __future__ import annotations

import operator

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.numpy import creation


def _num_segments(segment_ids, num_segments):
  if num_segments is not None:
    try:
      return operator.index(num_segments)
    except TypeError:
      raise TypeError("num_segments must be a concrete integer, got "
                      f"{num_segments!r}") from None
  if isinstance(segment_ids, core.Tracer):
    raise ValueError("num_segments must be given when segment_ids is traced "
                     "(the output shape depends on it)")
  ids = np.asarray(segment_ids)
  return int(ids.max()) + 1 if ids.size else 0


def _segment_reduce(name, combine, identity, data, segment_ids, num_segments,
                    indices_are_sorted, unique_indices, bucket_size, mode):
  data = creation.asarray(data)
  segment_ids = creation.asarray(segment_ids)
  if not np.issubdtype(segment_ids.dtype, np.integer):
    raise TypeError(f"{name}: segment_ids must be integers, got {segment_ids.dtype}")
  if segment_ids.ndim != 1 or data.ndim < 1 or segment_ids.shape[0] != data.shape[0]:
    raise ValueError(f"{name}: segment_ids must be 1-D with one id per row of data, got "
                     f"{segment_ids.shape} for data of shape {data.shape}")
  if bucket_size is not None and operator.index(bucket_size) < 1:
    raise ValueError(f"{name}: bucket_size must be positive, got {bucket_size}")
  n = _num_segments(segment_ids, num_segments)
  out = creation.full((n,) + data.shape[1:], identity(data.dtype), data.dtype)
  return combine(out.at[segment_ids], data, indices_are_sorted=indices_are_sorted,
                 unique_indices=unique_indices, mode="drop" if mode is None else mode)


def _low(dtype):
  return dtypes.lowest_value(dtype) if dtypes.is_inexact(dtype) else (
      False if dtype == np.bool_ else dtypes.iinfo(dtype).min)


def _high(dtype):
  return dtypes.highest_value(dtype) if dtypes.is_inexact(dtype) else (
      True if dtype == np.bool_ else dtypes.iinfo(dtype).max)


def segment_sum(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
  """out[i] = sum of data[j] over j with segment_ids[j] == i."""
  del out_sharding
  return _segment_reduce("segment_sum", lambda r, v, **kw: r.add(v, **kw), lambda d: 0,
                         data, segment_ids, num_segments, indices_are_sorted, unique_indices,
                         bucket_size, mode)


def segment_prod(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
  """out[i] = product of data[j] over j with segment_ids[j] == i."""
  del out_sharding
  return _segment_reduce("segment_prod", lambda r, v, **kw: r.multiply(v, **kw), lambda d: 1,
                         data, segment_ids, num_segments, indices_are_sorted, unique_indices,
                         bucket_size, mode)


def segment_max(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
  """out[i] = max of data[j] over j with segment_ids[j] == i (-inf / dtype min if empty)."""
  del out_sharding
  return _segment_reduce("segment_max", lambda r, v, **kw: r.max(v, **kw), _low,
                         data, segment_ids, num_segments, indices_are_sorted, unique_indices,
                         bucket_size, mode)


def segment_min(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
  """out[i] = min of data[j] over j with segment_ids[j] == i (+inf / dtype max if empty)."""
  del out_sharding
  return _segment_reduce("segment_min", lambda r, v, **kw: r.min(v, **kw), _high,
                         data, segment_ids, num_segments, indices_are_sorted, unique_indices,
                         bucket_size, mode)
