"""The samplers of `jax.random` built by transforming uniform and normal draws:
counting distributions (poisson, binomial, multinomial, geometric), continuous
transforms (lognormal, maxwell, double-sided maxwell, weibull_min, rayleigh, wald,
pareto, triangular), multivariate normal and random orthogonal matrices.

Each draws its bits in the order JAX 0.10.2 does, so a key gives JAX's samples up to
the last-bit rounding of transcendental functions.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src import prng
from jax._src import random as rnd
from jax._src.api import jit
from jax._src.lax import control_flow
from jax._src.lax import elementwise as ew
from jax._src.lax import reductions
from jax._src.lax import shape as lax_shape
from jax._src.numpy import creation
from jax._src.numpy import linalg as jnp_linalg
from jax._src.random import broadcast_trailing as _broadcast
from jax._src.random import key_row, split_keys
from jax._src.random_gamma import check_shape, convert_param, shapes_of
from jax._src.scipy import special


def _int_dtype(dtype, name: str) -> np.dtype:
  dt = np.dtype(dtypes.canonicalize_dtype(int if dtype is None else dtype))
  if dt.kind not in "iu":
    raise ValueError(f"dtype argument to `{name}` must be an integer dtype, got {dt.name}")
  return dt


def _shape_of(shape, *params):
  return (np.broadcast_shapes(*shapes_of(*params)) if shape is None else shape)


def _c(like, v):
  return lax_shape.full_like(like, v)


# ----------------------------------------------------------------------------- poisson


def poisson(key, lam, shape=None, dtype=None, out_sharding=None):
  """Poisson(lam) counts: Knuth's method below lam = 10, Hormann's transformed rejection
  above."""
  rng = rnd.sampler_key(key, "poisson")
  impl = prng.key_impl_of_aval(rng)
  if impl is not prng.threefry_prng_impl:
    # As in JAX 0.10.2: its rejection sampler is written for threefry keys.
    raise NotImplementedError(f"`poisson` is only implemented for the threefry2x32 RNG, "
                              f"not {impl.name}")
  dt = _int_dtype(dtype, "poisson")
  lam = convert_param(lam, np.float32)
  shape = check_shape("poisson", _shape_of(shape, lam), *shapes_of(lam))
  return _poisson(rng, lam, shape, dt)


def _poisson_knuth(rng, lam, shape, dtype, max_iters):
  def body(carry):
    i, k, key, log_prod = carry
    keys = split_keys(key, 2)
    k = ew.select(ew.gt(log_prod, ew.neg(lam)), ew.add(k, _c(k, 1)), k)
    u = rnd.uniform_impl(key_row(keys, 1), shape, np.dtype(np.float32), 0.0, 1.0)
    return ew.add(i, 1), k, key_row(keys, 0), ew.add(log_prod, ew.log(u))

  def cond(carry):
    i, _, _, log_prod = carry
    return ew.bitwise_and(reductions.reduce_or(ew.gt(log_prod, ew.neg(lam))),
                          ew.lt(i, max_iters))

  init = (creation.asarray(np.int32(0)), lax_shape.full(shape, 0, dtype), rng,
          lax_shape.full(shape, 0, np.float32))
  k = control_flow.while_loop(cond, body, init)[1]
  return ew.sub(k, _c(k, 1))


def _poisson_rejection(rng, lam, shape, dtype, max_iters):
  log_lam = ew.log(lam)
  b = ew.add(_c(lam, 0.931), ew.mul(_c(lam, 2.53), ew.sqrt(lam)))
  a = ew.add(_c(lam, -0.059), ew.mul(_c(lam, 0.02483), b))
  inv_alpha = ew.add(_c(lam, 1.1239), ew.div(_c(lam, 1.1328), ew.sub(b, _c(lam, 3.4))))
  v_r = ew.sub(_c(lam, 0.9277), ew.div(_c(lam, 3.6224), ew.sub(b, _c(lam, 2))))

  def body(carry):
    i, k_out, accepted, key = carry
    keys = split_keys(key, 3)
    u = ew.sub(rnd.uniform_impl(key_row(keys, 1), shape, np.dtype(np.float32), 0.0, 1.0),
               _c(lam, 0.5))
    v = rnd.uniform_impl(key_row(keys, 2), shape, np.dtype(np.float32), 0.0, 1.0)
    us = ew.sub(_c(lam, 0.5), ew.abs(u))
    k = ew.floor(ew.add(ew.add(ew.mul(ew.add(ew.div(ew.mul(_c(lam, 2), a), us), b), u), lam),
                        _c(lam, 0.43)))
    s = ew.log(ew.div(ew.mul(v, inv_alpha), ew.add(ew.div(a, ew.mul(us, us)), b)))
    t = ew.sub(ew.add(ew.neg(lam), ew.mul(k, log_lam)), special.gammaln(ew.add(k, _c(k, 1))))
    accept1 = ew.bitwise_and(ew.ge(us, _c(us, 0.07)), ew.le(v, v_r))
    reject = ew.bitwise_or(ew.lt(k, _c(k, 0)),
                           ew.bitwise_and(ew.lt(us, _c(us, 0.013)), ew.gt(v, us)))
    accept = ew.bitwise_or(accept1, ew.bitwise_and(ew.bitwise_not(reject), ew.le(s, t)))
    return (ew.add(i, 1), ew.select(accept, k, k_out), ew.bitwise_or(accepted, accept),
            key_row(keys, 0))

  def cond(carry):
    i, _, accepted, _ = carry
    return ew.bitwise_and(reductions.reduce_or(ew.bitwise_not(accepted)), ew.lt(i, max_iters))

  init = (creation.asarray(np.int32(0)), lax_shape.full(shape, -1, np.float32),
          lax_shape.full(shape, False, np.bool_), rng)
  k = control_flow.while_loop(cond, body, init)[1]
  return ew.convert_element_type(k, dtype)


@partial(jit, static_argnums=(2, 3))
def _poisson(rng, lam, shape, dtype):
  lam = _broadcast(lam, shape)
  use_knuth = ew.bitwise_or(ew.ne(lam, lam), ew.lt(lam, _c(lam, 10)))
  lam_knuth = ew.select(use_knuth, lam, _c(lam, 0.0))
  # Rejection's acceptance rate is highest for large lam; the unused lanes get one.
  lam_rejection = ew.select(use_knuth, _c(lam, 1e5), lam)
  max_iters = creation.asarray(np.int32(np.iinfo(np.int32).max))
  result = ew.select(use_knuth, _poisson_knuth(rng, lam_knuth, shape, dtype, max_iters),
                     _poisson_rejection(rng, lam_rejection, shape, dtype, max_iters))
  return ew.select(ew.eq(lam, _c(lam, 0)), lax_shape.full(shape, 0, dtype), result)


# ----------------------------------------------------------------------------- geometric


def geometric(key, p, shape=None, dtype=None, out_sharding=None):
  """The number of Bernoulli(p) trials up to and including the first success (>= 1)."""
  rng = rnd.sampler_key(key, "geometric")
  dt = _int_dtype(dtype, "geometric")
  p_dt = dtypes.canonicalize_dtype(core.get_aval(p).dtype)
  p = convert_param(p, p_dt if dtypes.is_inexact(p_dt) else dtypes.canonicalize_dtype(float))
  shape = check_shape("geometric", _shape_of(shape, p), *shapes_of(p))
  return _geometric(rng, p, shape, dt)


@partial(jit, static_argnums=(2, 3))
def _geometric(rng, p, shape, dtype):
  u = rnd.uniform_impl(rng, shape, core.get_aval(p).dtype, 0.0, 1.0)
  log_one_minus_p = _broadcast(ew.log1p(ew.neg(p)), shape)
  g = ew.add(ew.floor(ew.div(ew.log(u), log_one_minus_p)), _c(u, 1))
  return ew.convert_element_type(g, dtype)


# ----------------------------------------------------------------------------- binomial


def _stirling_tail(k):
  """log(k!) minus its Stirling approximation: a table below 10, a series above."""
  table = np.array([0.08106146679532726, 0.04134069595540929, 0.02767792568499834,
                    0.02079067210376509, 0.01664469118982119, 0.01387612882307075,
                    0.01189670994589177, 0.01041126526197209, 0.009255462182712733,
                    0.008330563433362871], np.float64)
  kp1 = ew.add(k, _c(k, 1))
  kp1sq = ew.mul(kp1, kp1)
  series = ew.div(ew.sub(_c(k, 1 / 12), ew.div(ew.sub(_c(k, 1 / 360),
                                                      ew.div(_c(k, 1 / 1260), kp1sq)), kp1sq)),
                  kp1)
  small = lax_shape.full_like(k, 0.0)
  for i, v in enumerate(table):
    small = ew.select(ew.eq(k, _c(k, i)), _c(k, float(v)), small)
  return ew.select(ew.le(k, _c(k, 9)), small, series)


def _binomial_inversion(rng, count, prob, shape, max_iters):
  log1m = ew.log1p(ew.neg(prob))

  def body(carry):
    i, num_geom, geom_sum, key = carry
    keys = split_keys(key, 2)
    num_geom = ew.select(ew.le(geom_sum, count), ew.add(num_geom, _c(num_geom, 1)), num_geom)
    u = rnd.uniform_impl(key_row(keys, 0), shape, core.get_aval(prob).dtype, 0.0, 1.0)
    geom = ew.ceil(ew.div(ew.log(u), log1m))
    return ew.add(i, 1), num_geom, ew.add(geom_sum, geom), key_row(keys, 1)

  def cond(carry):
    i, _, geom_sum, _ = carry
    return ew.bitwise_and(reductions.reduce_or(ew.le(geom_sum, count)), ew.lt(i, max_iters))

  zeros = lax_shape.full(shape, 0, core.get_aval(prob).dtype)
  k = control_flow.while_loop(cond, body, (creation.asarray(np.int32(0)), zeros, zeros, rng))[1]
  return ew.sub(k, _c(k, 1))


def _binomial_btrs(rng, count, prob, shape, max_iters):
  """Hormann's transformed rejection with squeeze (BTRS), for count * prob > 10."""
  c = lambda v: _c(prob, v)
  stddev = ew.sqrt(ew.mul(ew.mul(count, prob), ew.sub(c(1), prob)))
  b = ew.add(c(1.15), ew.mul(c(2.53), stddev))
  a = ew.add(ew.add(c(-0.0873), ew.mul(c(0.0248), b)), ew.mul(c(0.01), prob))
  cc = ew.add(ew.mul(count, prob), c(0.5))
  v_r = ew.sub(c(0.92), ew.div(c(4.2), b))
  r = ew.div(prob, ew.sub(c(1), prob))
  alpha = ew.mul(ew.add(c(2.83), ew.div(c(5.1), b)), stddev)
  m = ew.floor(ew.mul(ew.add(count, c(1)), prob))

  def body(carry):
    i, k_out, accepted, key = carry
    keys = split_keys(key, 3)
    u = ew.sub(rnd.uniform_impl(key_row(keys, 1), shape, core.get_aval(prob).dtype, 0.0, 1.0),
               c(0.5))
    v = rnd.uniform_impl(key_row(keys, 2), shape, core.get_aval(prob).dtype, 0.0, 1.0)
    us = ew.sub(c(0.5), ew.abs(u))
    accept1 = ew.bitwise_and(ew.ge(us, c(0.07)), ew.le(v, v_r))
    k = ew.floor(ew.add(ew.mul(ew.add(ew.div(ew.mul(c(2), a), us), b), u), cc))
    reject = ew.bitwise_or(ew.lt(k, c(0)), ew.gt(k, count))
    log_v = ew.log(ew.div(ew.mul(v, alpha), ew.add(ew.div(a, ew.mul(us, us)), b)))
    n_m1 = ew.add(ew.sub(count, m), c(1))
    n_k1 = ew.add(ew.sub(count, k), c(1))
    ub = ew.add(ew.add(
        ew.mul(ew.add(m, c(0.5)), ew.log(ew.div(ew.add(m, c(1)), ew.mul(r, n_m1)))),
        ew.mul(ew.add(count, c(1)), ew.log(ew.div(n_m1, n_k1)))),
        ew.mul(ew.add(k, c(0.5)), ew.log(ew.div(ew.mul(r, n_k1), ew.add(k, c(1))))))
    ub = ew.sub(ew.sub(ew.add(ew.add(ub, _stirling_tail(m)), _stirling_tail(ew.sub(count, m))),
                       _stirling_tail(k)), _stirling_tail(ew.sub(count, k)))
    accept = ew.bitwise_or(accept1, ew.bitwise_and(ew.bitwise_not(reject), ew.le(log_v, ub)))
    return (ew.add(i, 1), ew.select(accept, k, k_out), ew.bitwise_or(accepted, accept),
            key_row(keys, 0))

  def cond(carry):
    i, _, accepted, _ = carry
    return ew.bitwise_and(reductions.reduce_or(ew.bitwise_not(accepted)), ew.lt(i, max_iters))

  init = (creation.asarray(np.int32(0)), lax_shape.full(shape, -1, core.get_aval(prob).dtype),
          lax_shape.full(shape, False, np.bool_), rng)
  return control_flow.while_loop(cond, body, init)[1]


