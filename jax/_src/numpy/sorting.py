"""Sorting and searching: sort, argsort, lexsort, partition, searchsorted, digitize,
histogram, bincount.

Everything is built on the `sort` primitive (which can carry extra operands along
with its keys), comparisons and reductions, so no gather is needed.
"""

from __future__ import annotations

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.lax import elementwise as lax_ew
from jax._src.lax import reductions as lax_red
from jax._src.lax import shape as lax_shape
from jax._src.lax import sorting as lax_sort
from jax._src.numpy.util import asarray_like, canonical_axis, promote_dtypes
from jax._src.numpy import reductions as jnp_red
from jax._src.numpy.util import place as _place
from jax._src.numpy.creation import asarray, linspace
from jax._src.numpy.shape_ops import moveaxis


def _int_dtype():
  return dtypes.default_int_dtype()


def _array(a):
  return asarray(a)


def _flatten(a):
  return lax_shape.reshape(a, (core.get_aval(a).size,))


def _prepare(a, axis):
  """(array, axis) with axis=None meaning: sort the flattened array."""
  a = _array(a)
  if axis is None:
    return _flatten(a), 0
  ndim = core.get_aval(a).ndim
  if ndim == 0:
    raise ValueError("Cannot sort a 0-d array along an axis; use axis=None")
  return a, canonical_axis(int(axis), ndim)


def _check_kind(kind, order):
  if order is not None:
    raise ValueError("'order' argument to sort is not supported.")
  del kind  # every kind gives the same (stable) result


# ----------------------------------------------------------------------------- sort / argsort


def sort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True,
         descending: bool = False):
  _check_kind(kind, order)
  a, axis = _prepare(a, axis)
  if descending:
    return lax_shape.rev(lax_sort.sort(lax_shape.rev(a, (axis,)), axis, stable), (axis,))
  return lax_sort.sort(a, axis, stable)


def argsort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True,
            descending: bool = False, dtype=None):
  _check_kind(kind, order)
  a, axis = _prepare(a, axis)
  idx_dtype = _int_dtype() if dtype is None else dtypes.canonicalize_dtype(dtype)
  if not dtypes.is_integer(idx_dtype):
    raise ValueError(f"argsort: dtype must be an integer type, got {np.dtype(idx_dtype)}")
  idx = lax_shape.broadcasted_iota(idx_dtype, core.get_aval(a).shape, axis)
  if descending:
    # Sorting the reversed array with reversed indices keeps equal elements in their
    # original order once the result is reversed back.
    _, perm = lax_sort.sort((lax_shape.rev(a, (axis,)), lax_shape.rev(idx, (axis,))), axis,
                            stable, num_keys=1)
    return lax_shape.rev(perm, (axis,))
  _, perm = lax_sort.sort((a, idx), axis, stable, num_keys=1)
  return perm


def sort_complex(a):
  a = _array(a)
  out = sort(a, axis=0)
  complex_dtype = dtypes.canonicalize_dtype(
      np.promote_types(core.get_aval(a).dtype, np.complex64))
  return lax_ew.convert_element_type(out, complex_dtype)


def lexsort(keys, axis: int = -1):
  """Indices sorting by the last key, then the one before it, and so on."""
  keys = [_array(k) for k in keys] if not hasattr(keys, "shape") else \
      [_array(keys)[i] for i in range(core.get_aval(keys).shape[0])]
  if not keys:
    raise TypeError("need sequence of keys with len > 0 in lexsort")
  shapes = {core.get_aval(k).shape for k in keys}
  if len(shapes) != 1:
    raise ValueError("all keys need to be the same shape")
  shape = shapes.pop()
  if not shape:
    return lax_shape.full((), 0, _int_dtype())
  axis = canonical_axis(axis, len(shape))
  idx = lax_shape.broadcasted_iota(_int_dtype(), shape, axis)
  return lax_sort.sort((*keys[::-1], idx), axis, True, num_keys=len(keys))[-1]


def _to_last(a, axis):
  return moveaxis(a, axis, -1)


def _from_last(a, axis):
  return moveaxis(a, -1, axis)


def _check_kth(kth, n):
  kth = int(kth)
  if not -n <= kth < n:
    raise ValueError(f"kth(={kth}) out of bounds for axis of size {n}")
  return kth % n


