"""jax.numpy functions built on indexing: take, take_along_axis, put, choose, ix_,
nonzero/argwhere/flatnonzero, compress/extract/place, select, piecewise,
insert/delete/append and trim_zeros.

Functions whose result shape depends on values (nonzero, compress, insert with
array positions, ...) need concrete values, as in JAX; nonzero-like functions
also accept a static `size` so that they work under `jit`.
"""

from __future__ import annotations

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src import errors
from jax._src.lax import elementwise as lax_ew
from jax._src.lax import shape as lax_shape
from jax._src.lax.slicing import GatherScatterMode
from jax._src.numpy import indexing, ufuncs, util
from jax._src.numpy.util import (broadcast_shapes, broadcast_to, canonical_axis, check_arraylike,
                                 promote_dtypes)
from jax._src.lax import sorting
from jax._src.numpy.creation import asarray
from jax._src.numpy.shape_ops import concatenate, moveaxis


def _asarray(a, dtype=None):
  return asarray(a, dtype)


def _ravel(a):
  return lax_shape.reshape(a, (core.get_aval(a).size,))


def _shape(a):
  return core.get_aval(a).shape


def _concrete(x, context: str):
  """The numpy value of `x`, or ConcretizationTypeError naming the function."""
  if isinstance(x, (list, tuple)):
    return np.asarray([_concrete(v, context) for v in x]) if x else np.asarray(x)
  value = core.concrete_value(x)
  if value is None:
    raise errors.ConcretizationTypeError(x, context)
  return np.asarray(value)


def _check_integer(name: str, x) -> None:
  dt = core.get_aval(x).dtype
  if not dtypes.is_integer(dt):
    raise TypeError(f"{name}: indices must be integers, got dtype {dt.name}")


# ----------------------------------------------------------------------------- take


def _take_mode(name: str, mode, indices, size: int):
  """(indices, gather mode) for NumPy's take modes; 'fill' is the default, as in JAX."""
  if mode is None or mode == "fill":
    return indices, GatherScatterMode.FILL_OR_DROP
  if mode == "raise":
    raise NotImplementedError(f"The 'raise' mode to jnp.{name} is not supported.")
  if mode == "wrap":
    return ufuncs.remainder(indices, lax_ew.convert_element_type(size, core.get_aval(indices).dtype)), \
        GatherScatterMode.PROMISE_IN_BOUNDS
  if mode == "clip":
    return indices, GatherScatterMode.CLIP
  raise ValueError(f"Invalid mode '{mode}' for np.{name}")


def take(a, indices, axis=None, out=None, mode=None, unique_indices: bool = False,
         indices_are_sorted: bool = False, fill_value=None):
  """`a` indexed by `indices` along `axis` (the flattened array if None).

  Out-of-bounds indices give `fill_value` (NaN, the minimum integer or True by
  default) unless mode is 'clip' or 'wrap'; negative indices count from the end.
  """
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
  check_arraylike("take", a, indices)
  a, indices = _asarray(a), _asarray(indices)
  _check_integer("take", indices)
  if axis is None:
    a, axis = _ravel(a), 0
  axis = canonical_axis(axis, core.get_aval(a).ndim)
  if _shape(a)[axis] == 0 and core.get_aval(indices).size:
    raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
  indices, gather_mode = _take_mode("take", mode, indices, _shape(a)[axis])
  idx = (slice(None),) * axis + (indices,)
  # Clipping clamps negative indices to 0 instead of counting from the end (as JAX).
  return indexing.rewriting_take(a, idx, mode=gather_mode, fill_value=fill_value,
                                 unique_indices=unique_indices,
                                 indices_are_sorted=indices_are_sorted,
                                 normalize_indices=gather_mode is not GatherScatterMode.CLIP)


