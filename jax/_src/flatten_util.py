"""`ravel_pytree`: a pytree of arrays <-> one 1-D array, differentiable both ways."""

from __future__ import annotations

import math
import types

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src import tree_util
from jax._src.numpy import creation, shape_ops, ufuncs


# The jax.numpy functions this module uses, from the modules defining them.
_NUMPY = types.SimpleNamespace(
    asarray=creation.asarray, concatenate=shape_ops.concatenate, ravel=shape_ops.ravel,
    real=ufuncs.real, reshape=shape_ops.reshape, zeros=creation.zeros)


def _jnp():
  return _NUMPY


def ravel_pytree(pytree):
  """Flatten `pytree` into a 1-D array of the leaves' common promoted dtype.

  Returns `(flat, unravel)`; `unravel(flat)` rebuilds a pytree of the original
  structure, shapes and dtypes. Both directions work under jit, grad and vmap.
  """
  leaves, treedef = tree_util.tree_flatten(pytree)
  flat, unravel_list = _ravel_list(leaves)
  return flat, lambda v: tree_util.tree_unflatten(treedef, unravel_list(v))


def _leaf_dtype(x) -> np.dtype:
  return dtypes.dtype(x) if not hasattr(x, "dtype") else np.dtype(x.dtype)


def _ravel_list(leaves):
  jnp = _jnp()
  if not leaves:
    return jnp.zeros((0,), dtypes.default_float_dtype()), lambda v: []
  from_dtypes = [_leaf_dtype(x) for x in leaves]
  to_dtype = dtypes.result_type(*from_dtypes)
  shapes = [tuple(np.shape(x)) for x in leaves]
  sizes = [math.prod(s) for s in shapes]
  flat = jnp.concatenate([jnp.ravel(jnp.asarray(x, dtype=to_dtype)) for x in leaves])
  offsets = np.cumsum([0] + sizes)

  def unravel(v):
    aval = core.get_aval(v)
    if aval.shape != (offsets[-1],):
      raise ValueError(f"The unravel function expected an array of shape {(offsets[-1],)}, "
                       f"got shape {aval.shape}.")
    if aval.dtype != to_dtype:
      raise TypeError(f"The unravel function expected an array of dtype {to_dtype}, got "
                      f"dtype {aval.dtype}.")
    out = []
    for start, size, shape, dt in zip(offsets[:-1], sizes, shapes, from_dtypes):
      piece = jnp.reshape(v[start:start + size], shape)
      out.append(piece if dt == to_dtype else _cast_back(piece, dt))
    return out

  return flat, unravel


def _cast_back(x, dt: np.dtype):
  jnp = _jnp()
  # Casting complex to real would drop the imaginary part: keep the promoted value.
  if np.issubdtype(x.dtype, np.complexfloating) and not np.issubdtype(dt, np.complexfloating):
    return jnp.real(x).astype(dt)
  return x.astype(dt)