def partition(a, kth: int, axis: int = -1):
  """The kth smallest element in place kth, smaller ones (ascending) before it and the
  others (descending) after it, as JAX arranges them."""
  a = _array(a)
  axis = canonical_axis(axis, core.get_aval(a).ndim)
  x = _to_last(a, axis)
  n = core.get_aval(x).shape[-1]
  kth = _check_kth(kth, n)
  bottom = lax_ew.neg(lax_sort.top_k(lax_ew.neg(x), kth + 1)[0])
  top = lax_sort.top_k(x, n - kth - 1)[0]
  return _from_last(lax_shape.concatenate([bottom, top], core.get_aval(x).ndim - 1), axis)


def argpartition(a, kth: int, axis: int = -1):
  """Indices of `partition`: the kth+1 smallest (ascending), then the rest in index order."""
  a = _array(a)
  axis = canonical_axis(axis, core.get_aval(a).ndim)
  x = _to_last(a, axis)
  shape = core.get_aval(x).shape
  last = len(shape) - 1
  kth = _check_kth(kth, shape[-1])
  perm = argsort(x, axis=last)
  bottom = lax_shape.slice(perm, (0,) * len(shape), (*shape[:-1], kth + 1))
  rest = lax_shape.slice(perm, (0,) * (len(shape) - 1) + (kth + 1,), shape)
  rest = lax_sort.sort(rest, last)
  return _from_last(lax_shape.concatenate([bottom, rest], last), axis)


# ----------------------------------------------------------------------------- searching


def _canonicalize_for_compare(x):
  """NaNs to one NaN and -0.0 to +0.0, so comparisons follow the sort order."""
  dt = core.get_aval(x).dtype
  if not dtypes.is_float(dt):
    return x
  zero = lax_shape.full_like(x, 0)
  x = lax_ew.select(lax_ew.eq(x, zero), zero, x)
  return lax_ew.select(lax_ew.ne(x, x), lax_shape.full_like(x, np.nan), x)


def sort_lt(x, y):
  """x < y in sort order (NaN after everything, including +inf)."""
  if dtypes.is_complex(core.get_aval(x).dtype):
    xr, yr = lax_ew.real(x), lax_ew.real(y)
    return lax_ew.bitwise_or(sort_lt(xr, yr), lax_ew.bitwise_and(
        lax_ew.eq(xr, yr), sort_lt(lax_ew.imag(x), lax_ew.imag(y))))
  lt = lax_ew.lt(x, y)
  if dtypes.is_float(core.get_aval(x).dtype):
    lt = lax_ew.bitwise_or(lt, lax_ew.bitwise_and(lax_ew.ne(y, y), lax_ew.eq(x, x)))
  return lt


def sort_le(x, y):
  return lax_ew.bitwise_not(sort_lt(y, x))


def _searchsorted_compare_all(a, v, side):
  # count of a[i] < v (left) or a[i] <= v (right), one comparison per pair.
  n = core.get_aval(a).shape[0]
  vshape = core.get_aval(v).shape
  vb = lax_shape.broadcast_in_dim(v, (*vshape, n), tuple(range(len(vshape))))
  ab = lax_shape.broadcast_in_dim(a, (*vshape, n), (len(vshape),))
  hit = sort_lt(ab, vb) if side == "left" else sort_le(ab, vb)
  return lax_red.reduce_sum(lax_ew.convert_element_type(hit, _int_dtype()), (len(vshape),))


def _inverse_permutation(perm):
  n = core.get_aval(perm).shape[0]
  return lax_sort.sort((perm, lax_shape.iota(core.get_aval(perm).dtype, n)), 0, True, 1)[1]


def _searchsorted_sort(a, v, side):
  # Sort a and v together; the queries sort before (left) or after (right) equal
  # entries of a. A query's place in that order minus its place among the sorted
  # queries is the number of entries of a before it.
  n = core.get_aval(a).shape[0]
  vshape = core.get_aval(v).shape
  flat_v = _flatten(v)
  m = core.get_aval(flat_v).shape[0]
  combined = lax_shape.concatenate([a, flat_v], 0)
  a_tag, v_tag = (1, 0) if side == "left" else (0, 1)
  tags = lax_shape.concatenate([lax_shape.full((n,), a_tag, np.int32),
                                lax_shape.full((m,), v_tag, np.int32)], 0)
  idx = lax_shape.iota(_int_dtype(), n + m)
  perm = lax_sort.sort((combined, tags, idx), 0, True, num_keys=2)[-1]
  place = _inverse_permutation(perm)
  v_place = lax_shape.slice(place, (n,), (n + m,))
  v_rank = _inverse_permutation(lax_sort.sort_permutation([flat_v], 0))
  return lax_shape.reshape(lax_ew.sub(v_place, v_rank), vshape)