def take_along_axis(arr, indices, axis, mode=None, fill_value=None, *,
                    wrap_negative_indices: bool = True):
  """`arr` picked along `axis` by `indices` of the same rank (other axes broadcast)."""
  check_arraylike("take_along_axis", arr, indices)
  arr, indices = _asarray(arr), _asarray(indices)
  _check_integer("take_along_axis", indices)
  if axis is None:
    if core.get_aval(indices).ndim != 1:
      raise ValueError("when axis=None, `indices` must have a single dimension.")
    arr, axis = _ravel(arr), 0
  ndim = core.get_aval(arr).ndim
  if core.get_aval(indices).ndim != ndim:
    raise ValueError("indices and arr must have the same number of dimensions; "
                     f"{core.get_aval(indices).ndim} vs. {ndim}")
  axis = canonical_axis(axis, ndim)
  if not wrap_negative_indices:
    # Moving negatives below -size keeps them out of bounds after the usual wrapping.
    idt = core.get_aval(indices).dtype
    shape = _shape(indices)
    below = lax_shape.full(shape, -_shape(arr)[axis] - 1, idt)
    indices = lax_ew.select(lax_ew.lt(indices, lax_shape.full(shape, 0, idt)), below, indices)
  indices, gather_mode = _take_mode("take_along_axis", mode, indices, _shape(arr)[axis])
  ishape, ashape = _shape(indices), _shape(arr)
  out_shape = [n if d == axis else broadcast_shapes((ashape[d],), (ishape[d],))[0]
               for d, n in enumerate(ishape)]
  idx = []
  for d in range(ndim):
    if d == axis:
      idx.append(indices)
      continue
    # Position along the other axes: an iota (or 0 where arr broadcasts).
    shape = [1] * ndim
    shape[d] = out_shape[d]
    pos = np.arange(out_shape[d]) if ashape[d] != 1 else np.zeros(out_shape[d], np.int32)
    idx.append(pos.astype(np.int32).reshape(shape))
  return indexing.rewriting_take(arr, tuple(idx), mode=gather_mode, fill_value=fill_value)


# ----------------------------------------------------------------------------- put / place


def _inplace_error(name: str):
  return ValueError(f"jax.numpy.{name} cannot modify arrays in-place, because JAX arrays are "
                    "immutable. Pass inplace=False to instead return an updated array.")


def _cycle(values, n: int):
  """`values` flattened and repeated cyclically to length n (NumPy's put/place)."""
  flat = _ravel(values)
  m = _shape(flat)[0]
  if m == n:
    return flat
  if m == 0:
    raise ValueError("cannot put or place an empty set of values into a non-empty selection")
  return indexing.rewriting_take(flat, np.arange(n, dtype=np.int32) % m)


def put(a, ind, v, mode=None, *, inplace: bool = True):
  """`a` with the flat positions `ind` set to `v` (repeated cyclically); a new array."""
  if inplace:
    raise _inplace_error("put")
  check_arraylike("put", a, ind, v)
  a, ind, v = _asarray(a), _ravel(_asarray(ind)), _asarray(v)
  _check_integer("put", ind)
  n = _shape(ind)[0]
  size = core.get_aval(a).size
  if mode is None or mode == "fill":
    scatter_mode = GatherScatterMode.FILL_OR_DROP
  elif mode == "clip":
    scatter_mode = GatherScatterMode.CLIP
  elif mode == "wrap":
    ind = ufuncs.remainder(ind, lax_ew.convert_element_type(size, core.get_aval(ind).dtype))
    scatter_mode = GatherScatterMode.PROMISE_IN_BOUNDS
  elif mode == "raise":
    raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
  else:
    raise ValueError(f"mode should be one of 'wrap' or 'clip'; got mode={mode!r}")
  values = _cycle(lax_ew.convert_element_type(v, core.get_aval(a).dtype), n) if n else v
  flat = _ravel(a).at[ind].set(values, mode=scatter_mode) if n else _ravel(a)
  return lax_shape.reshape(flat, _shape(a))