def binomial(key, n, p, shape=None, dtype=None):
  """Binomial(n, p) counts (as floats, like JAX): inversion for n*min(p, 1-p) <= 10,
  BTRS rejection above. NaN for a NaN or negative n or a p outside [0, 1]."""
  rng = rnd.sampler_key(key, "binomial")
  dt = rnd.float_dtype(dtype, "binomial")
  n, p = convert_param(n, dt), convert_param(p, dt)
  shape = check_shape("binomial", _shape_of(shape, n, p), *shapes_of(n, p))
  return _binomial(rng, n, p, shape)


@partial(jit, static_argnums=(3,))
def _binomial(rng, count, prob, shape):
  count, prob = _broadcast(count, shape), _broadcast(prob, shape)
  c = lambda v: _c(prob, v)
  count_bad = ew.bitwise_or(ew.ne(count, count), ew.lt(count, c(0)))
  count_inf = ew.eq(count, c(np.inf))
  p_nan = ew.ne(prob, prob)
  p_bad = ew.bitwise_or(ew.lt(prob, c(0)), ew.gt(prob, c(1)))
  # Lanes whose result is fixed below (NaN or inf) sample with harmless parameters, so
  # that no loop runs on them forever.
  fixed = ew.bitwise_or(ew.bitwise_or(p_nan, p_bad), ew.bitwise_or(count_bad, count_inf))
  count = ew.select(fixed, c(0), count)
  q = ew.select(ew.lt(prob, c(0.5)), prob, ew.sub(c(1), prob))
  q = ew.select(fixed, c(0.5), q)
  use_inversion = ew.le(ew.mul(count, q), c(10))
  count_inv = ew.select(use_inversion, count, c(0))
  count_btrs = ew.select(use_inversion, c(1e4), count)
  q_btrs = ew.select(use_inversion, c(0.5), q)
  max_iters = creation.asarray(np.int32(np.iinfo(np.int32).max))
  samples = ew.select(use_inversion,
                      _binomial_inversion(rng, count_inv, q, shape, max_iters),
                      _binomial_btrs(rng, count_btrs, q_btrs, shape, max_iters))
  samples = ew.select(ew.bitwise_or(ew.bitwise_or(p_nan, p_bad), count_bad), c(np.nan), samples)
  samples = ew.select(ew.bitwise_and(count_inf, ew.bitwise_not(p_nan)), c(np.inf), samples)
  return ew.select(ew.bitwise_and(ew.ge(prob, c(0.5)), ew.bitwise_not(count_inf)),
                   ew.sub(count, samples), samples)


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
  """Counts of n draws over the categories of p's last axis; `shape` is the result's
  shape, categories last (default p's shape). Each category takes a binomial share of
  the draws left, so p need not be normalized."""
  rng = rnd.sampler_key(key, "multinomial")
  dt = rnd.float_dtype(dtype, "multinomial")
  p = convert_param(p, dt)
  n = convert_param(n, dt)
  p_shape = tuple(core.get_aval(p).shape)
  if not p_shape:
    raise ValueError("multinomial: p must have at least one dimension")
  shape = p_shape if shape is None else rnd.canonical_shape(shape)
  if not shape or shape[-1] != p_shape[-1]:
    raise ValueError(f"multinomial: shape {shape} must end with the number of categories "
                     f"{p_shape[-1]} of p")
  check_shape("multinomial", shape[:-1], tuple(core.get_aval(n).shape))
  check_shape("multinomial", shape, p_shape)
  return _multinomial(rng, n, p, shape[:-1], 1 if unroll is True else int(unroll))


