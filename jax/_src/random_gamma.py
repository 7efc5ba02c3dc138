"""Gamma variates and the distributions built on them (beta, dirichlet, chi-square, F,
Student's t, log-gamma, generalized normal, ball).

`random_gamma` is a primitive of (raw key, alpha): Marsaglia and Tsang's rejection
method (2000) per element, each element with its own key split from the given one,
in the order JAX 0.10.2 uses, so a key gives JAX's samples. Its derivative with
respect to alpha is the implicit reparameterization gradient (Figurnov et al., 2018):
dx/da = -(dF/da)/(dF/dx) for the gamma CDF F, evaluated with a series below
x = a + 1 and a continued fraction above it, differentiated alongside (lax.random_gamma_grad).
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src import prng
from jax._src import random as rnd
from jax._src.random import broadcast_trailing as _broadcast
from jax._src.random import key_row, split_keys
from jax._src.api import jit, vmap
from jax._src.core import ShapedArray
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lax import control_flow
from jax._src.lax import elementwise as ew
from jax._src.lax import reductions
from jax._src.lax import shape as lax_shape
from jax._src.lax.special_gamma import random_gamma_grad
from jax._src.lax.utils import standard_primitive
from jax._src.lowering import hlo

# ----------------------------------------------------------------------------- one sample


def _gamma_one(key, alpha, log_space: bool):
  """One Gamma(alpha, 1) sample (log of it if `log_space`) from a raw key."""
  dt = core.get_aval(alpha).dtype
  c = lambda v: lax_shape.full_like(alpha, v)
  zero, one = c(0), c(1)
  # Below 1, sample Gamma(alpha + 1) and scale by U**(1/alpha).
  boost_mask = ew.ge(alpha, one)
  alpha_orig = alpha
  alpha = ew.select(boost_mask, alpha, ew.add(alpha, one))
  d = ew.sub(alpha, c(1.0 / 3.0))
  cc = ew.div(c(1.0 / 3.0), ew.sqrt(d))
  keys = split_keys(key, 2)
  key, subkey = key_row(keys, 0), key_row(keys, 1)

  def rejected(state):
    _, x2, v, u = state
    squeeze = ew.ge(u, ew.sub(one, ew.mul(c(0.0331), ew.mul(x2, x2))))
    log_test = ew.ge(ew.log(u), ew.add(ew.mul(x2, c(0.5)),
                                        ew.mul(d, ew.add(ew.sub(one, v), ew.log(v)))))
    return ew.bitwise_and(squeeze, log_test)

  def propose(state):
    keys = split_keys(state[0], 3)
    key, x_key, u_key = key_row(keys, 0), key_row(keys, 1), key_row(keys, 2)

    def next_normal(kxv):
      ks = split_keys(kxv[0], 2)
      x = rnd.normal_impl(key_row(ks, 1), (), dt)
      return key_row(ks, 0), x, ew.add(one, ew.mul(x, cc))

    _, x, v = control_flow.while_loop(lambda kxv: ew.le(kxv[2], zero), next_normal,
                                      (x_key, zero, c(-1)))
    u = rnd.uniform_impl(u_key, (), dt, 0.0, 1.0)
    return key, ew.mul(x, x), ew.mul(ew.mul(v, v), v), u

  # The initial state is rejected, so at least one proposal is drawn.
  _, _, v, _ = control_flow.while_loop(rejected, propose, (key, zero, one, c(2)))
  if log_space:
    u = rnd.uniform_impl(subkey, (), dt, 0.0, 1.0)
    log_u = ew.log1p(ew.neg(u))  # log(1 - U), never log(0)
    log_boost = ew.select(ew.bitwise_or(boost_mask, ew.eq(log_u, zero)), zero,
                          ew.mul(log_u, ew.div(one, alpha_orig)))
    return ew.add(ew.add(ew.log(d), ew.log(v)), log_boost)
  u = ew.sub(one, rnd.uniform_impl(subkey, (), dt, 0.0, 1.0))
  boost = ew.select(boost_mask, one, ew.pow(u, ew.div(one, alpha_orig)))
  return ew.mul(ew.mul(d, v), boost)


def _gamma_impl(data, a, *, log_space: bool, impl: prng.PRNGImpl):
  """Samples shaped like `a`; `data` is the uint32[*batch, *key_shape] data of keys of
  `impl`, with `batch` a prefix of a's shape."""
  a_aval = core.get_aval(a)
  if a_aval.size == 0:
    return lax_shape.full(a_aval.shape, 0, a_aval.dtype)
  batch = prng.keys_aval(core.get_aval(data), impl).shape
  per_key = math.prod(a_aval.shape[len(batch):])
  keys = prng.random_wrap(lax_shape.reshape(data, (math.prod(batch), *impl.key_shape)), impl)
  keys = vmap(lambda key: split_keys(key, per_key))(keys)
  keys = lax_shape.reshape(keys, (math.prod(batch) * per_key,))
  alphas = lax_shape.reshape(a, (a_aval.size,))
  one = partial(_gamma_one, log_space=log_space)
  if impl is prng.threefry_prng_impl:
    samples = vmap(one)(keys, alphas)
  else:
    # A batch of other keys would draw from its first key alone (rng_bit_generator's
    # batching): each element runs with its own key, in sequence, as in JAX.
    samples = control_flow.map(lambda ka: one(*ka), (keys, alphas))
  return lax_shape.reshape(samples, a_aval.shape)


