"""Reductions: sum, prod, max, min, mean, var, std, all, any, argmax/argmin, count_nonzero.

Every reduction takes NumPy's `axis`, `keepdims`, `dtype` (where it applies),
`where` masks and `initial` values. Results are never weakly typed.
"""

from __future__ import annotations

import operator

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.lax import elementwise as lax_ew
from jax._src.lax import reductions as lax_red
from jax._src.lax import shape as lax_shape
from jax._src.numpy.util import (asarray_like, broadcast_to, canonical_axis,
                                 check_arraylike_strict)


def _axes(x, axis) -> tuple[int, ...]:
  ndim = core.get_aval(x).ndim
  if axis is None:
    return tuple(range(ndim))
  axis = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
  axes = tuple(sorted(canonical_axis(operator.index(a), ndim) for a in axis))
  if len(set(axes)) != len(axes):
    raise ValueError(f"duplicate value in 'axis': {axis}")
  return axes


def _keepdims(out, x, axes, keepdims):
  if not keepdims:
    return out
  shape = tuple(1 if i in axes else s for i, s in enumerate(core.get_aval(x).shape))
  return lax_shape.reshape(out, shape)


def sum_dtype(dt):
  """The accumulation dtype NumPy uses for sum/prod: small ints widen to the default int."""
  if dt == dtypes.bool_ or (dt.kind == "i" and dt.itemsize < dtypes.default_int_dtype().itemsize):
    return dtypes.default_int_dtype()
  if dt.kind == "u" and dt.itemsize < dtypes.default_uint_dtype().itemsize:
    return dtypes.default_uint_dtype()
  return dt


def _strong(x):
  """x without its weak type (reductions of weak values are not weak)."""
  aval = core.get_aval(x)
  return lax_ew.convert_element_type(x, aval.dtype, False) if aval.weak_type else x


def _check_input(name, a):
  # As in JAX, a Python list or tuple is not an array: jnp.sum([1, 2]) is a TypeError.
  check_arraylike_strict(name, a)


def _check_out(name, out):
  if out is not None:
    raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")


def _mask(a, where, fill):
  """`a` with the entries where `where` is False replaced by `fill`."""
  where = broadcast_to(asarray_like(where), core.get_aval(a).shape)
  if core.get_aval(where).dtype != dtypes.bool_:
    where = lax_ew.ne(where, lax_shape.full_like(where, 0))
  return lax_ew.select(where, a, lax_shape.full_like(a, fill))


def _combine_initial(out, initial, kind):
  init = lax_shape.full_like(out, initial)
  if kind == "sum":
    return lax_ew.add(out, init)
  if kind == "prod":
    return lax_ew.mul(out, init)
  if core.get_aval(out).dtype == dtypes.bool_:
    return (lax_ew.bitwise_or if kind == "max" else lax_ew.bitwise_and)(out, init)
  return (lax_ew.max if kind == "max" else lax_ew.min)(out, init)


_LAX_REDUCERS = {"sum": lax_red.reduce_sum, "prod": lax_red.reduce_prod,
                 "max": lax_red.reduce_max, "min": lax_red.reduce_min}


def _reduce(kind, name, a, axis, dtype, out, keepdims, initial, where, upcast):
  _check_out(name, out)
  _check_input(name, a)
  a = asarray_like(a)
  aval = core.get_aval(a)
  target = (dtypes.canonicalize_dtype(dtype) if dtype is not None
            else sum_dtype(aval.dtype) if upcast else aval.dtype)
  a = lax_ew.convert_element_type(a, target, False)
  axes = _axes(a, axis)
  has_identity = kind in ("sum", "prod") or target == dtypes.bool_
  if where is not None:
    if not has_identity and initial is None:
      raise ValueError(f"reduction operation {name} does not have an identity, so to use a "
                       "where mask one has to specify 'initial'")
    fill = lax_red.init_value(kind, target)
    a = _mask(a, where, fill)
  if not has_identity and initial is None and 0 in (aval.shape[i] for i in axes):
    raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
  result = _LAX_REDUCERS[kind](a, axes)
  if initial is not None:
    result = _combine_initial(result, initial, kind)
  return _keepdims(result, a, axes, keepdims)


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,  # noqa: A001
        promote_integers: bool = True):
  return _reduce("sum", "sum", a, axis, dtype, out, keepdims, initial, where, promote_integers)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
         promote_integers: bool = True):
  return _reduce("prod", "prod", a, axis, dtype, out, keepdims, initial, where, promote_integers)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
  return _reduce("max", "max", a, axis, None, out, keepdims, initial, where, False)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
  return _reduce("min", "min", a, axis, None, out, keepdims, initial, where, False)


amax, amin = max, min