@partial(jit, static_argnums=(3, 4))
def _multinomial(rng, n, p, batch, unroll):
  k = core.get_aval(p).shape[-1]
  n = _broadcast(n, batch)
  p = _broadcast(p, (*batch, k))
  p = lax_shape.transpose(p, (len(batch), *range(len(batch))))  # categories first
  remaining = reductions.cumsum(p, 0, reverse=True)
  ratios = ew.div(p, ew.select(ew.eq(remaining, _c(remaining, 0)), _c(remaining, 1), remaining))
  keys = split_keys(rng, k)

  def step(remainder, ratio_key):
    ratio, key = ratio_key
    ratio = ew.min(ew.max(ratio, _c(ratio, 0)), _c(ratio, 1))
    count = _binomial(key, remainder, ratio, batch)
    return ew.sub(remainder, count), count

  _, counts = control_flow.scan(step, n, (ratios, keys), unroll=unroll)
  return lax_shape.transpose(counts, (*range(1, len(batch) + 1), 0))


# ----------------------------------------------------------------------------- continuous


def lognormal(key, sigma=np.float32(1), shape=None, dtype=None, out_sharding=None):
  """exp(sigma * N(0, 1)) samples."""
  rng = rnd.sampler_key(key, "lognormal")
  dt = rnd.float_dtype(dtype, "lognormal")
  sigma = convert_param(sigma, dt)
  shape = check_shape("lognormal", _shape_of(shape, sigma), *shapes_of(sigma))
  return _lognormal(rng, sigma, shape)


