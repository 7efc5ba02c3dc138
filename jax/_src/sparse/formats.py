"""The compressed and plain coordinate formats: BCSR (batched compressed rows), COO, CSR
and CSC matrices. Each converts to and from dense arrays and multiplies dense operands;
the operations are primitives defined by their expansions.
"""

from __future__ import annotations

import operator

import numpy as np

from jax._src.numpy import namespace as jnp
from jax._src.lax import namespace as lax
from jax._src import core
from jax._src import tree_util
from jax._src.lax.utils import derived_primitive
from jax._src.sparse import bcoo as bcoo_mod
from jax._src.sparse.util import JAXSparse


def _count_nonzero(mat, what: str) -> int:
  if isinstance(mat, core.Tracer):
    raise ValueError(f"{what} under a transformation needs a static nse (the number of "
                     "stored entries)")
  return int(np.count_nonzero(np.asarray(mat)))


def _check_matrix(mat, what: str):
  mat = jnp.asarray(mat)
  if mat.ndim != 2:
    raise ValueError(f"{what} expects a matrix, got shape {mat.shape}")
  return mat


# ----------------------------------------------------------------------------- COO


def _coo_todense_impl(data, row, col, *, shape):
  valid = (row < shape[0]) & (col < shape[1])
  return jnp.zeros(shape, data.dtype).at[row, col].add(jnp.where(valid, data, 0), mode="drop")


def _coo_fromdense_impl(mat, *, nse, index_dtype):
  row, col = jnp.nonzero(mat, size=nse, fill_value=mat.shape)
  valid = row < mat.shape[0]
  data = jnp.where(valid, mat[jnp.where(valid, row, 0), jnp.where(valid, col, 0)], 0)
  return [data, row.astype(index_dtype), col.astype(index_dtype)]


def _coo_matmat_impl(data, row, col, B, *, shape, transpose):
  if transpose:
    row, col, shape = col, row, shape[::-1]
  valid = (row < shape[0]) & (col < shape[1])
  rows_b = B[jnp.where(valid, col, 0)]
  vals = jnp.where(valid.reshape((-1,) + (1,) * (B.ndim - 1)),
                   data.reshape((-1,) + (1,) * (B.ndim - 1)) * rows_b, 0)
  out = jnp.zeros((shape[0],) + B.shape[1:], jnp.result_type(data.dtype, B.dtype))
  return out.at[jnp.where(valid, row, 0)].add(vals)


coo_todense_p = derived_primitive("coo_todense", _coo_todense_impl)
coo_fromdense_p = derived_primitive("coo_fromdense", _coo_fromdense_impl, multiple_results=True)
coo_matvec_p = derived_primitive("coo_matvec", _coo_matmat_impl)
coo_matmat_p = derived_primitive("coo_matmat", _coo_matmat_impl)


class COO(JAXSparse):
  """A coordinate-format matrix: COO((data, row, col), shape=(m, n))."""

  def __init__(self, args, *, shape, rows_sorted: bool = False, cols_sorted: bool = False):
    self.data, self.row, self.col = (jnp.asarray(a) for a in args)
    super().__init__(args, shape=shape)
    self.rows_sorted, self.cols_sorted = bool(rows_sorted), bool(cols_sorted)
    if len(self.shape) != 2:
      raise ValueError(f"COO matrices are 2-D, got shape {self.shape}")

  nse = property(lambda self: self.data.shape[0])

  def todense(self):
    return coo_todense(self)

  @classmethod
  def fromdense(cls, mat, *, nse=None, index_dtype=np.int32) -> COO:
    return coo_fromdense(mat, nse=nse, index_dtype=index_dtype)

  def __matmul__(self, other):
    other = jnp.asarray(other)
    return coo_matvec(self, other) if other.ndim == 1 else coo_matmat(self, other)

  def transpose(self, axes=None) -> COO:
    return COO((self.data, self.col, self.row), shape=self.shape[::-1],
               rows_sorted=self.cols_sorted, cols_sorted=self.rows_sorted)

  T = property(lambda self: self.transpose())

  def tree_flatten(self):
    return (self.data, self.row, self.col), (self.shape, self.rows_sorted, self.cols_sorted)

  @classmethod
  def tree_unflatten(cls, aux, children):
    out = object.__new__(cls)
    out.data, out.row, out.col = children
    out.shape, out.rows_sorted, out.cols_sorted = aux
    return out


