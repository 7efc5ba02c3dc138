"""`lax.rng_bit_generator`: a stateless bit generator over an explicit key, returning the
next key with the bits.

The streams are XLA's for its u64[2] state (a uint32[4] key is that state's words, low
word first): element 0 is the generator's key and element 1 its counter.
- Philox4x32 (10 rounds; RNG_DEFAULT on CPU and RNG_PHILOX): block b hashes the 128-bit
  counter (state[1] + b, state[0] plus the carry of that sum) under state[0]; the blocks'
  four words are the output's 32-bit words in order (pairs, low word first, for 64-bit
  outputs).
- Threefry2x32 (20 rounds; RNG_THREE_FRY): for 32-bit outputs the counters cover the output
  shape with one dimension halved (the first even one, else the largest) and each hash's
  two words interleave along it; 64-bit outputs take one counter per element.
The counter advances by the hashes used. 8- and 16-bit outputs are the low bits of 32-bit
words, as JAX generates them.
"""

from __future__ import annotations

import math
import operator
from typing import Sequence

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src import prng
from jax._src.interpreters import batching
from jax._src.lax import composites
from jax._src.lax import elementwise as ew
from jax._src.lax import shape as lax_shape
from jax._src.lax import slicing
from jax._src.lax.utils import derived_primitive, place

_U32 = np.dtype(np.uint32)
_U64 = np.dtype(np.uint64)
_BITS_DTYPES = {np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64)}
_PHILOX_MUL = (0xD2511F53, 0xCD9E8D57)
_PHILOX_WEYL = (0x9E3779B9, 0xBB67AE85)


def _state_words(key):
  """The four uint32 words (key lo, key hi, counter lo, counter hi) of a key."""
  if core.get_aval(key).dtype == _U64:
    mask = np.uint64(0xFFFFFFFF)
    out = []
    for part in composites.unstack(key, 0):
      out.append(ew.convert_element_type(ew.bitwise_and(part, mask), _U32))
      out.append(ew.convert_element_type(ew.shift_right_logical(part, np.uint64(32)), _U32))
    return out
  return composites.unstack(key, 0)


def _key_of_words(words, like_dtype):
  if like_dtype == _U64:
    lo, hi = ([ew.convert_element_type(w, _U64) for w in pair]
              for pair in (words[0::2], words[1::2]))
    return composites.stack([ew.bitwise_or(l, ew.shift_left(h, np.uint64(32)))
                             for l, h in zip(lo, hi)], 0)
  return composites.stack(words, 0)


def _add64(lo, hi, n):
  """(lo, hi) + n as a 64-bit sum of uint32 words (n < 2**32), and whether it wrapped."""
  new_lo = ew.add(lo, n)
  carry = ew.lt(new_lo, lo)
  new_hi = ew.add(hi, ew.convert_element_type(carry, _U32))
  return new_lo, new_hi, ew.bitwise_and(carry, ew.eq(new_hi, np.uint32(0)))


def _advance(words, count: int):
  """The key with its counter advanced by `count` hashes (the key words unchanged)."""
  lo, hi, _ = _add64(words[2], words[3], np.uint32(count))
  return [words[0], words[1], lo, hi]


