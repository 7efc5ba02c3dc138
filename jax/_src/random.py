"""`jax.random`: keys and samplers over the PRNG implementations of jax/_src/prng.py
(threefry2x32 by default; rbg and unsafe_rbg in jax/_src/prng_impls.py).

Each sampler is the same sequence of lax operations JAX 0.10.2 uses, so the same
key gives the same bits and (through the same float expansions) the same values.
Samplers are jitted with their shape and dtype static, as in JAX.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Sequence

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src import prng
from jax._src import prng_impls
from jax._src.config import config
from jax._src.api import jit
from jax._src.lax import composites
from jax._src.lax import elementwise as ew
from jax._src.lax import reductions
from jax._src.lax import shape as lax_shape
from jax._src.lax import special
from jax._src.numpy import creation
from jax._src.execution import place_result
from jax._src.numpy.util import canonical_axis
from jax._src.lax import control_flow, sorting
from jax._src.numpy.sorting import searchsorted, take_onehot

# ----------------------------------------------------------------------------- keys


def key_data_and_wrap(key):
  """(raw key data, a function giving results the caller's key kind). Raw keys are uint32
  data of the default implementation's key shape (threefry2x32: uint32[..., 2])."""
  impl = key_impl_of(key)
  if prng.is_key(key):
    return prng.random_unwrap(key), lambda data: prng.random_wrap(data, impl)
  aval = core.get_aval(key)
  k = len(impl.key_shape)
  if aval.dtype != prng.UINT32 or tuple(aval.shape[aval.ndim - k:]) != impl.key_shape or (
      aval.ndim < k):
    raise TypeError(f"JAX encountered invalid PRNG key data: expected a uint32[..., "
                    f"{', '.join(map(str, impl.key_shape))}] key array or a typed key, got "
                    f"{aval.str_short(short_dtypes=True)}")
  return key, lambda x: x


def key_impl_of(key) -> prng.PRNGImpl:
  """The implementation of typed keys; raw keys are of the default implementation."""
  return key.dtype.impl if prng.is_key(key) else resolve_impl(None)


def single_key(key, name: str):
  data, wrap = key_data_and_wrap(key)
  key_shape = key_impl_of(key).key_shape
  if core.get_aval(data).shape != tuple(key_shape):
    raise TypeError(f"{name} accepts a single key, but was given a key array of shape "
                    f"{core.get_aval(data).shape[:-len(key_shape)]} != (). Use jax.vmap for "
                    "batching.")
  return data, wrap


def sampler_key(key, name: str):
  """The one typed key a sampler draws from: its bits and splits come from the key's
  implementation (raw keys are of the default one), as in JAX."""
  data, _ = single_key(key, name)
  return key if prng.is_key(key) else prng.random_wrap(data, key_impl_of(key))


def split_keys(rng, num: int):
  """`num` typed keys split from the typed key `rng`, by its implementation."""
  return prng.random_split(rng, (num,))


def key_row(keys, i: int):
  """Key i of a 1-D typed key array."""
  return composites.index_in_dim(keys, i, keepdims=False)


def _seed_array(seed):
  if isinstance(seed, int) and not isinstance(seed, bool):
    seed = np.int64(seed)  # large Python ints wrap (to int32 unless x64), as in JAX
  return creation.asarray(seed)


_IMPLS_BY_NAME = {impl.name: impl for impl in (prng.threefry_prng_impl, prng_impls.rbg_prng_impl,
                                               prng_impls.unsafe_rbg_prng_impl)}


def resolve_impl(spec) -> prng.PRNGImpl:
  """The implementation `spec` names: None (the `jax_default_prng_impl` option), a name
  ("threefry2x32", "rbg", "unsafe_rbg"), a PRNGImpl, or a key dtype."""
  if spec is None:
    spec = config.jax_default_prng_impl
  if isinstance(spec, prng.PRNGImpl):
    return spec
  if isinstance(spec, prng.KeyTy):
    return spec.impl
  if isinstance(spec, str):
    impl = _IMPLS_BY_NAME.get(spec)
    if impl is None:
      impl = next((i for i in _IMPLS_BY_NAME.values() if spec in (i.tag, f"key<{i.tag}>")),
                  None)
    if impl is not None:
      return impl
    raise ValueError(f"unrecognized PRNG implementation {spec!r}; known: "
                     f"{', '.join(_IMPLS_BY_NAME)}")
  raise TypeError(f"a PRNG implementation is a name, a PRNGImpl or a key dtype, got {spec!r}")


def _impl_of(impl, dtype) -> prng.PRNGImpl:
  if impl is not None and dtype is not None:
    raise ValueError("pass impl= or dtype=, not both")
  return resolve_impl(impl if dtype is None else dtype)


def PRNGKey(seed, *, impl=None) -> object:  # noqa: N802 (JAX name)
  """A raw key: the uint32 data (uint32[2] for threefry2x32) of a key from an integer seed."""
  impl = resolve_impl(impl)
  seed = _seed_array(seed)
  if core.get_aval(seed).shape:
    raise TypeError(f"PRNGKey accepts a scalar seed, but was given an array of shape "
                    f"{core.get_aval(seed).shape}. Use jax.vmap for batching.")
  return impl.seed(seed)


def key_dtype(impl_spec=None):
  """The dtype of typed keys of the implementation `impl_spec` (default threefry2x32)."""
  return prng.KeyTy(resolve_impl(impl_spec))


_place = place_result


def key(seed, *, impl=None, dtype=None) -> prng.PRNGKeyArray:
  """A typed key (dtype key<fry> for threefry2x32, shape ()) from an integer seed."""
  impl = _impl_of(impl, dtype)
  return prng.random_wrap(PRNGKey(seed, impl=impl), impl)


def key_data(keys):
  """The uint32 data of typed keys (raw keys are returned as they are)."""
  if prng.is_key(keys):
    return prng.random_unwrap(keys)
  data, _ = key_data_and_wrap(keys)
  return data


def wrap_key_data(key_bits_array, *, impl=None, dtype=None) -> prng.PRNGKeyArray:
  impl = _impl_of(impl, dtype)
  if prng.is_key(key_bits_array):
    raise TypeError("wrap_key_data takes uint32 key data, got typed keys "
                    f"({key_bits_array.dtype}); jax.random.key_data gives their data")
  return prng.random_wrap(creation.asarray(key_bits_array), impl)


def split(key, num: int | Sequence[int] = 2):
  """`num` new keys (shape `num`, or the shape tuple `num`)."""
  data, wrap = single_key(key, "split")
  shape = (int(num),) if isinstance(num, (int, np.integer)) else tuple(int(n) for n in num)
  return wrap(_split(data, shape, key_impl_of(key)))


@partial(jit, static_argnums=(1, 2))
def _split(data, shape, impl):
  return impl.split(data, shape)


def fold_in(key, data):
  """A new key from `key` and the integer `data`."""
  raw, wrap = single_key(key, "fold_in")
  return wrap(_fold_in(raw, ew.convert_element_type(data, prng.UINT32), key_impl_of(key)))


@partial(jit, static_argnums=(2,))
def _fold_in(raw, data, impl):
  return impl.fold_in(raw, data)


def canonical_shape(shape) -> tuple:
  if shape is None:
    return ()
  return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)


