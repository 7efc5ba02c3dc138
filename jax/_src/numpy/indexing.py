"""`x[idx]` with static indices: integers, slices, None and Ellipsis."""

from __future__ import annotations

import numpy as np

from jax._src import core
from jax._src.lax import shape as lax_shape


def _normalize(idx, ndim: int) -> list:
  idx = list(idx) if isinstance(idx, tuple) else [idx]
  n_ellipsis = sum(i is Ellipsis for i in idx)
  if n_ellipsis > 1:
    raise IndexError("an index can only have a single ellipsis ('...')")
  used = sum(1 for i in idx if i is not None and i is not Ellipsis)
  if used > ndim:
    raise IndexError(f"too many indices for array: array is {ndim}-dimensional, "
                     f"but {used} were indexed")
  if n_ellipsis:
    pos = idx.index(Ellipsis)
    idx[pos:pos + 1] = [slice(None)] * (ndim - used)
  else:
    idx += [slice(None)] * (ndim - used)
  return idx


def _static_int(i):
  if isinstance(i, core.Tracer):
    value = i.to_concrete_value()
    if value is None:
      raise NotImplementedError("indexing with a traced integer (dynamic_slice) is not "
                                "supported yet; use a static index")
    return int(value)
  if isinstance(i, (bool, np.bool_)):
    raise NotImplementedError("boolean indexing is not supported yet")
  if isinstance(i, (int, np.integer)) or (hasattr(i, "shape") and np.shape(i) == ()):
    return int(i)
  raise NotImplementedError(f"advanced indexing with {type(i).__name__} is not supported yet")


def getitem(x, idx):
  aval = core.get_aval(x)
  idx = _normalize(idx, aval.ndim)
  starts, limits, strides, reverse_dims, dynamic = [], [], [], [], []
  out_shape, dim = [], 0
  for i in idx:
    if i is None:
      out_shape.append(1)
      continue
    size = aval.shape[dim]
    if isinstance(i, slice):
      start, stop, step = i.indices(size)
      count = len(range(start, stop, step))
      if step < 0:
        reverse_dims.append(dim)
        start = size - 1 - start
        step = -step
      starts.append(start if count else 0)
      limits.append(start + (count - 1) * step + 1 if count else 0)
      strides.append(step)
      out_shape.append(count)
    elif _is_traced_int(i):
      dynamic.append((dim, i))
      starts.append(0)
      limits.append(size)
      strides.append(1)
    else:
      k = _static_int(i)
      if not -size <= k < size:
        raise IndexError(f"index {k} is out of bounds for axis {dim} with size {size}")
      k %= size
      starts.append(k)
      limits.append(k + 1)
      strides.append(1)
    dim += 1
  out = x
  if reverse_dims:
    out = lax_shape.rev(out, tuple(reverse_dims))
  if (tuple(starts) != (0,) * aval.ndim or tuple(limits) != aval.shape
      or any(s != 1 for s in strides)):
    out = lax_shape.slice(out, starts, limits, strides)
  if dynamic:  # traced integer indices: one dynamic_slice of size 1 on those dims
    from jax._src.lax import slicing
    shape = core.get_aval(out).shape
    idx_by_dim = dict(dynamic)
    zero = 0
    out = slicing.dynamic_slice(out, [idx_by_dim.get(d, zero) for d in range(len(shape))],
                                [1 if d in idx_by_dim else n for d, n in enumerate(shape)])
  return lax_shape.reshape(out, tuple(out_shape))


def _is_traced_int(i) -> bool:
  if not isinstance(i, core.Tracer) or i.to_concrete_value() is not None:
    return False
  aval = i.aval
  return aval.shape == () and aval.dtype.kind in "iu"