@partial(jit, static_argnums=(2,))
def _lognormal(rng, sigma, shape):
  n = rnd.normal_impl(rng, shape, core.get_aval(sigma).dtype)
  return ew.exp(ew.mul(n, _broadcast(sigma, shape)))


def _maxwell_impl(rng, shape, dtype):
  n = rnd.normal_impl(rng, (*shape, 3), dtype)
  return ew.sqrt(reductions.reduce_sum(ew.mul(n, n), (len(shape),)))


def maxwell(key, shape=(), dtype=None, out_sharding=None):
  """Maxwell samples: the norm of a 3-d standard normal vector."""
  rng = rnd.sampler_key(key, "maxwell")
  return _maxwell(rng, rnd.canonical_shape(shape), rnd.float_dtype(dtype, "maxwell"))


@partial(jit, static_argnums=(1, 2))
def _maxwell(rng, shape, dtype):
  return _maxwell_impl(rng, shape, dtype)


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
  """A Maxwell sample with a random sign, scaled by `scale` and shifted by `loc`.
  The result's shape is `shape` followed by loc's and scale's broadcast shape, as in JAX."""
  rng = rnd.sampler_key(key, "double_sided_maxwell")
  dt = rnd.float_dtype(dtype, "double_sided_maxwell")
  loc, scale = convert_param(loc, dt), convert_param(scale, dt)
  params = np.broadcast_shapes(*shapes_of(loc, scale))
  shape = rnd.canonical_shape(shape) or params
  return _double_sided_maxwell(rng, loc, scale, tuple(shape) + tuple(params), dt)