def float_dtype(dtype, name: str) -> np.dtype:
  dt = dtypes.canonicalize_dtype(float if dtype is None else dtype)
  if not dtypes.is_inexact(dt) or dtypes.is_complex(dt):
    raise ValueError(f"dtype argument to `{name}` must be a float dtype, got {np.dtype(dt).name}")
  return np.dtype(dt)


# ----------------------------------------------------------------------------- bits and uniform


def bits(key, shape=(), dtype=None, *, out_sharding=None):
  """Uniform random unsigned integers (all bits random)."""
  data, _ = single_key(key, "bits")
  dt = np.dtype(dtypes.canonicalize_dtype(np.uint32 if dtype is None else dtype))
  if dt.kind != "u":
    raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dt.name}")
  return _place(_bits(data, canonical_shape(shape), dt.itemsize * 8, key_impl_of(key)),
                out_sharding)


@partial(jit, static_argnums=(1, 2, 3))
def _bits(data, shape, width, impl):
  return impl.random_bits(data, width, shape)


def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0, *, out_sharding=None):
  """Floats uniform in [minval, maxval)."""
  rng = sampler_key(key, "uniform")
  dt = float_dtype(dtype, "uniform")
  return _place(_uniform(rng, canonical_shape(shape), dt, minval, maxval), out_sharding)


