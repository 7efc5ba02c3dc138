"""Array creation: array/asarray, zeros/ones/full(_like), arange, linspace/logspace/geomspace,
eye/identity/tri, meshgrid/indices/mgrid/ogrid."""

from __future__ import annotations

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src import prng
from jax._src.array import ArrayImpl, host_array
from jax._src.lax import elementwise as lax_ew
from jax._src.lax import shape as lax_shape
from jax._src.lax.placement_ops import copy_p
from jax._src.numpy import util
from jax._src.api import jit
from jax._src.numpy.util import broadcast_shapes, broadcast_to, canonical_axis, promote_dtypes
from jax._src.numpy.shape_ops import stack


def _shape(shape) -> tuple[int, ...]:
  return (int(shape),) if np.ndim(shape) == 0 else tuple(int(d) for d in shape)


_place = util.place


def _shape_aval(a):
  """The aval of an array-like, or of a ShapeDtypeStruct-like object (shape and dtype)."""
  if not core.is_valid_jaxval(a) and hasattr(a, "shape") and hasattr(a, "dtype"):
    shape = tuple(a.shape)
    # A struct's NamedSharding over Explicit axes is part of its type, as for arrays.
    sharding = core.sharding_hooks["canonical_sharding"](getattr(a, "sharding", None),
                                                         len(shape))
    return core.ShapedArray(shape, np.dtype(a.dtype),
                            weak_type=bool(getattr(a, "weak_type", False)), sharding=sharding)
  if isinstance(a, (list, tuple)):
    return core.get_aval(asarray(a))
  return core.get_aval(a)


def array(object, dtype=None, *args, copy: bool = True, order: str | None = "K",
          ndmin: int = 0, device=None, out_sharding=None):
  """A (strongly typed) jax array from arrays, scalars or nested lists of them."""
  if args:
    raise TypeError("jnp.array() takes at most two positional arguments (object, dtype); "
                    f"got {2 + len(args)}")
  if order is not None and order not in ("K", "A", "C"):
    raise NotImplementedError(f"jnp.array: order={order!r} is not supported.")
  if prng.is_key(object):  # key arrays are immutable: the same keys
    if dtype is not None and dtype != object.dtype:
      raise TypeError(f"cannot convert keys of dtype {object.dtype} to {dtype}; "
                      "jax.random.key_data gives their data")
    return object
  out = _array(object, dtype)
  if copy and out is object:
    out = _copy(out)
  ndmin = int(ndmin)
  if ndmin > core.get_aval(out).ndim:
    shape = core.get_aval(out).shape
    out = lax_shape.reshape(out, (1,) * (ndmin - len(shape)) + shape)
  return _place(out, device, out_sharding)


def _array(object, dtype):
  if not isinstance(object, (core.Tracer, ArrayImpl)) and hasattr(type(object), "__jax_array__"):
    object = object.__jax_array__()  # a library's wrapper (flax's Param) of an array or tracer
  if isinstance(object, (core.Tracer, ArrayImpl)):
    out = object
  elif isinstance(object, (list, tuple)) and any(
      isinstance(x, core.Tracer) or (isinstance(x, (list, tuple))) for x in object) and any(
      isinstance(x, core.Tracer) for x in _leaves(object)):
    out = stack([array(x, copy=False) for x in object])
  elif dtype is not None and isinstance(object, (bool, int, float, complex, list, tuple)):
    # Python numbers are checked against the requested type as numpy checks them, so
    # jnp.array(300, jnp.int8) raises OverflowError and NaN to an integer ValueError,
    # as in JAX (arrays, by contrast, are cast like `astype`).
    out = host_array(np.array(_host_values(object), dtype=dtypes.canonicalize_dtype(dtype)),
                     False)
  else:
    value = np.asarray(object)
    if dtype is None and value.dtype == np.float64 and isinstance(object, (float, list, tuple)):
      value = value.astype(dtypes.default_float_dtype())
    if dtype is None and value.dtype.kind == "i" and isinstance(object, (int, list, tuple)):
      value = _default_ints(object, value)
    out = host_array(value, False)
  # A bare Python number keeps its weak type, as a Python scalar operand would.
  weak = dtype is None and type(object) in (int, float, complex)
  target = dtypes.canonicalize_dtype(dtype) if dtype is not None else core.get_aval(out).dtype
  return lax_ew.convert_element_type(out, target, weak)