def place(arr, mask, vals, *, inplace: bool = True):
  """`arr` with the positions where `mask` is true set to `vals` (repeated cyclically)."""
  if inplace:
    raise _inplace_error("place")
  check_arraylike("place", arr, mask, vals)
  arr = _asarray(arr)
  mask = _concrete(mask, "jnp.place needs a concrete mask.").astype(bool)
  positions = np.flatnonzero(mask)
  if positions.size == 0:
    return arr
  values = _cycle(lax_ew.convert_element_type(_asarray(vals), core.get_aval(arr).dtype),
                  positions.size)
  flat = _ravel(arr).at[positions.astype(np.int32)].set(values)
  return lax_shape.reshape(flat, _shape(arr))


# ----------------------------------------------------------------------------- choose / select


def choose(a, choices, out=None, mode: str = "raise"):
  """Element i of the result is choices[a[i]][i] (all arguments broadcast)."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
  check_arraylike("choose", a, *choices)
  a = _asarray(a)
  _check_integer("choose", a)
  n = len(choices)
  if mode == "raise":
    value = core.concrete_value(a)
    if value is None:
      raise errors.ConcretizationTypeError(
          a, "The error occurred because jnp.choose was jit-compiled with mode='raise'. "
          "Use mode='wrap' or mode='clip' instead.")
    if np.any((np.asarray(value) < 0) | (np.asarray(value) >= n)):
      raise ValueError("invalid entry in choice array")
  elif mode == "wrap":
    a = ufuncs.remainder(a, lax_ew.convert_element_type(n, core.get_aval(a).dtype))
  elif mode == "clip":
    a = ufuncs.clip(a, 0, n - 1)
  else:
    raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
  cases = promote_dtypes(*choices)
  shape = broadcast_shapes(_shape(a), *(_shape(c) for c in cases))
  which = lax_ew.convert_element_type(broadcast_to(a, shape), np.int32)
  return lax_ew.select_n(which, *(broadcast_to(c, shape) for c in cases))


def select(condlist, choicelist, default=0):
  """The choice of the first true condition at each position, else `default`."""
  if len(condlist) != len(choicelist):
    raise ValueError(f"condlist must have length equal to choicelist ({len(condlist)} vs "
                     f"{len(choicelist)})")
  if not condlist:
    raise ValueError("condlist must be non-empty")
  check_arraylike("select", *condlist, *choicelist, default)
  conds = [_asarray(c) for c in condlist]
  for i, c in enumerate(conds):
    if core.get_aval(c).dtype != dtypes.bool_:
      raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
  default, *choices = promote_dtypes(default, *choicelist)
  shape = broadcast_shapes(*(_shape(v) for v in (*conds, default, *choices)))
  out = broadcast_to(default, shape)
  # Later conditions first, so the first true condition is applied last and wins.
  for cond, choice in reversed(list(zip(conds, choices))):
    out = lax_ew.select(broadcast_to(cond, shape), broadcast_to(choice, shape), out)
  return out


def piecewise(x, condlist, funclist, *args, **kw):
  """funclist[i](x) where condlist[i] holds (the last true condition wins); the extra
  last function or value, if given, where none holds (else 0). Result dtype is x's."""
  check_arraylike("piecewise", x)
  x = _asarray(x)
  aval = core.get_aval(x)
  if not isinstance(condlist, (list, tuple)) or (
      condlist and not isinstance(condlist[0], (list, tuple)) and np.ndim(condlist[0]) == 0
      and aval.ndim > 0):
    condlist = [condlist]
  conds = [_asarray(c) for c in condlist]
  nc, nf = len(conds), len(funclist)
  if nf == nc + 1:
    funclist, default = list(funclist[:-1]), funclist[-1]
  elif nf == nc:
    default = 0
  else:
    raise ValueError(f"with {nc} condition(s), either {nc} or {nc + 1} functions are "
                     f"expected; got {nf}")

  def value(f):
    v = f(x, *args, **kw) if callable(f) else f
    return broadcast_to(lax_ew.convert_element_type(_asarray(v), aval.dtype), aval.shape)

  out = value(default)
  for cond, f in zip(conds, funclist):
    c = broadcast_to(lax_ew.ne(cond, lax_shape.full_like(cond, 0))
                     if core.get_aval(cond).dtype != dtypes.bool_ else cond, aval.shape)
    out = lax_ew.select(c, value(f), out)
  return out


