"""Sparse arrays in batched-COO form (`jax.experimental.sparse.BCOO`), unbatched:
an array of shape `shape` stored as `nse` values (`data`) at `indices`, one row of
`len(shape)` coordinates per stored value. Duplicate coordinates add up.

Products with dense arrays gather the dense operand at the stored coordinates and
sum the contributions into their rows (segment_sum), so they trace, differentiate
and vectorize like any jax.numpy code.
"""

from __future__ import annotations

import numpy as np

import jax.numpy as jnp
from jax._src import ops
from jax._src import tree_util


class JAXSparse:
  """Base of jax's sparse array types."""

  data: object
  shape: tuple[int, ...]

  @property
  def dtype(self):
    return self.data.dtype

  @property
  def ndim(self) -> int:
    return len(self.shape)

  @property
  def size(self) -> int:
    return int(np.prod(self.shape))


class BCOO(JAXSparse):
  """A sparse array: `BCOO((data, indices), shape=shape)`."""

  def __init__(self, args, *, shape, indices_sorted: bool = False, unique_indices: bool = False):
    data, indices = args
    self.data = jnp.asarray(data)
    self.indices = jnp.asarray(indices)
    self.shape = tuple(int(d) for d in shape)
    if self.indices.ndim != 2 or self.indices.shape[1] != len(self.shape):
      raise ValueError(f"BCOO indices must have shape (nse, {len(self.shape)}) for an array of "
                       f"shape {self.shape}, got {self.indices.shape}")
    if self.data.shape != self.indices.shape[:1]:
      raise ValueError(f"BCOO data must have shape ({self.indices.shape[0]},) to match the "
                       f"indices, got {self.data.shape}")
    self.indices_sorted = indices_sorted
    self.unique_indices = unique_indices

  nse = property(lambda self: int(self.indices.shape[0]))

  def __repr__(self):
    return f"BCOO({self.dtype}{list(self.shape)}, nse={self.nse})"

  # ------------------------------------------------------------------ conversions

  @classmethod
  def fromdense(cls, mat, *, nse=None, index_dtype=np.int32) -> "BCOO":
    """The nonzero entries of a concrete dense array."""
    dense = np.asarray(mat)
    idx = np.argwhere(dense != 0).astype(index_dtype)
    if nse is not None:
      if nse < len(idx):
        raise ValueError(f"fromdense: the array has {len(idx)} nonzero entries, more than "
                         f"nse={nse}")
      pad = np.zeros((nse - len(idx), dense.ndim), index_dtype)
      values = np.concatenate([dense[tuple(idx.T)], np.zeros(nse - len(idx), dense.dtype)])
      idx = np.concatenate([idx, pad])
    else:
      values = dense[tuple(idx.T)]
    return cls((values, idx), shape=dense.shape, indices_sorted=True, unique_indices=nse is None)

  @classmethod
  def from_scipy_sparse(cls, mat, *, index_dtype=None) -> "BCOO":
    """The stored entries of a scipy.sparse matrix, in its row-major (COO) order."""
    coo = mat.tocoo()
    idx = np.stack([coo.row, coo.col], axis=1).astype(index_dtype or np.int32)
    return cls((coo.data, idx), shape=coo.shape, indices_sorted=False,
               unique_indices=False)

  def todense(self):
    out = jnp.zeros(self.shape, self.dtype)
    return out.at[tuple(self.indices[:, i] for i in range(self.ndim))].add(self.data)

  # ------------------------------------------------------------------ operations

  def transpose(self, axes=None) -> "BCOO":
    axes = tuple(reversed(range(self.ndim))) if axes is None else tuple(axes)
    if sorted(axes) != list(range(self.ndim)):
      raise ValueError(f"transpose axes {axes} are not a permutation of {self.ndim} dimensions")
    return BCOO((self.data, self.indices[:, list(axes)]),
                shape=tuple(self.shape[a] for a in axes))

  T = property(lambda self: self.transpose())

  def sum(self, axis=None):
    """A dense sum over `axis` (an int or None)."""
    if axis is None:
      return jnp.sum(self.data)
    axis = int(axis) % self.ndim
    keep = [i for i in range(self.ndim) if i != axis]
    out = jnp.zeros(tuple(self.shape[i] for i in keep), self.dtype)
    return out.at[tuple(self.indices[:, i] for i in keep)].add(self.data)

  def __neg__(self):
    return BCOO((-self.data, self.indices), shape=self.shape)

  def __mul__(self, other):
    if np.ndim(other) != 0:
      raise NotImplementedError("BCOO * array: only multiplication by a scalar is supported")
    return BCOO((self.data * other, self.indices), shape=self.shape)

  __rmul__ = __mul__

  def __matmul__(self, other):
    """A matrix (2-D BCOO) times a dense vector, matrix or stack of matrices, with
    jnp.matmul's broadcasting."""
    if self.ndim != 2:
      raise NotImplementedError(f"BCOO @ array needs a 2-D sparse matrix, got {self.ndim}-D")
    other = jnp.asarray(other)
    rows, cols = self.indices[:, 0], self.indices[:, 1]
    if other.ndim == 1:
      return ops.segment_sum(self.data * other[cols], rows, num_segments=self.shape[0])
    if other.shape[-2] != self.shape[1]:
      raise ValueError(f"matmul: shapes {self.shape} and {other.shape} do not align")
    picked = jnp.take(other, cols, axis=-2) * self.data[:, None]   # (..., nse, k)
    summed = ops.segment_sum(jnp.moveaxis(picked, -2, 0), rows, num_segments=self.shape[0])
    return jnp.moveaxis(summed, 0, -2)

  def __rmatmul__(self, other):
    """A dense vector or matrix times a 2-D BCOO."""
    other = jnp.asarray(other)
    return jnp.swapaxes(self.T @ jnp.swapaxes(other, -1, -2), -1, -2) if other.ndim > 1 \
        else self.T @ other


tree_util.register_pytree_node(
    BCOO, lambda m: ((m.data, m.indices), m.shape),
    lambda shape, children: BCOO(children, shape=shape))


def todense(arr):
  """The dense array of a sparse one (a dense one is returned as it is)."""
  return arr.todense() if isinstance(arr, JAXSparse) else arr