def coo_todense(mat: COO):
  return coo_todense_p.bind(mat.data, mat.row, mat.col, shape=mat.shape)


def coo_fromdense(mat, *, nse=None, index_dtype=np.int32) -> COO:
  mat = _check_matrix(mat, "coo_fromdense")
  nse = _count_nonzero(mat, "coo_fromdense") if nse is None else operator.index(nse)
  data, row, col = coo_fromdense_p.bind(mat, nse=nse, index_dtype=np.dtype(index_dtype))
  return COO((data, row, col), shape=mat.shape, rows_sorted=True)


def coo_matvec(mat: COO, v, transpose: bool = False):
  v = jnp.asarray(v)
  if v.ndim != 1 or v.shape[0] != mat.shape[0 if transpose else 1]:
    raise ValueError(f"coo_matvec: vector of shape {v.shape} for a matrix of shape "
                     f"{mat.shape}{' (transposed)' if transpose else ''}")
  return coo_matvec_p.bind(mat.data, mat.row, mat.col, v, shape=mat.shape,
                           transpose=bool(transpose))


def coo_matmat(mat: COO, B, *, transpose: bool = False):
  B = jnp.asarray(B)
  if B.ndim != 2 or B.shape[0] != mat.shape[0 if transpose else 1]:
    raise ValueError(f"coo_matmat: operand of shape {B.shape} for a matrix of shape "
                     f"{mat.shape}{' (transposed)' if transpose else ''}")
  return coo_matmat_p.bind(mat.data, mat.row, mat.col, B, shape=mat.shape,
                           transpose=bool(transpose))


# ----------------------------------------------------------------------------- CSR / CSC


def _rows_of(indptr, nse):
  """The row of each stored entry from the row pointers (entries past the end: n_rows)."""
  return (jnp.searchsorted(indptr, jnp.arange(nse, dtype=indptr.dtype), side="right")
          - 1).astype(indptr.dtype)


def _csr_todense_impl(data, indices, indptr, *, shape):
  rows = _rows_of(indptr, data.shape[0])
  rows = jnp.where(jnp.arange(data.shape[0]) < indptr[-1], rows, shape[0])
  return _coo_todense_impl(data, rows, indices, shape=shape)


def _csr_fromdense_impl(mat, *, nse, index_dtype):
  data, row, col = _coo_fromdense_impl(mat, nse=nse, index_dtype=index_dtype)
  counts = jnp.zeros(mat.shape[0], index_dtype).at[row].add(1, mode="drop")
  indptr = jnp.concatenate([jnp.zeros(1, index_dtype), jnp.cumsum(counts).astype(index_dtype)])
  return [data, col, indptr]


def _csr_matmat_impl(data, indices, indptr, B, *, shape, transpose):
  rows = _rows_of(indptr, data.shape[0])
  rows = jnp.where(jnp.arange(data.shape[0]) < indptr[-1], rows, shape[0])
  return _coo_matmat_impl(data, rows, indices, B, shape=shape, transpose=transpose)


csr_todense_p = derived_primitive("csr_todense", _csr_todense_impl)
csr_fromdense_p = derived_primitive("csr_fromdense", _csr_fromdense_impl, multiple_results=True)
csr_matvec_p = derived_primitive("csr_matvec", _csr_matmat_impl)
csr_matmat_p = derived_primitive("csr_matmat", _csr_matmat_impl)