def _copy(x):
  """A new array with `x`'s value, as jnp.array(x) and x.copy() give (JAX binds `copy`; a
  concrete array gets a buffer of its own)."""
  if isinstance(x, core.Tracer):
    return copy_p.bind(x)
  return _copy_concrete(x)


_copy_concrete = jit(lambda x: copy_p.bind(x))


def _default_ints(object, value: np.ndarray) -> np.ndarray:
  """Python ints as the default integer type; ones it cannot hold raise OverflowError."""
  dt = dtypes.default_int_dtype()
  info = np.iinfo(dt)
  if value.size and (value.min() < info.min or value.max() > info.max):
    if isinstance(object, int):
      raise OverflowError(f"Python int {object} too large to convert to {dt.name}")
    return np.array(object, dtype=dt)  # numpy names the offending value
  return value.astype(dt)


def _host_values(obj):
  """Nested lists with jax arrays replaced by numpy ones: numpy's conversion to an
  ml_dtypes type (bfloat16, float8) accepts numbers and numpy values only."""
  if isinstance(obj, (list, tuple)):
    return [_host_values(x) for x in obj]
  return np.asarray(obj) if isinstance(obj, ArrayImpl) else obj


def _leaves(obj):
  for x in obj:
    if isinstance(x, (list, tuple)):
      yield from _leaves(x)
    else:
      yield x


def asarray(a, dtype=None, order: str | None = None, *, copy=None, device=None,
            out_sharding=None):
  if isinstance(a, (core.Tracer, ArrayImpl)) and dtype is None and not copy:
    return _place(a, device, out_sharding)
  return array(a, dtype, copy=bool(copy), order=order, device=device,
               out_sharding=out_sharding)


def full(shape, fill_value, dtype=None, *, device=None, out_sharding=None):
  return _place(_full(shape, fill_value, dtype), device, out_sharding)


def _full(shape, fill_value, dtype=None):
  weak = dtype is None and dtypes.is_weakly_typed(fill_value)
  dtype = dtypes.canonicalize_dtype(dtype) if dtype is not None else dtypes.dtype(fill_value)
  if np.ndim(fill_value) != 0 or isinstance(fill_value, (core.Tracer, ArrayImpl)) and \
      core.get_aval(fill_value).ndim:
    return broadcast_to(array(fill_value, dtype, copy=False), _shape(shape))
  return lax_shape.full(_shape(shape), fill_value, dtype, weak)


def zeros(shape, dtype=None, *, device=None, out_sharding=None):
  out = lax_shape.full(_shape(shape), 0, dtype or dtypes.default_float_dtype())
  return _place(out, device, out_sharding)


def ones(shape, dtype=None, *, device=None, out_sharding=None):
  out = lax_shape.full(_shape(shape), 1, dtype or dtypes.default_float_dtype())
  return _place(out, device, out_sharding)


def full_like(a, fill_value, dtype=None, shape=None, *, device=None, out_sharding=None):
  aval = _shape_aval(a)
  out = lax_shape.full(aval.shape if shape is None else _shape(shape), fill_value,
                       dtype or aval.dtype, aval.weak_type and dtype is None)
  if device is None and out_sharding is None and shape is None:
    # Over Explicit mesh axes the result is split as `a` is (its type says how).
    typed = core.explicit_sharding(aval)
    out_sharding = a.sharding if typed is not None and isinstance(a, ArrayImpl) else typed
  return _place(out, device, out_sharding)


def zeros_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
  return full_like(a, 0, dtype, shape, device=device, out_sharding=out_sharding)


def ones_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
  return full_like(a, 1, dtype, shape, device=device, out_sharding=out_sharding)


def empty(shape, dtype=None, *, device=None, out_sharding=None):
  return zeros(shape, dtype, device=device, out_sharding=out_sharding)


def arange(start, stop=None, step=None, dtype=None, *, device=None, out_sharding=None):
  return _place(_arange(start, stop, step, dtype), device, out_sharding)


