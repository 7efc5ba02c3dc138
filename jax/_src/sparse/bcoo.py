"""BCOO: batched coordinate-format sparse arrays (`jax.experimental.sparse.BCOO`).

A BCOO of shape (*batch, *sparse, *dense) stores `data` of shape (*batch, nse, *dense)
and `indices` of shape (*batch, nse, n_sparse): entry j of a batch holds the dense block
data[..., j, :] at the sparse coordinates indices[..., j, :]. Entries whose index is out
of range (JAX's padding convention) hold nothing. Duplicate indices add up.

Operations work on the unbatched form (batch dimensions folded into sparse ones) and
are primitives whose rules come from their expansions; those that cannot keep the
sparsity structure (a general dot of two sparse arrays, convolution, gather) compute
on the dense values and return the sparse result with a bound on its nonzeros.
"""

from __future__ import annotations

import math
import operator
import warnings
from typing import Any, Sequence

import numpy as np

from jax._src.numpy import namespace as jnp
from jax._src.lax import namespace as lax
from jax._src import core
from jax._src import dtypes
from jax._src import tree_util
from jax._src.util import ensure_index_tuple
from jax._src.lax.utils import derived_primitive
from jax._src.sparse.util import JAXSparse, SparseEfficiencyError, SparseEfficiencyWarning, nfold_vmap


class BCOO(JAXSparse):
  """A batched-coordinate sparse array: BCOO((data, indices), shape=...)."""

  def __init__(self, args, *, shape, indices_sorted: bool = False,
               unique_indices: bool = False):
    data, indices = args
    self.data, self.indices = jnp.asarray(data), jnp.asarray(indices)
    super().__init__(args, shape=shape)
    self.indices_sorted, self.unique_indices = bool(indices_sorted), bool(unique_indices)
    _check_layout(self.data.shape, self.indices.shape, self.shape)

  n_batch = property(lambda self: self.indices.ndim - 2)
  n_sparse = property(lambda self: self.indices.shape[-1])
  n_dense = property(lambda self: self.data.ndim - 1 - self.n_batch)
  nse = property(lambda self: self.indices.shape[-2])
  _info = property(lambda self: (self.shape, self.indices_sorted, self.unique_indices))

  def todense(self):
    return bcoo_todense(self)

  @classmethod
  def fromdense(cls, mat, *, nse=None, index_dtype=np.int32, n_dense: int = 0,
                n_batch: int = 0) -> BCOO:
    return bcoo_fromdense(mat, nse=nse, index_dtype=index_dtype, n_dense=n_dense,
                          n_batch=n_batch)

  @classmethod
  def from_scipy_sparse(cls, mat, *, index_dtype=None, n_dense=0, n_batch=0) -> BCOO:
    if n_dense or n_batch:
      raise NotImplementedError("from_scipy_sparse with batch or dense dimensions")
    coo = mat.tocoo()
    indices = np.stack([coo.row, coo.col], 1).astype(index_dtype or np.int32)
    return cls((jnp.asarray(coo.data), jnp.asarray(indices)), shape=coo.shape)

  def sum_duplicates(self, nse=None, remove_zeros: bool = True) -> BCOO:
    return bcoo_sum_duplicates(self, nse=nse)

  def sort_indices(self) -> BCOO:
    return bcoo_sort_indices(self)

  def update_layout(self, *, n_batch=None, n_dense=None, on_inefficient="error") -> BCOO:
    return bcoo_update_layout(self, n_batch=n_batch, n_dense=n_dense,
                              on_inefficient=on_inefficient)

  def transpose(self, axes=None) -> BCOO:
    perm = tuple(range(self.ndim))[::-1] if axes is None else tuple(axes)
    return bcoo_transpose(self, permutation=perm)

  T = property(lambda self: self.transpose())

  def reshape(self, *args, **kwargs) -> BCOO:
    new = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
    return bcoo_reshape(self, new_sizes=tuple(new), **kwargs)

  def sum(self, axis=None) -> BCOO:
    axes = tuple(range(self.ndim)) if axis is None else ensure_index_tuple(axis)
    return bcoo_reduce_sum(self, axes=axes)

  def astype(self, dtype) -> BCOO:
    return BCOO((self.data.astype(dtype), self.indices), shape=self.shape,
                indices_sorted=self.indices_sorted, unique_indices=self.unique_indices)

  def __neg__(self):
    return BCOO((-self.data, self.indices), shape=self.shape,
                indices_sorted=self.indices_sorted, unique_indices=self.unique_indices)

  def __mul__(self, other):
    if isinstance(other, BCOO):
      return bcoo_multiply_sparse(self, other)
    return bcoo_multiply_dense(self, other)

  __rmul__ = __mul__

  def __matmul__(self, other):
    return _matmul(self, other)

  def __rmatmul__(self, other):
    return _matmul(other, self)

  def __add__(self, other):
    if isinstance(other, BCOO):
      if other.shape != self.shape:
        raise ValueError(f"cannot add sparse arrays of shapes {self.shape} and {other.shape}")
      a, b = unbatched(self), unbatched(other)
      if a.n_dense != b.n_dense:
        raise ValueError("adding BCOO arrays needs the same number of dense dimensions")
      return BCOO((jnp.concatenate([a.data, b.data]), jnp.concatenate([a.indices, b.indices])),
                  shape=self.shape)
    return self.todense() + other

  __radd__ = __add__

  def __sub__(self, other):
    return self + (-other)

  def __getitem__(self, idx):
    return self.todense()[idx]

  def tree_flatten(self):
    return (self.data, self.indices), self._info

  @classmethod
  def tree_unflatten(cls, info, children):
    shape, indices_sorted, unique_indices = info
    out = object.__new__(cls)
    out.data, out.indices = children
    out.shape, out.indices_sorted, out.unique_indices = shape, indices_sorted, unique_indices
    return out