class CSR(JAXSparse):
  """A compressed-sparse-row matrix: CSR((data, indices, indptr), shape=(m, n))."""

  def __init__(self, args, *, shape):
    self.data, self.indices, self.indptr = (jnp.asarray(a) for a in args)
    super().__init__(args, shape=shape)
    if len(self.shape) != 2 or self.indptr.shape != (self.shape[0] + 1,):
      raise ValueError(f"CSR: indptr of shape {self.indptr.shape} for a matrix of shape "
                       f"{self.shape}")

  nse = property(lambda self: self.data.shape[0])

  def todense(self):
    return csr_todense(self)

  @classmethod
  def fromdense(cls, mat, *, nse=None, index_dtype=np.int32) -> CSR:
    return csr_fromdense(mat, nse=nse, index_dtype=index_dtype)

  def __matmul__(self, other):
    other = jnp.asarray(other)
    return csr_matvec(self, other) if other.ndim == 1 else csr_matmat(self, other)

  def transpose(self, axes=None) -> CSC:
    return CSC((self.data, self.indices, self.indptr), shape=self.shape[::-1])

  T = property(lambda self: self.transpose())

  def tree_flatten(self):
    return (self.data, self.indices, self.indptr), self.shape

  @classmethod
  def tree_unflatten(cls, shape, children):
    out = object.__new__(cls)
    out.data, out.indices, out.indptr = children
    out.shape = shape
    return out


def csr_todense(mat: CSR):
  return csr_todense_p.bind(mat.data, mat.indices, mat.indptr, shape=mat.shape)


def csr_fromdense(mat, *, nse=None, index_dtype=np.int32) -> CSR:
  mat = _check_matrix(mat, "csr_fromdense")
  nse = _count_nonzero(mat, "csr_fromdense") if nse is None else operator.index(nse)
  data, indices, indptr = csr_fromdense_p.bind(mat, nse=nse, index_dtype=np.dtype(index_dtype))
  return CSR((data, indices, indptr), shape=mat.shape)


def csr_matvec(mat: CSR, v, transpose: bool = False):
  v = jnp.asarray(v)
  if v.ndim != 1 or v.shape[0] != mat.shape[0 if transpose else 1]:
    raise ValueError(f"csr_matvec: vector of shape {v.shape} for a matrix of shape "
                     f"{mat.shape}")
  return csr_matvec_p.bind(mat.data, mat.indices, mat.indptr, v, shape=mat.shape,
                           transpose=bool(transpose))


def csr_matmat(mat: CSR, B, *, transpose: bool = False):
  B = jnp.asarray(B)
  if B.ndim != 2 or B.shape[0] != mat.shape[0 if transpose else 1]:
    raise ValueError(f"csr_matmat: operand of shape {B.shape} for a matrix of shape "
                     f"{mat.shape}")
  return csr_matmat_p.bind(mat.data, mat.indices, mat.indptr, B, shape=mat.shape,
                           transpose=bool(transpose))


class CSC(JAXSparse):
  """A compressed-sparse-column matrix: CSC((data, indices, indptr), shape=(m, n)), the
  row indices of each column's entries between indptr[j] and indptr[j + 1]."""

  def __init__(self, args, *, shape):
    self.data, self.indices, self.indptr = (jnp.asarray(a) for a in args)
    super().__init__(args, shape=shape)
    if len(self.shape) != 2 or self.indptr.shape != (self.shape[1] + 1,):
      raise ValueError(f"CSC: indptr of shape {self.indptr.shape} for a matrix of shape "
                       f"{self.shape}")

  nse = property(lambda self: self.data.shape[0])

  def todense(self):
    return csr_todense_p.bind(self.data, self.indices, self.indptr,
                              shape=self.shape[::-1]).T

  @classmethod
  def fromdense(cls, mat, *, nse=None, index_dtype=np.int32) -> CSC:
    t = csr_fromdense(_check_matrix(mat, "CSC.fromdense").T, nse=nse, index_dtype=index_dtype)
    return cls((t.data, t.indices, t.indptr), shape=tuple(jnp.shape(mat)))

  def __matmul__(self, other):
    other = jnp.asarray(other)
    as_csr = CSR((self.data, self.indices, self.indptr), shape=self.shape[::-1])
    return (csr_matvec(as_csr, other, transpose=True) if other.ndim == 1
            else csr_matmat(as_csr, other, transpose=True))

  def transpose(self, axes=None) -> CSR:
    return CSR((self.data, self.indices, self.indptr), shape=self.shape[::-1])

  T = property(lambda self: self.transpose())

  def tree_flatten(self):
    return (self.data, self.indices, self.indptr), self.shape

  @classmethod
  def tree_unflatten(cls, shape, children):
    out = object.__new__(cls)
    out.data, out.indices, out.indptr = children
    out.shape = shape
    return out


