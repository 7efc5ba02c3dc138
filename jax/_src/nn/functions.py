"""Neural-network functions: activations, softmax family, one_hot."""

from __future__ import annotations

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.api import jit
from jax._src.lax import elementwise as lax
from jax._src.lax import reductions as lax_red
from jax._src.lax import shape as lax_shape
from jax._src.numpy import reductions as jnp_red
from jax._src.numpy import ufuncs
from jax._src.numpy.util import promote_args_inexact


def relu(x):
  return ufuncs.maximum(x, 0)


def sigmoid(x):
  (x,) = promote_args_inexact("sigmoid", x)
  return lax.logistic(x)


def log_sigmoid(x):
  return ufuncs.negative(softplus(ufuncs.negative(x)))


def softplus(x):
  (x,) = promote_args_inexact("softplus", x)
  # log(1 + exp(x)) computed stably as max(x, 0) + log1p(exp(-|x|))
  return ufuncs.add(ufuncs.maximum(x, 0), lax.log1p(lax.exp(lax.neg(lax.abs(x)))))


def silu(x):
  (x,) = promote_args_inexact("silu", x)
  return lax.mul(x, lax.logistic(x))


swish = silu


def gelu(x, approximate: bool = True):
  (x,) = promote_args_inexact("gelu", x)
  if approximate:
    c = float(np.sqrt(2 / np.pi))
    inner = lax.mul(lax.add(x, lax.mul(0.044715, lax.integer_pow(x, 3))), c)
    return lax.mul(lax.mul(0.5, x), lax.add(1.0, lax.tanh(inner)))
  return lax.mul(lax.mul(0.5, x), lax.add(1.0, lax.erf(lax.div(x, float(np.sqrt(2))))))


def _axes(x, axis):
  ndim = core.get_aval(x).ndim
  axis = (axis,) if isinstance(axis, int) else tuple(axis) if axis is not None else tuple(range(ndim))
  return tuple(sorted(a % ndim for a in axis))


def _bcast_back(reduced, x, axes):
  shape = core.get_aval(x).shape
  return lax_shape.broadcast_in_dim(reduced, shape, tuple(i for i in range(len(shape))
                                                          if i not in axes))


def logsumexp(a, axis=None, keepdims: bool = False):
  (a,) = promote_args_inexact("logsumexp", a)
  axes = _axes(a, axis)
  amax = lax_red.reduce_max(a, axes)
  amax = lax.select(lax.is_finite(amax), amax, lax_shape.full_like(amax, 0))
  shifted = lax.sub(a, _bcast_back(amax, a, axes))
  out = lax.add(lax.log(lax_red.reduce_sum(lax.exp(shifted), axes)), amax)
  if keepdims:
    out = lax_shape.reshape(out, tuple(1 if i in axes else s
                                       for i, s in enumerate(core.get_aval(a).shape)))
  return out


def log_softmax(x, axis=-1):
  (x,) = promote_args_inexact("log_softmax", x)
  axes = _axes(x, axis)
  shifted = lax.sub(x, _bcast_back(lax_red.reduce_max(x, axes), x, axes))
  lse = lax.log(lax_red.reduce_sum(lax.exp(shifted), axes))
  return lax.sub(shifted, _bcast_back(lse, x, axes))


def softmax(x, axis=-1):
  (x,) = promote_args_inexact("softmax", x)
  axes = _axes(x, axis)
  unnormalized = lax.exp(lax.sub(x, _bcast_back(lax_red.reduce_max(x, axes), x, axes)))
  return lax.div(unnormalized, _bcast_back(lax_red.reduce_sum(unnormalized, axes), x, axes))


def one_hot(x, num_classes: int, dtype=None, axis: int = -1):
  """`one_hot(x, n)[..., i] = (x[...] == i)` as `dtype` (default float)."""
  dtype = dtypes.canonicalize_dtype(dtype) if dtype is not None else dtypes.default_float_dtype()
  x = x if hasattr(x, "dtype") else np.asarray(x)
  aval = core.get_aval(x)
  out_ndim = aval.ndim + 1
  axis = axis % out_ndim
  out_shape = list(aval.shape)
  out_shape.insert(axis, int(num_classes))
  lhs = lax_shape.broadcast_in_dim(x, tuple(out_shape),
                                   tuple(i for i in range(out_ndim) if i != axis))
  rhs = lax_shape.broadcasted_iota(aval.dtype, tuple(out_shape), axis)
  return lax.convert_element_type(lax.eq(lhs, rhs), dtype)


def standardize(x, axis=-1, epsilon: float = 1e-5):
  mean = jnp_red.mean(x, axis, keepdims=True)
  var = jnp_red.var(x, axis, keepdims=True)
  return ufuncs.divide(ufuncs.subtract(x, mean), ufuncs.sqrt(ufuncs.add(var, epsilon)))


del jit