def _arange(start, stop=None, step=None, dtype=None):
  for v in (start, stop, step):
    if isinstance(v, core.Tracer):
      raise core.errors.ConcretizationTypeError(
          v, "jnp.arange needs concrete start/stop/step (the output shape depends on them).")
  if stop is None and step is None:
    dt = dtypes.canonicalize_dtype(dtype) if dtype is not None else dtypes.result_type(start)
    size = int(np.ceil(start)) if start > 0 else 0
    return lax_shape.iota(dt, size)
  if stop is None:  # arange(n, step=s) counts from 0 to n, as numpy's does
    start, stop = 0, start
  dt = (dtypes.canonicalize_dtype(dtype) if dtype is not None
        else dtypes.result_type(*(v for v in (start, stop, step) if v is not None)))
  return host_array(_arange_values(start, stop, step, np.dtype(dt)), False)


def _arange_values(start, stop, step, dt: np.dtype) -> np.ndarray:
  """start + step * i, each operation rounded as JAX's compiled arange rounds it.

  With a step, floats narrower than 32 bits work in float32 and are converted at the
  end; without one the sum is taken in `dt` itself.
  """
  with np.errstate(all="ignore"):
    if step is None:
      size = max(0, int(np.ceil(stop - start)))
      return lax_ew.host_convert(np.asarray(start), dt) + np.arange(size).astype(dt)
    narrow = dtypes.is_float(dt) and dt.itemsize < 4
    work = np.dtype(np.float32) if narrow else dt
    size = max(0, int(np.ceil((stop - start) / step)))
    iota = np.arange(size).astype(work)
    values = lax_ew.host_convert(np.asarray(start), work) + \
        lax_ew.host_convert(np.asarray(step), work) * iota
    return lax_ew.host_convert(values.astype(work), dt)


def empty_like(prototype, dtype=None, shape=None, *, device=None):
  return zeros_like(prototype, dtype, shape, device=device)


def _inexact_dtype(dtype, *args):
  if dtype is not None:
    return np.dtype(dtypes.canonicalize_dtype(dtype))
  return np.dtype(dtypes.to_inexact_dtype(dtypes.result_type(*args)))


def _scalar_or_array(x, dtype):
  return lax_ew.convert_element_type(asarray(x), dtype)


def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype=None, axis: int = 0, *, device=None):
  """`num` evenly spaced values from start to stop, as start * (1 - t) + stop * t.

  Computed as one compiled function (like real JAX), so that eager results
  round exactly as jitted ones do."""
  num = core.concrete_value(num) if isinstance(num, core.Tracer) else num
  if num is None or int(num) != num:
    raise TypeError("linspace: num must be a concrete integer")
  num = int(num)
  if num < 0:
    raise ValueError(f"Number of samples, {num}, must be non-negative.")
  out = _jitted_linspace()(start, stop, num, bool(endpoint), bool(retstep), dtype, int(axis))
  return out if device is None else _place(out, device)


_linspace_jit = None


def _jitted_linspace():
  global _linspace_jit
  if _linspace_jit is None:
    _linspace_jit = jit(_linspace, static_argnums=(2, 3, 4, 5, 6))
  return _linspace_jit


def _linspace(start, stop, num, endpoint, retstep, dtype, axis):
  out_dtype = np.dtype(dtypes.canonicalize_dtype(dtype)) if dtype is not None else None
  calc = _inexact_dtype(None, start, stop) if out_dtype is None or \
      not dtypes.is_inexact(out_dtype) else out_dtype
  start, stop = _scalar_or_array(start, calc), _scalar_or_array(stop, calc)
  bshape = broadcast_shapes(core.get_aval(start).shape, core.get_aval(stop).shape)
  start, stop = broadcast_to(start, bshape), broadcast_to(stop, bshape)
  div = (num - 1) if endpoint else num
  out = _linspace_values(start, stop, num, div, endpoint, bshape, calc)
  out = _move_new_axis(out, len(bshape), axis)
  if out_dtype is not None and out_dtype != calc:
    if not dtypes.is_inexact(out_dtype):
      out = lax_ew.floor(out)
    out = lax_ew.convert_element_type(out, out_dtype)
  if not retstep:
    return out
  if div > 0:
    step = lax_ew.div(lax_ew.sub(stop, start), lax_shape.full_like(start, div))
  else:
    step = lax_shape.full(bshape, np.nan, calc)
  return out, step