# ----------------------------------------------------------------------------- BCSR


bcsr_todense_p = derived_primitive("bcsr_todense", _csr_todense_impl)
bcsr_fromdense_p = derived_primitive("bcsr_fromdense", _csr_fromdense_impl,
                                     multiple_results=True)


def _bcsr_extract_impl(indices, indptr, mat):
  rows = _rows_of(indptr, indices.shape[0])
  valid = (jnp.arange(indices.shape[0]) < indptr[-1]) & (indices < mat.shape[1])
  return jnp.where(valid, mat[jnp.where(valid, rows, 0), jnp.where(valid, indices, 0)], 0)


bcsr_extract_p = derived_primitive("bcsr_extract", _bcsr_extract_impl)
bcsr_dot_general_p = derived_primitive(
    "bcsr_dot_general",
    lambda data, indices, indptr, rhs, *, dimension_numbers, lhs_shape, precision,
    preferred_element_type: lax.dot_general(
        _csr_todense_impl(data, indices, indptr, shape=lhs_shape), rhs, dimension_numbers,
        precision=precision, preferred_element_type=preferred_element_type))


class BCSR(JAXSparse):
  """A compressed-row sparse matrix (unbatched here): BCSR((data, indices, indptr),
  shape=(m, n))."""

  def __init__(self, args, *, shape, indices_sorted: bool = False,
               unique_indices: bool = False):
    self.data, self.indices, self.indptr = (jnp.asarray(a) for a in args)
    super().__init__(args, shape=shape)
    self.indices_sorted, self.unique_indices = bool(indices_sorted), bool(unique_indices)
    if self.indptr.ndim != 1:
      raise NotImplementedError("BCSR with batch dimensions is not supported")
    if len(self.shape) != 2 or self.indptr.shape != (self.shape[0] + 1,):
      raise ValueError(f"BCSR: indptr of shape {self.indptr.shape} for a matrix of shape "
                       f"{self.shape}")

  nse = property(lambda self: self.indices.shape[-1])
  n_batch = property(lambda self: 0)
  n_sparse = property(lambda self: 2)
  n_dense = property(lambda self: self.data.ndim - 1)

  def todense(self):
    return bcsr_todense(self)

  @classmethod
  def fromdense(cls, mat, *, nse=None, index_dtype=np.int32, n_dense: int = 0,
                n_batch: int = 0) -> BCSR:
    return bcsr_fromdense(mat, nse=nse, index_dtype=index_dtype, n_dense=n_dense,
                          n_batch=n_batch)

  @classmethod
  def from_bcoo(cls, arr) -> BCSR:
    return bcsr_fromdense(arr.todense(), nse=bcoo_mod.unbatched(arr).nse)

  def to_bcoo(self):
    rows = _rows_of(self.indptr, self.nse)
    rows = jnp.where(jnp.arange(self.nse) < self.indptr[-1], rows, self.shape[0])
    return bcoo_mod.BCOO((self.data, jnp.stack([rows, self.indices], 1)), shape=self.shape)

  def __matmul__(self, other):
    other = jnp.asarray(other)
    return bcsr_dot_general(self, other, dimension_numbers=(((1,), (0,)), ((), ())))

  def sum_duplicates(self, nse=None, remove_zeros: bool = True) -> BCSR:
    return bcsr_sum_duplicates(self, nse=nse)

  def tree_flatten(self):
    return (self.data, self.indices, self.indptr), (self.shape, self.indices_sorted,
                                                    self.unique_indices)

  @classmethod
  def tree_unflatten(cls, aux, children):
    out = object.__new__(cls)
    out.data, out.indices, out.indptr = children
    out.shape, out.indices_sorted, out.unique_indices = aux
    return out