_SEARCH_METHODS = {
    # Every method gives the same answer; 'scan' and 'scan_unrolled' (a binary search
    # per query in JAX) use the sort-based search here, which needs no gather.
    "scan": _searchsorted_sort,
    "scan_unrolled": _searchsorted_sort,
    "sort": _searchsorted_sort,
    "compare_all": _searchsorted_compare_all,
}


def searchsorted(a, v, side: str = "left", sorter=None, *, method: str = "scan"):
  if side not in ("left", "right"):
    raise ValueError(f"{side!r} is an invalid value for keyword 'side'. "
                     "Expected one of ['left', 'right'].")
  if method not in _SEARCH_METHODS:
    raise ValueError(f"{method!r} is an invalid value for keyword 'method'. "
                     f"Expected one of {sorted(_SEARCH_METHODS)}.")
  a, v = promote_dtypes(_array(a), _array(v))
  if core.get_aval(a).ndim != 1:
    raise ValueError("a should be 1-dimensional")
  if sorter is not None:
    a = _apply_permutation(a, _array(sorter))
  if core.get_aval(a).shape[0] == 0 or core.get_aval(v).size == 0:
    return lax_shape.full(core.get_aval(v).shape, 0, _int_dtype())
  a = _canonicalize_for_compare(a)
  v = _canonicalize_for_compare(v)
  return lax_ew.convert_element_type(_SEARCH_METHODS[method](a, v, side), _int_dtype())


def _apply_permutation(a, perm):
  """a[perm] for a permutation `perm` of a 1-d array: sort a by the inverse permutation."""
  return lax_sort.sort((_inverse_permutation(perm), a), 0, True, num_keys=1)[1]


def digitize(x, bins, right: bool = False, *, method: str | None = None):
  x, bins = _array(x), _array(bins)
  if core.get_aval(bins).ndim != 1:
    raise ValueError(f"digitize: bins must be a 1-dimensional array; got {bins.shape}")
  if core.get_aval(bins).shape[0] == 0:
    return lax_shape.full(core.get_aval(x).shape, 0, _int_dtype())
  side = "left" if right else "right"
  kw = {} if method is None else {"method": method}
  n = core.get_aval(bins).shape[0]
  # Decreasing bins: search the reversed bins and count from the other end.
  first = lax_shape.reshape(lax_shape.slice(bins, (0,), (1,)), ())
  last = lax_shape.reshape(lax_shape.slice(bins, (n - 1,), (n,)), ())
  inc = searchsorted(bins, x, side=side, **kw)
  dec = lax_ew.sub(lax_shape.full_like(inc, n), searchsorted(
      lax_shape.rev(bins, (0,)), x, side="left" if side == "right" else "right", **kw))
  decreasing = lax_shape.broadcast_in_dim(lax_ew.lt(last, first), core.get_aval(inc).shape, ())
  return lax_ew.select(decreasing, dec, inc)


# ----------------------------------------------------------------------------- counting


def bincount(x, weights=None, minlength: int = 0, *, length: int | None = None,
             out_sharding=None):
  out = _bincount(x, weights, minlength, length)
  if out_sharding is not None:
    out = _place(out, out_sharding=out_sharding)
  return out


