"""Parameter initializers: `init(key, shape, dtype) -> array`.

The draws go through jax.random exactly as JAX's initializers do (same sampler,
same bounds, the scale applied in the parameter dtype), so a given key yields
the same parameters bit for bit.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src import random
from jax._src.util import ensure_index_tuple
from jax._src.lax import elementwise as lax
from jax._src.lax import shape as lax_shape
from jax._src.lax.utils import place
from jax._src.numpy import linalg as jnp_linalg
from jax._src.numpy import shape_ops

Initializer = Callable


def _dtype(dtype) -> np.dtype:
  return dtypes.canonicalize_dtype(dtype if dtype is not None else dtypes.default_float_dtype())


def _shape(shape) -> tuple[int, ...]:
  return tuple(int(d) for d in (shape if isinstance(shape, (tuple, list)) else (shape,)))


def _scaled(x, scale, dtype):
  """x * scale with the scale rounded to the parameter dtype first."""
  return lax.mul(x, lax_shape.full_like(x, np.asarray(scale, dtype)))


def zeros(key, shape, dtype=None, out_sharding=None):
  del key
  return place(lax_shape.full(_shape(shape), 0, _dtype(dtype)), out_sharding)


def ones(key, shape, dtype=None, out_sharding=None):
  del key
  return place(lax_shape.full(_shape(shape), 1, _dtype(dtype)), out_sharding)


def constant(value, dtype=None) -> Initializer:
  default = dtype

  def init(key, shape, dtype=default):
    del key
    dt = _dtype(dtype)
    shape = _shape(shape)
    value_arr = lax.convert_element_type(value, dt)
    if core.get_aval(value_arr).shape == shape:
      return value_arr
    return lax_shape.broadcast_in_dim(value_arr, shape, tuple(
        range(len(shape) - core.get_aval(value_arr).ndim, len(shape))))
  return init


def uniform(scale=1e-2, dtype=None) -> Initializer:
  default = dtype

  def init(key, shape, dtype=default):
    dt = _dtype(dtype)
    return _scaled(random.uniform(key, _shape(shape), dt), scale, dt)
  return init


def normal(stddev=1e-2, dtype=None) -> Initializer:
  default = dtype

  def init(key, shape, dtype=default):
    dt = _dtype(dtype)
    return _scaled(random.normal(key, _shape(shape), dt), stddev, dt)
  return init


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0) -> Initializer:
  default = dtype

  def init(key, shape, dtype=default):
    dt = _dtype(dtype)
    draw = random.truncated_normal(key, lower, upper, _shape(shape), dt)
    return _scaled(draw, stddev, dt)
  return init


def _axes_tuple(axes, ndim):
  return tuple(a % ndim for a in ensure_index_tuple(axes))


def _compute_fans(shape: Sequence[int], in_axis=-2, out_axis=-1, batch_axis=()):
  """(fan_in, fan_out): the in/out axis sizes times the receptive field (the other axes)."""
  ndim = len(shape)
  if ndim < 2:
    raise ValueError("Can't compute input and output sizes of a "
                     f"{ndim}-dimensional weights tensor. Must be at least 2D.")
  in_axes = _axes_tuple(in_axis, ndim)
  out_axes = _axes_tuple(out_axis, ndim)
  batch_axes = _axes_tuple(batch_axis, ndim)
  in_size = math.prod(shape[a] for a in in_axes)
  out_size = math.prod(shape[a] for a in out_axes)
  receptive = math.prod(shape) / (in_size * out_size * math.prod(shape[a] for a in batch_axes))
  return in_size * receptive, out_size * receptive


# stddev of a standard normal truncated to [-2, 2].
_TRUNCATED_STDDEV = .87962566103423978


def variance_scaling(scale, mode: str, distribution: str, in_axis=-2, out_axis=-1,
                     batch_axis=(), dtype=None) -> Initializer:
  """Draws with variance `scale / fan` (fan chosen by `mode`) from `distribution`."""
  if mode not in ("fan_in", "fan_out", "fan_avg", "fan_geo_avg"):
    raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
  if distribution not in ("truncated_normal", "normal", "uniform"):
    raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}")
  default = dtype

  def init(key, shape, dtype=default):
    dt = _dtype(dtype)
    shape = _shape(shape)
    fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
    denominator = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2,
                   "fan_geo_avg": math.sqrt(fan_in * fan_out)}[mode]
    # The variance is rounded to the parameter dtype before the square root, as JAX does.
    if dtypes.is_complex(dt):
      return _complex_variance_scaling(key, shape, dt, distribution, scale / denominator)
    variance = np.asarray(scale / denominator, dt)
    if distribution == "truncated_normal":
      stddev = np.sqrt(variance) / np.asarray(_TRUNCATED_STDDEV, dt)
      return _scaled(random.truncated_normal(key, -2, 2, shape, dt), stddev, dt)
    if distribution == "normal":
      return _scaled(random.normal(key, shape, dt), np.sqrt(variance), dt)
    bound = np.sqrt(np.asarray(3, dt) * variance)
    return _scaled(random.uniform(key, shape, dt, -1, 1), bound, dt)
  return init


def _complex_variance_scaling(key, shape, dt, distribution: str, variance: float):
  """Complex draws with E|z|^2 = variance and a uniformly distributed phase: the
  modulus is drawn so that |z|^2 is exponential ("normal"), exponential truncated
  at 2 standard deviations ("truncated_normal"), or has |z| uniform on the disc of
  radius sqrt(2) ("uniform"), as JAX draws complex parameters."""
  from jax._src.numpy import ufuncs  # the complex arithmetic is jnp's, above nn's imports
  real = np.dtype(np.finfo(dt).dtype)
  if distribution == "normal":  # independent real and imaginary parts, each of variance 1/2
    key_re, key_im = random.split(key)
    re, im = (lax.convert_element_type(random.normal(k, shape, real), dt)
              for k in (key_re, key_im))
    z = ufuncs.multiply(ufuncs.add(re, ufuncs.multiply(np.asarray(1j, dt), im)),
                        np.asarray(1 / np.sqrt(2), dt))
    return _scaled(z, np.sqrt(variance), dt)
  key_r, key_theta = random.split(key)
  u = random.uniform(key_r, shape, real)
  if distribution == "uniform":
    r = ufuncs.sqrt(ufuncs.multiply(np.asarray(2, real), u))
  else:  # truncated_normal: the modulus of a complex normal truncated at 2
    t = ufuncs.multiply(np.asarray(1 - np.exp(-4.0), real), u)
    r = ufuncs.sqrt(ufuncs.negative(ufuncs.log1p(ufuncs.negative(t))))
  theta = ufuncs.multiply(np.asarray(2 * np.pi, real), random.uniform(key_theta, shape, real))
  z = ufuncs.multiply(lax.convert_element_type(r, dt),
                      ufuncs.exp(ufuncs.multiply(np.asarray(1j, dt),
                                                 lax.convert_element_type(theta, dt))))
  return _scaled(z, np.sqrt(variance), dt)


def glorot_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
  return variance_scaling(1.0, "fan_avg", "uniform", in_axis, out_axis, batch_axis, dtype)


def glorot_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
  return variance_scaling(1.0, "fan_avg", "truncated_normal", in_axis, out_axis, batch_axis, dtype)


def lecun_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
  return variance_scaling(1.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def lecun_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
  return variance_scaling(1.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis, dtype)


def he_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
  return variance_scaling(2.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def he_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
  return variance_scaling(2.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis, dtype)


xavier_uniform = glorot_uniform
xavier_normal = glorot_normal
kaiming_uniform = he_uniform
kaiming_normal = he_normal


def delta_orthogonal(scale=1.0, column_axis=-1, dtype=None) -> Initializer:
  """A convolution kernel (spatial dims, in, out) that is zero except at the spatial
  center, where it holds an orthogonal in x out matrix (Xiao et al., 2018)."""
  default = dtype

  def init(key, shape, dtype=default):
    dt = _dtype(dtype)
    shape = _shape(shape)
    if len(shape) not in (3, 4, 5):
      raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
    if shape[-2] > shape[-1]:
      raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
    center = orthogonal(scale, column_axis, dt)(key, shape[-2:], dt)
    kernel = lax_shape.full(shape, 0, dt)
    mid = tuple(d // 2 for d in shape[:-2])
    return kernel.at[mid].set(center)
  return init


def orthogonal(scale=1.0, column_axis=-1, dtype=None) -> Initializer:
  """A (semi-)orthogonal matrix along `column_axis` against the other axes
  flattened: the Q of a QR decomposition of a normal draw, with the signs of
  R's diagonal folded in so the result is uniformly distributed."""
  default = dtype

  def init(key, shape, dtype=default):
    dt = _dtype(dtype)
    shape = _shape(shape)
    if len(shape) < 2:
      raise ValueError("orthogonal initializer requires at least a two-dimensional shape.")
    n_cols = shape[column_axis]
    n_rows = math.prod(shape) // n_cols
    matrix_shape = (n_cols, n_rows) if n_rows < n_cols else (n_rows, n_cols)
    q, r = jnp_linalg.qr(random.normal(key, matrix_shape, dt))
    diag = shape_ops.diagonal(r)
    q = lax.mul(q, lax_shape.broadcast_in_dim(lax.sign(diag), q.shape, (1,)))
    if n_rows < n_cols:
      q = shape_ops.transpose(q)
    rest = tuple(d for i, d in enumerate(shape) if i != column_axis % len(shape))
    q = shape_ops.moveaxis(shape_ops.reshape(q, (*rest, n_cols)), -1, column_axis)
    return _scaled(q, scale, dt)
  return init


def delta_orthogonal(scale=1.0, column_axis=-1, dtype=None) -> Initializer:
  """A convolution kernel (3, 4 or 5 dimensions, spatial dimensions first) that is
  zero except at the spatial centre, where it holds an orthogonal matrix of shape
  (in_channels, out_channels): the delta-orthogonal initialization of Xiao et al.
  (2018), for which the convolution starts out norm-preserving."""
  default = dtype

  def init(key, shape, dtype=default):
    dt = _dtype(dtype)
    shape = _shape(shape)
    if len(shape) not in (3, 4, 5):
      raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
    if shape[-1] < shape[-2]:
      raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
    matrix = orthogonal(scale=scale, column_axis=column_axis, dtype=dt)(key, shape[-2:])
    centre = [((k - 1) // 2, k - 1 - (k - 1) // 2, 0) for k in shape[:-2]]
    full_rank = lax_shape.broadcast_in_dim(matrix, (1,) * (len(shape) - 2) + shape[-2:],
                                           (len(shape) - 2, len(shape) - 1))
    zero = np.zeros((), dt)
    return lax_shape.pad(full_rank, zero, centre + [(0, 0, 0), (0, 0, 0)])
  return init