def bcsr_todense(mat: BCSR):
  return bcsr_todense_p.bind(mat.data, mat.indices, mat.indptr, shape=mat.shape)


def bcsr_fromdense(mat, *, nse=None, n_batch: int = 0, n_dense: int = 0,
                   index_dtype=np.int32) -> BCSR:
  if n_batch or n_dense:
    raise NotImplementedError("bcsr_fromdense with batch or dense dimensions")
  mat = _check_matrix(mat, "bcsr_fromdense")
  nse = _count_nonzero(mat, "bcsr_fromdense") if nse is None else operator.index(nse)
  data, indices, indptr = bcsr_fromdense_p.bind(mat, nse=nse, index_dtype=np.dtype(index_dtype))
  return BCSR((data, indices, indptr), shape=mat.shape, indices_sorted=True,
              unique_indices=True)


def bcsr_extract(indices, indptr, mat):
  """The values of the dense matrix `mat` at the positions (indices, indptr) describe."""
  mat = _check_matrix(mat, "bcsr_extract")
  return bcsr_extract_p.bind(jnp.asarray(indices), jnp.asarray(indptr), mat)


def bcsr_dot_general(lhs, rhs, *, dimension_numbers, precision=None,
                     preferred_element_type=None, out_sharding=None):
  """lax.dot_general with a BCSR operand (the result is dense)."""
  del out_sharding
  dn = bcoo_mod.int_dimension_numbers(dimension_numbers)
  pet = None if preferred_element_type is None else np.dtype(preferred_element_type)
  if isinstance(lhs, BCSR) and not isinstance(rhs, JAXSparse):
    return bcsr_dot_general_p.bind(lhs.data, lhs.indices, lhs.indptr, jnp.asarray(rhs),
                                   dimension_numbers=dn, lhs_shape=lhs.shape,
                                   precision=precision, preferred_element_type=pet)
  to = lambda x: x.to_bcoo() if isinstance(x, BCSR) else x
  return bcoo_mod.bcoo_dot_general(to(lhs), to(rhs), dimension_numbers=dn, precision=precision,
                                   preferred_element_type=preferred_element_type)


def bcsr_sum_duplicates(mat: BCSR, nse=None) -> BCSR:
  """Entries at the same position merged."""
  merged = bcoo_mod.bcoo_sum_duplicates(mat.to_bcoo(), nse=nse)
  rows, cols = merged.indices[:, 0], merged.indices[:, 1]
  counts = jnp.zeros(mat.shape[0], mat.indptr.dtype).at[rows].add(1, mode="drop")
  indptr = jnp.concatenate([jnp.zeros(1, mat.indptr.dtype),
                            jnp.cumsum(counts).astype(mat.indptr.dtype)])
  return BCSR((merged.data, cols.astype(mat.indices.dtype), indptr), shape=mat.shape,
              indices_sorted=True, unique_indices=True)


def bcsr_broadcast_in_dim(mat: BCSR, *, shape, broadcast_dimensions, sharding=None):
  """Broadcast of a BCSR (as a BCOO when the result is not a matrix)."""
  out = bcoo_mod.bcoo_broadcast_in_dim(mat.to_bcoo(), shape=shape,
                                       broadcast_dimensions=broadcast_dimensions)
  return BCSR.fromdense(out.todense(), nse=out.nse) if len(out.shape) == 2 else out


def bcsr_concatenate(operands, *, dimension: int) -> BCSR:
  """The concatenation of BCSR matrices along `dimension`."""
  out = bcoo_mod.bcoo_concatenate([op.to_bcoo() for op in operands], dimension=dimension)
  return bcsr_fromdense(out.todense(), nse=out.nse)


for _cls in (COO, CSR, CSC, BCSR):
  tree_util.register_pytree_node(_cls, _cls.tree_flatten, _cls.tree_unflatten)
del _cls
