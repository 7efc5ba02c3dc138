"""A small neural-network layer library: each layer is an (init_fun, apply_fun) pair.

`init_fun(rng, input_shape) -> (output_shape, params)` and
`apply_fun(params, inputs, **kwargs) -> outputs`. Combinators (`serial`,
`parallel`, `FanOut`...) build networks from layers.
"""

from __future__ import annotations

import functools
import operator as op

import jax.numpy as jnp
from jax import ShapeDtypeStruct, eval_shape, lax
from jax import random
from jax.nn import initializers
from jax.nn import elu, gelu, leaky_relu, log_softmax, logsumexp, relu, selu, sigmoid, softmax
from jax.nn import softplus, standardize

# Initializers under the names stax has always used.
glorot_normal = initializers.glorot_normal
normal = initializers.normal
ones = initializers.ones
zeros = initializers.zeros
glorot = glorot_normal
randn = normal
logsoftmax = log_softmax


def Dense(out_dim, W_init=initializers.glorot_normal(), b_init=initializers.normal()):
  """A fully connected layer: inputs @ W + b."""

  def init_fun(rng, input_shape):
    output_shape = input_shape[:-1] + (out_dim,)
    k1, k2 = random.split(rng)
    W, b = W_init(k1, (input_shape[-1], out_dim)), b_init(k2, (out_dim,))
    return output_shape, (W, b)

  def apply_fun(params, inputs, **kwargs):
    W, b = params
    return jnp.dot(inputs, W) + b

  return init_fun, apply_fun


def _out_shape(fun, input_shape, *other_shapes):
  """The output shape of `fun`; a -1 (unknown batch) leading dimension stays -1."""
  unknown = [i for i, d in enumerate(input_shape) if d == -1]
  concrete = tuple(1 if d == -1 else d for d in input_shape)
  args = [ShapeDtypeStruct(concrete, jnp.float32)]
  args += [ShapeDtypeStruct(tuple(sh), jnp.float32) for sh in other_shapes]
  out = eval_shape(fun, *args).shape
  return tuple(-1 if i in unknown else d for i, d in enumerate(out))


def GeneralConv(dimension_numbers, out_chan, filter_shape, strides=None, padding="VALID",
                W_init=None, b_init=normal(1e-6)):
  """A convolution layer; `dimension_numbers` = (lhs_spec, rhs_spec, out_spec) strings."""
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  one = (1,) * len(filter_shape)
  strides = strides or one
  W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

  def init_fun(rng, input_shape):
    filter_shape_iter = iter(filter_shape)
    kernel_shape = [out_chan if c == "O" else input_shape[lhs_spec.index("C")] if c == "I"
                    else next(filter_shape_iter) for c in rhs_spec]
    output_shape = _out_shape(
        lambda x, w: lax.conv_general_dilated(x, w, strides, padding, one, one,
                                              dimension_numbers=dimension_numbers),
        input_shape, kernel_shape)
    bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
    k1, k2 = random.split(rng)
    return output_shape, (W_init(k1, kernel_shape), b_init(k2, bias_shape))

  def apply_fun(params, inputs, **kwargs):
    W, b = params
    return lax.conv_general_dilated(inputs, W, strides, padding, one, one,
                                    dimension_numbers=dimension_numbers) + b

  return init_fun, apply_fun


Conv = functools.partial(GeneralConv, ("NHWC", "HWIO", "NHWC"))


def GeneralConvTranspose(dimension_numbers, out_chan, filter_shape, strides=None,
                         padding="VALID", W_init=None, b_init=normal(1e-6)):
  """A transposed convolution layer (lax.conv_transpose); `dimension_numbers` =
  (lhs_spec, rhs_spec, out_spec) strings."""
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  strides = strides or (1,) * len(filter_shape)
  W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

  def conv(x, w):
    return lax.conv_transpose(x, w, strides, padding, dimension_numbers=dimension_numbers)

  def init_fun(rng, input_shape):
    filter_shape_iter = iter(filter_shape)
    kernel_shape = [out_chan if c == "O" else input_shape[lhs_spec.index("C")] if c == "I"
                    else next(filter_shape_iter) for c in rhs_spec]
    output_shape = _out_shape(conv, input_shape, kernel_shape)
    bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
    k1, k2 = random.split(rng)
    return output_shape, (W_init(k1, kernel_shape), b_init(k2, bias_shape))

  def apply_fun(params, inputs, **kwargs):
    W, b = params
    return conv(inputs, W) + b

  return init_fun, apply_fun


