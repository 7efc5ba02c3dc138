"""A small neural-network layer library: each layer is an (init_fun, apply_fun) pair.

`init_fun(rng, input_shape) -> (output_shape, params)` and
`apply_fun(params, inputs, **kwargs) -> outputs`. Combinators (`serial`,
`parallel`, `FanOut`...) build networks from layers.
"""

from __future__ import annotations

import functools
import operator as op

import jax.numpy as jnp
from jax import lax
from jax import random
from jax.nn import initializers
from jax.nn import elu, gelu, leaky_relu, log_softmax, logsumexp, relu, selu, sigmoid, softmax
from jax.nn import softplus, standardize


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
      input_shape[0], functools.reduce(op.mul, input_shape[1:], 1)), ()
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
