"""Array creation: array/asarray, zeros/ones/full(_like), arange, linspace, eye."""

from __future__ import annotations

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.array import ArrayImpl, host_array
from jax._src.lax import elementwise as lax_ew
from jax._src.lax import shape as lax_shape


def _shape(shape) -> tuple[int, ...]:
  return (int(shape),) if np.ndim(shape) == 0 else tuple(int(d) for d in shape)


def array(object, dtype=None, copy: bool = True):
  """A (strongly typed) jax array from arrays, scalars or nested lists of them."""
  if isinstance(object, (core.Tracer, ArrayImpl)):
    out = object
  elif isinstance(object, (list, tuple)) and any(
      isinstance(x, core.Tracer) or (isinstance(x, (list, tuple))) for x in object) and any(
      isinstance(x, core.Tracer) for x in _leaves(object)):
    from jax._src.numpy.shape_ops import stack
    out = stack([array(x) for x in object])
  else:
    value = np.asarray(object._value if isinstance(object, ArrayImpl) else object)
    if dtype is None and value.dtype == np.float64 and isinstance(object, (float, list, tuple)):
      value = value.astype(dtypes.default_float_dtype())
    if dtype is None and value.dtype.kind == "i" and isinstance(object, (int, list, tuple)):
      value = value.astype(dtypes.default_int_dtype())
    out = host_array(value, False)
  weak = False
  target = dtypes.canonicalize_dtype(dtype) if dtype is not None else core.get_aval(out).dtype
  return lax_ew.convert_element_type(out, target, weak)


def _leaves(obj):
  for x in obj:
    if isinstance(x, (list, tuple)):
      yield from _leaves(x)
    else:
      yield x


def asarray(a, dtype=None, copy=None):
  if isinstance(a, (core.Tracer, ArrayImpl)) and dtype is None:
    return a
  return array(a, dtype)


def full(shape, fill_value, dtype=None):
  dtype = dtypes.canonicalize_dtype(dtype) if dtype is not None else dtypes.dtype(fill_value)
  if np.ndim(fill_value) != 0 or isinstance(fill_value, (core.Tracer, ArrayImpl)) and \
      core.get_aval(fill_value).ndim:
    from jax._src.numpy.util import broadcast_to
    return broadcast_to(array(fill_value, dtype), _shape(shape))
  return lax_shape.full(_shape(shape), fill_value, dtype)


def zeros(shape, dtype=None):
  return lax_shape.full(_shape(shape), 0, dtype or dtypes.default_float_dtype())


def ones(shape, dtype=None):
  return lax_shape.full(_shape(shape), 1, dtype or dtypes.default_float_dtype())


def full_like(a, fill_value, dtype=None, shape=None):
  aval = core.get_aval(a)
  return lax_shape.full(aval.shape if shape is None else _shape(shape), fill_value,
                        dtype or aval.dtype, aval.weak_type and dtype is None)


def zeros_like(a, dtype=None, shape=None):
  return full_like(a, 0, dtype, shape)


def ones_like(a, dtype=None, shape=None):
  return full_like(a, 1, dtype, shape)


def empty(shape, dtype=None):
  return zeros(shape, dtype)


def arange(start, stop=None, step=None, dtype=None):
  for v in (start, stop, step):
    if isinstance(v, core.Tracer):
      raise core.errors.ConcretizationTypeError(
          v, "jnp.arange needs concrete start/stop/step (the output shape depends on them).")
  if stop is None and step is None:
    dt = dtypes.canonicalize_dtype(dtype) if dtype is not None else dtypes.result_type(start)
    size = int(np.ceil(start)) if start > 0 else 0
    return lax_shape.iota(dt, size)
  step = 1 if step is None else step
  dt = (dtypes.canonicalize_dtype(dtype) if dtype is not None
        else dtypes.result_type(*(v for v in (start, stop, step) if v is not None)))
  return host_array(np.arange(start, stop, step).astype(dt), False)


def linspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None):
  dt = dtypes.canonicalize_dtype(dtype) if dtype is not None else dtypes.default_float_dtype()
  return host_array(np.linspace(start, stop, num, endpoint=endpoint).astype(dt), False)


def eye(N: int, M: int | None = None, k: int = 0, dtype=None):
  dt = dtypes.canonicalize_dtype(dtype) if dtype is not None else dtypes.default_float_dtype()
  return host_array(np.eye(N, M, k, dtype=dt), False)
