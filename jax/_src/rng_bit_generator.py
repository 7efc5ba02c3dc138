"""`lax.rng_bit_generator`: a stateless bit generator over an explicit key, returning the
next key with the bits.

Every algorithm is served by the threefry2x32 hash of this project's PRNG: the bits of a
given key are reproducible, and distinct from those of the returned key. (XLA leaves
the exact bits of RNG_DEFAULT to each backend.)
"""

from __future__ import annotations

import math
import operator
from typing import Sequence

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src import prng
from jax._src.lax import composites
from jax._src.lax import elementwise as ew
from jax._src.lax import shape as lax_shape
from jax._src.lax.utils import derived_primitive, place

_U32 = np.dtype(np.uint32)
_BITS_DTYPES = {np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64, np.int8,
                                      np.int16, np.int32, np.int64)}


def _words(key):
  """Two uint32 key words folded from a key of 2 or 4 words."""
  parts = composites.unstack(key, 0)
  if len(parts) == 2:
    return parts
  return ew.bitwise_xor(parts[0], parts[2]), ew.bitwise_xor(parts[1], parts[3])


def _hash(k1, k2, stream: int, n: int):
  """n pairs of hashed words of the counters (stream, 0..n-1)."""
  lo = lax_shape.iota(_U32, n)
  hi = lax_shape.full((n,), stream, _U32)
  return prng.threefry2x32(k1, k2, hi, lo)


def _rng_bit_generator(key, *, shape, dtype, algorithm):
  del algorithm  # one generator serves every algorithm (see the module docstring)
  k1, k2 = _words(key)
  n = math.prod(shape)
  key_len = core.get_aval(key).shape[0]
  nk1, nk2 = _hash(k1, k2, 1, key_len // 2)
  new_key = lax_shape.reshape(composites.stack([nk1, nk2], 1), (key_len,))
  b1, b2 = _hash(k1, k2, 0, n)
  unsigned = np.dtype(f"uint{dtype.itemsize * 8}")
  if dtype.itemsize == 8:
    hi = ew.convert_element_type(b1, unsigned)
    bits = ew.bitwise_or(ew.shift_left(hi, lax_shape.full_like(hi, 32)),
                         ew.convert_element_type(b2, unsigned))
  else:
    bits = ew.convert_element_type(ew.bitwise_xor(b1, b2), unsigned)
  if unsigned != dtype:
    bits = ew.bitcast_convert_type(bits, dtype)
  return [new_key, lax_shape.reshape(bits, tuple(shape))]


rng_bit_generator_p = derived_primitive("rng_bit_generator", _rng_bit_generator,
                                        multiple_results=True)


def rng_bit_generator(key, shape: Sequence[int], dtype=np.uint32,
                      algorithm=composites.RandomAlgorithm.RNG_DEFAULT, *, out_sharding=None):
  """(new_key, bits): `bits` of `shape` and integer `dtype` generated from `key` (uint32
  of 2 or 4 words), and the key to use next."""
  aval = core.get_aval(key)
  if aval.dtype != _U32 or aval.shape not in ((2,), (4,)):
    raise TypeError(f"rng_bit_generator expects a uint32[2] or uint32[4] key, got "
                    f"{aval.str_short(short_dtypes=True)}")
  dtype = np.dtype(dtype)
  if dtype not in _BITS_DTYPES:
    raise TypeError(f"rng_bit_generator: dtype must be an integer type, got {dtype}")
  shape = tuple(operator.index(d) for d in shape)
  if any(d < 0 for d in shape):
    raise ValueError(f"rng_bit_generator: negative dimension in shape {shape}")
  if dtypes.canonicalize_dtype(dtype) != dtype:
    raise TypeError(f"rng_bit_generator: {dtype} needs jax_enable_x64")
  new_key, bits = rng_bit_generator_p.bind(key, shape=shape, dtype=dtype,
                                           algorithm=composites.RandomAlgorithm(algorithm))
  return new_key, place(bits, out_sharding)