def BatchNorm(axis=(0, 1, 2), epsilon=1e-5, center=True, scale=True, beta_init=zeros,
              gamma_init=ones):
  """Normalize over `axis` (batch statistics), then scale by gamma and shift by beta."""
  _beta_init = lambda rng, shape: beta_init(rng, shape) if center else ()
  _gamma_init = lambda rng, shape: gamma_init(rng, shape) if scale else ()
  axis = (axis,) if isinstance(axis, int) else tuple(axis)

  def init_fun(rng, input_shape):
    shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
    k1, k2 = random.split(rng)
    return input_shape, (_beta_init(k1, shape), _gamma_init(k2, shape))

  def apply_fun(params, x, **kwargs):
    beta, gamma = params
    ed = tuple(None if i in axis else slice(None) for i in range(jnp.ndim(x)))
    z = standardize(x, axis, epsilon=epsilon)
    if center and scale:
      return gamma[ed] * z + beta[ed]
    if center:
      return z + beta[ed]
    if scale:
      return gamma[ed] * z
    return z

  return init_fun, apply_fun


def _pooling_layer(reducer, init_val, rescaler=None):
  def PoolingLayer(window_shape, strides=None, padding="VALID", spec=None):
    """A pooling layer over the spatial dimensions of NHWC (or `spec`) inputs."""
    strides = strides or (1,) * len(window_shape)
    rescale = rescaler(window_shape, strides, padding) if rescaler else None
    if spec is None:
      non_spatial_axes = 0, len(window_shape) + 1
    else:
      non_spatial_axes = spec.index("N"), spec.index("C")
    for i in sorted(non_spatial_axes):
      window_shape = window_shape[:i] + (1,) + window_shape[i:]
      strides = strides[:i] + (1,) + strides[i:]

    def init_fun(rng, input_shape):
      out_shape = _out_shape(
          lambda x: lax.reduce_window(x, init_val, reducer, window_shape, strides, padding),
          input_shape)
      return out_shape, ()

    def apply_fun(params, inputs, **kwargs):
      out = lax.reduce_window(inputs, init_val, reducer, window_shape, strides, padding)
      return rescale(out, inputs, spec) if rescale else out

    return init_fun, apply_fun

  return PoolingLayer


def _normalize_by_window_size(dims, strides, padding):
  def rescale(outputs, inputs, spec):
    if spec is None:
      non_spatial_axes = 0, inputs.ndim - 1
    else:
      non_spatial_axes = spec.index("N"), spec.index("C")
    spatial_shape = tuple(inputs.shape[i] for i in range(inputs.ndim)
                          if i not in non_spatial_axes)
    one = jnp.ones(spatial_shape, dtype=inputs.dtype)
    window_sizes = lax.reduce_window(one, 0., lax.add, dims, strides, padding)
    for i in sorted(non_spatial_axes):
      window_sizes = jnp.expand_dims(window_sizes, i)
    return outputs / window_sizes

  return rescale


MaxPool = _pooling_layer(lax.max, -jnp.inf)
SumPool = _pooling_layer(lax.add, 0.)
AvgPool = _pooling_layer(lax.add, 0., _normalize_by_window_size)


def elementwise(fun, **fun_kwargs):
  """A parameterless layer applying `fun` to each element."""
  init_fun = lambda rng, input_shape: (input_shape, ())
  apply_fun = lambda params, inputs, **kwargs: fun(inputs, **fun_kwargs)
  return init_fun, apply_fun


Tanh = elementwise(jnp.tanh)
Relu = elementwise(relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)


def Identity():
  """The identity layer."""
  init_fun = lambda rng, input_shape: (input_shape, ())
  apply_fun = lambda params, inputs, **kwargs: inputs
  return init_fun, apply_fun


Identity = Identity()


