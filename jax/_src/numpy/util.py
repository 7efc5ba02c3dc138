"""NumPy-style dtype promotion (with JAX weak types) and shape broadcasting on top of lax."""

from __future__ import annotations

import warnings

import numpy as np

from jax._src import core
from jax._src import util
from jax._src import dtypes
from jax._src import prng
from jax._src.config import config
from jax._src.array import ArrayImpl
from jax._src.execution import device_put, place_result
from jax._src.lax import elementwise as lax_ew
from jax._src.lax import shape as lax_shape


def check_arraylike(name: str, *args) -> None:
  """As JAX does: arrays and scalars only (a Python list or tuple is refused)."""
  check_arraylike_strict(name, *args)


def check_arraylike_strict(name: str, *args) -> None:
  """As JAX does: Python lists and tuples are not arrays (convert them explicitly)."""
  for i, a in enumerate(args):
    if not (core.is_valid_jaxval(a) or _has_jax_array(a)):
      raise TypeError(f"{name} requires ndarray or scalar arguments, got {type(a)} "
                      f"at position {i}.")


# Functions a low numpy module needs from one that builds on it (jnp.asarray, from
# creation, for one).
_late_ops = util.LateOps("jax.numpy")
register_late_ops = _late_ops.register
late_op = _late_ops.get


def place(x, device=None, out_sharding=None):
  """x on `device` or with `out_sharding` when one is given (a no-op while tracing)."""
  if device is None and out_sharding is None:
    return x
  if device is not None and out_sharding is not None:
    raise ValueError("Only one of device and out_sharding may be specified.")
  if device is None:
    return place_result(x, out_sharding)
  return device_put(x, device)


def asarray_like(x):
  """Lists/tuples become arrays, and objects with `__jax_array__` (a library's wrapper
  of an array, as JAX's protocol) the array they stand for; the rest is passed through."""
  if isinstance(x, (list, tuple)):
    return late_op("asarray")(x)
  if _has_jax_array(x):
    return x.__jax_array__()
  return x


def _has_jax_array(x) -> bool:
  return getattr(type(x), "__jax_array__", None) is not None


broadcast_shapes = lax_shape.broadcast_shapes


def broadcast_to(array, shape, *, out_sharding=None):
  out = _broadcast_to(array, shape)
  if not isinstance(out, core.Tracer) and not prng.is_key(out) and not hasattr(out, "_value"):
    # A Python or numpy scalar already of the shape: still a jax array, as in JAX.
    out = late_op("asarray")(out)
  if out_sharding is not None:
    out = place(out, out_sharding=out_sharding)
  return out


def _broadcast_to(x, shape):
  if prng.is_key(x):  # typed keys broadcast over their key data
    impl = x.dtype.impl
    data = _broadcast_to(prng.random_unwrap(x), (*shape, *impl.key_shape))
    return prng.random_wrap(data, impl)
  x = asarray_like(x)
  aval = core.get_aval(x)
  shape = tuple(int(d) for d in shape)
  if aval.shape == shape:
    return x
  if broadcast_shapes(aval.shape, shape) != shape:
    raise ValueError(f"cannot broadcast array of shape {aval.shape} to shape {shape}")
  lead = len(shape) - aval.ndim
  return lax_shape.broadcast_in_dim(x, shape, tuple(range(lead, len(shape))))


def promote_dtypes(*args):
  """Convert all args to their common (possibly weak) dtype."""
  args = [asarray_like(a) for a in args]
  if len(args) < 2:
    return args
  dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
  return [lax_ew.convert_element_type(a, dtype, weak) for a in args]


def promote_dtypes_inexact(*args):
  args = [asarray_like(a) for a in args]
  dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
  dtype = dtypes.to_inexact_dtype(dtype)
  return [lax_ew.convert_element_type(a, dtype, weak) for a in args]


def _check_rank_promotion(shapes) -> None:
  """jax_numpy_rank_promotion='warn'/'raise': operands of different ranks (scalars
  aside) are reported instead of being broadcast silently."""
  mode = config.read("jax_numpy_rank_promotion")
  if mode == "allow" or len({len(s) for s in shapes if s}) < 2:
    return
  msg = (f"Operands could not be broadcast together with shapes {' '.join(map(str, shapes))} "
         f"and with the config option jax_numpy_rank_promotion={mode!r}: implicit rank "
         "promotion is disabled. Reshape or expand_dims the lower-rank operand explicitly.")
  if mode == "raise":
    raise ValueError(msg)
  warnings.warn(msg, stacklevel=4)


def promote_shapes(*args):
  if len(args) < 2:
    return list(args)
  shapes = [core.get_aval(a).shape for a in args]
  _check_rank_promotion(shapes)
  shape = broadcast_shapes(*shapes)
  return [broadcast_to(a, shape) for a in args]


def same_array_types(args) -> bool:
  """Whether all args are jax arrays of one shape, dtype and weak type (nothing to promote)."""
  first = args[0]
  if type(first) is not ArrayImpl:
    return False
  aval = first.aval
  for a in args[1:]:
    if type(a) is not ArrayImpl:
      return False
    b = a.aval
    if b is not aval and (b.shape != aval.shape or b.dtype != aval.dtype
                          or b.weak_type != aval.weak_type):
      return False
  return True


def promote_args(name: str, *args):
  if args and same_array_types(args):
    return list(args)
  check_arraylike(name, *args)
  return promote_shapes(*promote_dtypes(*args))


def _shapes_kept_scalars(args) -> list:
  """Operands for lax's n-ary elementwise ops, which broadcast rank-0 operands and
  size-1 dimensions themselves, as JAX's do: the others get leading size-1 dimensions
  up to one rank, and rank-0 ones stay rank-0."""
  shapes = [core.get_aval(a).shape for a in args]
  if len({s for s in shapes if s}) < 2:
    return list(args)
  _check_rank_promotion(shapes)
  broadcast_shapes(*shapes)  # NumPy's error for shapes that do not broadcast
  rank = max(len(s) for s in shapes)
  return [a if len(s) in (0, rank) else lax_shape.broadcast_to_rank(a, rank)
          for a, s in zip(args, shapes)]


def promote_args_nary(name: str, *args, inexact: bool = False):
  """Arguments for one of lax's n-ary elementwise ops: dtypes promoted, shapes
  broadcast except rank-0 ones."""
  if args and same_array_types(args) and (not inexact
                                           or dtypes.is_inexact(args[0].aval.dtype)):
    return list(args)
  check_arraylike(name, *args)
  promoted = promote_dtypes_inexact(*args) if inexact else promote_dtypes(*args)
  return _shapes_kept_scalars(promoted)


def promote_args_inexact(name: str, *args):
  if args and same_array_types(args) and dtypes.is_inexact(args[0].aval.dtype):
    return list(args)
  check_arraylike(name, *args)
  return promote_shapes(*promote_dtypes_inexact(*args))


def canonical_axis(axis: int, ndim: int) -> int:
  if not -ndim <= axis < max(ndim, 1):
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
  return axis % ndim if ndim else 0


del np