@partial(jit, static_argnums=(1, 2))
def _uniform(rng, shape, dtype, minval, maxval):
  return uniform_impl(rng, shape, dtype, minval, maxval)


def uniform_impl(rng, shape, dtype, minval, maxval):
  finfo = dtypes.finfo(dtype)
  nbits, nmant = finfo.bits, finfo.nmant
  rng_bits = 8 if nmant < 8 else nbits
  uint = prng.UINT_DTYPES[nbits]
  minval = lax_shape.broadcast_to_rank(ew.convert_element_type(minval, dtype), len(shape))
  maxval = lax_shape.broadcast_to_rank(ew.convert_element_type(maxval, dtype), len(shape))
  raw = prng.random_bits(rng, rng_bits, shape)
  if rng_bits != nbits:
    raw = ew.convert_element_type(raw, uint)
  float_bits = ew.bitwise_or(
      ew.shift_right_logical(raw, lax_shape.full_like(raw, rng_bits - nmant)),
      lax_shape.full_like(raw, np.array(1.0, dtype).view(uint)))
  floats = ew.sub(ew.bitcast_convert_type(float_bits, dtype), lax_shape.full_like(raw, 1, dtype))
  # minval and maxval broadcast against each other and `shape`, as JAX's arithmetic does.
  minval, maxval = broadcast_param(minval, shape), broadcast_param(maxval, shape)
  scaled = ew.add(ew.mul(floats, ew.sub(maxval, minval)), minval)
  return ew.max(minval, lax_shape.reshape(scaled, shape))


def broadcast_param(x, shape):
  """Broadcast `x` (already of rank len(shape), or a scalar) to `shape`."""
  aval = core.get_aval(x)
  if aval.shape == tuple(shape):
    return x
  if aval.ndim == 0:
    return lax_shape.broadcast_in_dim(x, tuple(shape), ())
  keep = [i for i, d in enumerate(aval.shape) if d != 1 or shape[i] == 1]
  squeezed = lax_shape.reshape(x, tuple(aval.shape[i] for i in keep))
  return lax_shape.broadcast_in_dim(squeezed, tuple(shape), tuple(keep))


def broadcast_trailing(x, shape):
  """`x` broadcast (numpy rules, trailing axes aligned) to `shape`."""
  return broadcast_param(lax_shape.broadcast_to_rank(x, len(shape)), tuple(shape))


# ----------------------------------------------------------------------------- normal family


def normal(key, shape=(), dtype=None, *, out_sharding=None):
  """Standard normal draws; for a complex dtype, real and imaginary parts are
  independent normals of variance 1/2 (drawn from the two halves of a split key)."""
  rng = sampler_key(key, "normal")
  dt = dtypes.canonicalize_dtype(float if dtype is None else dtype)
  if not dtypes.is_complex(dt):
    dt = float_dtype(dt, "normal")
  return _place(_normal(rng, canonical_shape(shape), np.dtype(dt)), out_sharding)