def _gamma_abstract_eval(data, a, *, log_space, impl):
  batch = prng.keys_aval(data, impl).shape
  if a.shape[:len(batch)] != batch:
    raise TypeError(f"random_gamma: key batch shape {batch} is not a prefix of "
                    f"alpha's shape {a.shape}")
  if not dtypes.is_inexact(a.dtype) or dtypes.is_complex(a.dtype):
    raise TypeError(f"random_gamma: alpha must be real floating point, got {a.str_short(short_dtypes=True)}")
  return ShapedArray(a.shape, a.dtype)


random_gamma_p = standard_primitive("random_gamma", _gamma_abstract_eval)
hlo.lowering_rules[random_gamma_p] = hlo.lower_fun(_gamma_impl)


def _gamma_batch(axis_data, vals, dims, **params):
  # Batched keys and alphas both get the batch axis in front; the key's batch shape
  # is then a prefix of alpha's, which is what the primitive takes.
  data, a = vals
  data = batching.bdim_at_front(data, dims[0], axis_data.size)
  a = batching.bdim_at_front(a, dims[1], axis_data.size)
  return random_gamma_p.bind(data, a, **params), 0


def random_gamma(keys, a, *, log_space: bool):
  """The primitive on typed keys: it holds their data and implementation."""
  return random_gamma_p.bind(prng.random_unwrap(keys), a, log_space=log_space,
                             impl=prng.key_impl_of_aval(keys))


batching.batch_rules[random_gamma_p] = _gamma_batch

# ----------------------------------------------------------------------------- d sample / d alpha


def _gamma_jvp(t, ans, data, a, *, log_space, impl):
  if log_space:
    x = ew.exp(ans)
    return ew.mul(t, ew.div(random_gamma_grad(a, x), x))
  return ew.mul(t, random_gamma_grad(a, ans))


ad.defjvp2(random_gamma_p, None, _gamma_jvp)

# ----------------------------------------------------------------------------- samplers


def check_shape(name: str, shape, *param_shapes) -> tuple:
  shape = rnd.canonical_shape(shape)
  if param_shapes:
    try:
      ok = np.broadcast_shapes(shape, *param_shapes) == shape
    except ValueError:
      ok = False
    if not ok:
      raise ValueError(f"{name} parameter shapes must be broadcast-compatible with shape "
                       f"argument, and the result of broadcasting the shapes must equal the "
                       f"shape argument, but got result {shape} for shapes {param_shapes}")
  return shape


def convert_param(x, dtype):
  return ew.convert_element_type(x, dtype)


def shapes_of(*xs):
  return [tuple(core.get_aval(x).shape) for x in xs]


def _gamma(rng, a, shape, dtype, log_space: bool):
  a = convert_param(a, dtype)
  shape = check_shape("gamma", core.get_aval(a).shape if shape is None else shape,
                       *shapes_of(a))
  return random_gamma(rng, _broadcast(a, shape), log_space=log_space)


