"""Shared pieces of the sparse formats: warnings/errors, the base class and helpers."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from jax._src.numpy import namespace as jnp
from jax._src import core
from jax._src.api import vmap


class SparseEfficiencyError(ValueError):
  """An operation would make a sparse array effectively dense (and on_inefficient='error')."""


class SparseEfficiencyWarning(UserWarning):
  """An operation makes a sparse array less sparse than its layout suggests."""


class CuSparseEfficiencyWarning(SparseEfficiencyWarning):
  """A GPU sparse kernel could not be used and a slower fallback runs instead."""


class JAXSparse:
  """The base of the sparse array formats: data/indices arrays and a dense shape."""

  data: Any
  shape: tuple[int, ...]

  def __init__(self, args, *, shape):
    self.shape = tuple(int(d) for d in shape)

  size = property(lambda self: math.prod(self.shape))
  ndim = property(lambda self: len(self.shape))
  dtype = property(lambda self: self.data.dtype)

  def __len__(self):
    return self.shape[0]

  def __repr__(self):
    name = type(self).__name__
    try:
      nse = self.nse
    except Exception:  # a partially built array while tracing
      nse = "?"
    return f"{name}({jnp.dtype(self.dtype).name}{list(self.shape)}, nse={nse})"

  def todense(self):
    raise NotImplementedError

  def __array__(self, dtype=None, copy=None):
    return np.asarray(self.todense(), dtype=dtype)

  def block_until_ready(self):
    for leaf in (getattr(self, a) for a in ("data", "indices", "indptr") if hasattr(self, a)):
      leaf.block_until_ready()
    return self


def nfold_vmap(fun, n: int, in_axes=0):
  """`fun` mapped over n leading axes (n nested vmaps)."""
  for _ in range(n):
    fun = vmap(fun, in_axes=in_axes)
  return fun


def is_sparse(x) -> bool:
  return isinstance(x, JAXSparse)


def shape_of(x) -> tuple:
  return tuple(x.shape) if is_sparse(x) else core.get_aval(x).shape


def canonical_axes(axes: Sequence[int], ndim: int) -> tuple[int, ...]:
  return tuple(sorted(int(a) % ndim for a in axes))
