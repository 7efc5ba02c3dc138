"""Cumulative and difference functions: cumsum, cumprod, cumulative_sum/prod, diff,
ediff1d.

The scans are the lax cumulative primitives, so they differentiate and batch.
"""

from __future__ import annotations

import operator

from jax._src import core
from jax._src import dtypes
from jax._src.lax import elementwise as lax_ew
from jax._src.lax import reductions as lax_red
from jax._src.lax import shape as lax_shape
from jax._src.numpy.util import asarray_like, broadcast_to, canonical_axis, promote_dtypes


def _flatten(a):
  return lax_shape.reshape(a, (core.get_aval(a).size,))


def _cumulative(lax_fn, name):
  def fn(a, axis=None, dtype=None, out=None):
    if out is not None:
      raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
    a = asarray_like(a)
    if axis is None:
      a, axis = _flatten(a), 0
    aval = core.get_aval(a)
    axis = canonical_axis(operator.index(axis), aval.ndim)
    if dtype is not None:
      target = dtypes.canonicalize_dtype(dtype)
    elif aval.dtype == dtypes.bool_:  # counting, not logical accumulation
      target = dtypes.default_int_dtype()
    else:
      target = aval.dtype
    a = lax_ew.convert_element_type(a, target, False)
    if aval.ndim == 0:
      return a
    return lax_fn(a, axis)
  fn.__name__ = name
  return fn


cumsum = _cumulative(lax_red.cumsum, "cumsum")
cumprod = _cumulative(lax_red.cumprod, "cumprod")
cumproduct = cumprod


def _cumulative_with_initial(fn, identity, name):
  def wrapped(x, /, *, axis=None, dtype=None, include_initial: bool = False):
    x = asarray_like(x)
    aval = core.get_aval(x)
    if axis is None:
      if aval.ndim > 1:
        raise ValueError(f"jnp.{name}: axis is required for arrays of rank > 1.")
      axis = 0
    out = fn(x, axis, dtype)
    if not include_initial:
      return out
    axis = canonical_axis(operator.index(axis), aval.ndim)
    shape = list(core.get_aval(out).shape)
    shape[axis] = 1
    init = lax_shape.full(shape, identity, core.get_aval(out).dtype)
    return lax_shape.concatenate([init, out], axis)
  wrapped.__name__ = name
  return wrapped


cumulative_sum = _cumulative_with_initial(cumsum, 0, "cumulative_sum")
cumulative_prod = _cumulative_with_initial(cumprod, 1, "cumulative_prod")


def _slice_axis(x, start, stop, axis):
  aval = core.get_aval(x)
  starts = [0] * aval.ndim
  limits = list(aval.shape)
  starts[axis], limits[axis] = start, stop
  return lax_shape.slice(x, starts, limits)


def _edge(value, like, axis):
  """`value` broadcast to `like`'s shape except for length 1 (or its own) along `axis`."""
  value = asarray_like(value)
  vaval = core.get_aval(value)
  if vaval.ndim == 0:
    shape = list(core.get_aval(like).shape)
    shape[axis] = 1
    return broadcast_to(value, shape)
  return value


def diff(a, n: int = 1, axis: int = -1, prepend=None, append=None):
  a = asarray_like(a)
  n = operator.index(n)
  if n < 0:
    raise ValueError(f"order must be non-negative but got {n}")
  if n == 0:
    return a
  axis = canonical_axis(operator.index(axis), core.get_aval(a).ndim)
  pieces = [a]
  if prepend is not None:
    pieces.insert(0, _edge(prepend, a, axis))
  if append is not None:
    pieces.append(_edge(append, a, axis))
  if len(pieces) > 1:
    pieces = promote_dtypes(*pieces)
    a = lax_shape.concatenate(pieces, axis)
  for _ in range(n):
    length = core.get_aval(a).shape[axis]
    hi, lo = _slice_axis(a, 1, length, axis), _slice_axis(a, 0, length - 1, axis)
    a = lax_ew.ne(hi, lo) if core.get_aval(a).dtype == dtypes.bool_ else lax_ew.sub(hi, lo)
  return a


def ediff1d(ary, to_end=None, to_begin=None):
  ary = _flatten(asarray_like(ary))
  out = diff(ary)
  pieces = []
  if to_begin is not None:
    pieces.append(_flatten(asarray_like(to_begin)))
  pieces.append(out)
  if to_end is not None:
    pieces.append(_flatten(asarray_like(to_end)))
  if len(pieces) == 1:
    return out
  dt = core.get_aval(out).dtype
  pieces = [lax_ew.convert_element_type(p, dt, False) for p in pieces]
  return lax_shape.concatenate(pieces, 0)
