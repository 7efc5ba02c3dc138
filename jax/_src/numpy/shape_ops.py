"""Shape manipulation and products: reshape, transpose, stack, concatenate, dot, matmul..."""

from __future__ import annotations

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.util import ensure_index_tuple
from jax._src.lax import linalg as lax_linalg
from jax._src.lax import shape as lax_shape
from jax._src.numpy.util import (asarray_like, broadcast_shapes, broadcast_to, canonical_axis,
                                 late_op, promote_dtypes)
from jax._src.numpy.util import place as util_place
from jax._src.lax import elementwise as lax_ew
from jax._src.lax import slicing
from jax._src.numpy import reductions


def _aval_of(a):
  """The aval of an array-like, or shape and dtype of a ShapeDtypeStruct-like object."""
  if not core.is_valid_jaxval(a) and hasattr(a, "shape") and hasattr(a, "dtype"):
    return core.ShapedArray(tuple(a.shape), np.dtype(a.dtype))
  return core.get_aval(asarray_like(a))


def _not_array_like(a) -> bool:
  """Objects jax has no aval for (None, strings...): JAX's shape/ndim/size are numpy's and
  answer for them too."""
  return not (core.is_valid_jaxval(a) or isinstance(a, (list, tuple))
              or (hasattr(a, "shape") and hasattr(a, "dtype")))


def shape(a):
  return np.shape(a) if _not_array_like(a) else _aval_of(a).shape


def ndim(a) -> int:
  return np.ndim(a) if _not_array_like(a) else _aval_of(a).ndim


def size(a, axis: int | None = None) -> int:
  if _not_array_like(a):
    return np.size(a, axis)
  aval = _aval_of(a)
  if axis is None:
    return aval.size
  return aval.shape[canonical_axis(axis, aval.ndim)]


def _sharded(x, out_sharding):
  if out_sharding is None:
    return x
  return util_place(x, out_sharding=out_sharding)


def reshape(a, shape, order: str = "C", *, copy: bool | None = None, out_sharding=None):
  del copy  # arrays are immutable: a reshaped array never aliases a mutable buffer
  if out_sharding is None and isinstance(a, (np.ndarray, np.generic)):
    # As in JAX, a NumPy operand goes to its own reshape method: the result stays a
    # NumPy array, concrete even under a trace (libraries test concreteness after it).
    return a.reshape(shape, order=order)
  return _sharded(_reshape(a, shape, order, out_sharding), out_sharding)


def _reshape(a, shape, order: str = "C", out_sharding=None):
  if order not in ("C", "F", "A"):
    raise ValueError(f"order must be one of 'C', 'F' or 'A', got {order!r}")
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
  if order == "F":
    # Column-major: reverse the axes, reshape to the reversed shape, reverse back.
    rev_in = lax_shape.transpose(a, tuple(reversed(range(aval.ndim))))
    out = lax_shape.reshape(rev_in, tuple(reversed(shape)))
    return lax_shape.transpose(out, tuple(reversed(range(len(shape)))))
  return lax_shape.reshape(a, shape, out_sharding=out_sharding)


def ravel(a, order: str = "C", *, out_sharding=None):
  return _sharded(_reshape(a, (-1,), order, out_sharding), out_sharding)


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
  axis = ensure_index_tuple(axis)
  return lax_shape.expand_dims(a, axis)


def squeeze(a, axis=None):
  a = asarray_like(a)
  s = core.get_aval(a).shape
  if axis is None:
    axes = tuple(i for i, d in enumerate(s) if d == 1)
  else:
    axes = tuple(canonical_axis(x, len(s)) for x in ensure_index_tuple(axis))
    if any(s[i] != 1 for i in axes):
      raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
  return lax_shape.squeeze(a, axes)


def concatenate(arrays, axis: int | None = 0, dtype=None):
  if not len(arrays):
    raise ValueError("Need at least one array to concatenate.")
  arrays = promote_dtypes(*arrays) if len(arrays) > 1 else [asarray_like(arrays[0])]
  arrays = [_cast(a, dtype) for a in arrays]
  if axis is None:
    arrays = [ravel(a) for a in arrays]
    axis = 0
  n = core.get_aval(arrays[0]).ndim
  if n == 0:
    raise ValueError("zero-dimensional arrays cannot be concatenated")
  return lax_shape.concatenate(arrays, canonical_axis(axis, n))


