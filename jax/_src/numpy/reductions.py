"""Reductions: sum, prod, max, min, mean, var, std, all, any, argmax/argmin (axis/keepdims)."""

from __future__ import annotations

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.lax import elementwise as lax_ew
from jax._src.lax import reductions as lax_red
from jax._src.lax import shape as lax_shape
from jax._src.numpy.util import asarray_like, canonical_axis


def _axes(x, axis) -> tuple[int, ...]:
  ndim = core.get_aval(x).ndim
  if axis is None:
    return tuple(range(ndim))
  axis = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
  axes = tuple(sorted(canonical_axis(int(a), ndim) for a in axis))
  if len(set(axes)) != len(axes):
    raise ValueError(f"duplicate value in 'axis': {axis}")
  return axes


def _keepdims(out, x, axes, keepdims):
  if not keepdims:
    return out
  shape = tuple(1 if i in axes else s for i, s in enumerate(core.get_aval(x).shape))
  return lax_shape.reshape(out, shape)


def _sum_dtype(dt):
  if dt == dtypes.bool_ or (dt.kind == "i" and dt.itemsize < dtypes.default_int_dtype().itemsize):
    return dtypes.default_int_dtype()
  if dt.kind == "u" and dt.itemsize < dtypes.default_uint_dtype().itemsize:
    return dtypes.default_uint_dtype()
  return dt


def _reduction(lax_fn, name, upcast=False, bool_ok=True):
  def fn(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    if out is not None or where is not None or initial is not None:
      raise NotImplementedError(f"jnp.{name}: out/where/initial are not supported yet")
    a = asarray_like(a)
    aval = core.get_aval(a)
    target = (dtypes.canonicalize_dtype(dtype) if dtype is not None
              else _sum_dtype(aval.dtype) if upcast else aval.dtype)
    if target != aval.dtype:
      a = lax_ew.convert_element_type(a, target, aval.weak_type)
    axes = _axes(a, axis)
    return _keepdims(lax_fn(a, axes), a, axes, keepdims)
  fn.__name__ = name
  return fn


sum = _reduction(lax_red.reduce_sum, "sum", upcast=True)  # noqa: A001
prod = _reduction(lax_red.reduce_prod, "prod", upcast=True)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
  return _reduction(lax_red.reduce_max, "max")(a, axis, None, out, keepdims, initial, where)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
  return _reduction(lax_red.reduce_min, "min")(a, axis, None, out, keepdims, initial, where)


amax, amin = max, min


def _to_bool(a):
  a = asarray_like(a)
  return a if core.get_aval(a).dtype == dtypes.bool_ else lax_ew.ne(a, 0)


def all(a, axis=None, out=None, keepdims=False):  # noqa: A001
  a = _to_bool(a)
  axes = _axes(a, axis)
  return _keepdims(lax_red.reduce_and(a, axes), a, axes, keepdims)


def any(a, axis=None, out=None, keepdims=False):  # noqa: A001
  a = _to_bool(a)
  axes = _axes(a, axis)
  return _keepdims(lax_red.reduce_or(a, axes), a, axes, keepdims)


def _count(a, axes) -> int:
  shape = core.get_aval(a).shape
  return int(np.prod([shape[i] for i in axes], dtype=np.int64))


def mean(a, axis=None, dtype=None, out=None, keepdims=False):
  a = asarray_like(a)
  aval = core.get_aval(a)
  target = dtypes.canonicalize_dtype(dtype) if dtype else dtypes.to_inexact_dtype(aval.dtype)
  a = lax_ew.convert_element_type(a, target, aval.weak_type)
  axes = _axes(a, axis)
  total = lax_red.reduce_sum(a, axes)
  return _keepdims(lax_ew.div(total, float(_count(a, axes))), a, axes, keepdims)


def var(a, axis=None, dtype=None, out=None, ddof: int = 0, keepdims=False):
  a = asarray_like(a)
  aval = core.get_aval(a)
  a = lax_ew.convert_element_type(a, dtypes.to_inexact_dtype(aval.dtype), aval.weak_type)
  axes = _axes(a, axis)
  centered = lax_ew.sub(a, lax_shape.broadcast_in_dim(
      mean(a, axes), core.get_aval(a).shape,
      tuple(i for i in range(aval.ndim) if i not in axes)))
  sq = lax_red.reduce_sum(lax_ew.mul(centered, centered), axes)
  return _keepdims(lax_ew.div(sq, float(_count(a, axes) - ddof)), a, axes, keepdims)


def std(a, axis=None, dtype=None, out=None, ddof: int = 0, keepdims=False):
  return lax_ew.sqrt(var(a, axis, dtype, out, ddof, keepdims))


def _arg_reduction(lax_fn, name):
  def fn(a, axis=None, out=None, keepdims=False):
    a = asarray_like(a)
    if axis is None:
      flat = lax_shape.reshape(a, (core.get_aval(a).size,))
      out_ = lax_fn(flat, 0, dtypes.default_int_dtype())
      nd = core.get_aval(a).ndim
      return lax_shape.reshape(out_, (1,) * nd) if keepdims else out_
    ax = canonical_axis(int(axis), core.get_aval(a).ndim)
    if core.get_aval(a).shape[ax] == 0:
      raise ValueError(f"attempt to get {name} of an empty sequence")
    return _keepdims(lax_fn(a, ax, dtypes.default_int_dtype()), a, (ax,), keepdims)
  fn.__name__ = name
  return fn


argmax = _arg_reduction(lax_red.argmax, "argmax")
argmin = _arg_reduction(lax_red.argmin, "argmin")
