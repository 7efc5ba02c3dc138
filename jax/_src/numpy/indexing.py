"""NumPy indexing of jax arrays: `x[idx]` and the scatter behind `x.at[idx]`.

An index is first put in a canonical form (`_parse`): one entry per operand
dimension or new axis, with Ellipsis expanded, scalar booleans turned into new
axes and concrete boolean masks into the integer arrays of their nonzero
positions. Then:

* basic indexing (static ints and slices, None, traced scalar ints) becomes
  `slice`/`rev`/`dynamic_slice` and a reshape;
* advanced indexing (integer arrays, with NumPy's broadcasting and axis-placement
  rules) becomes the basic part followed by one `gather`.

Updates (`x.at[idx].set(y)` and friends) index an iota of flat positions with
the same machinery, so every index form gets exactly NumPy's semantics, and then
scatter into the flattened array.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src import errors
from jax._src.array import ArrayImpl
from jax._src.lax import elementwise as lax_ew
from jax._src.lax import shape as lax_shape
from jax._src.lax import slicing
from jax._src.lax.slicing import GatherScatterMode
from jax._src.numpy.util import broadcast_shapes, broadcast_to
from jax._src.numpy.creation import asarray

_NEWAXIS = None


class _Entry(NamedTuple):
  """One canonical index entry.

  kind: 'newaxis' (adds a size-1 axis), 'slice' (static slice), 'int' (static
  integer), 'dynamic' (traced scalar integer), 'array' (integer array of any rank).
  """
  kind: str
  value: Any = None


# ----------------------------------------------------------------------------- parsing


def _is_array_like(i) -> bool:
  return isinstance(i, (np.ndarray, np.generic, ArrayImpl, core.Tracer, list))


def _index_dtype_error(dtype) -> TypeError:
  return TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                   f"{np.dtype(dtype).name}")


def _as_index_array(i):
  """An array-like index entry as a numpy array (concrete) or a jax array/tracer."""
  if isinstance(i, list):
    if any(isinstance(v, core.Tracer) for v in _flatten(i)):
      return asarray(i)
    arr = np.asarray(i)
    if arr.size == 0 and arr.dtype == np.float64:  # [] means an empty integer index
      arr = arr.astype(np.int32)
    return arr
  return i


def _flatten(xs):
  for x in xs:
    if isinstance(x, (list, tuple)):
      yield from _flatten(x)
    else:
      yield x


def _static_slice_part(v, name: str):
  if v is None:
    return None
  if isinstance(v, core.Tracer) and v.to_concrete_value() is None:
    raise IndexError(f"Slice entries must be static integers. Got slice {name}={v!r}. To "
                     "index a statically sized window at a dynamic position, use "
                     "lax.dynamic_slice (shapes must be static under jit).")
  try:
    return int(np.asarray(core.concrete_value(v) if not isinstance(v, int) else v).item())
  except (TypeError, ValueError):
    raise TypeError(f"slice indices must be integers or None, got {v!r}") from None


def _raw_entries(idx) -> list:
  """Check the types of the entries of an index and normalize scalars and slices."""
  if isinstance(idx, list):
    raise TypeError("Using a non-tuple sequence for multidimensional indexing is not allowed; "
                    "use `arr[array(seq)]` instead of `arr[seq]`.")
  items = list(idx) if isinstance(idx, tuple) else [idx]
  out = []
  for i in items:
    if i is None or i is Ellipsis:
      out.append(i)
    elif isinstance(i, slice):
      out.append(slice(_static_slice_part(i.start, "start"), _static_slice_part(i.stop, "stop"),
                       _static_slice_part(i.step, "step")))
    elif isinstance(i, (bool, np.bool_)):
      out.append(bool(i))
    elif isinstance(i, (int, np.integer)):
      out.append(int(i))
    elif isinstance(i, str):
      raise TypeError(f"JAX does not support string indexing; got idx={i!r}")
    elif isinstance(i, (float, complex, np.floating, np.complexfloating)):
      raise _index_dtype_error(np.asarray(i).dtype)
    elif _is_array_like(i) or isinstance(i, tuple):
      arr = _as_index_array(list(i) if isinstance(i, tuple) else i)
      dt = np.dtype(arr.dtype)
      if dt != np.bool_ and not dtypes.is_integer(dt):
        raise _index_dtype_error(dt)
      if dt == np.bool_ and np.ndim(arr) == 0:  # a 0-d mask acts like a Python bool
        arr = bool(_concrete_mask(arr))
      out.append(arr)
    else:
      raise IndexError("only integers, slices (`:`), ellipsis (`...`), newaxis (`None`) and "
                       f"integer or boolean arrays are valid indices. Got {i!r}")
  return out


def _consumed(entry) -> int:
  """How many operand dimensions an entry indexes."""
  if entry is None or entry is Ellipsis or isinstance(entry, bool):
    return 0
  if not isinstance(entry, (slice, int)) and np.dtype(entry.dtype) == np.bool_:
    return np.ndim(entry)
  return 1


def _is_advanced(entry) -> bool:
  return not (entry is None or entry is Ellipsis or isinstance(entry, (slice, bool, int)))


def _advanced_are_adjacent(raw: list) -> bool:
  """NumPy puts the broadcast dimensions in place only if the advanced indices
  (integer arrays, and scalars when arrays are present) are consecutive entries."""
  positions = [k for k, e in enumerate(raw)
               if _is_advanced(e) or (isinstance(e, int) and not isinstance(e, bool))]
  return positions == list(range(positions[0], positions[-1] + 1)) if positions else True


def _concrete_mask(mask):
  value = core.concrete_value(mask)
  if value is None:
    raise errors.NonConcreteBooleanIndexError(core.get_aval(mask))
  return np.asarray(value)


class _Parsed(NamedTuple):
  operand: Any            # the operand, with new axes inserted for scalar booleans
  entries: list           # one _Entry per operand dim (plus 'newaxis' entries)
  adjacent: bool          # advanced entries consecutive (NumPy axis placement)


def _parse(x, idx) -> _Parsed:
  raw = _raw_entries(idx)
  ndim = core.get_aval(x).ndim
  if sum(e is Ellipsis for e in raw) > 1:
    raise IndexError("an index can only have a single ellipsis ('...')")
  used = sum(_consumed(e) for e in raw)
  if used > ndim:
    raise IndexError(f"Too many indices: array is {ndim}-dimensional, but {used} were indexed")
  has_arrays = any(_is_advanced(e) for e in raw)
  adjacent = _advanced_are_adjacent(raw) if has_arrays else True
  if any(e is Ellipsis for e in raw):
    pos = next(k for k, e in enumerate(raw) if e is Ellipsis)
    raw[pos:pos + 1] = [slice(None)] * (ndim - used)
  else:
    raw += [slice(None)] * (ndim - used)
  x, raw = _expand_scalar_bools(x, raw)
  shape = core.get_aval(x).shape
  entries, dim = [], 0
  for e in raw:
    if e is None:
      entries.append(_Entry("newaxis"))
      continue
    if isinstance(e, slice):
      entries.append(_Entry("slice", e))
      dim += 1
    elif isinstance(e, int):
      entries.append(_Entry("int", e))
      dim += 1
    elif np.dtype(e.dtype) == np.bool_:
      mask = _concrete_mask(e)
      expected = shape[dim:dim + mask.ndim]
      if mask.shape != expected:
        raise IndexError(f"boolean index did not match shape of indexed array in index "
                         f"{dim}: got {mask.shape}, expected {expected}")
      entries += [_Entry("array", nz.astype(np.int32) if mask.size < 2**31 else nz)
                  for nz in np.nonzero(mask)]
      dim += mask.ndim
    elif np.ndim(e) == 0:
      value = core.concrete_value(e)
      entries.append(_Entry("dynamic", e) if value is None else _Entry("int", int(np.asarray(value))))
      dim += 1
    else:
      entries.append(_Entry("array", e))
      dim += 1
  return _Parsed(x, entries, adjacent)


def _expand_scalar_bools(x, raw: list):
  """x[True] adds an axis of size 1 and x[False] one of size 0, as in NumPy."""
  if not any(isinstance(e, bool) for e in raw):
    return x, raw
  dims, out, dim = [], [], 0
  for e in raw:
    if isinstance(e, bool):
      dims.append(dim)
      out.append(slice(None) if e else np.zeros((0,), np.int32))
      dim += 1
    else:
      out.append(e)
      dim += _consumed(e)
  return lax_shape.expand_dims(x, tuple(dims)), out


# ----------------------------------------------------------------------------- gather


def _static_slices(x, entries: list):
  """Apply every static slice with slice/rev; they become full slices."""
  shape = core.get_aval(x).shape
  starts, limits, strides, rev_dims, dim = [], [], [], [], 0
  for e in entries:
    if e.kind == "newaxis":
      continue
    size = shape[dim]
    if e.kind == "slice":
      start, stop, step = e.value.indices(size)
      count = len(range(start, stop, step))
      if step < 0:
        rev_dims.append(dim)
        start, step = size - 1 - start, -step
      starts.append(start if count else 0)
      limits.append(start + (count - 1) * step + 1 if count else 0)
      strides.append(step)
    else:
      starts.append(0)
      limits.append(size)
      strides.append(1)
    dim += 1
  if rev_dims:
    x = lax_shape.rev(x, tuple(rev_dims))
  if tuple(starts) != (0,) * len(shape) or tuple(limits) != shape or any(s != 1 for s in strides):
    x = lax_shape.slice(x, starts, limits, strides)
  return x


def _basic_take(x, entries: list):
  """Static ints/slices, new axes and traced scalars: slice, dynamic_slice, reshape."""
  x = _static_slices(x, entries)
  shape = core.get_aval(x).shape
  dynamic, out_shape, dim = {}, [], 0
  for e in entries:
    if e.kind == "newaxis":
      out_shape.append(1)
      continue
    if e.kind == "slice":
      out_shape.append(shape[dim])
    elif e.kind == "int":
      dynamic[dim] = _static_int_start(e.value, shape[dim])
    else:
      dynamic[dim] = e.value
    dim += 1
  if dynamic:
    if all(isinstance(v, int) for v in dynamic.values()):
      starts = [dynamic.get(d, 0) for d in range(len(shape))]
      limits = [s + 1 if d in dynamic else n for d, (s, n) in enumerate(zip(starts, shape))]
      x = lax_shape.slice(x, starts, limits)
    else:
      # Static starts are wrapped already: wrapping a still-negative one again would move
      # it into bounds instead of letting the slice clamp it.
      x = slicing.dynamic_slice(x, [dynamic.get(d, 0) for d in range(len(shape))],
                                [1 if d in dynamic else n for d, n in enumerate(shape)],
                                allow_negative_indices=[not isinstance(dynamic.get(d), np.int32)
                                                        for d in range(len(shape))])
  return lax_shape.reshape(x, tuple(out_shape))


def _static_int_start(i: int, size: int):
  """A static integer index as a start: a Python int when in bounds (a static slice);
  otherwise, as JAX does, the wrapped index as an int32 start of a dynamic_slice,
  which clamps it when it runs (no IndexError), and which checkify's index checks see."""
  if size == 0:
    raise IndexError(f"index {i} is out of bounds for axis with size 0")
  wrapped = i + size if i < 0 else i
  return wrapped if 0 <= wrapped < size else np.int32(wrapped)