@partial(jit, static_argnums=(1, 2))
def _normal(rng, shape, dtype):
  if dtypes.is_complex(dtype):
    real = np.dtype(np.finfo(dtype).dtype)
    halves = split_keys(rng, 2)
    re, im = (ew.convert_element_type(normal_impl(key_row(halves, i), shape, real), dtype)
              for i in (0, 1))
    both = ew.add(re, ew.mul(lax_shape.full_like(im, np.array(1j, dtype)), im))
    return ew.div(both, lax_shape.full_like(both, np.array(np.sqrt(2), dtype)))
  return normal_impl(rng, shape, dtype)


def normal_impl(rng, shape, dtype):
  lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
  u = uniform_impl(rng, shape, dtype, lo, np.array(1.0, dtype))
  return ew.mul(lax_shape.full_like(u, np.sqrt(2)), special.erf_inv(u))


def truncated_normal(key, lower=-2.0, upper=2.0, shape=None, dtype=None, *, out_sharding=None):
  rng = sampler_key(key, "truncated_normal")
  dt = float_dtype(dtype, "truncated_normal")
  if shape is None:
    shape = np.broadcast_shapes(np.shape(lower), np.shape(upper))
  return _place(_truncated_normal(rng, lower, upper, canonical_shape(shape), dt), out_sharding)


@partial(jit, static_argnums=(3, 4))
def _truncated_normal(rng, lower, upper, shape, dtype):
  sqrt2 = np.array(np.sqrt(2), dtype)
  lower = ew.convert_element_type(lower, dtype)
  upper = ew.convert_element_type(upper, dtype)
  a = ew.erf(ew.div(lower, sqrt2))
  b = ew.erf(ew.div(upper, sqrt2))
  u = uniform_impl(rng, shape, dtype, a, b)
  out = ew.mul(lax_shape.full_like(u, sqrt2), special.erf_inv(u))
  lo = broadcast_trailing(special.nextafter(lower, np.array(np.inf, dtype)), shape)
  hi = broadcast_trailing(special.nextafter(upper, np.array(-np.inf, dtype)), shape)
  return ew.min(ew.max(out, lo), hi)


# ----------------------------------------------------------------------------- integers and bools


def bernoulli(key, p=0.5, shape=None, mode: str = "low", *, out_sharding=None):
  rng = sampler_key(key, "bernoulli")
  dt = np.dtype(dtypes.canonicalize_dtype(core.get_aval(p).dtype))
  if not dtypes.is_inexact(dt):
    raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dt.name}")
  p = ew.convert_element_type(p, dt)
  shape = tuple(core.get_aval(p).shape) if shape is None else canonical_shape(shape)
  _check_mode(mode)
  if mode == "high":
    return _place(_bernoulli_high(rng, p, shape), out_sharding)
  return _place(bernoulli_impl(rng, p, shape), out_sharding)


def _check_mode(mode) -> None:
  if mode not in (None, "low", "high"):
    raise ValueError(f"mode must be 'low' or 'high', got {mode!r}")


def _uniform_high(rng, shape, dtype):
  """Uniform draws with about twice the mantissa bits: a coarse draw plus a second one
  scaled into its lowest step, so probabilities far below 2**-nmant are resolved."""
  keys = split_keys(rng, 2)
  k1 = key_row(keys, 0)
  k2 = key_row(keys, 1)
  hi = uniform_impl(k1, shape, dtype, 0.0, 1.0)
  lo = uniform_impl(k2, shape, dtype, 0.0, 1.0)
  step = float(2.0 ** -dtypes.finfo(dtype).nmant)
  return ew.add(hi, ew.mul(lo, lax_shape.full_like(lo, step)))


@partial(jit, static_argnums=(2,))
def _bernoulli_high(rng, p, shape):
  dt = core.get_aval(p).dtype
  u = _uniform_high(rng, shape, dt)
  return ew.lt(u, broadcast_trailing(p, shape))