@partial(jit, static_argnums=(3, 4))
def _double_sided_maxwell(rng, loc, scale, shape, dtype):
  keys = split_keys(rng, 2)
  m = _maxwell_impl(key_row(keys, 0), shape, dtype)
  half = ew.convert_element_type(0.5, dtypes.canonicalize_dtype(float))
  b = ew.convert_element_type(rnd.bernoulli_impl(key_row(keys, 1), half, shape), dtype)
  sign = ew.sub(ew.mul(b, _c(b, 2)), _c(b, 1))
  return ew.add(ew.mul(ew.mul(sign, m), _broadcast(scale, shape)), _broadcast(loc, shape))


def weibull_min(key, scale, concentration, shape=(), dtype=None):
  """Weibull samples: scale * (-log(1 - U)) ** (1 / concentration)."""
  rng = rnd.sampler_key(key, "weibull_min")
  dt = rnd.float_dtype(dtype, "weibull_min")
  return _weibull(rng, convert_param(scale, dt), convert_param(concentration, dt),
                  rnd.canonical_shape(shape), dt)


@partial(jit, static_argnums=(3, 4))
def _weibull(rng, scale, concentration, shape, dtype):
  u = rnd.uniform_impl(rng, shape, dtype, 0.0, 1.0)
  e = ew.neg(ew.log1p(ew.neg(u)))
  power = ew.div(_c(concentration, 1), concentration)
  return ew.mul(ew.pow(e, _broadcast(power, shape)), _broadcast(scale, shape))


