"""Set operations: unique (and its Array API variants), isin, union1d, intersect1d,
setdiff1d, setxor1d.

All of them reduce to one sorted pass: the candidate elements are sorted (elements that
are not part of the set sort last), and a group starts wherever the sorted value differs
from its predecessor. Without a static `size` the number of groups must be concrete, so
these functions only run eagerly then; with `size` they work under jit and vmap.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src import errors
from jax._src.lax import elementwise as lax_ew
from jax._src.lax import shape as lax_shape
from jax._src.lax import sorting as lax_sort
from jax._src.numpy import reductions
from jax._src.numpy import ufuncs
from jax._src.numpy.creation import asarray
from jax._src.numpy.cumulative import cumsum
from jax._src.numpy.shape_ops import concatenate, moveaxis, reshape
from jax._src.numpy.util import canonical_axis, check_arraylike_strict, promote_dtypes


class _UniqueAll(NamedTuple):
  values: object
  indices: object
  inverse_indices: object
  counts: object


class _UniqueCounts(NamedTuple):
  values: object
  counts: object


class _UniqueInverse(NamedTuple):
  values: object
  inverse_indices: object


def _flat(a):
  return lax_shape.reshape(a, (core.get_aval(a).size,))


def _index_dtype():
  return dtypes.default_int_dtype()


def _iota(n: int):
  return lax_shape.iota(_index_dtype(), n)


def _static_size(size, name: str):
  if size is None:
    return None
  value = core.concrete_value(size)
  if value is None:
    raise errors.ConcretizationTypeError(size, f"The size argument of jnp.{name}")
  size = int(value)
  if size < 0:
    raise ValueError(f"jnp.{name}: size must be non-negative, got {size}")
  return size


def _rows_differ(s, equal_nan: bool):
  """Whether each row of the sorted 2-D `s` differs from the row before (row 0: True)."""
  prev, cur = s[:-1], s[1:]
  diff = ufuncs.not_equal(prev, cur)
  if equal_nan and dtypes.is_inexact(core.get_aval(s).dtype):
    diff = ufuncs.logical_and(diff, ufuncs.logical_not(
        ufuncs.logical_and(ufuncs.isnan(prev), ufuncs.isnan(cur))))
  diff = reductions.any(diff, axis=1)
  return concatenate([lax_shape.full((1,), True, np.bool_), diff])


def _group_starts(size: int, starts):
  """Sorted positions of the group starts, padded to `size` with the array length."""
  n = core.get_aval(starts).size
  keys = lax_ew.select(starts, _iota(n), lax_shape.full((n,), n, _index_dtype()))
  keys = lax_sort.sort(keys, 0, True) if n else keys
  if size > n:
    keys = lax_shape.concatenate([keys, lax_shape.full((size - n,), n, _index_dtype())], 0)
  return lax_shape.slice(keys, (0,), (size,))


def _unique_rows(rows, valid, *, equal_nan: bool, size, fill_value, name: str):
  """Unique rows of the 2-D `rows` among those with `valid`, lexicographically sorted.

  Returns (values, first index, inverse for every row, counts, number of unique rows).
  """
  n, m = core.get_aval(rows).shape
  # Sort by the columns lexicographically: the last sort key is the most significant
  # one in lexsort, so the columns go in reverse with the validity flag on top.
  keys = [lax_ew.convert_element_type(lax_ew.bitwise_not(valid), np.int32)]
  keys += [rows[:, j] for j in range(m)]
  sorted_ops = lax_sort.sort(tuple(keys) + (_iota(n),), 0, True, num_keys=len(keys))
  valid_s = lax_ew.eq(sorted_ops[0], lax_shape.full((n,), 0, np.int32))
  perm = sorted_ops[-1]
  rows_s = (lax_shape.concatenate([lax_shape.reshape(c, (n, 1)) for c in sorted_ops[1:-1]], 1)
            if m else rows)
  starts = ufuncs.logical_and(_rows_differ(rows_s, equal_nan), valid_s) if n else valid_s
  count = reductions.sum(lax_ew.convert_element_type(starts, _index_dtype()))
  if size is None:
    value = core.concrete_value(count)
    if value is None:
      raise errors.ConcretizationTypeError(
          count, f"The size argument of jnp.{name} must be statically specified to use "
          f"jnp.{name} within JAX transformations.")
    size = int(value)
  pos = _group_starts(size, starts)
  in_range = lax_ew.lt(_iota(size), lax_shape.full((size,), count, _index_dtype()))
  safe_pos = lax_ew.select(in_range, pos, lax_shape.full((size,), 0, _index_dtype()))
  values = rows_s[safe_pos] if n else lax_shape.full((size, m), 0, core.get_aval(rows).dtype)
  if fill_value is None:
    fill = rows_s[:1] if n else values[:0]
  else:
    fill = asarray(fill_value, core.get_aval(rows).dtype)
  if size:
    values = ufuncs.where(in_range[:, None], values, fill)
  first = perm[safe_pos] if n else lax_shape.full((size,), 0, _index_dtype())
  first = ufuncs.where(in_range, first, 0)
  # Group id of each sorted row; rows outside the set have no meaningful id.
  ids_sorted = cumsum(lax_ew.convert_element_type(starts, _index_dtype())) - 1
  inverse = lax_sort.sort((perm, ids_sorted), 0, True, num_keys=1)[1] if n else ids_sorted
  ends = concatenate([pos[1:], lax_shape.full((1,), n, _index_dtype())]) if size else pos
  total_valid = reductions.sum(lax_ew.convert_element_type(valid_s, _index_dtype()))
  ends = ufuncs.minimum(ends, total_valid)
  counts = ufuncs.where(in_range, ends - pos, 0)
  return values, first, inverse, counts, count


def _prepare_axis(ar, axis):
  """(2-D rows, function mapping unique rows back to the output layout)."""
  shape = core.get_aval(ar).shape
  if axis is None:
    flat = _flat(ar)
    return lax_shape.reshape(flat, (flat.shape[0], 1)), (lambda v: v[:, 0]), None
  axis = canonical_axis(int(axis), len(shape))
  moved = moveaxis(ar, axis, 0)
  rest = moved.shape[1:]
  rows = reshape(moved, (shape[axis], int(np.prod(rest, dtype=np.int64))))
  return rows, (lambda v: moveaxis(reshape(v, (v.shape[0],) + rest), 0, axis)), axis


def unique(ar, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None, *, equal_nan: bool = True,
           size: int | None = None, fill_value=None, sorted: bool = True):
  """Sorted unique elements (or slices along `axis`) of an array."""
  check_arraylike_strict("unique", ar)
  if not sorted:
    raise ValueError("jnp.unique: sorted=False is not implemented.")
  ar = asarray(ar)
  size = _static_size(size, "unique")
  if core.get_aval(ar).ndim == 0 and axis is not None:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension 0")
  rows, restore, axis = _prepare_axis(ar, axis)
  n = rows.shape[0]
  valid = lax_shape.full((n,), True, np.bool_)
  values, first, inverse, counts, _ = _unique_rows(
      rows, valid, equal_nan=equal_nan, size=size, fill_value=fill_value, name="unique")
  out = [restore(values)]
  if return_index:
    out.append(first)
  if return_inverse:
    out.append(reshape(inverse, core.get_aval(ar).shape) if axis is None else inverse)
  if return_counts:
    out.append(counts)
  return out[0] if len(out) == 1 else tuple(out)


def unique_all(x, /, *, size: int | None = None, fill_value=None):
  values, idx, inv, counts = unique(x, True, True, True, equal_nan=False, size=size,
                                    fill_value=fill_value)
  return _UniqueAll(values, idx, inv, counts)


def unique_counts(x, /, *, size: int | None = None, fill_value=None):
  values, counts = unique(x, return_counts=True, equal_nan=False, size=size,
                          fill_value=fill_value)
  return _UniqueCounts(values, counts)


def unique_inverse(x, /, *, size: int | None = None, fill_value=None):
  values, inv = unique(x, return_inverse=True, equal_nan=False, size=size,
                       fill_value=fill_value)
  return _UniqueInverse(values, inv)


def unique_values(x, /, *, size: int | None = None, fill_value=None):
  return unique(x, equal_nan=False, size=size, fill_value=fill_value)


# ----------------------------------------------------------------------------- isin & 1-D sets


def isin(element, test_elements, assume_unique: bool = False, invert: bool = False, *,
         method: str = "auto"):
  """Elementwise membership of `element` in `test_elements` (broadcast comparison)."""
  del assume_unique  # comparing against every test element needs no uniqueness
  if method not in ("auto", "compare_all", "binary_search", "sort"):
    raise ValueError(f"jnp.isin: unrecognized method {method!r}")
  check_arraylike_strict("isin", element, test_elements)
  element, test = promote_dtypes(asarray(element), asarray(test_elements))
  test = _flat(test)
  eq = ufuncs.equal(element[..., None], test)
  found = reductions.any(eq, axis=-1)
  return ufuncs.logical_not(found) if invert else found


def _set_result(x, valid, size, fill_value, name: str):
  rows = lax_shape.reshape(x, (core.get_aval(x).size, 1))
  values, first, _, _, _ = _unique_rows(rows, valid, equal_nan=True, size=size,
                                        fill_value=fill_value, name=name)
  return values[:, 0], first


def _two_flat(name, ar1, ar2):
  check_arraylike_strict(name, ar1, ar2)
  a, b = promote_dtypes(asarray(ar1), asarray(ar2))
  return _flat(a), _flat(b)


def union1d(ar1, ar2, *, size: int | None = None, fill_value=None):
  a, b = _two_flat("union1d", ar1, ar2)
  x = concatenate([a, b])
  valid = lax_shape.full((x.shape[0],), True, np.bool_)
  return _set_result(x, valid, _static_size(size, "union1d"), fill_value, "union1d")[0]


def setdiff1d(ar1, ar2, assume_unique: bool = False, *, size: int | None = None,
              fill_value=None):
  del assume_unique  # the result is the same either way
  a, b = _two_flat("setdiff1d", ar1, ar2)
  return _set_result(a, isin(a, b, invert=True), _static_size(size, "setdiff1d"),
                     fill_value, "setdiff1d")[0]


def setxor1d(ar1, ar2, assume_unique: bool = False, *, size: int | None = None,
             fill_value=None):
  del assume_unique
  a, b = _two_flat("setxor1d", ar1, ar2)
  valid = concatenate([isin(a, b, invert=True), isin(b, a, invert=True)])
  return _set_result(concatenate([a, b]), valid, _static_size(size, "setxor1d"), fill_value,
                     "setxor1d")[0]


def intersect1d(ar1, ar2, assume_unique: bool = False, return_indices: bool = False, *,
                size: int | None = None, fill_value=None):
  del assume_unique
  a, b = _two_flat("intersect1d", ar1, ar2)
  values, idx1 = _set_result(a, isin(a, b), _static_size(size, "intersect1d"), fill_value,
                             "intersect1d")
  if not return_indices:
    return values
  # First position in ar2 of each common value; padded entries map to 0.
  hits = ufuncs.equal(values[:, None], b[None, :])
  idx2 = reductions.argmax(hits, axis=1) if b.shape[0] else lax_ew.convert_element_type(
      idx1 * 0, _index_dtype())
  idx2 = ufuncs.where(reductions.any(hits, axis=1), idx2, 0) if b.shape[0] else idx2
  return values, idx1, lax_ew.convert_element_type(idx2, core.get_aval(idx1).dtype)
