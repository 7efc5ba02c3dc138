"""jax.image: resize and scale_and_translate by separable resampling kernels.

Each spatial dimension gets a dense (input, output) weight matrix: output pixel
i samples the input at (i + 0.5) / scale - translation / scale - 0.5, the
kernel is stretched by 1/scale when downsampling with antialias, weights are
normalised per output pixel, and samples falling outside the input get zero.
The image is then contracted with each matrix in turn.
"""

from __future__ import annotations

import enum
import inspect
import operator

import numpy as np

from jax._src.numpy import namespace as jnp
from jax._src.lax import namespace as lax


class ResizeMethod(enum.Enum):
  """Interpolation kernels of resize / scale_and_translate."""
  NEAREST = 0
  LINEAR = 1
  LANCZOS3 = 2
  LANCZOS5 = 3
  CUBIC = 4

  @staticmethod
  def from_string(s: str) -> "ResizeMethod":
    names = {"nearest": ResizeMethod.NEAREST, "linear": ResizeMethod.LINEAR,
             "bilinear": ResizeMethod.LINEAR, "trilinear": ResizeMethod.LINEAR,
             "triangle": ResizeMethod.LINEAR, "lanczos3": ResizeMethod.LANCZOS3,
             "lanczos5": ResizeMethod.LANCZOS5, "cubic": ResizeMethod.CUBIC,
             "bicubic": ResizeMethod.CUBIC, "tricubic": ResizeMethod.CUBIC}
    try:
      return names[s]
    except KeyError:
      raise ValueError(f"Unknown resize method {s!r}") from None


# Called as ResizeMethod(value); newer Pythons report an enum's signature as (*values).
ResizeMethod.__signature__ = inspect.Signature(
    [inspect.Parameter("values", inspect.Parameter.VAR_POSITIONAL)])


def _method(method) -> ResizeMethod:
  return method if isinstance(method, ResizeMethod) else ResizeMethod.from_string(method)


def _triangle(x):
  return jnp.maximum(0, 1 - jnp.abs(x))


def _lanczos(radius):
  def kernel(x):
    y = radius * jnp.sin(np.pi * x) * jnp.sin(np.pi * x / radius)
    safe = jnp.where(x == 0, 1, x)
    out = jnp.where(x > 1e-3, y / (np.pi ** 2 * safe ** 2), 1)
    return jnp.where(x > radius, 0, out)
  return kernel


def _keys_cubic(x):
  # Keys' cubic convolution kernel with a = -0.5.
  x = jnp.abs(x)
  near = ((1.5 * x - 2.5) * x) * x + 1
  far = ((-0.5 * x + 2.5) * x - 4) * x + 2
  return jnp.where(x >= 1, jnp.where(x >= 2, 0, far), near)


_KERNELS = {ResizeMethod.LINEAR: _triangle, ResizeMethod.LANCZOS3: _lanczos(3),
            ResizeMethod.LANCZOS5: _lanczos(5), ResizeMethod.CUBIC: _keys_cubic}


def _weights(kernel, in_size, out_size, scale, translation, antialias, dtype):
  inv_scale = 1 / scale
  stretch = jnp.maximum(inv_scale, 1) if antialias else 1
  sample = (jnp.arange(out_size, dtype=dtype) + 0.5) * inv_scale - translation * inv_scale - 0.5
  dist = jnp.abs(sample[None, :] - jnp.arange(in_size, dtype=dtype)[:, None]) / stretch
  w = kernel(dist)
  total = jnp.sum(w, axis=0, keepdims=True)
  eps = jnp.finfo(dtype).eps
  w = jnp.where(jnp.abs(total) > 1000 * eps, w / jnp.where(total != 0, total, 1), 0)
  inside = (sample >= -0.5) & (sample <= in_size - 0.5)
  return jnp.where(inside[None, :], w, 0)


def _float_image(image):
  image = jnp.asarray(image)
  if not np.issubdtype(image.dtype, np.inexact):
    image = image.astype(jnp.result_type(image, 1.0))
  return image


def _check_shape(image, shape):
  shape = tuple(operator.index(d) for d in shape)
  if len(shape) != image.ndim:
    raise ValueError(f"shape must have length equal to the number of dimensions of x; "
                     f"{shape} vs {image.shape}")
  return shape


def scale_and_translate(image, shape, spatial_dims, scale, translation, method,
                        antialias: bool = True, precision=lax.Precision.HIGHEST):
  """Resample `image` to `shape`: out(x) = in((x - translation) / scale) on spatial_dims."""
  m = _method(method)
  if m == ResizeMethod.NEAREST:
    raise ValueError("scale_and_translate does not support the nearest method")
  image = _float_image(image)
  shape = _check_shape(image, shape)
  spatial_dims = tuple(operator.index(d) % image.ndim for d in spatial_dims)
  scale, translation = jnp.asarray(scale), jnp.asarray(translation)
  if scale.shape != (len(spatial_dims),) or translation.shape != (len(spatial_dims),):
    raise ValueError("scale and translation need one entry per spatial dimension")
  for d in range(image.ndim):
    if d not in spatial_dims and shape[d] != image.shape[d]:
      raise ValueError(f"dimension {d} is not spatial but changes size: {image.shape} -> {shape}")
  acc = jnp.promote_types(image.dtype, jnp.float32)
  out = image
  for i, d in enumerate(spatial_dims):
    w = _weights(_KERNELS[m], image.shape[d], shape[d], scale[i].astype(acc),
                 translation[i].astype(acc), antialias, acc)
    moved = jnp.moveaxis(out, d, -1)
    out = jnp.moveaxis(jnp.tensordot(moved.astype(acc), w, axes=1, precision=precision), -1, d)
  return out.astype(image.dtype)


def _resize_nearest(image, shape):
  for d, (n_in, n_out) in enumerate(zip(image.shape, shape)):
    if n_in == n_out:
      continue
    src = np.floor((np.arange(n_out) + 0.5) * n_in / n_out).astype(np.int64)
    image = jnp.take(image, np.minimum(src, n_in - 1), axis=d)
  return image


def resize(image, shape, method, antialias: bool = True, precision=lax.Precision.HIGHEST):
  """Resize `image` to `shape` (every dimension whose size changes is resampled)."""
  m = _method(method)
  image = jnp.asarray(image)
  shape = _check_shape(image, shape)
  if m == ResizeMethod.NEAREST:
    return _resize_nearest(image, shape)
  spatial = [d for d in range(image.ndim) if image.shape[d] != shape[d]]
  if not spatial:
    return _float_image(image)
  scale = [shape[d] / image.shape[d] for d in spatial]
  return scale_and_translate(image, shape, spatial, scale, [0.0] * len(spatial), m,
                             antialias, precision)