def rayleigh(key, scale, shape=None, dtype=None, out_sharding=None):
  """Rayleigh samples: scale * sqrt(-2 log U)."""
  rng = rnd.sampler_key(key, "rayleigh")
  dt = rnd.float_dtype(dtype, "rayleigh")
  scale = convert_param(scale, dt)
  shape = check_shape("rayleigh", _shape_of(shape, scale), *shapes_of(scale))
  return _rayleigh(rng, scale, shape)


@partial(jit, static_argnums=(2,))
def _rayleigh(rng, scale, shape):
  u = rnd.uniform_impl(rng, shape, core.get_aval(scale).dtype, 0.0, 1.0)
  return ew.mul(_broadcast(scale, shape), ew.sqrt(ew.mul(ew.log(u), _c(u, -2))))


def wald(key, mean, shape=None, dtype=None, out_sharding=None):
  """Wald (inverse Gaussian, unit shape) samples with the given mean."""
  rng = rnd.sampler_key(key, "wald")
  dt = rnd.float_dtype(dtype, "wald")
  mean = convert_param(mean, dt)
  shape = check_shape("wald", _shape_of(shape, mean), *shapes_of(mean))
  return _wald(rng, mean, shape)


@partial(jit, static_argnums=(2,))
def _wald(rng, mean, shape):
  keys = split_keys(rng, 2)
  dt = core.get_aval(mean).dtype
  mean = _broadcast(mean, shape)
  v = rnd.normal_impl(key_row(keys, 0), shape, dt)
  z = rnd.uniform_impl(key_row(keys, 1), shape, dt, 0.0, 1.0)
  y = ew.mul(v, v)
  y_mean = ew.mul(y, mean)
  mean_sq = ew.mul(mean, mean)
  root = ew.sqrt(ew.add(ew.mul(_c(y, 4), y_mean), ew.mul(y_mean, y_mean)))
  x = ew.sub(ew.add(mean, ew.div(ew.mul(mean_sq, y), _c(y, 2))),
             ew.mul(ew.div(mean, _c(y, 2)), root))
  return ew.select(ew.le(z, ew.div(mean, ew.add(mean, x))), x, ew.div(mean_sq, x))


def pareto(key, b, shape=None, dtype=None, out_sharding=None):
  """Pareto samples with shape parameter b (support [1, inf))."""
  rng = rnd.sampler_key(key, "pareto")
  dt = rnd.float_dtype(dtype, "pareto")
  b = convert_param(b, dt)
  shape = check_shape("pareto", _shape_of(shape, b), *shapes_of(b))
  return _pareto(rng, b, shape)


@partial(jit, static_argnums=(2,))
def _pareto(rng, b, shape):
  u = rnd.uniform_impl(rng, shape, core.get_aval(b).dtype, 0.0, 1.0)
  e = ew.neg(ew.log1p(ew.neg(u)))
  return ew.exp(ew.div(e, _broadcast(b, shape)))


def triangular(key, left, mode, right, shape=None, dtype=None, out_sharding=None):
  """Triangular samples on [left, right] with the given mode."""
  rng = rnd.sampler_key(key, "triangular")
  dt = rnd.float_dtype(dtype, "triangular")
  left, mode, right = convert_param(left, dt), convert_param(mode, dt), convert_param(right, dt)
  shape = check_shape("triangular", _shape_of(shape, left, mode, right),
                       *shapes_of(left, mode, right))
  return _triangular(rng, left, mode, right, shape)


@partial(jit, static_argnums=(4,))
def _triangular(rng, left, mode, right, shape):
  left, mode, right = (_broadcast(x, shape) for x in (left, mode, right))
  fc = ew.div(ew.sub(mode, left), ew.sub(right, left))
  u = rnd.uniform_impl(rng, shape, core.get_aval(left).dtype, 0.0, 1.0)
  out1 = ew.add(left, ew.sqrt(ew.mul(ew.mul(u, ew.sub(right, left)), ew.sub(mode, left))))
  out2 = ew.sub(right, ew.sqrt(ew.mul(ew.mul(ew.sub(_c(u, 1), u), ew.sub(right, left)),
                                      ew.sub(right, mode))))
  return ew.select(ew.lt(u, fc), out1, out2)