def _linspace_values(start, stop, num, div, endpoint, bshape, dtype):
  """Shape bshape + (num,)."""
  nd = len(bshape)
  count = num - 1 if endpoint else num
  if num == 0 or count <= 0:
    body = lax_shape.full((*bshape, 0), 0, dtype)
  else:
    shape = (*bshape, count)
    t = lax_ew.div(lax_shape.broadcasted_iota(dtype, shape, nd), lax_shape.full(shape, div, dtype))
    one_minus_t = lax_ew.sub(lax_shape.full(shape, 1, dtype), t)
    expand = lambda x: lax_shape.broadcast_in_dim(x, shape, tuple(range(nd)))
    body = lax_ew.add(lax_ew.mul(expand(start), one_minus_t), lax_ew.mul(expand(stop), t))
  if endpoint and num > 0:
    last = stop if num > 1 else start
    body = lax_shape.concatenate([body, lax_shape.reshape(last, (*bshape, 1))], nd)
  return body


def _move_new_axis(x, last: int, axis: int):
  """Move the trailing axis (index `last`) of x to position `axis`."""
  ndim = last + 1
  axis = canonical_axis(axis, ndim)
  if axis == last:
    return x
  perm = list(range(last))
  perm.insert(axis, last)
  return lax_shape.transpose(x, tuple(perm))


def logspace(start, stop, num: int = 50, endpoint: bool = True, base=10.0, dtype=None,
             axis: int = 0):
  calc = _inexact_dtype(None, start, stop)
  exps = linspace(start, stop, num, endpoint, dtype=calc, axis=axis)
  b = _scalar_or_array(base, calc)
  if core.get_aval(b).ndim == 0:
    b = lax_shape.broadcast_in_dim(b, core.get_aval(exps).shape, ())
  out = lax_ew.pow(b, exps)
  return _cast_result(out, dtype)


def _cast_result(out, dtype):
  if dtype is None:
    return out
  dt = np.dtype(dtypes.canonicalize_dtype(dtype))
  if not dtypes.is_inexact(dt):
    out = lax_ew.floor(out)
  return lax_ew.convert_element_type(out, dt)


def geomspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None, axis: int = 0):
  calc = _inexact_dtype(None, start, stop)
  start, stop = _scalar_or_array(start, calc), _scalar_or_array(stop, calc)
  sign = lax_ew.sign(start)
  log10 = lambda x: lax_ew.mul(lax_ew.log(lax_ew.div(x, sign)),
                               lax_shape.full_like(x, 1 / np.log(10)))
  out = logspace(log10(start), log10(stop), num, endpoint, 10.0, calc, axis)
  shape = core.get_aval(out).shape
  sign_b = lax_shape.broadcast_in_dim(sign, shape, ()) if core.get_aval(sign).ndim == 0 else sign
  return _cast_result(lax_ew.mul(sign_b, out), dtype)


def eye(N: int, M: int | None = None, k: int = 0, dtype=None, *, device=None):
  """Ones on the k-th diagonal of an N x M matrix."""
  return _place(_eye(N, M, k, dtype), device)


def _eye(N, M, k, dtype):
  N = core.concrete_value(N) if isinstance(N, core.Tracer) else N
  M = N if M is None else M
  dt = dtypes.canonicalize_dtype(dtype) if dtype is not None else dtypes.default_float_dtype()
  if int(N) < 0 or int(M) < 0:
    raise ValueError(f"negative dimensions are not allowed, got {N} and {M}")
  return lax_ew.convert_element_type(_diagonal_mask((int(N), int(M)), int(k), "eq"), dt)


def identity(n: int, dtype=None):
  return eye(n, dtype=dtype)


def _diagonal_mask(shape, k: int, relation: str):
  """Boolean (rows, cols) mask of col - row == k ('eq') or col - row <= k ('le')."""
  rows = lax_shape.broadcasted_iota(np.int32, shape, 0)
  cols = lax_shape.broadcasted_iota(np.int32, shape, 1)
  offset = lax_ew.sub(cols, rows)
  kk = lax_shape.full(shape, k, np.int32)
  return lax_ew.eq(offset, kk) if relation == "eq" else lax_ew.le(offset, kk)