def _index_dtype(arrays) -> np.dtype:
  """int32, or int64 if an index array is 64-bit (only kept with x64 enabled)."""
  wide = any(np.dtype(a.dtype).itemsize == 8 for a in arrays if not isinstance(a, int))
  return dtypes.canonicalize_dtype(np.int64 if wide else np.int32)


def _normalize_index_array(i, size: int, dtype, wrap_negative: bool = True):
  """Convert to the common index type and wrap negative indices (i + size)."""
  if isinstance(i, (np.ndarray, np.generic, int)):
    i = np.asarray(i)
    if i.dtype.kind == "i" and wrap_negative:
      i = np.where(i < 0, i + size, i)
    return np.asarray(i, dtype)
  aval = core.get_aval(i)
  signed = aval.dtype.kind == "i" and wrap_negative
  i = lax_ew.convert_element_type(i, dtype)
  if signed:
    zero = lax_shape.full(aval.shape, 0, dtype)
    i = lax_ew.select(lax_ew.lt(i, zero), lax_ew.add(i, lax_shape.full(aval.shape, size, dtype)), i)
  return i


def _broadcast_index(i, shape):
  """Broadcast to `shape` and add the trailing index-vector dimension of size 1."""
  aval_shape = np.shape(i) if isinstance(i, np.ndarray) else core.get_aval(i).shape
  lead = len(shape) - len(aval_shape)
  return lax_shape.broadcast_in_dim(i, (*shape, 1), tuple(range(lead, len(shape))))