tree_util.register_pytree_node(BCOO, BCOO.tree_flatten, BCOO.tree_unflatten)


def _check_layout(data_shape, indices_shape, shape):
  if len(indices_shape) < 2:
    raise ValueError(f"BCOO indices must have rank >= 2 (..., nse, n_sparse), got shape "
                     f"{indices_shape}")
  n_batch, n_sparse = len(indices_shape) - 2, indices_shape[-1]
  nse = indices_shape[-2]
  n_dense = len(data_shape) - 1 - n_batch
  if n_dense < 0 or n_batch + n_sparse + n_dense != len(shape):
    raise ValueError(f"BCOO: data of shape {data_shape} and indices of shape {indices_shape} "
                     f"do not describe an array of shape {shape}")
  if data_shape[n_batch] != nse or tuple(data_shape[n_batch + 1:]) != tuple(
      shape[n_batch + n_sparse:]):
    raise ValueError(f"BCOO: data shape {data_shape} does not match nse={nse} and dense "
                     f"shape {tuple(shape[n_batch + n_sparse:])}")
  for d, (a, b) in enumerate(zip(data_shape[:n_batch], indices_shape[:n_batch])):
    if a not in (1, shape[d]) or b not in (1, shape[d]):
      raise ValueError(f"BCOO: batch dimension {d} of data {data_shape} / indices "
                       f"{indices_shape} does not match shape {shape}")


# ----------------------------------------------------------------------------- dense <-> sparse


def _todense_impl(data, indices, *, shape):
  n_batch = indices.ndim - 2
  if n_batch:
    batch = shape[:n_batch]
    data = jnp.broadcast_to(data, batch + data.shape[n_batch:])
    indices = jnp.broadcast_to(indices, batch + indices.shape[n_batch:])
    return nfold_vmap(lambda d, i: _todense_impl(d, i, shape=shape[n_batch:]), n_batch)(
        data, indices)
  n_sparse = indices.shape[-1]
  if n_sparse == 0:  # every stored entry covers the whole (dense) array
    return jnp.sum(data, axis=0).reshape(shape)
  out = jnp.zeros(shape, data.dtype)
  idx = tuple(indices[:, k] for k in range(n_sparse))
  return out.at[idx].add(data, mode="drop")


bcoo_todense_p = derived_primitive("bcoo_todense", _todense_impl)


def bcoo_todense(mat: BCOO):
  """The dense array a BCOO stands for."""
  if not isinstance(mat, BCOO):
    raise TypeError(f"bcoo_todense expects a BCOO, got {type(mat).__name__}")
  return bcoo_todense_p.bind(mat.data, mat.indices, shape=mat.shape)


def _fromdense_impl(mat, *, nse, n_batch, n_dense, index_dtype):
  if n_batch:
    return nfold_vmap(lambda m: _fromdense_impl(m, nse=nse, n_batch=0, n_dense=n_dense,
                                                index_dtype=index_dtype), n_batch)(mat)
  sparse_shape = mat.shape[:mat.ndim - n_dense]
  mask = mat != 0
  if n_dense:
    mask = jnp.any(mask, axis=tuple(range(len(sparse_shape), mat.ndim)))
  where = jnp.nonzero(mask, size=nse, fill_value=tuple(sparse_shape))
  indices = jnp.stack(where, axis=1).astype(index_dtype) if where else jnp.zeros(
      (nse, 0), index_dtype)
  valid = jnp.all(indices < jnp.array(sparse_shape, index_dtype), axis=1) if where else \
      jnp.ones((nse,), bool)
  safe = tuple(jnp.where(valid, indices[:, k], 0) for k in range(len(sparse_shape)))
  data = mat[safe] if safe else jnp.broadcast_to(mat, (nse,) + mat.shape)
  mask_shape = (nse,) + (1,) * n_dense
  return [jnp.where(valid.reshape(mask_shape), data, 0), indices]


bcoo_fromdense_p = derived_primitive("bcoo_fromdense", _fromdense_impl, multiple_results=True)