def _philox_words(words, count: int):
  """The first `count` 32-bit words of the Philox stream, and the advanced key."""
  blocks = -(-count // 4)
  b = lax_shape.iota(_U32, blocks)
  ctr = [lax_shape.broadcast_in_dim(w, (blocks,), ()) for w in words]
  c0, c1, wrapped = _add64(ctr[2], ctr[3], b)
  c2, c3, _ = _add64(ctr[0], ctr[1], ew.convert_element_type(wrapped, _U32))
  x = [c0, c1, c2, c3]
  k0, k1 = words[0], words[1]
  m0, m1 = (lax_shape.full((blocks,), m, _U32) for m in _PHILOX_MUL)
  w0, w1 = (np.uint32(w) for w in _PHILOX_WEYL)
  for _ in range(10):
    hi0, lo0 = composites.mulhi(x[0], m0), ew.mul(x[0], m0)
    hi1, lo1 = composites.mulhi(x[2], m1), ew.mul(x[2], m1)
    x = [ew.bitwise_xor(ew.bitwise_xor(hi1, x[1]), k0), lo1,
         ew.bitwise_xor(ew.bitwise_xor(hi0, x[3]), k1), lo0]
    k0, k1 = ew.add(k0, w0), ew.add(k1, w1)
  stream = lax_shape.reshape(composites.stack(x, 1), (4 * blocks,))
  return lax_shape.slice(stream, (0,), (count,)), _advance(words, blocks)


def _threefry_counters(words, count: int):
  lo, hi, _ = _add64(*(lax_shape.broadcast_in_dim(w, (count,), ()) for w in words[2:]),
                     lax_shape.iota(_U32, count))
  return prng.threefry2x32(words[0], words[1], lo, hi)


def _threefry_words32(words, shape):
  """32-bit Threefry output of `shape` (XLA's halved-dimension layout), and the next key."""
  if not shape:
    y0, _ = _threefry_counters(words, 1)
    return lax_shape.reshape(y0, ()), _advance(words, 1)
  split = next((i for i, d in enumerate(shape) if d % 2 == 0), None)
  if split is None:
    split = max(range(len(shape)), key=lambda i: (shape[i], -i))
  half = list(shape)
  half[split] = (shape[split] + 1) // 2
  count = math.prod(half)
  y0, y1 = (lax_shape.reshape(y, tuple(half)) for y in _threefry_counters(words, count))
  both = composites.stack([y0, y1], split + 1)  # [..., half, 2, ...]: the words interleave
  doubled = list(half)
  doubled[split] *= 2
  both = lax_shape.reshape(both, tuple(doubled))
  return lax_shape.slice(both, (0,) * len(shape), tuple(shape)), _advance(words, count)


def _join64(lo, hi):
  return ew.bitwise_or(ew.convert_element_type(lo, _U64),
                       ew.shift_left(ew.convert_element_type(hi, _U64), np.uint64(32)))


def _rng_bit_generator(key, *, shape, dtype, algorithm):
  words = _state_words(key)
  n = math.prod(shape)
  if n == 0:
    return [key, lax_shape.full(shape, 0, dtype)]
  wide = dtype.itemsize == 8
  if algorithm == composites.RandomAlgorithm.RNG_THREE_FRY:
    if wide:
      y0, y1 = _threefry_counters(words, n)
      bits, words = lax_shape.reshape(_join64(y0, y1), shape), _advance(words, n)
    else:
      bits, words = _threefry_words32(words, shape)
  else:  # RNG_DEFAULT is Philox on CPU, as in XLA
    stream, words = _philox_words(words, 2 * n if wide else n)
    if wide:
      pairs = lax_shape.reshape(stream, (n, 2))
      lo, hi = (lax_shape.reshape(lax_shape.slice(pairs, (0, j), (n, j + 1)), (n,))
                for j in (0, 1))
      stream = _join64(lo, hi)
    bits = lax_shape.reshape(stream, shape)
  if bits.dtype != dtype:
    bits = ew.convert_element_type(bits, dtype)  # the low bits of 32-bit words
  return [_key_of_words(words, core.get_aval(key).dtype), bits]


rng_bit_generator_p = derived_primitive("rng_bit_generator", _rng_bit_generator,
                                        multiple_results=True)


def _batch_rule(axis, vals, dims, *, shape, dtype, algorithm):
  # JAX's rule: a batch of keys draws the whole batch's bits from its first key, which
  # alone advances (so batched rbg draws are not those of each key on its own).
  keys = vals[0]
  if dims[0] is batching.not_mapped:
    return rng_bit_generator_p.bind(keys, shape=shape, dtype=dtype, algorithm=algorithm), \
        [batching.not_mapped] * 2
  keys = batching.bdim_at_front(keys, dims[0], axis.size)
  new_key, bits = rng_bit_generator_p.bind(composites.index_in_dim(keys, 0, keepdims=False),
                                           shape=(axis.size, *shape), dtype=dtype,
                                           algorithm=algorithm)
  return [slicing.dynamic_update_index_in_dim(keys, new_key, 0), bits], [0, 0]


batching.batch_rules[rng_bit_generator_p] = _batch_rule


def rng_bit_generator(key, shape: Sequence[int], dtype=np.uint32,
                      algorithm=composites.RandomAlgorithm.RNG_DEFAULT, *, out_sharding=None):
  """(new_key, bits): `bits` of `shape` and unsigned `dtype` generated from `key` (uint32[4],
  or uint64[2] with x64), and the key to use next."""
  aval = core.get_aval(key)
  if not ((aval.dtype == _U32 and aval.shape == (4,)) or (aval.dtype == _U64 and aval.shape == (2,))):
    raise TypeError(f"rng_bit_generator expects a uint32[4] (or uint64[2]) key, got "
                    f"{aval.str_short(short_dtypes=True)}")
  dtype = np.dtype(dtype)
  if dtype not in _BITS_DTYPES:
    raise TypeError(f"rng_bit_generator: dtype must be an unsigned integer type, got {dtype}")
  shape = tuple(operator.index(d) for d in shape)
  if any(d < 0 for d in shape):
    raise ValueError(f"rng_bit_generator: negative dimension in shape {shape}")
  if dtypes.canonicalize_dtype(dtype) != dtype:
    raise TypeError(f"rng_bit_generator: {dtype} needs jax_enable_x64")
  new_key, bits = rng_bit_generator_p.bind(key, shape=shape, dtype=dtype,
                                           algorithm=composites.RandomAlgorithm(algorithm))
  return new_key, place(bits, out_sharding)
