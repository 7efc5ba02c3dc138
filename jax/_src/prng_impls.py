"""PRNG implementations as values (`jax.extend.random`): a key shape and the functions
seed, split, random_bits and fold_in over raw key data.

threefry2x32 is the default implementation behind jax.random's keys. The rbg
implementations draw bits with lax.rng_bit_generator; rbg splits and folds in with
threefry on each half of its key, unsafe_rbg with the generator itself (as in JAX). They
serve raw uint32[4] keys through their functions and typed keys of their own dtypes
through every jax.random function.
"""

from __future__ import annotations

import math

import numpy as np

from jax._src import core
from jax._src import prng
from jax._src import rng_bit_generator as rbg
from jax._src.lax import composites
from jax._src.lax import elementwise as ew
from jax._src.lax import shape as lax_shape


PRNGImpl = prng.PRNGImpl


def define_prng_impl(*, key_shape, seed, split, random_bits, fold_in, name="<unnamed>",
                     tag="?") -> PRNGImpl:
  """A PRNG implementation from its functions (key data of shape key_shape, uint32)."""
  for what, fn in (("seed", seed), ("split", split), ("random_bits", random_bits),
                   ("fold_in", fold_in)):
    if not callable(fn):
      raise TypeError(f"define_prng_impl: {what} must be callable, got {fn!r}")
  return PRNGImpl(tuple(key_shape), seed, split, random_bits, fold_in, name, tag)


threefry_prng_impl = prng.threefry_prng_impl


def _rbg_seed(seed):
  half = prng.threefry_seed(seed)
  return lax_shape.concatenate([half, half], 0)


def _rbg_halves(key):
  return lax_shape.slice(key, (0,), (2,)), lax_shape.slice(key, (2,), (4,))


def _rbg_split(key, shape):
  a, b = _rbg_halves(key)
  return lax_shape.concatenate([prng.threefry_split(a, shape), prng.threefry_split(b, shape)],
                               len(shape))


def _rbg_fold_in(key, data):
  a, b = _rbg_halves(key)
  return lax_shape.concatenate([prng.threefry_fold_in(a, data),
                                prng.threefry_fold_in(b, data)], 0)


def _rbg_random_bits(key, bit_width: int, shape):
  dtype = np.dtype(f"uint{bit_width}")
  _, bits = rbg.rng_bit_generator(key, tuple(shape), dtype)
  return bits


def _unsafe_rbg_split(key, shape):
  # Keys are every tenth row of the generator's output, as in JAX: ten rows of bits
  # stand in for a hash.
  num = math.prod(shape)
  _, rows = rbg.rng_bit_generator(key, (10 * num, 4), np.uint32)
  picked = lax_shape.slice(rows, (0, 0), (10 * num, 4), (10, 1))
  return lax_shape.reshape(picked, (*shape, 4))


def _unsafe_rbg_fold_in(key, data):
  _, rows = rbg.rng_bit_generator(_rbg_seed(data), (10, 4), np.uint32)
  return ew.bitwise_xor(key, lax_shape.reshape(lax_shape.slice(rows, (9, 0), (10, 4)), (4,)))


rbg_prng_impl = PRNGImpl((4,), _rbg_seed, _rbg_split, _rbg_random_bits, _rbg_fold_in,
                         "rbg", "rbg")
unsafe_rbg_prng_impl = PRNGImpl((4,), _rbg_seed, _unsafe_rbg_split, _rbg_random_bits,
                                _unsafe_rbg_fold_in, "unsafe_rbg", "urbg")


def _typed(impl: PRNGImpl, data):
  return prng.random_wrap(data, impl)


def seed_with_impl(impl: PRNGImpl, seed):
  """A typed key of implementation `impl` from an integer seed."""
  return _typed(impl, impl.seed(seed))


def random_seed(seeds, impl: PRNGImpl):
  """Typed keys of `impl`, one per entry of the integer array `seeds`."""
  shape = core.get_aval(seeds).shape
  if not shape:
    return seed_with_impl(impl, seeds)
  flat = lax_shape.reshape(seeds, (math.prod(shape),))
  keys = [impl.seed(s) for s in composites.unstack(flat, 0)]
  data = lax_shape.reshape(composites.stack(keys, 0), shape + tuple(impl.key_shape))
  return _typed(impl, data)


def threefry_2x32(keypair, count):
  """The threefry2x32 hash of the uint32 array `count` under the key (k1, k2): the flat
  counts are split in two halves hashed as pairs (an odd count is padded with a zero)."""
  k1, k2 = keypair
  count = ew.convert_element_type(count, np.uint32)
  shape = core.get_aval(count).shape
  n = math.prod(shape)
  flat = lax_shape.reshape(count, (n,))
  odd = n % 2
  if odd:
    flat = lax_shape.concatenate([flat, lax_shape.full((1,), 0, np.uint32)], 0)
  half = (n + odd) // 2
  x0 = lax_shape.slice(flat, (0,), (half,))
  x1 = lax_shape.slice(flat, (half,), (2 * half,))
  k1 = ew.convert_element_type(k1, np.uint32)
  k2 = ew.convert_element_type(k2, np.uint32)
  y0, y1 = prng.threefry2x32(k1, k2, x0, x1)
  out = lax_shape.concatenate([y0, y1], 0)
  if odd:
    out = lax_shape.slice(out, (0,), (n,))
  return lax_shape.reshape(out, shape)