def _to_bool(a):
  a = asarray_like(a)
  if core.get_aval(a).dtype == dtypes.bool_:
    return _strong(a)
  return lax_ew.ne(a, lax_shape.full_like(a, 0))


def _logical_reduce(lax_fn, name, a, axis, out, keepdims, where, fill):
  _check_out(name, out)
  _check_input(name, a)
  a = _strong(_to_bool(a))
  if where is not None:
    a = _mask(a, where, fill)
  axes = _axes(a, axis)
  return _keepdims(lax_fn(a, axes), a, axes, keepdims)


def all(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
  return _logical_reduce(lax_red.reduce_and, "all", a, axis, out, keepdims, where, True)


def any(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
  return _logical_reduce(lax_red.reduce_or, "any", a, axis, out, keepdims, where, False)


def count_nonzero(a, axis=None, keepdims=False):
  nonzero = lax_ew.convert_element_type(_to_bool(a), dtypes.default_int_dtype(), False)
  axes = _axes(nonzero, axis)
  return _keepdims(lax_red.reduce_sum(nonzero, axes), nonzero, axes, keepdims)


def _count(a, axes) -> int:
  shape = core.get_aval(a).shape
  return int(np.prod([shape[i] for i in axes], dtype=np.int64))


def _mean_dtype(aval, dtype):
  if dtype is not None:
    return dtypes.canonicalize_dtype(dtype)
  return dtypes.to_inexact_dtype(aval.dtype)


def _where_count(a, axes, where, keepdims, dtype):
  """How many entries `where` selects along `axes`, as an array of `dtype`."""
  where = broadcast_to(asarray_like(where), core.get_aval(a).shape)
  ones = lax_ew.convert_element_type(_to_bool(where), dtype, False)
  return _keepdims(lax_red.reduce_sum(ones, axes), a, axes, keepdims)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
  _check_out("mean", out)
  _check_input("mean", a)
  a = asarray_like(a)
  target = _mean_dtype(core.get_aval(a), dtype)
  a = lax_ew.convert_element_type(a, target, False)
  axes = _axes(a, axis)
  total = sum(a, axes, keepdims=keepdims, where=where)
  if where is None:
    return lax_ew.div(total, lax_shape.full_like(total, _count(a, axes)))
  return lax_ew.div(total, _where_count(a, axes, where, keepdims, target))


def var(a, axis=None, dtype=None, out=None, ddof: int = 0, keepdims=False, *, where=None,
        mean=None, correction=None):
  _check_out("var", out)
  _check_input("var", a)
  if correction is not None:
    ddof = correction
  a = asarray_like(a)
  target = _mean_dtype(core.get_aval(a), dtype)
  a = lax_ew.convert_element_type(a, target, False)
  axes = _axes(a, axis)
  # A precomputed mean (taken with keepdims=True) saves the first reduction.
  center = _mean(a, axes, keepdims=True, where=where) if mean is None else \
      lax_ew.convert_element_type(asarray_like(mean), target, False)
  centered = lax_ew.sub(a, broadcast_to(center, core.get_aval(a).shape))
  if dtypes.is_complex(target):
    sq = lax_ew.real(lax_ew.mul(centered, lax_ew.conj(centered)))
  else:
    sq = lax_ew.mul(centered, centered)
  total = sum(sq, axes, keepdims=keepdims, where=where)
  if where is None:
    count = lax_shape.full_like(total, _count(a, axes))
  else:
    count = _where_count(a, axes, where, keepdims, core.get_aval(total).dtype)
  return lax_ew.div(total, lax_ew.sub(count, lax_shape.full_like(count, ddof)))


def std(a, axis=None, dtype=None, out=None, ddof: int = 0, keepdims=False, *, where=None,
        mean=None, correction=None):
  return lax_ew.sqrt(var(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean,
                         correction=correction))


_mean = mean


def _arg_reduction(lax_fn, name):
  def fn(a, axis=None, out=None, keepdims=False):
    _check_out(name, out)
    _check_input(name, a)
    a = asarray_like(a)
    aval = core.get_aval(a)
    if axis is None:
      if aval.size == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
      flat = lax_shape.reshape(a, (aval.size,))
      out_ = lax_fn(flat, 0, dtypes.default_int_dtype())
      return lax_shape.reshape(out_, (1,) * aval.ndim) if keepdims else out_
    ax = canonical_axis(operator.index(axis), aval.ndim)
    if aval.shape[ax] == 0:
      raise ValueError(f"attempt to get {name} of an empty sequence")
    return _keepdims(lax_fn(a, ax, dtypes.default_int_dtype()), a, (ax,), keepdims)
  fn.__name__ = name
  return fn


argmax = _arg_reduction(lax_red.argmax, "argmax")
argmin = _arg_reduction(lax_red.argmin, "argmin")