def gamma(key, a, shape=None, dtype=None, out_sharding=None):
  """Gamma(a, 1) samples, shaped `shape` (default: a's shape)."""
  rng = rnd.sampler_key(key, "gamma")
  return _gamma(rng, a, shape, rnd.float_dtype(dtype, "gamma"), False)


def loggamma(key, a, shape=None, dtype=None, out_sharding=None):
  """Logs of Gamma(a, 1) samples, accurate where a is small and samples underflow."""
  rng = rnd.sampler_key(key, "loggamma")
  return _gamma(rng, a, shape, rnd.float_dtype(dtype, "loggamma"), True)


def beta(key, a, b, shape=None, dtype=None, out_sharding=None):
  """Beta(a, b) samples."""
  rng = rnd.sampler_key(key, "beta")
  dt = rnd.float_dtype(dtype, "beta")
  a, b = convert_param(a, dt), convert_param(b, dt)
  if shape is None:
    shape = np.broadcast_shapes(*shapes_of(a, b))
  shape = check_shape("beta", shape, *shapes_of(a, b))
  return _beta(rng, a, b, shape)


@partial(jit, static_argnums=(3,))
def _beta(rng, a, b, shape):
  keys = split_keys(rng, 2)
  a, b = _broadcast(a, shape), _broadcast(b, shape)
  # In log space, then normalized: a ratio of tiny gammas would be 0/0.
  log_ga = random_gamma(key_row(keys, 0), a, log_space=True)
  log_gb = random_gamma(key_row(keys, 1), b, log_space=True)
  log_max = ew.max(log_ga, log_gb)
  ga = ew.exp(ew.sub(log_ga, log_max))
  gb = ew.exp(ew.sub(log_gb, log_max))
  return ew.div(ga, ew.add(ga, gb))


def dirichlet(key, alpha, shape=None, dtype=None, out_sharding=None):
  """Dirichlet(alpha) samples over alpha's last axis."""
  rng = rnd.sampler_key(key, "dirichlet")
  dt = rnd.float_dtype(dtype, "dirichlet")
  alpha = convert_param(alpha, dt)
  a_shape = tuple(core.get_aval(alpha).shape)
  if not a_shape:
    raise ValueError(f"The alpha parameter of dirichlet must have at least one dimension, "
                     f"got shape {a_shape}")
  if shape is None:
    shape = a_shape[:-1]
  shape = check_shape("dirichlet", shape, a_shape[:-1])
  return _dirichlet(rng, alpha, shape)


@partial(jit, static_argnums=(2,))
def _dirichlet(rng, alpha, shape):
  full = (*shape, core.get_aval(alpha).shape[-1])
  log_g = random_gamma(rng, _broadcast(alpha, full), log_space=True)
  axis = len(full) - 1
  log_max = reductions.reduce_max(log_g, (axis,))
  g = ew.exp(ew.sub(log_g, lax_shape.broadcast_in_dim(log_max, full, tuple(range(axis)))))
  total = reductions.reduce_sum(g, (axis,))
  return ew.div(g, lax_shape.broadcast_in_dim(total, full, tuple(range(axis))))


def chisquare(key, df, shape=None, dtype=None, out_sharding=None):
  """Chi-square samples with `df` degrees of freedom."""
  rng = rnd.sampler_key(key, "chisquare")
  dt = rnd.float_dtype(dtype, "chisquare")
  df = convert_param(df, dt)
  shape = check_shape("chisquare", core.get_aval(df).shape if shape is None else shape,
                       *shapes_of(df))
  return _chisquare(rng, df, shape)


@partial(jit, static_argnums=(2,))
def _chisquare(rng, df, shape):
  half = lax_shape.full_like(_broadcast(df, shape), 0.5)
  log_g = random_gamma(rng, ew.mul(half, _broadcast(df, shape)), log_space=True)
  return ew.mul(lax_shape.full_like(half, 2), ew.exp(log_g))


def f(key, dfnum, dfden, shape=None, dtype=None, out_sharding=None):
  """F-distribution samples (ratio of scaled chi-squares)."""
  rng = rnd.sampler_key(key, "f")
  dt = rnd.float_dtype(dtype, "f")
  dfnum, dfden = convert_param(dfnum, dt), convert_param(dfden, dt)
  if shape is None:
    shape = np.broadcast_shapes(*shapes_of(dfnum, dfden))
  shape = check_shape("f", shape, *shapes_of(dfnum, dfden))
  return _f(rng, dfnum, dfden, shape)