def stack(arrays, axis: int = 0, out=None, dtype=None):
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.stack is not supported.")
  arrays = [_cast(asarray_like(a), dtype) for a in arrays]
  if not arrays:
    raise ValueError("need at least one array to stack")
  n = core.get_aval(arrays[0]).ndim + 1
  axis = canonical_axis(axis, n)
  return concatenate([lax_shape.expand_dims(a, (axis,)) for a in arrays], axis)


def hstack(tup, dtype=None):
  arrays = [_atleast_1d(_as_array(a)) for a in tup]
  return _cast(concatenate(arrays, 0 if core.get_aval(arrays[0]).ndim == 1 else 1), dtype)


def vstack(tup, dtype=None):
  return _cast(concatenate([atleast_2d_one(_as_array(a)) for a in tup], 0), dtype)


def dstack(tup, dtype=None):
  return _cast(concatenate([_atleast_3d(_as_array(a)) for a in tup], 2), dtype)


def column_stack(tup):
  arrays = []
  for a in tup:
    a = _as_array(a)
    arrays.append(lax_shape.reshape(a, (core.get_aval(a).size, 1))
                  if core.get_aval(a).ndim < 2 else a)
  return concatenate(arrays, 1)


def _cast(x, dtype):
  if dtype is None:
    return x
  return lax_ew.convert_element_type(x, dtypes.canonicalize_dtype(dtype))


def _atleast(arrays, fn):
  out = [fn(asarray_like(a) if isinstance(a, (list, tuple)) else _as_array(a)) for a in arrays]
  return out[0] if len(out) == 1 else out


def _as_array(a):
  if isinstance(a, (int, float, complex, bool)):
    return lax_ew.convert_element_type(a, dtypes.dtype(a), dtypes.is_weakly_typed(a))
  return late_op("asarray")(a)


def _atleast_1d(a):
  return lax_shape.reshape(a, (1,)) if core.get_aval(a).ndim == 0 else a


def atleast_2d_one(a):
  nd = core.get_aval(a).ndim
  return lax_shape.reshape(a, (1,) * (2 - nd) + core.get_aval(a).shape) if nd < 2 else a


def _atleast_3d(a):
  shape = core.get_aval(a).shape
  if len(shape) == 0:
    return lax_shape.reshape(a, (1, 1, 1))
  if len(shape) == 1:
    return lax_shape.reshape(a, (1, shape[0], 1))
  if len(shape) == 2:
    return lax_shape.reshape(a, (*shape, 1))
  return a


def atleast_1d(*arys):
  return _atleast(arys, _atleast_1d)


def atleast_2d(*arys):
  return _atleast(arys, atleast_2d_one)


def atleast_3d(*arys):
  return _atleast(arys, _atleast_3d)


def _preferred(args, preferred_element_type):
  """Operands promoted together, then widened to the preferred result type if given."""
  args = promote_dtypes(*args)
  if preferred_element_type is None:
    return args
  return [_cast(x, preferred_element_type) for x in args]