def bcoo_fromdense(mat, *, nse=None, n_batch: int = 0, n_dense: int = 0,
                   index_dtype=np.int32) -> BCOO:
  """The BCOO of a dense array: its nonzero entries (nse of them; give nse under jit)."""
  mat = jnp.asarray(mat)
  n_sparse = mat.ndim - n_batch - n_dense
  if n_sparse < 0 or n_batch < 0 or n_dense < 0:
    raise ValueError(f"bcoo_fromdense: n_batch={n_batch} and n_dense={n_dense} do not fit an "
                     f"array of rank {mat.ndim}")
  if nse is None:
    if isinstance(mat, core.Tracer):
      raise ValueError("bcoo_fromdense under a transformation needs a static nse (the number "
                       "of stored entries), e.g. bcoo_fromdense(x, nse=k)")
    mask = np.asarray(mat) != 0
    if n_dense:
      mask = mask.any(axis=tuple(range(mat.ndim - n_dense, mat.ndim)))
    per_batch = mask.reshape(mask.shape[:n_batch] + (-1,)).sum(-1) if n_batch else mask.sum()
    nse = int(np.max(per_batch)) if np.size(per_batch) else 0
  data, indices = bcoo_fromdense_p.bind(mat, nse=operator.index(nse), n_batch=int(n_batch),
                                        n_dense=int(n_dense),
                                        index_dtype=np.dtype(index_dtype))
  return BCOO((data, indices), shape=mat.shape, indices_sorted=True, unique_indices=True)


def _extract_impl(indices, mat):
  n_batch = indices.ndim - 2
  if n_batch:
    indices = jnp.broadcast_to(indices, mat.shape[:n_batch] + indices.shape[n_batch:])
    return nfold_vmap(_extract_impl, n_batch)(indices, mat)
  n_sparse = indices.shape[-1]
  sparse_shape = mat.shape[:n_sparse]
  valid = jnp.all(indices < jnp.array(sparse_shape, indices.dtype), axis=1) if n_sparse else \
      jnp.ones(indices.shape[:1], bool)
  safe = tuple(jnp.where(valid, indices[:, k], 0) for k in range(n_sparse))
  vals = mat[safe] if safe else jnp.broadcast_to(mat, indices.shape[:1] + mat.shape)
  return jnp.where(valid.reshape(valid.shape + (1,) * (vals.ndim - 1)), vals, 0)


bcoo_extract_p = derived_primitive("bcoo_extract", _extract_impl)


def bcoo_extract(sparr, arr, *, assume_unique=None) -> BCOO:
  """The BCOO with the indices of `sparr` holding the values of the dense `arr` there."""
  if not isinstance(sparr, BCOO):
    raise TypeError(f"bcoo_extract expects a BCOO first, got {type(sparr).__name__}")
  arr = jnp.asarray(arr)
  if tuple(arr.shape) != sparr.shape:
    raise ValueError(f"bcoo_extract: array of shape {arr.shape} for a BCOO of shape "
                     f"{sparr.shape}")
  data = bcoo_extract_p.bind(sparr.indices, arr)
  if assume_unique is False or (assume_unique is None and not sparr.unique_indices):
    # Repeated indices would each receive the full value: keep it on the first only.
    data = _first_occurrence_only(sparr, data)
  return BCOO((data, sparr.indices), shape=sparr.shape, indices_sorted=sparr.indices_sorted,
              unique_indices=sparr.unique_indices)


def _first_occurrence_only(sparr, data):
  if sparr.n_batch:
    return data
  idx = sparr.indices
  same = jnp.all(idx[:, None, :] == idx[None, :, :], axis=-1)
  earlier = jnp.tril(same, -1).any(axis=1)
  return jnp.where(earlier.reshape(earlier.shape + (1,) * (data.ndim - 1)), 0, data)


# ----------------------------------------------------------------------------- layout


def unbatched(mat: BCOO) -> BCOO:
  """The same array with its batch dimensions turned into sparse ones."""
  if mat.n_batch == 0:
    return mat
  nb = mat.n_batch
  batch = mat.shape[:nb]
  data = jnp.broadcast_to(mat.data, batch + mat.data.shape[nb:])
  indices = jnp.broadcast_to(mat.indices, batch + mat.indices.shape[nb:])
  grids = jnp.meshgrid(*[jnp.arange(b, dtype=indices.dtype) for b in batch], indexing="ij")
  coords = [jnp.broadcast_to(g[..., None, None], batch + (mat.nse, 1)) for g in grids]
  full = jnp.concatenate(coords + [indices], axis=-1)
  n_total = math.prod(batch) * mat.nse
  return BCOO((data.reshape((n_total,) + data.shape[nb + 1:]),
               full.reshape(n_total, nb + mat.n_sparse)), shape=mat.shape)


def bcoo_update_layout(mat: BCOO, *, n_batch=None, n_dense=None,
                       on_inefficient: str | None = "error") -> BCOO:
  """The same array with n_batch batch and n_dense dense dimensions."""
  if on_inefficient not in ("error", "warn", None):
    raise ValueError(f"on_inefficient must be 'error', 'warn' or None, got {on_inefficient!r}")
  n_batch = mat.n_batch if n_batch is None else int(n_batch)
  n_dense = mat.n_dense if n_dense is None else int(n_dense)
  if (n_batch, n_dense) == (mat.n_batch, mat.n_dense):
    return mat
  if n_batch > mat.n_batch or n_dense > mat.n_dense:
    msg = ("bcoo_update_layout: adding batch or dense dimensions stores more entries than "
           "the array has nonzeros")
    if on_inefficient == "error":
      raise SparseEfficiencyError(msg)
    if on_inefficient == "warn":
      warnings.warn(msg, SparseEfficiencyWarning)
    dense = mat.todense()
    nse = _nse_bound(mat, dense.shape, n_batch, n_dense)
    return bcoo_fromdense(dense, nse=nse, n_batch=n_batch, n_dense=n_dense,
                          index_dtype=mat.indices.dtype)
  flat = unbatched(mat)
  if n_dense < flat.n_dense:
    # Move dense dimensions into the sparse ones: one entry per dense position.
    k = flat.n_dense - n_dense
    moved = flat.data.shape[1:1 + k]
    grids = jnp.meshgrid(*[jnp.arange(s, dtype=flat.indices.dtype) for s in moved],
                         indexing="ij")
    coords = jnp.stack([g.reshape(-1) for g in grids], axis=1)
    m = coords.shape[0]
    idx = jnp.concatenate([jnp.repeat(flat.indices, m, axis=0),
                           jnp.tile(coords, (flat.nse, 1))], axis=1)
    data = flat.data.reshape((flat.nse * m,) + flat.data.shape[1 + k:])
    flat = BCOO((data, idx), shape=flat.shape)
  if n_batch:
    return bcoo_update_layout(BCOO.fromdense(flat.todense(), nse=_nse_bound(
        flat, flat.shape, n_batch, n_dense), n_batch=n_batch, n_dense=n_dense),
        on_inefficient=None)
  return flat