def _advanced_entries(entries: list) -> tuple[list, tuple[int, ...]]:
  """The (operand dim, index) of the integer and index-array entries (new axes take no
  operand dim), and the shape their indices broadcast to."""
  advanced, dim = [], 0
  for e in entries:
    if e.kind == "newaxis":
      continue
    if e.kind in ("int", "dynamic", "array"):
      advanced.append((dim, e.value))
    dim += 1
  batch = broadcast_shapes(*(np.shape(a) if isinstance(a, (np.ndarray, int)) else
                             core.get_aval(a).shape for _, a in advanced))
  return advanced, batch


def _start_indices(advanced: list, batch, shape, adjacent: bool, *, normalize: bool = True,
                   clip: bool = False):
  """For a gather or scatter over the advanced entries: the start indices (the batch
  shape, then one column per entry), the operand dims they index, and where the other
  (whole) dims land in the result, around the batch dims."""
  dtype = _index_dtype([a for _, a in advanced])
  cols = []
  for d, a in advanced:
    col = _normalize_index_array(a, shape[d], dtype, normalize)
    if clip:  # scatters drop what is out of bounds: clamp first
      lo, hi = np.array(0, dtype), np.array(max(shape[d] - 1, 0), dtype)
      col = (np.clip(col, lo, hi) if isinstance(col, np.ndarray)
             else lax_ew.max(lax_ew.min(col, hi), lo))
    cols.append(_broadcast_index(col, batch))
  indices = lax_shape.concatenate(cols, len(batch))
  adv_dims = tuple(d for d, _ in advanced)
  rest = [d for d in range(len(shape)) if d not in adv_dims]
  pos = sum(1 for d in rest if d < adv_dims[0]) if adjacent else 0
  window_dims = tuple(k for k in range(len(rest) + len(batch)) if not pos <= k < pos + len(batch))
  return indices, adv_dims, window_dims


