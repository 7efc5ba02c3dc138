"""Neural-network functions: activations, the softmax family, one_hot, standardize.

Activations whose derivative at a kink is a convention (relu, relu6) carry a
custom JVP so that the gradient there is the one JAX documents (0), instead of
whatever the composition of max/min happens to give.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.custom_derivatives import custom_jvp, stop_gradient
from jax._src.lax import elementwise as lax
from jax._src.lax import ragged
from jax._src.lax import reductions as lax_red
from jax._src.lax import shape as lax_shape
from jax._src.numpy import ufuncs as jnp
from jax._src.numpy.util import asarray_like, promote_args_inexact
from jax._src.scipy.special import logsumexp as logsumexp
from jax._src.scipy.special import reduce_axes, broadcast_back, keep_dims


def _inexact(name, x):
  (x,) = promote_args_inexact(name, x)
  return x


def _full_like(x, value):
  return lax_shape.full_like(x, value)


# ----------------------------------------------------------------------------- activations


@custom_jvp
def relu(x):
  """max(x, 0); its derivative at 0 is taken to be 0."""
  return jnp.maximum(x, 0)


relu.defjvps(lambda g, ans, x: lax.select(jnp.greater(x, 0), g, lax_shape.full_like(g, 0)))


@custom_jvp
def relu6(x):
  """min(max(x, 0), 6); the derivative is 0 at both kinks."""
  return jnp.minimum(jnp.maximum(x, 0), 6.0)


relu6.defjvps(lambda g, ans, x: lax.select(
    jnp.logical_and(jnp.greater(x, 0), jnp.less(x, 6.0)), g, lax_shape.full_like(g, 0)))


def identity(x):
  return asarray_like(x)


def tanh(x):
  return jnp.tanh(x)


def sigmoid(x):
  return lax.logistic(_inexact("sigmoid", x))


def softplus(x):
  x = _inexact("softplus", x)
  # log(1 + exp(x)) = logaddexp(x, 0): never overflows, and its JVP is sigmoid(x)
  # everywhere (the max/abs expansion would differentiate to 0 at x = 0).
  return jnp.logaddexp(x, 0.0)


def sparse_plus(x):
  """0 below -1, x above 1, and (x + 1)^2 / 4 in between."""
  x = _inexact("sparse_plus", x)
  quad = jnp.multiply(0.25, jnp.square(jnp.add(x, 1.0)))
  return jnp.where(jnp.less_equal(x, -1.0), _full_like(x, 0.0),
                   jnp.where(jnp.greater_equal(x, 1.0), x, quad))


def sparse_sigmoid(x):
  """The derivative of sparse_plus: 0 below -1, 1 above 1, (x + 1) / 2 in between."""
  x = _inexact("sparse_sigmoid", x)
  return jnp.multiply(0.5, jnp.clip(jnp.add(x, 1.0), 0.0, 2.0))


def soft_sign(x):
  x = _inexact("soft_sign", x)
  return jnp.divide(x, jnp.add(jnp.abs(x), 1.0))


def silu(x):
  x = _inexact("silu", x)
  return jnp.multiply(x, lax.logistic(x))


swish = silu


def mish(x):
  x = _inexact("mish", x)
  return jnp.multiply(x, jnp.tanh(softplus(x)))


def log_sigmoid(x):
  x = _inexact("log_sigmoid", x)
  return jnp.negative(softplus(jnp.negative(x)))


def elu(x, alpha=1.0):
  x = _inexact("elu", x)
  # The expm1 branch sees only non-positive inputs so its (unused) overflow never makes nan grads.
  neg = jnp.multiply(alpha, jnp.expm1(jnp.where(jnp.greater(x, 0), _full_like(x, 0.0), x)))
  return jnp.where(jnp.greater(x, 0), x, neg)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(x):
  x = _inexact("selu", x)
  return jnp.multiply(_SELU_SCALE, elu(x, _SELU_ALPHA))


def celu(x, alpha=1.0):
  x = _inexact("celu", x)
  return jnp.add(jnp.maximum(x, 0.0),
                 jnp.multiply(alpha, jnp.expm1(jnp.divide(jnp.minimum(x, 0.0), alpha))))


def leaky_relu(x, negative_slope=1e-2):
  x = _inexact("leaky_relu", x)
  return jnp.where(jnp.greater_equal(x, 0), x, jnp.multiply(negative_slope, x))


def hard_tanh(x):
  x = _inexact("hard_tanh", x)
  return jnp.where(jnp.greater(x, 1), _full_like(x, 1.0),
                   jnp.where(jnp.less(x, -1), _full_like(x, -1.0), x))


def hard_sigmoid(x):
  return jnp.divide(relu6(jnp.add(_inexact("hard_sigmoid", x), 3.0)), 6.0)


def hard_silu(x):
  x = _inexact("hard_silu", x)
  return jnp.multiply(x, hard_sigmoid(x))


hard_swish = hard_silu


def squareplus(x, b=4):
  x = _inexact("squareplus", x)
  return jnp.multiply(0.5, jnp.add(x, jnp.sqrt(jnp.add(jnp.square(x), b))))


def log1mexp(x):
  """log(1 - exp(-x)) for x > 0, switching formulas at log 2 for accuracy."""
  x = _inexact("log1mexp", x)
  small = jnp.log(jnp.negative(jnp.expm1(jnp.negative(x))))
  large = jnp.log1p(jnp.negative(jnp.exp(jnp.negative(x))))
  return jnp.where(jnp.less(x, math.log(2)), small, large)


def gelu(x, approximate: bool = True):
  x = _inexact("gelu", x)
  if approximate:
    inner = jnp.multiply(math.sqrt(2 / math.pi),
                         jnp.add(x, jnp.multiply(0.044715, lax.integer_pow(x, 3))))
    return jnp.multiply(x, jnp.multiply(0.5, jnp.add(1.0, jnp.tanh(inner))))
  return jnp.divide(jnp.multiply(x, jnp.add(lax.erf(jnp.divide(x, math.sqrt(2))), 1.0)), 2.0)


def glu(x, axis: int = -1):
  """a * sigmoid(b), where a and b are the two halves of x along `axis`."""
  x = asarray_like(x)
  shape = core.get_aval(x).shape
  axis = reduce_axes(len(shape), axis)[0]
  size = shape[axis]
  if size % 2:
    raise ValueError(f"axis size must be divisible by 2, got {size}")
  half = size // 2
  start, mid, end = [0] * len(shape), list(shape), list(shape)
  mid[axis] = half
  first = lax_shape.slice(x, tuple(start), tuple(mid))
  start[axis] = half
  second = lax_shape.slice(x, tuple(start), tuple(end))
  return jnp.multiply(first, sigmoid(second))


# ----------------------------------------------------------------------------- softmax family


def _where_mask(where, shape):
  if where is None:
    return None
  where = asarray_like(where)
  wshape = core.get_aval(where).shape
  if wshape == tuple(shape):
    return where
  return lax_shape.broadcast_in_dim(where, tuple(shape),
                                    tuple(range(len(shape) - len(wshape), len(shape))))


def _masked_max(x, axes, where):
  if where is not None:
    x = jnp.where(where, x, _full_like(x, -np.inf))
  return lax_red.reduce_max(x, axes)


def _masked_input(x, where):
  """`x` with its masked-out entries set to -inf, so that no gradient reaches them
  through the inf or NaN the masked arithmetic makes there (a row masked out whole)."""
  return x if where is None else jnp.where(where, x, _full_like(x, -np.inf))


def softmax(x, axis=-1, where=None):
  """exp(x) / sum(exp(x)) along `axis`; entries masked out by `where` are 0."""
  x = _inexact("softmax", x)
  shape = core.get_aval(x).shape
  axes = reduce_axes(len(shape), axis)
  where = _where_mask(where, shape)
  x = _masked_input(x, where)
  xmax = stop_gradient(_masked_max(x, axes, where))
  unnormalized = jnp.exp(jnp.subtract(x, broadcast_back(xmax, shape, axes)))
  if where is not None:
    unnormalized = jnp.where(where, unnormalized, _full_like(unnormalized, 0.0))
  total = broadcast_back(lax_red.reduce_sum(unnormalized, axes), shape, axes)
  out = jnp.divide(unnormalized, total)
  if where is not None:  # a row masked out whole is 0/0 above
    out = jnp.where(where, out, _full_like(out, 0.0))
  return out


def log_softmax(x, axis=-1, where=None):
  """x - logsumexp(x) along `axis`; entries masked out by `where` are -inf."""
  x = _inexact("log_softmax", x)
  shape = core.get_aval(x).shape
  axes = reduce_axes(len(shape), axis)
  where = _where_mask(where, shape)
  x = _masked_input(x, where)
  xmax = stop_gradient(_masked_max(x, axes, where))
  shifted = jnp.subtract(x, broadcast_back(xmax, shape, axes))
  exp_shifted = jnp.exp(shifted)
  if where is not None:
    exp_shifted = jnp.where(where, exp_shifted, _full_like(exp_shifted, 0.0))
  lse = broadcast_back(jnp.log(lax_red.reduce_sum(exp_shifted, axes)), shape, axes)
  out = jnp.subtract(shifted, lse)
  if where is not None:
    out = jnp.where(where, out, _full_like(out, -np.inf))
  return out


def logmeanexp(x, axis=None, where=None, keepdims: bool = False):
  """log(mean(exp(x))) along `axis`."""
  x = _inexact("logmeanexp", x)
  shape = core.get_aval(x).shape
  axes = reduce_axes(len(shape), axis)
  mask = _where_mask(where, shape)
  lse = logsumexp(x, axis=axes, where=mask, keepdims=keepdims)
  if mask is None:
    count = float(np.prod([shape[a] for a in axes]))
    return jnp.subtract(lse, math.log(count) if count else np.nan)
  count = lax_red.reduce_sum(lax.convert_element_type(mask, core.get_aval(x).dtype), axes)
  if keepdims:
    count = keep_dims(count, shape, axes)
  return jnp.subtract(lse, jnp.log(count))


def _masked_mean(x, axes, where):
  shape = core.get_aval(x).shape
  if where is None:
    count = float(np.prod([shape[a] for a in axes]))
    return jnp.divide(lax_red.reduce_sum(x, axes), count)
  total = lax_red.reduce_sum(jnp.where(where, x, _full_like(x, 0.0)), axes)
  count = lax_red.reduce_sum(lax.convert_element_type(where, core.get_aval(x).dtype), axes)
  return jnp.divide(total, count)


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *,
                algorithm: str = "fast"):
  """(x - mean) / sqrt(variance + epsilon), with the statistics taken along `axis`.

  algorithm 'fast' takes the variance as E[x^2] - E[x]^2 (one pass over x);
  'stable' as E[(x - E[x])^2], which does not cancel when |mean| >> std.
  """
  if algorithm not in ("fast", "stable"):
    raise ValueError(f"algorithm must be 'fast' or 'stable', got {algorithm!r}")
  x = _inexact("standardize", x)
  shape = core.get_aval(x).shape
  axes = reduce_axes(len(shape), axis)
  where = _where_mask(where, shape)
  if mean is None:
    mean = broadcast_back(_masked_mean(x, axes, where), shape, axes)
  if variance is None and algorithm == "stable":
    variance = broadcast_back(
        _masked_mean(jnp.square(jnp.subtract(x, mean)), axes, where), shape, axes)
  if variance is None:
    # E[x^2] - E[x]^2 reuses the mean and needs one pass over x.
    sq_mean = broadcast_back(_masked_mean(jnp.square(x), axes, where), shape, axes)
    variance = jnp.subtract(sq_mean, jnp.square(mean))
  return jnp.multiply(jnp.subtract(x, mean), lax.rsqrt(jnp.add(variance, epsilon)))


def one_hot(x, num_classes: int, *, dtype=None, axis: int = -1):
  """`one_hot(x, n)[..., i] = (x[...] == i)` as `dtype` (default float)."""
  try:
    num_classes = operator.index(num_classes)
  except TypeError:
    raise TypeError("The num_classes argument to one_hot must be a concrete integer, "
                    f"got {num_classes!r}") from None
  dtype = (dtypes.canonicalize_dtype(dtype) if dtype is not None
           else dtypes.default_float_dtype())
  x = asarray_like(x)
  if not hasattr(x, "dtype") and not isinstance(x, core.Tracer):
    x = np.asarray(x)
  aval = core.get_aval(x)
  out_ndim = aval.ndim + 1
  if not -out_ndim <= axis < out_ndim:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {out_ndim}")
  axis = axis % out_ndim
  out_shape = list(aval.shape)
  out_shape.insert(axis, num_classes)
  lhs = lax_shape.broadcast_in_dim(x, tuple(out_shape),
                                   tuple(i for i in range(out_ndim) if i != axis))
  rhs = lax_shape.broadcasted_iota(aval.dtype, tuple(out_shape), axis)
  return lax.convert_element_type(lax.eq(lhs, rhs), dtype)


def scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=np.float32):
  """Batched lhs @ rhs^T of block-scaled operands: lhs (B, M, K), rhs (B, N, K), scales
  (B, M, K // block) and (B, N, K // block), each block of K multiplied by its scale
  before the product; the result (B, M, N) has preferred_element_type."""
  for name, x in (("lhs", lhs), ("rhs", rhs), ("lhs_scales", lhs_scales),
                  ("rhs_scales", rhs_scales)):
    if np.ndim(x) != 3:
      raise ValueError(f"scaled_matmul expects 3-D operands, got {name} of shape "
                       f"{np.shape(x)}")
  return ragged.scaled_dot(lhs, rhs, lhs_scale=lhs_scales, rhs_scale=rhs_scales,
                           dimension_numbers=(((2,), (2,)), ((0,), (0,))),
                           preferred_element_type=preferred_element_type)