@partial(jit, static_argnums=(2,))
def bernoulli_impl(rng, p, shape):
  dt = core.get_aval(p).dtype
  u = uniform_impl(rng, shape, dt, 0.0, 1.0)
  return ew.lt(u, broadcast_trailing(p, shape))


def rademacher(key, shape=(), dtype=None, *, out_sharding=None):
  rng = sampler_key(key, "rademacher")
  dt = np.dtype(dtypes.canonicalize_dtype(int if dtype is None else dtype))
  b = ew.convert_element_type(bernoulli_impl(rng, ew.convert_element_type(
      0.5, dtypes.canonicalize_dtype(float)), canonical_shape(shape)), dt)
  return _place(ew.sub(ew.mul(b, lax_shape.full_like(b, 2)), lax_shape.full_like(b, 1)),
                out_sharding)


def _convert_and_clip_integer(val, dtype):
  val_dtype = core.get_aval(val).dtype
  info, vinfo = np.iinfo(dtype), np.iinfo(val_dtype)
  lo = lax_shape.full_like(val, max(info.min, vinfo.min))
  hi = lax_shape.full_like(val, min(info.max, vinfo.max))
  return ew.convert_element_type(ew.min(ew.max(val, lo), hi), dtype)


def randint(key, shape, minval, maxval, dtype=None, *, out_sharding=None):
  """Integers uniform in [minval, maxval)."""
  rng = sampler_key(key, "randint")
  dt = np.dtype(dtypes.canonicalize_dtype(int if dtype is None else dtype))
  if dt.kind not in "iu":
    raise TypeError(f"randint only accepts integer dtypes, got {dt.name}")
  minval, maxval = creation.asarray(minval), creation.asarray(maxval)
  if not dtypes.is_integer(minval.dtype):
    minval = ew.convert_element_type(minval, dtypes.canonicalize_dtype(int))
  if not dtypes.is_integer(maxval.dtype):
    maxval = ew.convert_element_type(maxval, dtypes.canonicalize_dtype(int))
  return _place(_randint(rng, canonical_shape(shape), minval, maxval, dt), out_sharding)