# ----------------------------------------------------------------------------- matrices


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method: str = "cholesky",
                        out_sharding=None):
  """Samples of N(mean, cov); `method` ('cholesky', 'eigh' or 'svd') factors cov."""
  if method not in ("svd", "eigh", "cholesky"):
    raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
  rng = rnd.sampler_key(key, "multivariate_normal")
  dt = rnd.float_dtype(dtype, "multivariate_normal")
  mean, cov = convert_param(mean, dt), convert_param(cov, dt)
  m_shape, c_shape = tuple(core.get_aval(mean).shape), tuple(core.get_aval(cov).shape)
  if len(m_shape) < 1:
    raise ValueError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == "
                     f"{len(m_shape)}")
  if len(c_shape) < 2:
    raise ValueError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == "
                     f"{len(c_shape)}")
  n = m_shape[-1]
  if c_shape[-2:] != (n, n):
    raise ValueError(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, "
                     f"but got cov.shape == {c_shape}.")
  if shape is None:
    shape = np.broadcast_shapes(m_shape[:-1], c_shape[:-2])
  else:
    shape = check_shape("multivariate_normal", shape, m_shape[:-1], c_shape[:-2])
  return _multivariate_normal(rng, mean, cov, tuple(shape), method)


@partial(jit, static_argnums=(3, 4))
def _multivariate_normal(rng, mean, cov, shape, method):
  dt = core.get_aval(mean).dtype
  if method == "svd":
    u, s, _ = jnp_linalg.svd(cov)
    factor = ew.mul(u, _broadcast(lax_shape.expand_dims(ew.sqrt(s), (s.ndim - 1,)), u.shape))
  elif method == "eigh":
    w, v = jnp_linalg.eigh(cov)
    factor = ew.mul(v, _broadcast(lax_shape.expand_dims(ew.sqrt(w), (w.ndim - 1,)), v.shape))
  else:
    factor = jnp_linalg.cholesky(cov)
  n = core.get_aval(mean).shape[-1]
  z = rnd.normal_impl(rng, (*shape, n), dt)
  # factor @ z over the trailing axes, batch axes broadcast.
  full = (*shape, n, n)
  prod = ew.mul(_broadcast(factor, full),
                lax_shape.broadcast_in_dim(z, full, (*range(len(shape)), len(shape) + 1)))
  return ew.add(_broadcast(mean, (*shape, n)), reductions.reduce_sum(prod, (len(shape) + 1,)))


def orthogonal(key, n, shape=(), dtype=None, m=None, out_sharding=None):
  """Random matrices with orthonormal columns (or rows when n < m), shaped
  (*shape, n, m), distributed uniformly (Haar measure) when n == m."""
  rng = rnd.sampler_key(key, "orthogonal")
  dt = rnd.float_dtype(dtype, "orthogonal")
  n = int(core.concrete_value(n)) if isinstance(n, core.Tracer) else int(n)
  m = n if m is None else int(m)
  return _orthogonal(rng, n, m, rnd.canonical_shape(shape), dt)


@partial(jit, static_argnums=(1, 2, 3, 4))
def _orthogonal(rng, n, m, shape, dtype):
  z = rnd.normal_impl(rng, (*shape, max(n, m), min(n, m)), dtype)
  q, r = jnp_linalg.qr(z)
  idx = np.arange(min(n, m))
  d = r[..., idx, idx]
  sign = ew.div(d, ew.abs(d))
  q = ew.mul(q, _broadcast(lax_shape.expand_dims(sign, (len(shape),)), q.shape))
  if n < m:
    q = lax_shape.transpose(q, (*range(len(shape)), len(shape) + 1, len(shape)))
  return q


# ----------------------------------------------------------------------------- keys


def clone(key):
  """A key equal to `key` (keys are immutable values here, so it is the same key)."""
  return key


def key_impl(keys) -> str:
  """The name of the PRNG implementation behind `keys`."""
  rnd.key_data_and_wrap(keys)
  return rnd.key_impl_of(keys).name