def _gather_take(x, entries: list, adjacent: bool, *, mode, fill_value, indices_are_sorted,
                 unique_indices, normalize: bool = True):
  """Slices first, then one gather over the advanced (array and integer) entries."""
  x = _static_slices(x, entries)
  shape = core.get_aval(x).shape
  advanced, batch = _advanced_entries(entries)
  final = _final_shape(entries, shape, batch, adjacent)
  if math.prod(final) == 0:
    # Nothing to take (as in zeros(0)[array([], int32)]), whatever the operand's size:
    # no gather, whose slices could not fit an empty axis.
    return lax_shape.full_like(x, 0, shape=final)
  indices, adv_dims, offset_dims = _start_indices(advanced, batch, shape, adjacent,
                                                  normalize=normalize)
  dnums = slicing.GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=adv_dims,
                                         start_index_map=adv_dims)
  out = slicing.gather(x, indices, dnums, tuple(1 if d in adv_dims else n for d, n in enumerate(shape)),
                       mode=mode, fill_value=fill_value, indices_are_sorted=indices_are_sorted,
                       unique_indices=unique_indices)
  return lax_shape.reshape(out, final)


def _final_shape(entries: list, shape, batch, adjacent: bool) -> tuple[int, ...]:
  """The result shape: kept dimensions and new axes in order, with the broadcast
  index shape where the advanced entries were (or first if they were apart)."""
  out, dim, placed = [], 0, False
  if not adjacent:
    out += batch
    placed = True
  for e in entries:
    if e.kind == "newaxis":
      out.append(1)
      continue
    if e.kind == "slice":
      out.append(shape[dim])
    elif not placed:
      out += batch
      placed = True
    dim += 1
  return tuple(out)


def rewriting_take(x, idx, *, indices_are_sorted: bool = False, unique_indices: bool = False,
                   mode=None, fill_value=None, normalize_indices: bool = True):
  """`x[idx]` with NumPy semantics; `mode` says what out-of-bounds indices do.

  With `normalize_indices=False`, negative array indices are not wrapped (they
  are out of bounds), as `jnp.take(..., mode="clip")` wants.
  """
  mode = (GatherScatterMode.PROMISE_IN_BOUNDS if mode is None
          else GatherScatterMode.from_any(mode))
  x, entries, adjacent = _parse(x, idx)
  shape = core.get_aval(x).shape
  has_arrays = any(e.kind == "array" for e in entries)
  # Filling needs the gather's bounds check; in-bounds static ints can stay slices.
  needs_gather = has_arrays or (mode is GatherScatterMode.FILL_OR_DROP and (
      any(e.kind == "dynamic" for e in entries) or not _static_ints_in_bounds(entries, shape)))
  if not needs_gather:
    return _basic_take(x, entries)
  return _gather_take(x, entries, adjacent or not has_arrays, mode=mode, fill_value=fill_value,
                      indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                      normalize=normalize_indices)