def _bincount(x, weights, minlength, length):
  x = _array(x)
  if not dtypes.is_integer(core.get_aval(x).dtype):
    raise TypeError(f"x argument to bincount must have an integer type; got "
                    f"{core.get_aval(x).dtype}")
  if core.get_aval(x).ndim != 1:
    raise ValueError("only 1-dimensional input supported.")
  if minlength < 0:
    raise ValueError("minlength must not be negative")
  if length is None:
    value = core.concrete_value(x)
    if value is None:
      raise core.errors.ConcretizationTypeError(
          x, "The error occurred because of argument 'length' of jnp.bincount: pass a "
             "static length when calling bincount under a transformation.")
    value = np.asarray(value)
    length = max(int(minlength), int(value.max()) + 1 if value.size else 0)
  else:
    length = int(length)
  if weights is None:
    w_dtype = _int_dtype()
    w = lax_shape.full(core.get_aval(x).shape, 1, w_dtype)
  else:
    w = _array(weights)
    if core.get_aval(w).shape != core.get_aval(x).shape:
      raise ValueError("shape of weights must match shape of x.")
    w_dtype = dtypes.result_type(w, np.int8) if core.get_aval(w).dtype == np.bool_ else \
        core.get_aval(w).dtype
    w = lax_ew.convert_element_type(w, w_dtype)
  n = core.get_aval(x).shape[0]
  # One-hot counting: bin j sums the weights of the entries equal to j; negative and
  # out-of-range values fall in no bin, as in JAX.
  bins = lax_shape.broadcasted_iota(core.get_aval(x).dtype, (n, length), 1)
  hit = lax_ew.eq(lax_shape.broadcast_in_dim(x, (n, length), (0,)), bins)
  wb = lax_shape.broadcast_in_dim(w, (n, length), (0,))
  return lax_red.reduce_sum(lax_ew.select(hit, wb, lax_shape.full_like(wb, 0)), (0,))


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
  del weights
  a = _array(a)
  if not isinstance(bins, (int, np.integer)):
    return _array(bins)
  dtype = dtypes.to_inexact_dtype(core.get_aval(a).dtype)
  if range is None:
    lo, hi = jnp_red.min(a), jnp_red.max(a)
  else:
    lo, hi = (lax_ew.convert_element_type(_array(r), dtype) for r in range)
  lo = lax_ew.convert_element_type(lo, dtype)
  hi = lax_ew.convert_element_type(hi, dtype)
  # An empty range is widened by 0.5 on each side, as NumPy does.
  same = lax_ew.eq(lo, hi)
  half = lax_shape.full_like(lo, 0.5)
  lo = lax_ew.select(same, lax_ew.sub(lo, half), lo)
  hi = lax_ew.select(same, lax_ew.add(hi, half), hi)
  return linspace(lo, hi, int(bins) + 1, dtype=dtype)


def histogram(a, bins=10, range=None, weights=None, density=None):  # noqa: A002
  a = _flatten(_array(a))
  edges = histogram_bin_edges(a, bins, range, weights)
  nb = core.get_aval(edges).shape[0] - 1
  bin_idx = searchsorted(edges, a, side="right")
  # Values equal to the last edge belong to the last bin.
  last = lax_shape.reshape(lax_shape.slice(edges, (nb,), (nb + 1,)), ())
  on_last = lax_ew.eq(lax_ew.convert_element_type(a, core.get_aval(edges).dtype),
                      lax_shape.broadcast_in_dim(last, core.get_aval(a).shape, ()))
  bin_idx = lax_ew.select(on_last, lax_ew.sub(bin_idx, lax_shape.full_like(bin_idx, 1)), bin_idx)
  if weights is None:
    w = lax_shape.full(core.get_aval(a).shape, 1, core.get_aval(edges).dtype)
  else:
    w = _flatten(_array(weights))
  counts = bincount(bin_idx, w, length=nb + 2)
  counts = lax_shape.slice(counts, (1,), (nb + 1,))
  if density:
    widths = lax_ew.sub(lax_shape.slice(edges, (1,), (nb + 1,)),
                        lax_shape.slice(edges, (0,), (nb,)))
    total = jnp_red.sum(counts)
    counts = lax_ew.div(lax_ew.div(counts, lax_shape.broadcast_in_dim(total, (nb,), ())),
                        widths)
  return counts, edges


# ----------------------------------------------------------------------------- selection


def take_onehot(arr, indices, axis: int):
  """arr[..., indices, ...] along `axis` for in-range integer `indices`.

  Built from a comparison with an iota and a masked sum, so it needs no gather; the
  one selected term is added to zeros only, so the values are exact (a -0.0 comes
  out as +0.0).
  """
  arr, indices = _array(arr), _array(indices)
  a_aval, i_aval = core.get_aval(arr), core.get_aval(indices)
  axis = canonical_axis(axis, a_aval.ndim)
  n = a_aval.shape[axis]
  before, after = a_aval.shape[:axis], a_aval.shape[axis + 1:]
  out_shape = (*before, *i_aval.shape, *after)
  full_shape = (*before, *i_aval.shape, n, *after)
  nb, ni = len(before), i_aval.ndim
  idx = lax_shape.broadcast_in_dim(indices, full_shape, tuple(range(nb, nb + ni)))
  iota = lax_shape.broadcasted_iota(i_aval.dtype, full_shape, nb + ni)
  vals = lax_shape.broadcast_in_dim(
      arr, full_shape, (*range(nb), *range(nb + ni, len(full_shape))))
  picked = lax_ew.select(lax_ew.eq(idx, iota), vals, lax_shape.full_like(vals, 0))
  out = lax_red.reduce_sum(picked, (nb + ni,))
  assert core.get_aval(out).shape == out_shape
  return out
