"""Shape manipulation and products: reshape, transpose, stack, concatenate, dot, matmul..."""

from __future__ import annotations

import numpy as np

from jax._src import core
from jax._src.lax import linalg as lax_linalg
from jax._src.lax import shape as lax_shape
from jax._src.numpy.util import (asarray_like, broadcast_shapes, broadcast_to, canonical_axis,
                                 promote_dtypes)


def shape(a):
  return core.get_aval(asarray_like(a)).shape


def ndim(a) -> int:
  return core.get_aval(asarray_like(a)).ndim


def size(a) -> int:
  return core.get_aval(asarray_like(a)).size


def reshape(a, shape, order: str = "C"):
  if order != "C":
    raise NotImplementedError("jnp.reshape supports order='C' only")
  a = asarray_like(a)
  shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
  aval = core.get_aval(a)
  if shape.count(-1) > 1:
    raise ValueError("can only specify one unknown dimension")
  if -1 in shape:
    known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
    if known == 0 or aval.size % known:
      raise ValueError(f"cannot reshape array of shape {aval.shape} into shape {shape}")
    shape = tuple(aval.size // known if d == -1 else d for d in shape)
  if int(np.prod(shape, dtype=np.int64)) != aval.size:
    raise TypeError(f"cannot reshape array of shape {aval.shape} (size {aval.size}) "
                    f"into shape {shape} (size {int(np.prod(shape))})")
  return lax_shape.reshape(a, shape)


def ravel(a, order: str = "C"):
  return reshape(a, (-1,), order)


def transpose(a, axes=None):
  a = asarray_like(a)
  n = core.get_aval(a).ndim
  axes = tuple(reversed(range(n))) if axes is None else tuple(canonical_axis(x, n) for x in axes)
  return lax_shape.transpose(a, axes)


def moveaxis(a, source, destination):
  a = asarray_like(a)
  n = core.get_aval(a).ndim
  src = [canonical_axis(s, n) for s in ((source,) if isinstance(source, int) else source)]
  dst = [canonical_axis(d, n) for d in ((destination,) if isinstance(destination, int)
                                        else destination)]
  perm = [i for i in range(n) if i not in src]
  for d, s in sorted(zip(dst, src)):
    perm.insert(d, s)
  return lax_shape.transpose(a, tuple(perm))


def swapaxes(a, axis1: int, axis2: int):
  a = asarray_like(a)
  n = core.get_aval(a).ndim
  perm = list(range(n))
  i, j = canonical_axis(axis1, n), canonical_axis(axis2, n)
  perm[i], perm[j] = perm[j], perm[i]
  return lax_shape.transpose(a, tuple(perm))


def expand_dims(a, axis):
  a = asarray_like(a)
  axis = (axis,) if isinstance(axis, int) else tuple(axis)
  return lax_shape.expand_dims(a, axis)


def squeeze(a, axis=None):
  a = asarray_like(a)
  s = core.get_aval(a).shape
  if axis is None:
    axes = tuple(i for i, d in enumerate(s) if d == 1)
  else:
    axes = tuple(canonical_axis(x, len(s)) for x in ((axis,) if isinstance(axis, int) else axis))
    if any(s[i] != 1 for i in axes):
      raise ValueError(f"cannot select an axis to squeeze out which has size not equal to one")
  return lax_shape.squeeze(a, axes)


def concatenate(arrays, axis: int | None = 0):
  arrays = promote_dtypes(*arrays) if len(arrays) > 1 else [asarray_like(arrays[0])]
  if axis is None:
    arrays = [ravel(a) for a in arrays]
    axis = 0
  n = core.get_aval(arrays[0]).ndim
  if n == 0:
    raise ValueError("zero-dimensional arrays cannot be concatenated")
  return lax_shape.concatenate(arrays, canonical_axis(axis, n))


def stack(arrays, axis: int = 0):
  arrays = [asarray_like(a) for a in arrays]
  if not arrays:
    raise ValueError("need at least one array to stack")
  n = core.get_aval(arrays[0]).ndim + 1
  axis = canonical_axis(axis, n)
  return concatenate([lax_shape.expand_dims(a, (axis,)) for a in arrays], axis)


def hstack(tup):
  arrays = [atleast_1d(a) for a in tup]
  return concatenate(arrays, 0 if core.get_aval(arrays[0]).ndim == 1 else 1)


def vstack(tup):
  return concatenate([atleast_2d(a) for a in tup], 0)


def atleast_1d(a):
  a = asarray_like(a)
  return reshape(a, (1,)) if core.get_aval(a).ndim == 0 else a


def atleast_2d(a):
  a = atleast_1d(a)
  return expand_dims(a, 0) if core.get_aval(a).ndim == 1 else a


def dot(a, b):
  a, b = promote_dtypes(a, b)
  an, bn = core.get_aval(a).ndim, core.get_aval(b).ndim
  if an == 0 or bn == 0:
    from jax._src.numpy.ufuncs import multiply
    return multiply(a, b)
  contract_b = 0 if bn == 1 else bn - 2
  return lax_linalg.dot_general(a, b, (((an - 1,), (contract_b,)), ((), ())))


def matmul(a, b):
  a, b = promote_dtypes(a, b)
  a_aval, b_aval = core.get_aval(a), core.get_aval(b)
  if a_aval.ndim == 0 or b_aval.ndim == 0:
    raise ValueError("matmul: operands must not be scalars")
  a2 = a if a_aval.ndim > 1 else lax_shape.reshape(a, (1, a_aval.shape[0]))
  b2 = b if b_aval.ndim > 1 else lax_shape.reshape(b, (b_aval.shape[0], 1))
  sa, sb = core.get_aval(a2).shape, core.get_aval(b2).shape
  batch = broadcast_shapes(sa[:-2], sb[:-2])
  a3 = broadcast_to(a2, batch + sa[-2:])
  b3 = broadcast_to(b2, batch + sb[-2:])
  nb = len(batch)
  out = lax_linalg.dot_general(a3, b3, (((nb + 1,), (nb,)), (tuple(range(nb)), tuple(range(nb)))))
  if a_aval.ndim == 1:
    out = lax_shape.squeeze(out, (nb,))
  if b_aval.ndim == 1:
    out = lax_shape.squeeze(out, (core.get_aval(out).ndim - 1,))
  return out


def outer(a, b):
  return dot(reshape(a, (-1, 1)), reshape(b, (1, -1)))


def vdot(a, b):
  return dot(ravel(a), ravel(b))