def dot(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
  # The precision is recorded in the jaxpr and the HLO (the CPU backend computes
  # every dot at full precision whatever it says).
  a, b = _preferred((a, b), preferred_element_type)
  return _sharded(_dot(a, b, precision, out_sharding is not None), out_sharding)


def _dot(a, b, precision=None, placed: bool = False):
  a, b = promote_dtypes(a, b)
  an, bn = core.get_aval(a).ndim, core.get_aval(b).ndim
  if an == 0 or bn == 0:
    return late_op("multiply")(a, b)
  contract_b = 0 if bn == 1 else bn - 2
  return lax_linalg.dot_general_placed(a, b, (((an - 1,), (contract_b,)), ((), ())), precision,
                                      placed=placed)


def matmul(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
  a, b = _preferred((a, b), preferred_element_type)
  return _sharded(_matmul(a, b, precision, out_sharding is not None), out_sharding)


def _matmul(a, b, precision=None, placed: bool = False):
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
  out = lax_linalg.dot_general_placed(
      a3, b3, (((nb + 1,), (nb,)), (tuple(range(nb)), tuple(range(nb)))), precision,
      placed=placed)
  if a_aval.ndim == 1:
    out = lax_shape.squeeze(out, (nb,))
  if b_aval.ndim == 1:
    out = lax_shape.squeeze(out, (core.get_aval(out).ndim - 1,))
  return out


def outer(a, b, out=None):
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.outer is not supported.")
  return dot(reshape(a, (-1, 1)), reshape(b, (1, -1)))


def vdot(a, b, *, precision=None, preferred_element_type=None):
  a, b = ravel(a), ravel(b)
  if dtypes.issubdtype(core.get_aval(a).dtype, np.complexfloating):
    a = lax_ew.conj(a)
  return dot(a, b, precision=precision, preferred_element_type=preferred_element_type)


# ----------------------------------------------------------------------------- splitting


def _split_points(size: int, indices_or_sections, even: bool, name: str) -> list[int]:
  if isinstance(indices_or_sections, (int, np.integer)) or np.ndim(indices_or_sections) == 0:
    n = int(indices_or_sections)
    if n <= 0:
      raise ValueError("number sections must be larger than 0.")
    if even and size % n:
      raise ValueError("array split does not result in an equal division")
    base, extra = divmod(size, n)
    sizes = [base + 1] * extra + [base] * (n - extra)
    return list(np.cumsum([0] + sizes))
  points = [int(i) for i in np.asarray(indices_or_sections).reshape(-1)]
  clipped = [min(max(p + size if p < 0 else p, 0), size) for p in points]
  return [0, *clipped, size]


def _split(ary, indices_or_sections, axis, even, name):
  ary = asarray_like(ary)
  aval = core.get_aval(ary)
  axis = canonical_axis(int(axis), aval.ndim)
  size = aval.shape[axis]
  points = _split_points(size, indices_or_sections, even, name)
  out = []
  for lo, hi in zip(points[:-1], points[1:]):
    hi = max(hi, lo)
    start = [0] * aval.ndim
    limit = list(aval.shape)
    start[axis], limit[axis] = lo, hi
    out.append(lax_shape.slice(ary, start, limit))
  return out


def split(ary, indices_or_sections, axis: int = 0):
  return _split(ary, indices_or_sections, axis, True, "split")


def array_split(ary, indices_or_sections, axis: int = 0):
  return _split(ary, indices_or_sections, axis, False, "array_split")


def hsplit(ary, indices_or_sections):
  ary = asarray_like(ary)
  return split(ary, indices_or_sections, 0 if core.get_aval(ary).ndim == 1 else 1)


def vsplit(ary, indices_or_sections):
  ary = asarray_like(ary)
  if core.get_aval(ary).ndim < 2:
    raise ValueError("vsplit only works on arrays of 2 or more dimensions")
  return split(ary, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
  ary = asarray_like(ary)
  if core.get_aval(ary).ndim < 3:
    raise ValueError("dsplit only works on arrays of 3 or more dimensions")
  return split(ary, indices_or_sections, 2)


# ----------------------------------------------------------------------------- broadcasting


def broadcast_arrays(*args):
  arrays = [_as_array(a) for a in args]
  shape = broadcast_shapes(*(core.get_aval(a).shape for a in arrays))
  return [broadcast_to(a, shape) for a in arrays]


# ----------------------------------------------------------------------------- tiling and moving


def tile(A, reps):
  A = _as_array(A)
  reps = (int(reps),) if np.ndim(reps) == 0 else tuple(int(r) for r in reps)
  aval = core.get_aval(A)
  nd = max(aval.ndim, len(reps))
  shape = (1,) * (nd - aval.ndim) + aval.shape
  reps = (1,) * (nd - len(reps)) + reps
  # Broadcast to (r0, s0, r1, s1, ...) and merge each pair of axes.
  x = lax_shape.reshape(A, shape)
  interleaved = tuple(v for r, s in zip(reps, shape) for v in (r, s))
  x = lax_shape.broadcast_in_dim(x, interleaved, tuple(range(1, 2 * nd, 2)))
  return lax_shape.reshape(x, tuple(r * s for r, s in zip(reps, shape)))


def repeat(a, repeats, axis: int | None = None, *, total_repeat_length: int | None = None,
           out_sharding=None):
  return _sharded(_repeat(a, repeats, axis, total_repeat_length), out_sharding)


def _repeat(a, repeats, axis, total_repeat_length):
  a = _as_array(a)
  if axis is None:
    a = ravel(a)
    axis = 0
  aval = core.get_aval(a)
  axis = canonical_axis(int(axis), aval.ndim)
  reps_value = core.concrete_value(repeats)
  if reps_value is None:
    raise core.errors.ConcretizationTypeError(
        repeats, "jnp.repeat needs concrete repeats (the output shape depends on them).")
  reps = np.asarray(reps_value).astype(np.int64)
  n = aval.shape[axis]
  if reps.ndim == 0:
    out = _repeat_scalar(a, int(reps), axis)
  else:
    if reps.shape != (n,):
      raise ValueError(f"repeats shape {reps.shape} does not match the axis size {n}")
    out = _repeat_each(a, reps, axis)
  if total_repeat_length is not None:
    out = _fit_length(out, int(total_repeat_length), axis)
  return out


def _repeat_scalar(a, r: int, axis: int):
  shape = core.get_aval(a).shape
  expanded = (*shape[:axis + 1], r, *shape[axis + 1:])
  dims = tuple(i if i <= axis else i + 1 for i in range(len(shape)))
  x = lax_shape.broadcast_in_dim(a, expanded, dims)
  return lax_shape.reshape(x, (*shape[:axis], shape[axis] * r, *shape[axis + 1:]))


def _repeat_each(a, reps, axis: int):
  pieces = []
  for i, r in enumerate(reps):
    if r > 0:
      pieces.append(_repeat_scalar(_take_slice(a, i, i + 1, axis), int(r), axis))
  if not pieces:
    shape = list(core.get_aval(a).shape)
    shape[axis] = 0
    return lax_shape.full(tuple(shape), 0, core.get_aval(a).dtype)
  return lax_shape.concatenate(pieces, axis)


def _fit_length(x, length: int, axis: int):
  """Truncate, or pad by repeating the last entry, to `length` along `axis`."""
  n = core.get_aval(x).shape[axis]
  if length <= n:
    return _take_slice(x, 0, length, axis)
  last = _take_slice(x, n - 1, n, axis)
  return lax_shape.concatenate([x, _repeat_scalar(last, length - n, axis)], axis)


def _take_slice(x, lo: int, hi: int, axis: int):
  shape = core.get_aval(x).shape
  start, limit = [0] * len(shape), list(shape)
  start[axis], limit[axis] = lo, hi
  return lax_shape.slice(x, start, limit)


def roll(a, shift, axis=None):
  a = _as_array(a)
  if axis is None:
    shape = core.get_aval(a).shape
    total = shift if _is_traced(shift) else int(np.sum(_static_ints(shift)))
    return reshape(roll(ravel(a), total, 0), shape)
  axes = np.atleast_1d(np.asarray(axis)).astype(np.int64)
  if _is_traced(shift):
    shifts = [shift] if core.get_aval(shift).ndim == 0 else \
        [shift[i] for i in range(core.get_aval(shift).shape[0])]
  else:
    shifts = list(_static_ints(shift))
  if len(shifts) == 1 and len(axes) > 1:
    shifts = shifts * len(axes)
  if len(axes) == 1 and len(shifts) > 1:
    axes = np.repeat(axes, len(shifts))
  if len(shifts) != len(axes):
    raise ValueError("'shift' and 'axis' should be scalars or 1D sequences of the same length")
  nd = core.get_aval(a).ndim
  for s, ax in zip(shifts, axes):
    a = _roll_one(a, s, canonical_axis(int(ax), nd))
  return a


def _is_traced(x) -> bool:
  return isinstance(x, core.Tracer) and core.concrete_value(x) is None


def _static_ints(x):
  return np.atleast_1d(np.asarray(core.concrete_value(x) if isinstance(x, core.Tracer)
                                  else x)).astype(np.int64).reshape(-1)


def _roll_one(a, shift, axis: int):
  n = core.get_aval(a).shape[axis]
  if n == 0:
    return a
  if not _is_traced(shift):
    k = int(_static_ints(shift)[0]) % n
    if not k:
      return a
    return lax_shape.concatenate([_take_slice(a, n - k, n, axis),
                                  _take_slice(a, 0, n - k, axis)], axis)
  # A traced shift: a window of length n taken from the array written twice.
  dt = core.get_aval(shift).dtype
  k = lax_ew.rem(lax_ew.convert_element_type(shift, dt), lax_shape.full((), n, dt))
  k = lax_ew.select(lax_ew.lt(k, lax_shape.full((), 0, dt)), lax_ew.add(k, lax_shape.full((), n, dt)), k)
  start = lax_ew.sub(lax_shape.full((), n, dt), k)
  doubled = lax_shape.concatenate([a, a], axis)
  return slicing.dynamic_slice_in_dim(doubled, start, n, axis)


def flip(m, axis=None):
  m = _as_array(m)
  nd = core.get_aval(m).ndim
  if axis is None:
    axes = tuple(range(nd))
  else:
    axes = tuple(canonical_axis(int(ax), nd) for ax in np.atleast_1d(axis))
  return lax_shape.rev(m, axes) if axes else m


def fliplr(m):
  m = _as_array(m)
  if core.get_aval(m).ndim < 2:
    raise ValueError("fliplr requires an array of rank >= 2")
  return flip(m, 1)


def flipud(m):
  m = _as_array(m)
  if core.get_aval(m).ndim < 1:
    raise ValueError("flipud requires an array of rank >= 1")
  return flip(m, 0)


def rot90(m, k: int = 1, axes=(0, 1)):
  m = _as_array(m)
  nd = core.get_aval(m).ndim
  ax0, ax1 = (canonical_axis(int(x), nd) for x in axes)
  if ax0 == ax1:
    raise ValueError("Axes must be different")
  k = int(k) % 4
  if k == 0:
    return m
  if k == 2:
    return flip(flip(m, ax0), ax1)
  perm = list(range(nd))
  perm[ax0], perm[ax1] = perm[ax1], perm[ax0]
  if k == 1:
    return lax_shape.transpose(flip(m, ax1), tuple(perm))
  return flip(lax_shape.transpose(m, tuple(perm)), ax1)


def resize(a, new_shape):
  a = _as_array(a)
  new_shape = (int(new_shape),) if np.ndim(new_shape) == 0 else tuple(int(d) for d in new_shape)
  if any(d < 0 for d in new_shape):
    raise ValueError("All elements of `new_shape` must be non-negative")
  flat = ravel(a)
  n = core.get_aval(flat).size
  total = int(np.prod(new_shape, dtype=np.int64))
  if n == 0 or total == 0:
    return lax_shape.full(new_shape, 0, core.get_aval(a).dtype)
  reps = -(-total // n)
  tiled = tile(flat, reps)
  return lax_shape.reshape(lax_shape.slice(tiled, (0,), (total,)), new_shape)


# ----------------------------------------------------------------------------- diagonals


def diagonal(a, offset: int = 0, axis1: int = 0, axis2: int = 1):
  a = _as_array(a)
  aval = core.get_aval(a)
  if aval.ndim < 2:
    raise ValueError("diagonal requires an array of at least two dimensions.")
  ax1, ax2 = canonical_axis(axis1, aval.ndim), canonical_axis(axis2, aval.ndim)
  if ax1 == ax2:
    raise ValueError("axis1 and axis2 must not be equal.")
  x = moveaxis(a, (ax1, ax2), (-2, -1))
  *batch, n, m = core.get_aval(x).shape
  k = int(offset)
  length = max(0, min(n, m - k) if k >= 0 else min(n + k, m))
  if length == 0:
    return lax_shape.full((*batch, 0), 0, aval.dtype)
  # Entry (i, i + k) sits at flat position i * (m + 1) + k of each (n, m) block.
  flat = lax_shape.reshape(x, (*batch, n * m))
  start = k if k >= 0 else -k * m
  nb = len(batch)
  return lax_shape.slice(flat, (0,) * nb + (start,),
                         (*batch, start + (length - 1) * (m + 1) + 1),
                         (1,) * nb + (m + 1,))


def diag(v, k: int = 0):
  v = _as_array(v)
  nd = core.get_aval(v).ndim
  if nd == 1:
    return _diag_matrix(v, int(k))
  if nd == 2:
    return diagonal(v, k)
  raise ValueError("diag input must be 1d or 2d")


def _diag_matrix(v, k: int):
  n = core.get_aval(v).shape[0]
  size = n + abs(k)
  shape = (size, size)
  rows = lax_shape.broadcasted_iota(np.int32, shape, 0)
  cols = lax_shape.broadcasted_iota(np.int32, shape, 1)
  on_diag = lax_ew.eq(lax_ew.sub(cols, rows), lax_shape.full(shape, k, np.int32))
  # Row i of the result holds v[i] (k >= 0) or v[i + k] (k < 0) on the diagonal.
  pad_lo, pad_hi = (0, k) if k >= 0 else (-k, 0)
  zero = lax_shape.full((), 0, core.get_aval(v).dtype)
  padded = lax_shape.pad(v, zero, ((pad_lo, pad_hi, 0),))
  along_rows = lax_shape.broadcast_in_dim(padded, shape, (0,))
  return lax_ew.select(on_diag, along_rows, lax_shape.full_like(along_rows, 0))


def diagflat(v, k: int = 0):
  return _diag_matrix(ravel(_as_array(v)), int(k))


def trace(a, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype=None, out=None):
  return reductions.sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


def matrix_transpose(x, /):
  """Swap the last two axes."""
  x = _as_array(x)
  nd = core.get_aval(x).ndim
  if nd < 2:
    raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got ndim={nd}")
  return lax_shape.transpose(x, (*range(nd - 2), nd - 1, nd - 2))
