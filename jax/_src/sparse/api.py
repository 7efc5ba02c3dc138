"""Constructors and conversions shared by the sparse formats: empty, eye, todense; random
sparse arrays; sparse linear solves."""

from __future__ import annotations

import math

import numpy as np

from jax._src.numpy import linalg as jnp_linalg
from jax._src.numpy import namespace as jnp
from jax._src import dtypes
from jax._src import random
from jax._src.lax.utils import derived_primitive
from jax._src.sparse import bcoo as bcoo_mod
from jax._src.sparse import formats
from jax._src.sparse.util import JAXSparse

_FORMATS = {"bcoo": bcoo_mod.BCOO, "bcsr": formats.BCSR, "coo": formats.COO,
            "csr": formats.CSR, "csc": formats.CSC}


def _format(sparse_format: str):
  try:
    return _FORMATS[sparse_format]
  except KeyError:
    raise ValueError(f"sparse_format must be one of {sorted(_FORMATS)}, got "
                     f"{sparse_format!r}") from None


def empty(shape, dtype=None, index_dtype="int32", sparse_format: str = "bcoo", **kwds):
  """An all-zero sparse array (no stored entries)."""
  cls = _format(sparse_format)
  dtype = dtypes.canonicalize_dtype(dtype or np.float32)
  return cls.fromdense(jnp.zeros(tuple(shape), dtype), nse=0, index_dtype=index_dtype, **kwds)


def eye(N: int, M: int | None = None, k: int = 0, dtype=None, index_dtype="int32",
        sparse_format: str = "bcoo", **kwds):
  """A sparse identity-like matrix: ones on diagonal k, stored as its entries only."""
  cls = _format(sparse_format)
  M = N if M is None else M
  dtype = dtypes.canonicalize_dtype(dtype or np.float32)
  start_row, start_col = max(0, -k), max(0, k)
  n = max(0, min(N - start_row, M - start_col))
  if cls is bcoo_mod.BCOO and not kwds:
    i = jnp.arange(n, dtype=index_dtype)
    indices = jnp.stack([i + start_row, i + start_col], 1)
    return bcoo_mod.BCOO((jnp.ones(n, dtype), indices), shape=(N, M), indices_sorted=True,
                         unique_indices=True)
  return cls.fromdense(jnp.eye(N, M, k, dtype=dtype), nse=n, index_dtype=index_dtype, **kwds)


todense_p = derived_primitive("todense", lambda x: x)


def todense(arr):
  """The dense array of a sparse one (dense arrays are returned as they are)."""
  if isinstance(arr, JAXSparse):
    return arr.todense()
  return todense_p.bind(jnp.asarray(arr))


def random_bcoo(key, shape, *, dtype=jnp.float_, indices_dtype=None, nse=0.2, n_batch: int = 0,
                n_dense: int = 0, unique_indices: bool = True, sorted_indices: bool = False,
                generator=None, **kwds):
  """A random BCOO: nse stored entries (a count, or a fraction of the sparse size) at
  random positions, their values drawn by generator(key, shape, dtype, **kwds)."""
  generator = random.normal if generator is None else generator
  shape = tuple(int(s) for s in shape)
  n_sparse = len(shape) - n_batch - n_dense
  if n_sparse < 0:
    raise ValueError(f"random_bcoo: n_batch={n_batch} and n_dense={n_dense} do not fit "
                     f"shape {shape}")
  sparse_shape = shape[n_batch:n_batch + n_sparse]
  size = math.prod(sparse_shape)
  if isinstance(nse, float) and not 0 <= nse <= 1:
    raise ValueError(f"random_bcoo: a fractional nse must be in [0, 1], got {nse}")
  nse = int(nse * size) if isinstance(nse, float) else int(nse)
  if nse > size and unique_indices:
    raise ValueError(f"random_bcoo: nse={nse} unique entries do not fit {size} positions")
  indices_dtype = indices_dtype or np.int32
  batch = shape[:n_batch]
  key_idx, key_val = random.split(key)
  n_maps = max(1, math.prod(batch))
  keys = random.split(key_idx, n_maps)
  flat = jnp.stack([random.choice(k, size, (nse,), replace=not unique_indices) for k in keys])
  if sorted_indices:
    flat = jnp.sort(flat, axis=-1)
  coords = jnp.unravel_index(flat, sparse_shape) if sparse_shape else ()
  indices = (jnp.stack(coords, -1) if sparse_shape else jnp.zeros((n_maps, nse, 0), np.int32))
  indices = indices.astype(indices_dtype).reshape(batch + (nse, n_sparse))
  data = generator(key_val, batch + (nse,) + shape[n_batch + n_sparse:], dtype, **kwds)
  return bcoo_mod.BCOO((data, indices), shape=shape, indices_sorted=sorted_indices,
                       unique_indices=unique_indices)


def spsolve(data, indices, indptr, b, tol: float = 1e-6, reorder: int = 1):
  """Solve A x = b for the CSR matrix A = (data, indices, indptr) (square)."""
  del tol, reorder
  b = jnp.asarray(b)
  n = b.shape[0]
  a = formats.CSR((data, indices, indptr), shape=(n, n)).todense()
  return jnp_linalg.solve(a, b)