def _static_ints_in_bounds(entries: list, shape) -> bool:
  dims = [e for e in entries if e.kind != "newaxis"]
  return all(-n <= e.value < n for e, n in zip(dims, shape) if e.kind == "int")


def getitem(x, idx):
  return rewriting_take(x, idx)


# ----------------------------------------------------------------------------- scatter


def _flat_positions(shape, idx, mode):
  """For every element of `x[idx]`, its position in the flattened `x` (-1 if dropped)."""
  size = int(np.prod(shape, dtype=np.int64))
  dtype = dtypes.canonicalize_dtype(np.int64 if size >= 2**31 else np.int32)
  ids = lax_shape.reshape(lax_shape.iota(dtype, size), shape)
  if mode is GatherScatterMode.FILL_OR_DROP:
    return rewriting_take(ids, idx, mode=mode, fill_value=-1)
  return rewriting_take(ids, idx, mode=mode)


def _broadcast_updates(y, shape, dtype, weak: bool):
  y = asarray(y) if not core.is_valid_jaxval(y) or isinstance(y, (list, tuple)) else y
  y = lax_ew.convert_element_type(y, dtype, weak)
  yshape = core.get_aval(y).shape
  try:
    return broadcast_to(y, shape)
  except ValueError:
    raise ValueError(f"shape mismatch: value array of shape {yshape} could not be broadcast "
                     f"to indexing result of shape {tuple(shape)}") from None


def _window_scatter(x, idx, y, prim, mode, params):
  """`x[idx] op= y` as one scatter of whole windows when `idx` is integers and index
  arrays beside full slices (`x.at[i].set(row)`, `x.at[:, js].add(...)`): the operand
  keeps its shape, so its layout and the sharding in its type stay. None otherwise."""
  if mode not in (GatherScatterMode.FILL_OR_DROP, GatherScatterMode.CLIP,
                  GatherScatterMode.PROMISE_IN_BOUNDS):
    return None
  parsed, entries, adjacent = _parse(x, idx)
  if parsed is not x or any(e.kind == "newaxis" or (e.kind == "slice" and e.value != slice(None))
                            for e in entries):
    return None
  advanced, batch = _advanced_entries(entries)
  if not advanced:
    return None
  aval = core.get_aval(x)
  shape = aval.shape
  indices, adv_dims, window_dims = _start_indices(advanced, batch, shape, adjacent,
                                                  clip=mode is GatherScatterMode.CLIP)
  updates = _broadcast_updates(y, _final_shape(entries, shape, batch, adjacent), aval.dtype,
                               aval.weak_type)
  dnums = slicing.ScatterDimensionNumbers(update_window_dims=window_dims,
                                          inserted_window_dims=adv_dims,
                                          scatter_dims_to_operand_dims=adv_dims)
  return prim.bind(x, indices, updates, dimension_numbers=dnums,
                   mode=GatherScatterMode.FILL_OR_DROP, **params)


def scatter_update(x, idx, y, prim, *, indices_are_sorted: bool = False,
                   unique_indices: bool = False, mode=None, update_jaxpr=None):
  """`x` with `prim` (scatter, scatter-add, ...) applied at `x[idx]` with values `y`."""
  mode = GatherScatterMode.from_any(mode)
  params = dict(indices_are_sorted=bool(indices_are_sorted),
                unique_indices=bool(unique_indices), update_jaxpr=update_jaxpr)
  out = _window_scatter(x, idx, y, prim, mode, params)
  if out is not None:
    return out
  # Other indices (strided or partial slices, new axes): every element's position in the
  # flattened operand, scattered one element at a time.
  aval = core.get_aval(x)
  positions = _flat_positions(aval.shape, idx, mode)
  target_shape = core.get_aval(positions).shape
  n = int(np.prod(target_shape, dtype=np.int64))
  updates = _broadcast_updates(y, target_shape, aval.dtype, aval.weak_type)
  dnums = slicing.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                          scatter_dims_to_operand_dims=(0,))
  flat = lax_shape.reshape(x, (aval.size,))
  # The positions are already bounds-checked: out-of-bounds ones are -1 and dropped.
  out = prim.bind(flat, lax_shape.reshape(positions, (n, 1)), lax_shape.reshape(updates, (n,)),
                  dimension_numbers=dnums, indices_are_sorted=bool(indices_are_sorted),
                  unique_indices=bool(unique_indices), mode=GatherScatterMode.FILL_OR_DROP,
                  update_jaxpr=update_jaxpr)
  return lax_shape.reshape(out, aval.shape)