def tri(N: int, M: int | None = None, k: int = 0, dtype=None):
  """Ones at and below the k-th diagonal."""
  M = N if M is None else M
  dt = dtypes.canonicalize_dtype(dtype) if dtype is not None else dtypes.default_float_dtype()
  return lax_ew.convert_element_type(_diagonal_mask((int(N), int(M)), int(k), "le"), dt)


def _masked_last_two(m, keep_mask_fn):
  m = asarray(m)
  aval = core.get_aval(m)
  if aval.ndim < 2:
    raise ValueError("tril/triu require an array of rank >= 2")
  mask = lax_shape.broadcast_in_dim(keep_mask_fn(aval.shape[-2:]), aval.shape,
                                    (aval.ndim - 2, aval.ndim - 1))
  return lax_ew.select(mask, m, lax_shape.full_like(m, 0))


def tril(m, k: int = 0):
  return _masked_last_two(m, lambda s: _diagonal_mask(s, int(k), "le"))


def triu(m, k: int = 0):
  return _masked_last_two(m, lambda s: lax_ew.bitwise_not(_diagonal_mask(s, int(k) - 1, "le")))


# ----------------------------------------------------------------------------- grids


def meshgrid(*xi, copy: bool = True, sparse: bool = False, indexing: str = "xy"):
  if indexing not in ("xy", "ij"):
    raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
  xs = [asarray(x) for x in xi]
  for i, x in enumerate(xs):
    if core.get_aval(x).ndim != 1:
      raise ValueError("Arguments to jax.numpy.meshgrid must be 1D, got shape "
                       f"{core.get_aval(x).shape} at position {i}")
  n = len(xs)
  sizes = [core.get_aval(x).shape[0] for x in xs]
  if indexing == "xy" and n >= 2:
    sizes[0], sizes[1] = sizes[1], sizes[0]
  out = []
  for i, x in enumerate(xs):
    dim = i
    if indexing == "xy" and n >= 2 and i < 2:
      dim = 1 - i
    shape = tuple(sizes) if not sparse else tuple(s if d == dim else 1
                                                  for d, s in enumerate(sizes))
    out.append(lax_shape.broadcast_in_dim(x, shape, (dim,)))
  return out


def indices(dimensions, dtype=None, sparse: bool = False):
  dt = dtypes.canonicalize_dtype(dtype) if dtype is not None else dtypes.default_int_dtype()
  dimensions = tuple(int(d) for d in dimensions)
  n = len(dimensions)
  out = []
  for i, size in enumerate(dimensions):
    shape = dimensions if not sparse else tuple(size if j == i else 1 for j in range(n))
    out.append(lax_shape.broadcasted_iota(dt, shape, i))
  if sparse:
    return tuple(out)
  if not out:
    return lax_shape.full((0,), 0, dt)
  return stack(out, 0)


def _grid_axis(s: slice):
  """The 1-d values of one mgrid/ogrid slice (a complex step means a point count)."""
  start = 0 if s.start is None else s.start
  step = 1 if s.step is None else s.step
  if isinstance(step, complex) or np.iscomplexobj(step):
    return linspace(start, s.stop, int(abs(step)), endpoint=True)
  return arange(start, s.stop, step)


class _Grid:
  def __init__(self, sparse: bool, name: str):
    self.sparse = sparse
    self.name = name

  def __getitem__(self, key):
    if isinstance(key, slice):
      return _grid_axis(key)
    axes = [_grid_axis(k) for k in key]
    if not self.sparse:
      axes = promote_dtypes(*axes)
    grids = meshgrid(*axes, indexing="ij", sparse=self.sparse)
    if self.sparse:
      return grids
    return stack(grids, 0)

  def __repr__(self):
    return f"jax.numpy.{self.name}"


mgrid = _Grid(False, "mgrid")
ogrid = _Grid(True, "ogrid")

# numpy modules below this one convert lists with it (see util.late_op).
util.register_late_ops(asarray=asarray)