def ix_(*args):
  """Open mesh index arrays: the k-th of n results has shape (1, ..., len, ..., 1)."""
  check_arraylike("ix", *args)
  n = len(args)
  out = []
  for k, a in enumerate(args):
    a = _asarray(a)
    aval = core.get_aval(a)
    if aval.ndim != 1:
      raise ValueError(f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape {aval.shape}")
    if aval.dtype == dtypes.bool_:
      raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not implemented")
    shape = [1] * n
    shape[k] = aval.shape[0]
    out.append(lax_shape.reshape(a, tuple(shape)))
  return tuple(out)


# ----------------------------------------------------------------------------- nonzero family


def nonzero(a, *, size=None, fill_value=None):
  """Indices of the nonzero elements, one array per dimension.

  With a static `size` the result has exactly that length (padded with
  `fill_value`, default 0, or truncated), which also works under `jit`.
  """
  check_arraylike("nonzero", a)
  a = _asarray(a)
  aval = core.get_aval(a)
  if aval.ndim == 0:
    raise ValueError("Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d(scalar) "
                     "instead.")
  if size is None:
    value = core.concrete_value(a)
    if value is None:
      raise errors.ConcretizationTypeError(
          a, "The size argument of jnp.nonzero must be statically specified to use "
          "jnp.nonzero within JAX transformations.")
    return tuple(_asarray(i.astype(np.int32) if aval.size < 2**31 else i)
                 for i in np.nonzero(np.asarray(value)))
  return _nonzero_sized(a, int(size), fill_value)


def _nonzero_sized(a, size: int, fill_value):
  """First `size` nonzero positions by sorting the flat positions (misses sort last)."""
  aval = core.get_aval(a)
  n = aval.size
  dtype = np.int32 if n < 2**31 - 1 else np.int64
  mask = lax_ew.ne(_ravel(a), lax_shape.full((n,), 0, aval.dtype))
  keys = lax_ew.select(mask, lax_shape.iota(dtype, n), lax_shape.full((n,), n, dtype))
  keys = sorting.sort(keys) if n else keys
  if size > n:
    keys = lax_shape.concatenate([keys, lax_shape.full((size - n,), n, dtype)], 0)
  keys = lax_shape.slice(keys, (0,), (size,))
  valid = lax_ew.lt(keys, lax_shape.full((size,), n, dtype))
  fills = fill_value if isinstance(fill_value, (tuple, list)) else [fill_value] * aval.ndim
  if len(fills) != aval.ndim:
    raise ValueError(f"fill_value must be a scalar or a tuple of length {aval.ndim}; got "
                     f"{fill_value}")
  out, rest = [], lax_ew.select(valid, keys, lax_shape.full((size,), 0, dtype))
  strides = [int(np.prod(aval.shape[d + 1:], dtype=np.int64)) for d in range(aval.ndim)]
  for stride, fill in zip(strides, fills):
    coord = lax_ew.div(rest, lax_shape.full((size,), stride, dtype))
    rest = lax_ew.rem(rest, lax_shape.full((size,), stride, dtype))
    fill = lax_shape.full((size,), 0 if fill is None else fill, dtype)
    out.append(lax_ew.select(valid, coord, fill))
  return tuple(out)


def flatnonzero(a, *, size=None, fill_value=None):
  check_arraylike("flatnonzero", a)
  return nonzero(_ravel(_asarray(a)), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
  """Indices of the nonzero elements, one row per element."""
  check_arraylike("argwhere", a)
  a = _asarray(a)
  ndim = core.get_aval(a).ndim
  cols = nonzero(a if ndim else lax_shape.reshape(a, (1,)), size=size, fill_value=fill_value)
  out = lax_shape.concatenate([lax_shape.reshape(c, (_shape(c)[0], 1)) for c in cols], 1)
  return lax_shape.slice(out, (0, 0), (_shape(out)[0], 0)) if ndim == 0 else out


def where_one_arg(condition, *, size=None, fill_value=None):
  """`jnp.where(condition)`: the same as `nonzero(condition)`."""
  return nonzero(condition, size=size, fill_value=fill_value)


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
  """The slices of `a` along `axis` where `condition` (1-D) is true."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
  check_arraylike("compress", condition, a)
  condition, a = _asarray(condition), _asarray(a)
  if core.get_aval(condition).ndim != 1:
    raise ValueError("condition must be a 1D array")
  if axis is None:
    a, axis = _ravel(a), 0
  axis = canonical_axis(axis, core.get_aval(a).ndim)
  n = _shape(a)[axis]
  m = _shape(condition)[0]
  if m > n:
    extra = _concrete(condition, "jnp.compress needs a concrete condition longer than the axis.")
    if np.any(extra[n:]):
      raise ValueError(f"condition contains entries that are out of bounds for axis {axis} "
                       f"of size {n}")
    condition = lax_shape.slice(condition, (0,), (n,))
  elif m < n:
    a = lax_shape.slice(a, (0,) * axis + (0,) + (0,) * (core.get_aval(a).ndim - axis - 1),
                        tuple(m if d == axis else s for d, s in enumerate(_shape(a))))
  if size is None:
    idx, = nonzero(condition)
    return take(a, idx, axis=axis, mode="clip")
  # Padding positions point past the end, so the filling take gives `fill_value` there.
  idx, = nonzero(condition, size=size, fill_value=n)
  return take(a, idx, axis=axis, mode="fill", fill_value=fill_value)


def extract(condition, arr, *, size=None, fill_value=0):
  """The elements of `arr` (flattened) where `condition` is nonzero."""
  check_arraylike("extract", condition, arr)
  cond = _ravel(_asarray(condition))
  if core.get_aval(cond).dtype != dtypes.bool_:
    cond = lax_ew.ne(cond, lax_shape.full_like(cond, 0))
  return compress(cond, _ravel(_asarray(arr)), size=size, fill_value=fill_value)


# ----------------------------------------------------------------------------- insert / delete


def _static_positions(obj, n: int, name: str, allow_slice: bool = True) -> np.ndarray:
  if isinstance(obj, slice):
    if not allow_slice:
      raise TypeError(f"{name}: slices are not supported here")
    return np.arange(*obj.indices(n))
  if isinstance(obj, (list, tuple)):
    raise TypeError(f"{name} requires ndarray or scalar arguments, got {type(obj)} at position 1.")
  pos = _concrete(obj, f"jnp.{name} needs concrete (non-traced) positions `obj`.")
  if pos.dtype == np.bool_ or not np.issubdtype(pos.dtype, np.integer):
    raise TypeError(f"{name}: positions must be integers, got dtype {pos.dtype}")
  return pos.astype(np.int64)


def insert(arr, obj, values, axis=None):
  """`arr` with `values` inserted before the positions `obj` along `axis`."""
  check_arraylike("insert", arr, values)
  a = _asarray(arr)
  if axis is None:
    a, axis = _ravel(a), 0
  ndim = core.get_aval(a).ndim
  axis = canonical_axis(axis, ndim)
  n = _shape(a)[axis]
  pos = _static_positions(obj, n, "insert")
  if np.any((pos < -n) | (pos > n)):
    raise IndexError(f"index {obj} is out of bounds for axis {axis} with size {n}")
  pos = np.where(pos < 0, pos + n, pos)
  values = lax_ew.convert_element_type(_asarray(values), core.get_aval(a).dtype,
                                       core.get_aval(a).weak_type)
  if pos.ndim == 0:
    # A single position inserts `values` as a block: like NumPy, its first axis
    # becomes `axis` (a[:, i:i+1] = ... rather than a[:, i] = ...).
    vshape = _shape(values)
    values = lax_shape.reshape(values, (1,) * (ndim - len(vshape)) + vshape)
    values = moveaxis(values, 0, axis)
    count = _shape(values)[axis]
    new_pos = int(pos) + np.arange(count)
  else:
    pos = pos.reshape(-1)
    count = pos.size
    order = np.argsort(pos, kind="stable")
    new_pos = np.empty(count, np.int64)
    new_pos[order] = pos[order] + np.arange(count)
  target = tuple(count if d == axis else s for d, s in enumerate(_shape(a)))
  values = broadcast_to(values, target)
  is_new = np.zeros(n + count, bool)
  is_new[new_pos] = True
  src_new = np.zeros(n + count, np.int32)
  src_new[new_pos] = np.arange(count)
  src_old = np.zeros(n + count, np.int32)
  src_old[~is_new] = np.arange(n)
  old = take(a, src_old, axis=axis, mode="clip") if n else None
  new = take(values, src_new, axis=axis, mode="clip") if count else None
  if old is None or new is None:
    return new if old is None else old
  mask_shape = [1] * ndim
  mask_shape[axis] = n + count
  mask = broadcast_to(is_new.reshape(mask_shape), _shape(old))
  return lax_ew.select(mask, new, old)


def delete(arr, obj, axis=None, *, assume_unique_indices: bool = False):
  """`arr` without the entries at positions `obj` along `axis`."""
  check_arraylike("delete", arr)
  a = _asarray(arr)
  if axis is None:
    a, axis = _ravel(a), 0
  axis = canonical_axis(axis, core.get_aval(a).ndim)
  n = _shape(a)[axis]
  pos = _static_positions(obj, n, "delete").reshape(-1)
  if np.any((pos < -n) | (pos >= n)):
    raise IndexError(f"index {obj} is out of bounds for axis {axis} with size {n}")
  keep = np.ones(n, bool)
  keep[np.where(pos < 0, pos + n, pos)] = False
  kept = np.flatnonzero(keep).astype(np.int32)
  if kept.size == n:
    return a
  return take(a, kept, axis=axis, mode="clip")


def append(arr, values, axis=None):
  """`arr` followed by `values` along `axis` (both flattened if None)."""
  check_arraylike("append", arr, values)
  if axis is None:
    return concatenate([_ravel(_asarray(arr)), _ravel(_asarray(values))], 0)
  return concatenate([arr, values], axis)


def trim_zeros(filt, trim: str = "fb", axis=None):
  """`filt` without its leading ('f') and/or trailing ('b') all-zero slices along `axis`
  (every axis when None)."""
  check_arraylike("trim_zeros", filt)
  filt = _asarray(filt)
  ndim = core.get_aval(filt).ndim
  if ndim == 0:
    raise ValueError("trim_zeros requires an array of at least one dimension")
  value = _concrete(filt, "jnp.trim_zeros needs a concrete array.")
  axes = range(ndim) if axis is None else [canonical_axis(a, ndim) for a in np.atleast_1d(axis)]
  start, stop = [0] * ndim, list(value.shape)
  for ax in axes:
    others = tuple(d for d in range(ndim) if d != ax)
    nz = np.flatnonzero(np.any(value != 0, axis=others) if others else value != 0)
    if nz.size == 0:
      start[ax] = stop[ax] = 0
      continue
    if "f" in trim.lower():
      start[ax] = int(nz[0])
    if "b" in trim.lower():
      stop[ax] = int(nz[-1]) + 1
  return lax_shape.slice(filt, tuple(start), tuple(stop))

# ufuncs, below this module, answers where(condition) with it (see util.late_op).
util.register_late_ops(nonzero=nonzero)