def Flatten():
  """Flatten all dimensions but the leading (batch) one."""
  init_fun = lambda rng, input_shape: (
      (input_shape[0], functools.reduce(op.mul, input_shape[1:], 1)), ())
  apply_fun = lambda params, inputs, **kwargs: jnp.reshape(inputs, (inputs.shape[0], -1))
  return init_fun, apply_fun


Flatten = Flatten()


def FanOut(num):
  """Copy the input `num` times (for parallel branches)."""
  init_fun = lambda rng, input_shape: ([input_shape] * num, ())
  apply_fun = lambda params, inputs, **kwargs: [inputs] * num
  return init_fun, apply_fun


def FanInSum():
  """Sum a list of inputs."""
  init_fun = lambda rng, input_shape: (input_shape[0], ())
  apply_fun = lambda params, inputs, **kwargs: functools.reduce(op.add, inputs)
  return init_fun, apply_fun


FanInSum = FanInSum()


def FanInConcat(axis=-1):
  """Concatenate a list of inputs along `axis`."""

  def init_fun(rng, input_shape):
    ax = axis % len(input_shape[0])
    concat_size = sum(shape[ax] for shape in input_shape)
    out_shape = input_shape[0][:ax] + (concat_size,) + input_shape[0][ax + 1:]
    return out_shape, ()

  apply_fun = lambda params, inputs, **kwargs: jnp.concatenate(inputs, axis)
  return init_fun, apply_fun


def Dropout(rate, mode="train"):
  """Keep each input with probability `rate` (scaled by 1/rate) in train mode."""

  def apply_fun(params, inputs, **kwargs):
    rng = kwargs.get("rng", None)
    if rng is None:
      raise ValueError("Dropout layer requires apply_fun to be called with a PRNG key "
                       "argument. That is, instead of `apply_fun(params, inputs)`, call "
                       "it like `apply_fun(params, inputs, rng)` where `rng` is a PRNG key "
                       "(e.g. from `jax.random.key`).")
    if mode == "train":
      keep = random.bernoulli(rng, rate, inputs.shape)
      return jnp.where(keep, inputs / rate, 0)
    return inputs

  return lambda rng, input_shape: (input_shape, ()), apply_fun


def serial(*layers):
  """Compose layers in sequence."""
  nlayers = len(layers)
  init_funs, apply_funs = zip(*layers) if layers else ((), ())

  def init_fun(rng, input_shape):
    params = []
    for init in init_funs:
      rng, layer_rng = random.split(rng)
      input_shape, param = init(layer_rng, input_shape)
      params.append(param)
    return input_shape, params

  def apply_fun(params, inputs, **kwargs):
    rng = kwargs.pop("rng", None)
    rngs = random.split(rng, nlayers) if rng is not None else (None,) * nlayers
    for fun, param, rng in zip(apply_funs, params, rngs):
      inputs = fun(param, inputs, rng=rng, **kwargs)
    return inputs

  return init_fun, apply_fun


def parallel(*layers):
  """Apply layers side by side to a list of inputs of the same length."""
  nlayers = len(layers)
  init_funs, apply_funs = zip(*layers) if layers else ((), ())

  def init_fun(rng, input_shape):
    rngs = random.split(rng, nlayers)
    return zip(*[init(rng, shape) for init, rng, shape in zip(init_funs, rngs, input_shape)])

  def apply_fun(params, inputs, **kwargs):
    rng = kwargs.pop("rng", None)
    rngs = random.split(rng, nlayers) if rng is not None else (None,) * nlayers
    return [f(p, x, rng=r, **kwargs) for f, p, x, r in zip(apply_funs, params, inputs, rngs)]

  def init_fun_list(rng, input_shape):
    shapes, params = init_fun(rng, input_shape)
    return list(shapes), list(params)

  return init_fun_list, apply_fun


def shape_dependent(make_layer):
  """A layer built once the input shape is known: `make_layer(input_shape)`."""

  def init_fun(rng, input_shape):
    return make_layer(input_shape)[0](rng, input_shape)

  def apply_fun(params, inputs, **kwargs):
    return make_layer(inputs.shape)[1](params, inputs, **kwargs)

  return init_fun, apply_fun