def _nse_bound(mat: BCOO, shape, n_batch: int, n_dense: int) -> int:
  sparse_size = math.prod(shape[n_batch:len(shape) - n_dense])
  return min(mat.nse * max(1, math.prod(mat.shape[:mat.n_batch])), sparse_size)


def _sort_impl(data, indices):
  n_sparse = indices.shape[-1]
  if n_sparse == 0 or indices.shape[0] == 0:
    return [data, indices]
  keys = [indices[:, k] for k in range(n_sparse)]
  order = jnp.lexsort(keys[::-1])
  return [data[order], indices[order]]


bcoo_sort_indices_p = derived_primitive("bcoo_sort_indices", _sort_impl, multiple_results=True)


def bcoo_sort_indices(mat: BCOO) -> BCOO:
  """The same array with entries in lexicographic order of their indices."""
  flat = unbatched(mat)
  data, indices = bcoo_sort_indices_p.bind(flat.data, flat.indices)
  return BCOO((data, indices), shape=mat.shape, indices_sorted=True,
              unique_indices=mat.unique_indices)


def _sum_duplicates_impl(data, indices, *, shape, nse):
  n_sparse = indices.shape[-1]
  sparse_shape = shape[:n_sparse]
  valid = jnp.all(indices < jnp.array(sparse_shape, indices.dtype), axis=1)
  flat = jnp.ravel_multi_index(tuple(jnp.where(valid, indices[:, k], 0)
                                     for k in range(n_sparse)), sparse_shape, mode="clip")
  size = math.prod(sparse_shape)
  flat = jnp.where(valid, flat, size)  # padding sorts last
  uniq, inverse = jnp.unique(flat, size=nse, fill_value=size, return_inverse=True)
  out = jnp.zeros((nse,) + data.shape[1:], data.dtype).at[inverse.reshape(-1)].add(
      jnp.where(valid.reshape(valid.shape + (1,) * (data.ndim - 1)), data, 0), mode="drop")
  coords = jnp.unravel_index(jnp.minimum(uniq, size - 1), sparse_shape)
  new = jnp.stack(coords, axis=1).astype(indices.dtype)
  new = jnp.where((uniq < size)[:, None], new, jnp.array(sparse_shape, indices.dtype))
  return [out, new]


bcoo_sum_duplicates_p = derived_primitive("bcoo_sum_duplicates", _sum_duplicates_impl,
                                          multiple_results=True)


def bcoo_sum_duplicates(mat: BCOO, nse=None) -> BCOO:
  """Entries with the same index merged (sorted); `nse` bounds the result (default: the
  number of distinct indices, which needs concrete indices)."""
  flat = unbatched(mat)
  if flat.n_sparse == 0:
    return flat
  if nse is None:
    if isinstance(flat.indices, core.Tracer):
      nse = flat.nse
    else:
      idx = np.asarray(flat.indices)
      ok = (idx < np.array(flat.shape[:flat.n_sparse])).all(1)
      nse = len({tuple(r) for r in idx[ok]})
  data, indices = bcoo_sum_duplicates_p.bind(flat.data, flat.indices, shape=flat.shape,
                                             nse=operator.index(nse))
  return BCOO((data, indices), shape=mat.shape, indices_sorted=True, unique_indices=True)


# ----------------------------------------------------------------------------- shape ops


def _transpose_impl(data, indices, *, permutation, n_sparse):
  sparse_perm = [p for p in permutation[:n_sparse]]
  dense_perm = [0] + [p - n_sparse + 1 for p in permutation[n_sparse:]]
  return [jnp.transpose(data, dense_perm), indices[:, sparse_perm]]


bcoo_transpose_p = derived_primitive("bcoo_transpose", _transpose_impl, multiple_results=True)


def bcoo_transpose(mat: BCOO, *, permutation: Sequence[int]) -> BCOO:
  """The BCOO with dimensions permuted (sparse dimensions stay before dense ones)."""
  permutation = tuple(int(p) for p in permutation)
  if sorted(permutation) != list(range(mat.ndim)):
    raise ValueError(f"bcoo_transpose: {permutation} is not a permutation of "
                     f"{tuple(range(mat.ndim))}")
  flat = unbatched(mat)
  ns = flat.n_sparse
  if any(p >= ns for p in permutation[:ns]) or any(p < ns for p in permutation[ns:]):
    raise ValueError("bcoo_transpose: a permutation may not exchange sparse and dense "
                     f"dimensions (n_sparse={ns}), got {permutation}")
  data, indices = bcoo_transpose_p.bind(flat.data, flat.indices, permutation=permutation,
                                        n_sparse=ns)
  return BCOO((data, indices), shape=tuple(mat.shape[p] for p in permutation))