@partial(jit, static_argnums=(3,))
def _f(rng, dfnum, dfden, shape):
  keys = split_keys(rng, 2)  # the first key draws the denominator, as in JAX
  num = ew.div(_chisquare(key_row(keys, 1), dfnum, shape), _broadcast(dfnum, shape))
  den = ew.div(_chisquare(key_row(keys, 0), dfden, shape), _broadcast(dfden, shape))
  return ew.div(num, den)


def t(key, df, shape=(), dtype=None, out_sharding=None):
  """Student's t samples with `df` degrees of freedom."""
  rng = rnd.sampler_key(key, "t")
  dt = rnd.float_dtype(dtype, "t")
  df = convert_param(df, dt)
  shape = check_shape("t", core.get_aval(df).shape if shape is None else shape,
                       *shapes_of(df))
  return _t(rng, df, shape)


@partial(jit, static_argnums=(2,))
def _t(rng, df, shape):
  keys = split_keys(rng, 2)
  dt = core.get_aval(df).dtype
  n = rnd.normal_impl(key_row(keys, 0), shape, dt)
  df = _broadcast(df, shape)
  half = lax_shape.full_like(df, 0.5)
  g = random_gamma(key_row(keys, 1), ew.mul(df, half), log_space=False)
  return ew.mul(n, ew.sqrt(ew.div(ew.mul(half, df), g)))


def generalized_normal(key, p, shape=(), dtype=None, out_sharding=None):
  """Samples with density proportional to exp(-|x|**p)."""
  rng = rnd.sampler_key(key, "generalized_normal")
  dt = rnd.float_dtype(dtype, "generalized_normal")
  p = convert_param(p, dt)
  shape = check_shape("generalized_normal", shape, *shapes_of(p))
  return _generalized_normal(rng, p, shape)


@partial(jit, static_argnums=(2,))
def _generalized_normal(rng, p, shape):
  keys = split_keys(rng, 2)
  p = _broadcast(p, shape)
  g = random_gamma(key_row(keys, 0), ew.div(lax_shape.full_like(p, 1), p), log_space=False)
  dt = core.get_aval(p).dtype
  half = ew.convert_element_type(0.5, dtypes.canonicalize_dtype(float))
  b = ew.convert_element_type(rnd.bernoulli_impl(key_row(keys, 1), half, shape), dt)
  r = ew.sub(ew.mul(b, lax_shape.full_like(b, 2)), lax_shape.full_like(b, 1))
  return ew.mul(r, ew.pow(g, ew.div(lax_shape.full_like(p, 1), p)))


def ball(key, d: int, p: float = 2, shape=(), dtype=None, out_sharding=None):
  """Points uniform in the unit p-norm ball of dimension `d`."""
  rng = rnd.sampler_key(key, "ball")
  d = core.concrete_value(d) if isinstance(d, core.Tracer) else d
  if not isinstance(d, (int, np.integer)) or d < 1:
    raise ValueError(f"The dimension d must be a positive integer, got {d!r}")
  dt = rnd.float_dtype(dtype, "ball")
  return _ball(rng, int(d), float(p), rnd.canonical_shape(shape), dt)


@partial(jit, static_argnums=(1, 2, 3, 4))
def _ball(rng, d, p, shape, dtype):
  keys = split_keys(rng, 2)
  g = _generalized_normal(key_row(keys, 0), ew.convert_element_type(p, dtype), (*shape, d))
  u = rnd.uniform_impl(key_row(keys, 1), shape, dtype, 0.0, 1.0)
  e = ew.neg(ew.log1p(ew.neg(u)))
  axis = len(shape)
  norm = reductions.reduce_sum(ew.pow(ew.abs(g), lax_shape.full_like(g, p)), (axis,))
  denom = ew.pow(ew.add(norm, e), lax_shape.full_like(e, 1 / p))
  return ew.div(g, lax_shape.broadcast_in_dim(denom, (*shape, d), tuple(range(axis))))