@partial(jit, static_argnums=(1, 4))
def _randint(rng, shape, minval, maxval, dtype):
  maxval_out_of_range = ew.gt(maxval, _convert_and_clip_integer(
      ew.convert_element_type(np.iinfo(dtype).max, dtype), core.get_aval(maxval).dtype))
  minval = broadcast_trailing(_convert_and_clip_integer(minval, dtype), shape)
  maxval = broadcast_trailing(_convert_and_clip_integer(maxval, dtype), shape)
  maxval_out_of_range = broadcast_trailing(maxval_out_of_range, shape)
  nbits = max(np.iinfo(dtype).bits, 32)  # narrow dtypes draw 32-bit words, as JAX does
  keys = split_keys(rng, 2)
  k1 = key_row(keys, 0)
  k2 = key_row(keys, 1)
  higher = prng.random_bits(k1, nbits, shape)
  lower = prng.random_bits(k2, nbits, shape)
  unsigned = prng.UINT_DTYPES[nbits]
  span = ew.convert_element_type(ew.sub(maxval, minval), unsigned)
  one = lax_shape.full_like(span, 1)
  span = ew.select(ew.le(maxval, minval), one, span)
  span = ew.select(ew.bitwise_and(maxval_out_of_range, ew.gt(maxval, minval)),
                   ew.add(span, one), span)
  multiplier = ew.rem(lax_shape.full_like(span, 2 ** (nbits // 2)), span)
  multiplier = ew.rem(ew.mul(multiplier, multiplier), span)
  offset = ew.add(ew.mul(ew.rem(higher, span), multiplier), ew.rem(lower, span))
  offset = ew.rem(offset, span)
  return ew.add(minval, ew.convert_element_type(offset, dtype))


# ----------------------------------------------------------------------------- other distributions


def exponential(key, shape=(), dtype=None, *, out_sharding=None):
  rng = sampler_key(key, "exponential")
  dt = float_dtype(dtype, "exponential")
  u = _uniform(rng, canonical_shape(shape), dt, 0.0, 1.0)
  return _place(ew.neg(ew.log1p(ew.neg(u))), out_sharding)


def gumbel(key, shape=(), dtype=None, mode="low", *, out_sharding=None):
  rng = sampler_key(key, "gumbel")
  dt = float_dtype(dtype, "gumbel")
  _check_mode(mode)
  if mode == "high":
    return _place(_gumbel_high(rng, canonical_shape(shape), dt), out_sharding)
  return _place(_gumbel(rng, canonical_shape(shape), dt), out_sharding)


@partial(jit, static_argnums=(1, 2))
def _gumbel_high(rng, shape, dtype):
  u = ew.max(_uniform_high(rng, shape, dtype), lax_shape.full(shape, dtypes.finfo(dtype).tiny, dtype))
  return ew.neg(ew.log(ew.neg(ew.log(u))))


@partial(jit, static_argnums=(1, 2))
def _gumbel(rng, shape, dtype):
  u = uniform_impl(rng, shape, dtype, dtypes.finfo(dtype).tiny, 1.0)
  return ew.neg(ew.log(ew.neg(ew.log(u))))


def laplace(key, shape=(), dtype=None, *, out_sharding=None):
  rng = sampler_key(key, "laplace")
  dt = float_dtype(dtype, "laplace")
  lo = np.nextafter(np.array(-1.0, dt), np.array(0.0, dt), dtype=dt)
  u = _uniform(rng, canonical_shape(shape), dt, lo, 1.0)
  return _place(ew.mul(ew.sign(u), ew.log1p(ew.neg(ew.abs(u)))), out_sharding)


def logistic(key, shape=(), dtype=None, *, out_sharding=None):
  rng = sampler_key(key, "logistic")
  dt = float_dtype(dtype, "logistic")
  x = _uniform(rng, canonical_shape(shape), dt, dtypes.finfo(dt).tiny, 1.0)
  return _place(ew.log(ew.div(x, ew.sub(lax_shape.full_like(x, 1), x))), out_sharding)


def cauchy(key, shape=(), dtype=None, *, out_sharding=None):
  rng = sampler_key(key, "cauchy")
  dt = float_dtype(dtype, "cauchy")
  u = _uniform(rng, canonical_shape(shape), dt, dtypes.finfo(dt).eps, 1.0)
  pi = lax_shape.full_like(u, np.pi)
  return _place(ew.tan(ew.mul(pi, ew.sub(u, lax_shape.full_like(u, 0.5)))), out_sharding)


def categorical(key, logits, axis: int = -1, shape=None, replace: bool = True, mode=None, *,
                out_sharding=None):
  """Samples of category indices with log-probabilities `logits` along `axis`."""
  rng = sampler_key(key, "categorical")
  logits = creation.asarray(logits)
  nd = logits.ndim
  if axis >= 0:
    axis -= nd
  batch_shape = tuple(np.delete(np.array(logits.shape, dtype=int), axis))
  shape = batch_shape if shape is None else canonical_shape(shape)
  if shape[len(shape) - len(batch_shape):] != batch_shape:
    raise ValueError(f"categorical: shape {shape} is not compatible with the logits batch "
                     f"shape {batch_shape}")
  _check_mode(mode)
  gumbel_fn = _gumbel_high if mode == "high" else _gumbel
  prefix = shape[:len(shape) - len(batch_shape)]
  if not replace:
    return _place(_categorical_distinct(rng, logits, axis % nd, prefix, gumbel_fn),
                  out_sharding)
  logits_shape = list(shape[len(shape) - len(batch_shape):])
  logits_shape.insert(axis % nd, logits.shape[axis])
  g = gumbel_fn(rng, (*prefix, *logits_shape), np.dtype(logits.dtype))
  expanded = lax_shape.reshape(logits, (1,) * len(prefix) + tuple(logits.shape)) \
      if prefix else logits
  total = ew.add(g, broadcast_param(expanded, tuple(core.get_aval(g).shape)))
  return _place(reductions.argmax(total, axis % (len(prefix) + nd), np.dtype(
      dtypes.canonicalize_dtype(int))), out_sharding)


def _categorical_distinct(rng, logits, axis: int, prefix: tuple, gumbel_fn):
  """prod(prefix) distinct categories per batch element (Gumbel top-k), shaped
  (*prefix, *batch)."""
  k = math.prod(prefix)
  n = logits.shape[axis]
  if k > n:
    raise ValueError(f"Number of samples without replacement ({k}) cannot exceed the number "
                     f"of categories ({n}).")
  g = ew.add(gumbel_fn(rng, tuple(logits.shape), np.dtype(logits.dtype)), logits)
  perm = (*[i for i in range(logits.ndim) if i != axis], axis)
  _, idx = sorting.top_k(lax_shape.transpose(g, perm), k)  # (*batch, k)
  batch = tuple(logits.shape[i] for i in perm[:-1])
  idx = lax_shape.transpose(idx, (len(batch), *range(len(batch))))  # (k, *batch)
  return ew.convert_element_type(lax_shape.reshape(idx, (*prefix, *batch)),
                                 dtypes.canonicalize_dtype(int))


# ----------------------------------------------------------------------------- permutations


def _shuffle_rounds(size: int) -> int:
  # Enough rounds of sorting by random 32-bit keys that key collisions are unlikely
  # (an exponent of 3 on the number of elements), as JAX does.
  return int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))


def _shuffle(rng, x, axis: int, key_shape=None):
  """Permute `x` along `axis` by repeated stable sorts on random keys.

  With `key_shape` (x.shape[axis],) every slice along `axis` gets the same permutation
  (the keys are broadcast); otherwise each element has its own key.
  """
  shape = core.get_aval(x).shape
  key_shape = shape if key_shape is None else key_shape
  for _ in range(_shuffle_rounds(math.prod(key_shape))):
    keys = split_keys(rng, 2)
    rng = key_row(keys, 0)
    subkey = key_row(keys, 1)
    sort_keys = prng.random_bits(subkey, 32, key_shape)
    if tuple(key_shape) != tuple(shape):
      sort_keys = lax_shape.broadcast_in_dim(sort_keys, shape, (axis,))
    _, x = sorting.sort_key_val(sort_keys, x, axis)
  return x


@partial(jit, static_argnums=(2, 3))
def _permute(rng, x, axis, independent):
  key_shape = None if independent else (core.get_aval(x).shape[axis],)
  return _shuffle(rng, x, axis, key_shape)


def permutation(key, x, axis: int = 0, independent: bool = False, *, out_sharding=None):
  """A random permutation of `x` along `axis` (or of arange(x) for an integer x)."""
  rng = sampler_key(key, "permutation")
  if isinstance(x, (int, np.integer)) or (np.ndim(x) == 0 and not isinstance(x, core.Tracer)
                                         and not hasattr(x, "aval")):
    n = int(x)
    if n < 0:
      raise ValueError(f"permutation of a negative length {n}")
    return _place(_permute(rng, creation.arange(n), 0, True), out_sharding)
  x = creation.asarray(x)
  if x.ndim == 0:
    if not dtypes.is_integer(x.dtype):
      raise TypeError("x must be an integer or at least 1-dimensional")
    return permutation(key, int(core.concrete_value(x)), axis, independent,
                       out_sharding=out_sharding)
  axis = canonical_axis(int(axis), x.ndim)
  return _place(_permute(rng, x, axis, bool(independent) or x.ndim == 1), out_sharding)


def choice(key, a, shape=(), replace: bool = True, p=None, axis: int = 0, mode=None):
  """Random samples from `a` (or arange(a)), with or without replacement, weighted by p.

  `mode` ('low' or 'high') is accepted for JAX's signature; draws use 'low' precision."""
  rng = sampler_key(key, "choice")
  _check_mode(mode)
  shape = canonical_shape(shape)
  arr = creation.asarray(a)
  if arr.ndim == 0:
    n_inputs = int(core.concrete_value(arr))
  else:
    axis = canonical_axis(int(axis), arr.ndim)
    n_inputs = arr.shape[axis]
  n_draws = math.prod(shape)
  if n_draws == 0:
    return lax_shape.full(shape, 0, arr.dtype)
  if n_inputs <= 0:
    raise ValueError("a must be greater than 0 unless no samples are taken")
  if not replace and n_draws > n_inputs:
    raise ValueError(f"Cannot take a larger sample (size {n_draws}) than population "
                     f"(size {n_inputs}) when 'replace=False'")
  out_shape = shape if arr.ndim == 0 else arr.shape[:axis] + shape + arr.shape[axis + 1:]
  if p is None and not replace:
    result = permutation(key, n_inputs if arr.ndim == 0 else arr, axis)
    if arr.ndim == 0:
      result = lax_shape.slice(result, (0,), (n_draws,))
    else:
      result = lax_shape.slice(result, (0,) * arr.ndim,
                               arr.shape[:axis] + (n_draws,) + arr.shape[axis + 1:])
    return lax_shape.reshape(result, out_shape)
  ind = _choice_indices(rng, shape, n_inputs, replace, p)
  if arr.ndim == 0:
    return lax_shape.reshape(ind, shape)
  return lax_shape.reshape(take_onehot(arr, lax_shape.reshape(ind, (n_draws,)), axis),
                           out_shape)


def _choice_indices(rng, shape, n_inputs, replace, p):
  int_dtype = dtypes.canonicalize_dtype(int)
  if p is None:  # with replacement
    return _randint(rng, shape, creation.asarray(0), creation.asarray(n_inputs),
                    np.dtype(int_dtype))
  p_arr = creation.asarray(p)
  if p_arr.shape != (n_inputs,):
    raise ValueError(f"p must be None or a 1D vector with the same size as a.shape[axis]; "
                     f"got p.shape={p_arr.shape} for {n_inputs} inputs")
  return _weighted_indices(rng, p_arr, shape, bool(replace))


@partial(jit, static_argnums=(2, 3))
def _weighted_indices(rng, p, shape, replace):
  int_dtype = dtypes.canonicalize_dtype(int)
  dtype = core.get_aval(p).dtype
  n = core.get_aval(p).shape[0]
  if replace:
    # Inverse-CDF sampling: the first cumulative weight above a uniform draw.
    p_cuml = control_flow.associative_scan(ew.add, p)
    total = lax_shape.reshape(lax_shape.slice(p_cuml, (n - 1,), (n,)), ())
    u = uniform_impl(rng, shape, dtype, 0.0, 1.0)
    r = ew.mul(lax_shape.broadcast_in_dim(total, shape, ()), ew.sub(lax_shape.full_like(u, 1), u))
    return ew.convert_element_type(searchsorted(p_cuml, r), int_dtype)
  # Without replacement: the k largest of log(p) plus Gumbel noise (Gumbel top-k).
  g = ew.add(ew.neg(_gumbel_impl(rng, (n,), dtype)), ew.neg(ew.log(p)))
  k = math.prod(shape)
  ind = sorting.top_k(ew.neg(g), k)[1]
  return lax_shape.reshape(ew.convert_element_type(ind, int_dtype), shape)


def _gumbel_impl(rng, shape, dtype):
  u = uniform_impl(rng, shape, dtype, dtypes.finfo(dtype).tiny, 1.0)
  return ew.neg(ew.log(ew.neg(ew.log(u))))