def _sparse_only(mat: BCOO, what: str) -> BCOO:
  flat = unbatched(mat)
  if flat.n_dense:
    flat = bcoo_update_layout(flat, n_dense=0)
  return flat


def bcoo_reshape(mat: BCOO, *, new_sizes: Sequence[int], dimensions=None,
                 sharding=None) -> BCOO:
  """The BCOO of mat.todense().reshape(new_sizes)."""
  del sharding
  if dimensions is not None:
    mat = bcoo_transpose(mat, permutation=dimensions)
  new_sizes = tuple(int(s) for s in new_sizes)
  if -1 in new_sizes:
    known = math.prod(s for s in new_sizes if s != -1)
    new_sizes = tuple(mat.size // known if s == -1 else s for s in new_sizes)
  if math.prod(new_sizes) != mat.size:
    raise ValueError(f"cannot reshape a BCOO of shape {mat.shape} to {new_sizes}")
  flat = _sparse_only(mat, "reshape")
  valid = jnp.all(flat.indices < jnp.array(flat.shape, flat.indices.dtype), axis=1)
  lin = jnp.ravel_multi_index(tuple(flat.indices[:, k] for k in range(flat.n_sparse)),
                              flat.shape, mode="clip") if flat.n_sparse else \
      jnp.zeros((flat.nse,), flat.indices.dtype)
  coords = jnp.unravel_index(lin, new_sizes) if new_sizes else ()
  idx = jnp.stack(coords, axis=1).astype(flat.indices.dtype) if new_sizes else \
      jnp.zeros((flat.nse, 0), flat.indices.dtype)
  idx = jnp.where(valid[:, None], idx, jnp.array(new_sizes, flat.indices.dtype))
  return BCOO((flat.data, idx), shape=new_sizes)


def bcoo_rev(operand: BCOO, dimensions: Sequence[int]) -> BCOO:
  """The BCOO with the given dimensions reversed."""
  flat = _sparse_only(operand, "rev")
  shape = jnp.array(flat.shape, flat.indices.dtype)
  flip = jnp.zeros(flat.ndim, bool).at[jnp.array(list(dimensions), np.int32)].set(True) \
      if len(dimensions) else jnp.zeros(flat.ndim, bool)
  valid = jnp.all(flat.indices < shape, axis=1, keepdims=True)
  idx = jnp.where(flip & valid, shape - 1 - flat.indices, flat.indices)
  return BCOO((flat.data, idx), shape=flat.shape)


def bcoo_squeeze(arr: BCOO, *, dimensions: Sequence[int]) -> BCOO:
  """The BCOO with the given size-1 dimensions removed."""
  dims = {int(d) % arr.ndim for d in dimensions}
  if any(arr.shape[d] != 1 for d in dims):
    raise ValueError(f"cannot squeeze dimensions {sorted(dims)} of shape {arr.shape}")
  flat = _sparse_only(arr, "squeeze")
  keep = [k for k in range(flat.ndim) if k not in dims]
  return BCOO((flat.data, flat.indices[:, keep]), shape=tuple(flat.shape[k] for k in keep))


def bcoo_slice(mat: BCOO, *, start_indices: Sequence[int], limit_indices: Sequence[int],
               strides=None) -> BCOO:
  """The BCOO of lax.slice(mat.todense(), start_indices, limit_indices, strides)."""
  flat = _sparse_only(mat, "slice")
  start = np.array(start_indices, np.int64)
  limit = np.array(limit_indices, np.int64)
  strides_ = np.ones(flat.ndim, np.int64) if strides is None else np.array(strides, np.int64)
  if len(start) != flat.ndim or len(limit) != flat.ndim or np.any(start < 0) or np.any(
      limit > np.array(flat.shape)) or np.any(start > limit) or np.any(strides_ < 1):
    raise ValueError(f"bcoo_slice: invalid slice {tuple(start)}:{tuple(limit)} of shape "
                     f"{flat.shape}")
  new_shape = tuple(int(s) for s in -(-(limit - start) // strides_))
  idx = flat.indices
  inside = jnp.all((idx >= start) & (idx < limit) & ((idx - start) % strides_ == 0), axis=1)
  new_idx = ((idx - start) // strides_).astype(idx.dtype)
  new_idx = jnp.where(inside[:, None], new_idx, jnp.array(new_shape, idx.dtype))
  data = jnp.where(inside, flat.data, 0)
  return BCOO((data, new_idx), shape=new_shape)


def bcoo_dynamic_slice(mat: BCOO, start_indices, slice_sizes: Sequence[int]) -> BCOO:
  """The BCOO of lax.dynamic_slice(mat.todense(), start_indices, slice_sizes)."""
  flat = _sparse_only(mat, "dynamic_slice")
  sizes = jnp.array([int(s) for s in slice_sizes], flat.indices.dtype)
  shape = jnp.array(flat.shape, flat.indices.dtype)
  start = jnp.clip(jnp.asarray(start_indices).astype(flat.indices.dtype), 0, shape - sizes)
  idx = flat.indices
  inside = jnp.all((idx >= start) & (idx < start + sizes), axis=1)
  new_idx = jnp.where(inside[:, None], idx - start, sizes)
  return BCOO((jnp.where(inside, flat.data, 0), new_idx),
              shape=tuple(int(s) for s in slice_sizes))


def bcoo_broadcast_in_dim(mat: BCOO, *, shape: Sequence[int], broadcast_dimensions,
                          sharding=None) -> BCOO:
  """The BCOO of lax.broadcast_in_dim(mat.todense(), shape, broadcast_dimensions)."""
  del sharding
  shape = tuple(int(s) for s in shape)
  dims = tuple(int(d) for d in broadcast_dimensions)
  flat = _sparse_only(mat, "broadcast_in_dim")
  if len(dims) != flat.ndim or any(flat.shape[i] not in (1, shape[d])
                                   for i, d in enumerate(dims)):
    raise ValueError(f"bcoo_broadcast_in_dim: cannot broadcast {flat.shape} to {shape} with "
                     f"dimensions {dims}")
  # Every stored entry is repeated over the new and the expanded dimensions.
  grow = [d for d in range(len(shape)) if d not in dims or flat.shape[dims.index(d)] == 1
          and shape[d] != 1]
  reps = [shape[d] for d in grow]
  m = math.prod(reps)
  grids = jnp.meshgrid(*[jnp.arange(r, dtype=flat.indices.dtype) for r in reps],
                       indexing="ij") if reps else []
  extra = jnp.stack([g.reshape(-1) for g in grids], 1) if reps else jnp.zeros(
      (1, 0), flat.indices.dtype)
  cols = []
  for d in range(len(shape)):
    if d in grow:
      cols.append(jnp.tile(extra[:, grow.index(d)], flat.nse))
    else:
      cols.append(jnp.repeat(flat.indices[:, dims.index(d)], m))
  idx = jnp.stack(cols, 1) if cols else jnp.zeros((flat.nse * m, 0), flat.indices.dtype)
  valid = jnp.repeat(jnp.all(flat.indices < jnp.array(flat.shape, flat.indices.dtype), 1), m)
  idx = jnp.where(valid[:, None], idx, jnp.array(shape, idx.dtype))
  return BCOO((jnp.repeat(flat.data, m), idx), shape=shape)


def bcoo_concatenate(operands: Sequence[BCOO], *, dimension: int) -> BCOO:
  """The BCOO of the concatenation of the operands along `dimension`."""
  operands = [_sparse_only(op, "concatenate") for op in operands]
  if not operands:
    raise ValueError("bcoo_concatenate needs at least one operand")
  nd = operands[0].ndim
  dimension = int(dimension) % nd
  for op in operands[1:]:
    if op.ndim != nd or any(a != b for k, (a, b) in enumerate(zip(op.shape, operands[0].shape))
                            if k != dimension):
      raise ValueError(f"bcoo_concatenate: shapes {[o.shape for o in operands]} differ "
                       f"outside dimension {dimension}")
  offset, datas, idxs = 0, [], []
  total = sum(op.shape[dimension] for op in operands)
  out_shape = tuple(total if k == dimension else s for k, s in enumerate(operands[0].shape))
  for op in operands:
    valid = jnp.all(op.indices < jnp.array(op.shape, op.indices.dtype), axis=1)
    shifted = op.indices.at[:, dimension].add(offset)
    idxs.append(jnp.where(valid[:, None], shifted, jnp.array(out_shape, op.indices.dtype)))
    datas.append(op.data)
    offset += op.shape[dimension]
  return BCOO((jnp.concatenate(datas), jnp.concatenate(idxs)), shape=out_shape)


def bcoo_reduce_sum(mat: BCOO, *, axes: Sequence[int]) -> BCOO:
  """The BCOO of mat.todense().sum(axes)."""
  axes = sorted({int(a) % mat.ndim for a in axes})
  flat = unbatched(mat)
  ns = flat.n_sparse
  dense_axes = tuple(1 + a - ns for a in axes if a >= ns)
  data = flat.data.sum(dense_axes) if dense_axes else flat.data
  keep = [k for k in range(ns) if k not in axes]
  valid = jnp.all(flat.indices < jnp.array(flat.shape[:ns], flat.indices.dtype), axis=1)
  new_shape = tuple(s for k, s in enumerate(flat.shape) if k not in axes)
  idx = flat.indices[:, keep]
  idx = jnp.where(valid[:, None], idx, jnp.array(new_shape[:len(keep)], idx.dtype))
  return BCOO((jnp.where(valid.reshape((-1,) + (1,) * (data.ndim - 1)), data, 0), idx),
              shape=new_shape)


# ----------------------------------------------------------------------------- products


def bcoo_multiply_dense(sp_mat: BCOO, v) -> BCOO:
  """sp_mat * v elementwise (v dense, broadcastable to sp_mat's shape): a BCOO with
  sp_mat's indices."""
  v = jnp.asarray(v)
  if v.ndim > sp_mat.ndim:
    raise ValueError(f"bcoo_multiply_dense: dense operand of rank {v.ndim} for a sparse "
                     f"operand of rank {sp_mat.ndim}")
  full = jnp.broadcast_to(v, sp_mat.shape)
  flat = unbatched(sp_mat)
  vals = bcoo_extract(BCOO((jnp.ones_like(flat.data), flat.indices), shape=flat.shape,
                           unique_indices=True), full).data
  return BCOO((flat.data * vals, flat.indices), shape=sp_mat.shape,
              indices_sorted=flat.indices_sorted, unique_indices=flat.unique_indices)


def bcoo_multiply_sparse(lhs: BCOO, rhs: BCOO) -> BCOO:
  """lhs * rhs elementwise for two BCOO arrays of one shape (nonzero where both are)."""
  if lhs.shape != rhs.shape:
    raise ValueError(f"bcoo_multiply_sparse: shapes {lhs.shape} and {rhs.shape} differ")
  a = bcoo_sum_duplicates(_sparse_only(lhs, "multiply"), nse=unbatched(lhs).nse)
  values_of_b = rhs.todense()
  vals = bcoo_extract(BCOO((jnp.ones_like(a.data), a.indices), shape=a.shape,
                           unique_indices=True), values_of_b).data
  return BCOO((a.data * vals, a.indices), shape=a.shape, indices_sorted=True,
              unique_indices=True)


def _dot_general_impl(data, indices, rhs, *, dimension_numbers, lhs_shape, precision,
                      preferred_element_type):
  (lc, rc), (lb, rb) = dimension_numbers
  if (not lb and len(lhs_shape) == 2 and indices.shape[-1] == 2 and tuple(lc) == (1,)
      and tuple(rc) == (0,)):
    # Matrix times dense: each stored entry (i, j, v) adds v * rhs[j] to row i.
    rows, cols = indices[:, 0], indices[:, 1]
    valid = (rows < lhs_shape[0]) & (cols < lhs_shape[1])
    contrib = jnp.where(valid.reshape((-1,) + (1,) * (rhs.ndim - 1)),
                        data.reshape((-1,) + (1,) * (rhs.ndim - 1)) *
                        rhs[jnp.where(valid, cols, 0)], 0)
    out_dtype = preferred_element_type or jnp.result_type(data.dtype, rhs.dtype)
    out = jnp.zeros((lhs_shape[0],) + rhs.shape[1:], out_dtype)
    return out.at[jnp.where(valid, rows, 0)].add(contrib.astype(out_dtype))
  dense = _todense_impl(data, indices, shape=lhs_shape)
  return lax.dot_general(dense, rhs, dimension_numbers, precision=precision,
                         preferred_element_type=preferred_element_type)


bcoo_dot_general_p = derived_primitive("bcoo_dot_general", _dot_general_impl)


def int_dimension_numbers(dimension_numbers):
  (lc, rc), (lb, rb) = dimension_numbers
  return ((tuple(int(i) for i in lc), tuple(int(i) for i in rc)),
          (tuple(int(i) for i in lb), tuple(int(i) for i in rb)))


def _spdot_impl(lhs_data, lhs_indices, rhs_data, rhs_indices, *, lhs_shape, rhs_shape,
                dimension_numbers, nse):
  lhs = _todense_impl(lhs_data, lhs_indices, shape=lhs_shape)
  rhs = _todense_impl(rhs_data, rhs_indices, shape=rhs_shape)
  out = lax.dot_general(lhs, rhs, dimension_numbers)
  return _fromdense_impl(out, nse=nse, n_batch=0, n_dense=0, index_dtype=lhs_indices.dtype)


bcoo_spdot_general_p = derived_primitive("bcoo_spdot_general", _spdot_impl,
                                         multiple_results=True)


def _check_dot_shapes(lhs_shape, rhs_shape, dn) -> None:
  (lc, rc), (lb, rb) = dn
  pairs = list(zip(lc, rc)) + list(zip(lb, rb))
  if len(lc) != len(rc) or len(lb) != len(rb) or any(
      not (0 <= i < len(lhs_shape) and 0 <= j < len(rhs_shape)) or lhs_shape[i] != rhs_shape[j]
      for i, j in pairs):
    raise ValueError(f"bcoo_dot_general: the contracting and batch dimensions of shapes "
                     f"{lhs_shape} and {rhs_shape} do not align (dimension_numbers={dn})")


def bcoo_dot_general(lhs, rhs, *, dimension_numbers, precision=None,
                     preferred_element_type=None, out_sharding=None):
  """lax.dot_general where either operand (or both) is a BCOO; a sparse-sparse product is
  a BCOO, otherwise the result is dense."""
  del out_sharding
  dn = int_dimension_numbers(dimension_numbers)
  _check_dot_shapes(tuple(lhs.shape) if isinstance(lhs, BCOO) else np.shape(lhs),
                    tuple(rhs.shape) if isinstance(rhs, BCOO) else np.shape(rhs), dn)
  pet = None if preferred_element_type is None else np.dtype(preferred_element_type)
  if isinstance(lhs, BCOO) and isinstance(rhs, BCOO):
    a, b = _sparse_only(lhs, "dot"), _sparse_only(rhs, "dot")
    (lc, rc), (lb, rb) = dn
    free = [s for k, s in enumerate(a.shape) if k not in lc + lb] + \
        [s for k, s in enumerate(b.shape) if k not in rc + rb]
    out_size = math.prod([a.shape[k] for k in lb]) * math.prod(free)
    nse = min(out_size, a.nse * b.nse)
    data, indices = bcoo_spdot_general_p.bind(a.data, a.indices, b.data, b.indices,
                                              lhs_shape=a.shape, rhs_shape=b.shape,
                                              dimension_numbers=dn, nse=nse)
    out_shape = tuple([a.shape[k] for k in lb] + free)
    return BCOO((data, indices), shape=out_shape, indices_sorted=True, unique_indices=True)
  if isinstance(lhs, BCOO):
    a = _sparse_only(lhs, "dot")
    return bcoo_dot_general_p.bind(a.data, a.indices, jnp.asarray(rhs), dimension_numbers=dn,
                                   lhs_shape=a.shape, precision=precision,
                                   preferred_element_type=pet)
  if isinstance(rhs, BCOO):
    # lhs . rhs = transpose of rhs . lhs, with the free dimensions of the result reordered.
    (lc, rc), (lb, rb) = dn
    lhs = jnp.asarray(lhs)
    out = bcoo_dot_general(rhs, lhs, dimension_numbers=((rc, lc), (rb, lb)),
                           precision=precision, preferred_element_type=preferred_element_type)
    nb = len(lb)
    n_rhs_free = rhs.ndim - len(rc) - nb
    n_lhs_free = lhs.ndim - len(lc) - nb
    perm = (tuple(range(nb)) + tuple(range(nb + n_rhs_free, nb + n_rhs_free + n_lhs_free))
            + tuple(range(nb, nb + n_rhs_free)))
    return jnp.transpose(out, perm)
  return lax.dot_general(lhs, rhs, dn, precision=precision, preferred_element_type=pet)


def _matmul(a, b):
  a_nd = len(a.shape) if isinstance(a, BCOO) else jnp.ndim(a)
  b_nd = len(b.shape) if isinstance(b, BCOO) else jnp.ndim(b)
  if isinstance(a, BCOO) and a_nd == 2 and not isinstance(b, BCOO) and b_nd > 2:
    # A matrix times a stack of matrices (..., k, n): contract k, then put the matrix's
    # rows where matmul puts them, beside n.
    out = bcoo_dot_general(a, b, dimension_numbers=(((1,), (b_nd - 2,)), ((), ())))
    return jnp.moveaxis(out, 0, -2)
  if isinstance(b, BCOO) and b_nd == 2 and not isinstance(a, BCOO) and a_nd > 2:
    return bcoo_dot_general(a, b, dimension_numbers=(((a_nd - 1,), (0,)), ((), ())))
  if a_nd > 2 or b_nd > 2:
    raise NotImplementedError("matmul of sparse arrays of rank > 2 (a sparse matrix times "
                              "a stack of dense matrices is supported)")
  rc = 0
  return bcoo_dot_general(a, b, dimension_numbers=(((a_nd - 1,), (rc,)), ((), ())))


def _sampled_impl(A, B, indices, *, dimension_numbers):
  out = lax.dot_general(A, B, dimension_numbers)
  return _extract_impl(indices, out)


bcoo_dot_general_sampled_p = derived_primitive("bcoo_dot_general_sampled", _sampled_impl)


def bcoo_dot_general_sampled(A, B, indices, *, dimension_numbers):
  """The data of the BCOO with `indices` holding dot_general(A, B) at those indices."""
  return bcoo_dot_general_sampled_p.bind(jnp.asarray(A), jnp.asarray(B), jnp.asarray(indices),
                                         dimension_numbers=int_dimension_numbers(dimension_numbers))


# ----------------------------------------------------------------------------- dense fallbacks


def _nse_of_result(mats, out_shape) -> int:
  total = sum(unbatched(m).nse for m in mats if isinstance(m, BCOO))
  return max(1, min(math.prod(out_shape), total * 8))


def bcoo_gather(operand: BCOO, start_indices, dimension_numbers, slice_sizes, *,
                unique_indices: bool = False, indices_are_sorted: bool = False, mode=None,
                fill_value=None) -> BCOO:
  """lax.gather of a BCOO, as a BCOO (computed on the dense values)."""
  dense = lax.gather(operand.todense(), start_indices, dimension_numbers, slice_sizes,
                     unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                     mode=mode, fill_value=fill_value)
  return bcoo_fromdense(dense, nse=min(dense.size, unbatched(operand).nse *
                                       max(1, math.prod(jnp.shape(start_indices)[:-1]))))


def bcoo_conv_general_dilated(lhs, rhs, *, window_strides, padding, lhs_dilation=None,
                              rhs_dilation=None, dimension_numbers=None,
                              feature_group_count: int = 1, batch_group_count: int = 1,
                              precision=None, preferred_element_type=None, out_sharding=None):
  """lax.conv_general_dilated where an operand is a BCOO; the result is dense."""
  del out_sharding
  dense = lambda x: x.todense() if isinstance(x, BCOO) else x
  return lax.conv_general_dilated(dense(lhs), dense(rhs), window_strides, padding,
                                  lhs_dilation, rhs_dilation, dimension_numbers,
                                  feature_group_count, batch_group_count, precision,
                                  preferred_element_type)
