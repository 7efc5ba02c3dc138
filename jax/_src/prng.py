"""The threefry2x32 PRNG: keys, the hash primitive, seeding, splitting, random bits.

Bit-identical to JAX 0.10.2's implementation (`threefry2x32`): a key is two uint32
words; `fold_in` hashes the counter (0, data). With `jax_threefry_partitionable` on
(the default), `split` and `random_bits` hash a counter per output element (its flat
index as the 64-bit pair (hi, lo)); off, they hash the flat stream 0, 1, 2, ... of
uint32 counters, its first half paired with its second (JAX before 0.5).

Typed keys (`jax.random.key`) have the extended dtype `KeyTy` (`key<fry>`): arrays of
it are `PRNGKeyArray` leaves holding their uint32[..., 2] data, and tracers of it pass
through jit, vmap, control flow and the shape operations as keys. `random_wrap` and
`random_unwrap` convert between keys and their data; before lowering, jaxprs are
rewritten to the data (interpreters/physical.py).
"""

from __future__ import annotations

import math
from typing import Callable, NamedTuple, Sequence

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src import execution
from jax._src.config import config
from jax._src.core import ShapedArray
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.interpreters import physical
from jax._src.lax import elementwise as ew
# Registers how lax's structural operations act on key data.
from jax._src.lax import extended_dtype_rules  # noqa: F401
from jax._src.lax import shape as lax_shape
from jax._src.lax.utils import standard_primitive
from jax._src.lowering import hlo
from jax._src.array import Array as _Array
from jax._src.sharding import NamedSharding, PartitionSpec, Shard

UINT32 = np.dtype(np.uint32)

# ----------------------------------------------------------------------------- threefry2x32


def _threefry_abstract_eval(k1, k2, x0, x1):
  avals = (k1, k2, x0, x1)
  if any(a.dtype != UINT32 for a in avals):
    raise TypeError("threefry2x32 takes uint32 operands, got "
                    + ", ".join(a.str_short(short_dtypes=True) for a in avals))
  if len({a.shape for a in avals}) != 1:
    raise TypeError("threefry2x32 operands must have one shape, got "
                    + ", ".join(a.str_short(short_dtypes=True) for a in avals))
  out = ShapedArray(x0.shape, UINT32)
  return [out, out]


threefry2x32_p = standard_primitive("threefry2x32", _threefry_abstract_eval, multiple_results=True)

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def _rotate_left(x, d: int):
  c = lambda v: lax_shape.full_like(x, v)
  return ew.bitwise_or(ew.shift_left(x, c(d)), ew.shift_right_logical(x, c(32 - d)))


def _threefry_expansion(k1, k2, x0, x1):
  """20 rounds of Threefry-2x32 (Salmon et al. 2011), key injection every 4 rounds."""
  ks = [k1, k2, ew.bitwise_xor(ew.bitwise_xor(k1, k2), lax_shape.full_like(k1, 0x1BD11BDA))]
  x = [ew.add(x0, ks[0]), ew.add(x1, ks[1])]
  for i in range(5):
    for r in _ROTATIONS[i % 2]:
      x[0] = ew.add(x[0], x[1])
      x[1] = ew.bitwise_xor(x[0], _rotate_left(x[1], r))
    x[0] = ew.add(x[0], ks[(i + 1) % 3])
    x[1] = ew.add(ew.add(x[1], ks[(i + 2) % 3]), lax_shape.full_like(x[1], i + 1))
  return x


def _threefry_batch(axis, vals, dims):
  moved = [batching.bdim_at_front(v, d, axis.size) for v, d in zip(vals, dims)]
  return threefry2x32_p.bind(*moved), [0, 0]


ad.defjvp_zero(threefry2x32_p)
batching.batch_rules[threefry2x32_p] = _threefry_batch
hlo.lowering_rules[threefry2x32_p] = hlo.lower_fun(_threefry_expansion, multiple_results=True)


def threefry2x32(k1, k2, x0, x1):
  """Hash the counter pairs (x0, x1) under the key (k1, k2); broadcasts its operands."""
  shape = core.get_aval(x0).shape
  if math.prod(shape) == 0:  # nothing to hash (and no module to compile)
    return [lax_shape.full(shape, 0, UINT32)] * 2
  args = [lax_shape.broadcast_in_dim(a, shape, ()) if core.get_aval(a).shape != shape else a
          for a in (k1, k2, x0, x1)]
  return threefry2x32_p.bind(*args)


# ----------------------------------------------------------------------------- key operations


def _u32(x):
  return ew.convert_element_type(x, UINT32)


def _key_words(key):
  """The two uint32 scalars of a raw key uint32[2]."""
  aval = core.get_aval(key)
  if aval.shape != (2,) or aval.dtype != UINT32:
    raise TypeError(f"a PRNG key is a uint32[2] array (or a typed key), got {aval.str_short(short_dtypes=True)}")
  k1 = lax_shape.reshape(lax_shape.slice(key, (0,), (1,)), ())
  k2 = lax_shape.reshape(lax_shape.slice(key, (1,), (2,)), ())
  return k1, k2


def _counters(shape: Sequence[int]):
  """(hi, lo) words of each element's flat index: the 64-bit iota split in two."""
  n = math.prod(shape)
  if n >= 2 ** 32:
    raise NotImplementedError("random arrays of 2**32 or more elements are not supported yet")
  lo = lax_shape.reshape(lax_shape.iota(UINT32, n), tuple(shape)) if shape else \
      lax_shape.full((), 0, UINT32)
  return lax_shape.full_like(lo, 0), lo


def threefry_seed(seed):
  """uint32[2] key of an integer seed: (high 32 bits, low 32 bits)."""
  aval = core.get_aval(seed)
  if aval.shape:
    raise TypeError(f"PRNGKey accepts a scalar seed, but was given an array of shape "
                    f"{aval.shape}. Use jax.vmap for batching.")
  if not dtypes.is_integer(aval.dtype) or aval.dtype == dtypes.bool_:
    raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
  if aval.dtype.itemsize == 8:
    hi = _u32(ew.shift_right_logical(seed, lax_shape.full_like(seed, 32)))
  else:
    hi = lax_shape.full((), 0, UINT32)
  lo = _u32(seed)
  return lax_shape.concatenate([lax_shape.reshape(hi, (1,)), lax_shape.reshape(lo, (1,))], 0)


def _hash_stream(k1, k2, n: int):
  """The legacy counter stream: uint32 counters 0..n-1 and a 0 after them when n is odd,
  the first half hashed paired with the second, the two results one after the other,
  cut back to n words."""
  if n >= 2 ** 32:
    raise NotImplementedError("random arrays of 2**32 or more words are not supported yet")
  half = (n + 1) // 2
  counts = lax_shape.iota(UINT32, n)
  if n % 2:
    counts = lax_shape.concatenate([counts, lax_shape.full((1,), 0, UINT32)], 0)
  b1, b2 = threefry2x32(k1, k2, lax_shape.slice(counts, (0,), (half,)),
                        lax_shape.slice(counts, (half,), (2 * half,)))
  return lax_shape.slice(lax_shape.concatenate([b1, b2], 0), (0,), (n,))


def _partitionable() -> bool:
  return bool(config.read("jax_threefry_partitionable"))


def threefry_split(key, shape: Sequence[int]):
  """uint32[*shape, 2]: the keys hashed from counters 0..n-1."""
  k1, k2 = _key_words(key)
  if not _partitionable():
    return lax_shape.reshape(_hash_stream(k1, k2, 2 * math.prod(shape)), (*shape, 2))
  hi, lo = _counters(shape)
  b1, b2 = threefry2x32(k1, k2, hi, lo)
  nd = len(shape)
  b1 = lax_shape.reshape(b1, (*shape, 1))
  b2 = lax_shape.reshape(b2, (*shape, 1))
  return lax_shape.concatenate([b1, b2], nd)


def threefry_fold_in(key, data):
  """Hash of the counter (0, data) under `key`."""
  k1, k2 = _key_words(key)
  data = _u32(data)
  if core.get_aval(data).shape:
    raise TypeError("fold_in data must be a scalar")
  b1, b2 = threefry2x32(k1, k2, lax_shape.full((), 0, UINT32), data)
  return lax_shape.concatenate([lax_shape.reshape(b1, (1,)), lax_shape.reshape(b2, (1,))], 0)


UINT_DTYPES = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: np.dtype(np.uint32),
                64: np.dtype(np.uint64)}


def threefry_random_bits(key, bit_width: int, shape: Sequence[int]):
  """Unsigned integers of `bit_width` bits, one hash per element."""
  if bit_width not in UINT_DTYPES:
    raise TypeError(f"random bits of width {bit_width} are not supported (8, 16, 32 or 64)")
  k1, k2 = _key_words(key)
  if not _partitionable():
    return _stream_bits(k1, k2, bit_width, tuple(shape))
  hi, lo = _counters(tuple(shape))
  b1, b2 = threefry2x32(k1, k2, hi, lo)
  dtype = UINT_DTYPES[bit_width]
  if bit_width == 64:
    high = ew.convert_element_type(b1, dtype)
    low = ew.convert_element_type(b2, dtype)
    return ew.bitwise_or(ew.shift_left(high, lax_shape.full_like(high, 32)), low)
  bits = ew.bitwise_xor(b1, b2)
  return bits if bit_width == 32 else ew.convert_element_type(bits, dtype)


def _stream_bits(k1, k2, bit_width: int, shape: tuple):
  """Legacy random bits: the words of the counter stream, 64-bit values made of a word
  of its first half (high) and one of its second (low), 8- and 16-bit ones cut from
  each word low bits first."""
  size = math.prod(shape)
  words = -(-bit_width * size // 32)
  bits = _hash_stream(k1, k2, words)
  dtype = UINT_DTYPES[bit_width]
  if bit_width == 64:
    high = ew.convert_element_type(lax_shape.slice(bits, (0,), (size,)), dtype)
    low = ew.convert_element_type(lax_shape.slice(bits, (size,), (2 * size,)), dtype)
    bits = ew.bitwise_or(ew.shift_left(high, lax_shape.full_like(high, 32)), low)
  elif bit_width in (8, 16):
    per_word = 32 // bit_width
    spread = lax_shape.broadcast_in_dim(bits, (words, per_word), (0,))
    shifts = ew.mul(lax_shape.broadcasted_iota(UINT32, (words, per_word), 1),
                    lax_shape.full((words, per_word), bit_width, UINT32))
    parts = ew.bitwise_and(ew.shift_right_logical(spread, shifts),
                           lax_shape.full((words, per_word), (1 << bit_width) - 1, UINT32))
    bits = lax_shape.slice(lax_shape.reshape(ew.convert_element_type(parts, dtype),
                                             (words * per_word,)), (0,), (size,))
  return lax_shape.reshape(bits, shape)


# ----------------------------------------------------------------------------- typed keys


class PRNGImpl(NamedTuple):
  """A PRNG implementation: functions over raw key data of shape `key_shape`."""
  key_shape: tuple
  seed: Callable
  split: Callable
  random_bits: Callable
  fold_in: Callable
  name: str = "<unnamed>"
  tag: str = "?"

  def __repr__(self):
    return f"PRNGImpl({self.name})"

  def __hash__(self):
    return hash((self.name, self.tag, self.key_shape))


threefry_prng_impl = PRNGImpl((2,), threefry_seed, threefry_split, threefry_random_bits,
                              threefry_fold_in, "threefry2x32", "fry")


class prng_key(dtypes.extended):
  """Abstract scalar type of typed PRNG key arrays (`jax.random.key`)."""


class KeyTyRules:
  """How key arrays are held: each key is the uint32 data of its implementation's key
  shape. Keys have no tangents (float0)."""

  @staticmethod
  def physical_element_aval(dt) -> ShapedArray:
    return ShapedArray(dt._impl.key_shape, UINT32)

  @staticmethod
  def zeros(aval):
    data = lax_shape.full(core.physical_aval(aval).shape, 0, UINT32)
    return random_wrap(data, aval.dtype._impl)

  @staticmethod
  def make_value(dt, data) -> "PRNGKeyArray":
    return _wrap_impl(data, impl=dt._impl)


class KeyTy(dtypes.ExtendedDType):
  """The dtype of typed key arrays of one implementation: `key<fry>` for threefry."""

  type = prng_key
  _rules = KeyTyRules

  def __init__(self, impl: PRNGImpl):
    self._impl = impl

  @property
  def impl(self) -> PRNGImpl:
    return self._impl

  @property
  def name(self) -> str:
    return f"key<{self._impl.tag}>"

  @property
  def itemsize(self) -> int:
    return math.prod(self._impl.key_shape) * UINT32.itemsize

  def __repr__(self):
    return self.name

  __str__ = __repr__

  def __eq__(self, other):
    if isinstance(other, str):
      return other == self.name
    return type(other) is KeyTy and other._impl == self._impl

  def __hash__(self):
    return hash((KeyTy, self._impl))


key_dtype = KeyTy(threefry_prng_impl)


def is_key_dtype(dt) -> bool:
  return isinstance(dt, KeyTy)


def is_key(x) -> bool:
  """Whether `x` is a typed key array (concrete or traced)."""
  if isinstance(x, PRNGKeyArray):
    return True
  return isinstance(x, core.Tracer) and isinstance(x.aval.dtype, KeyTy)


# random_wrap: uint32 data (trailing dimensions the key shape) -> keys; random_unwrap back.

def keys_aval(data, impl: PRNGImpl) -> ShapedArray:
  """The aval of the keys of `impl` whose data has the aval `data` (a TypeError unless it
  is uint32 ending in the implementation's key shape)."""
  k = len(impl.key_shape)
  if data.dtype != UINT32 or data.ndim < k or \
      tuple(data.shape[data.ndim - k:]) != tuple(impl.key_shape):
    raise TypeError(f"{impl.name} key data must be a uint32 array whose trailing dimensions "
                    f"are {tuple(impl.key_shape)}, got {data.str_short(short_dtypes=True)}")
  return ShapedArray(data.shape[:data.ndim - k], KeyTy(impl))


def _wrap_abstract_eval(data, *, impl: PRNGImpl):
  return keys_aval(data, impl)


def _unwrap_abstract_eval(keys):
  if not isinstance(keys.dtype, KeyTy):
    raise TypeError(f"random_unwrap takes typed keys, got {keys.str_short(short_dtypes=True)}")
  return core.physical_aval(keys).update(sharding=None)


def _wrap_impl(data, *, impl: PRNGImpl):
  if not isinstance(data, _Array):
    data = execution.device_put(np.asarray(data, UINT32))
  _wrap_abstract_eval(core.get_aval(data), impl=impl)
  return PRNGKeyArray(impl, data)


random_wrap_p = core.Primitive("random_wrap")
random_wrap_p.def_abstract_eval(_wrap_abstract_eval)
random_wrap_p.def_impl(_wrap_impl)
random_unwrap_p = core.Primitive("random_unwrap")
random_unwrap_p.def_abstract_eval(_unwrap_abstract_eval)
random_unwrap_p.def_impl(lambda keys: keys._base_array)


def _wrap_batch(axis, vals, dims, *, impl):
  return random_wrap_p.bind(batching.bdim_at_front(vals[0], dims[0], axis.size), impl=impl), 0


def _unwrap_batch(axis, vals, dims):
  return random_unwrap_p.bind(batching.bdim_at_front(vals[0], dims[0], axis.size)), 0


batching.batch_rules[random_wrap_p] = _wrap_batch
batching.batch_rules[random_unwrap_p] = _unwrap_batch
ad.defjvp_zero(random_wrap_p)
ad.defjvp_zero(random_unwrap_p)
# In physical form a key is its data: both are the identity.
physical.rules[random_wrap_p] = lambda ctx, data, *, impl: data
physical.rules[random_unwrap_p] = lambda ctx, keys: keys


def random_wrap(data, impl: PRNGImpl = threefry_prng_impl):
  return random_wrap_p.bind(data, impl=impl)


def random_unwrap(keys):
  return random_unwrap_p.bind(keys)


def key_impl_of_aval(keys) -> PRNGImpl:
  dt = core.get_aval(keys).dtype
  if not isinstance(dt, KeyTy):
    raise TypeError(f"expected typed keys, got {core.get_aval(keys).str_short(short_dtypes=True)}")
  return dt.impl


def random_bits(keys, bit_width: int, shape: Sequence[int]):
  """Random unsigned integers of `bit_width` bits from one typed key, by its implementation."""
  return key_impl_of_aval(keys).random_bits(random_unwrap(keys), bit_width, tuple(shape))


def random_split(keys, shape: Sequence[int]):
  """Typed keys of `shape` split from one typed key, by its implementation."""
  impl = key_impl_of_aval(keys)
  return random_wrap(impl.split(random_unwrap(keys), tuple(shape)), impl)


class _KeyIndexUpdate:
  """The `.at` of a key array: `keys.at[idx].set(other_keys)` and `.get()`, through the
  key data at the same positions."""

  def __init__(self, keys):
    self._keys = keys

  def __getitem__(self, idx) -> "_KeyIndexRef":
    return _KeyIndexRef(self._keys, idx)


class _KeyIndexRef:
  def __init__(self, keys, idx):
    self._keys, self._idx = keys, idx if isinstance(idx, tuple) else (idx,)

  def _data_index(self) -> tuple:
    # The trailing key-data axes stay whole.
    if any(i is Ellipsis for i in self._idx):
      return (*self._idx, slice(None))
    return (*self._idx, Ellipsis)

  def get(self, **kwargs):
    return self._keys[self._idx]

  def set(self, values, **kwargs):
    if not is_key(values):
      raise TypeError(f"a key array can only be updated with typed keys, got {type(values)}")
    impl = self._keys.dtype._impl
    data = random_unwrap(self._keys).at[self._data_index()].set(random_unwrap(values), **kwargs)
    return random_wrap(data, impl)


class PRNGKeyArray:
  """An array of typed PRNG keys (from `jax.random.key`): a jax Array of key dtype,
  holding its uint32 key data. A leaf of pytrees, as other arrays are."""

  __slots__ = ("_impl", "_base_array")
  __array_priority__ = 100

  def __init__(self, impl: PRNGImpl, key_data):
    self._impl = impl
    self._base_array = key_data

  @property
  def aval(self) -> ShapedArray:
    data = core.get_aval(self._base_array)
    sharding = core.explicit_sharding(data)
    if sharding is not None:
      dims = list(sharding.spec.axes_by_dim(data.ndim))[:self.ndim]
      sharding = core.sharding_hooks["respec"](sharding, dims)
    return ShapedArray(self.shape, KeyTy(self._impl), sharding=sharding)

  @property
  def shape(self) -> tuple:
    data_shape = tuple(self._base_array.shape)
    return data_shape[:len(data_shape) - len(self._impl.key_shape)]

  ndim = property(lambda self: len(self.shape))
  size = property(lambda self: math.prod(self.shape))
  dtype = property(lambda self: KeyTy(self._impl))
  itemsize = property(lambda self: self.dtype.itemsize)
  nbytes = property(lambda self: self.size * self.dtype.itemsize)
  weak_type = False

  @property
  def sharding(self):
    """How the keys are laid out: their data's layout without its trailing key dimensions."""
    base = self._base_array.sharding
    if isinstance(base, NamedSharding):
      return NamedSharding(base.mesh, PartitionSpec(*base.spec[:self.ndim]))
    return base

  def devices(self) -> set:
    return self._base_array.devices()

  @property
  def device(self):
    return self._base_array.device

  @property
  def committed(self) -> bool:
    return getattr(self._base_array, "committed", False)

  def is_fully_addressable(self) -> bool:
    return self._base_array.is_fully_addressable

  def is_fully_replicated(self) -> bool:
    return self._base_array.is_fully_replicated

  def delete(self) -> None:
    self._base_array.delete()

  def is_deleted(self) -> bool:
    return self._base_array.is_deleted()

  def on_device_size_in_bytes(self) -> int:
    return self._base_array.on_device_size_in_bytes()

  def copy_to_host_async(self) -> None:
    pass  # the data is fetched when it is read

  def unsafe_buffer_pointer(self):
    return self._base_array.unsafe_buffer_pointer()

  @property
  def addressable_shards(self) -> list:
    """The pieces on this process's devices, each holding its keys (indexed by the keys'
    dimensions)."""
    return [Shard(s.device, self.sharding, self.shape, PRNGKeyArray(self._impl, s.data))
            for s in self._base_array.addressable_shards]

  def addressable_data(self, index: int) -> "PRNGKeyArray":
    return PRNGKeyArray(self._impl, self._base_array.addressable_data(index))

  def abstract_type(self) -> ShapedArray:
    return self.aval

  def __len__(self):
    if not self.shape:
      raise TypeError("len() of unsized object")
    return self.shape[0]

  def __iter__(self):
    if not self.shape:
      raise TypeError("iteration over a 0-d key array")
    return (self[i] for i in range(self.shape[0]))

  @property
  def at(self) -> "_KeyIndexUpdate":
    return _KeyIndexUpdate(self)

  __hash__ = None  # array-like: unhashable, as jax arrays are

  def block_until_ready(self):
    self._base_array.block_until_ready()
    return self

  def __repr__(self):
    return (f"Array({self.shape}, dtype={self.dtype.name}) overlaying:\n"
            f"{np.asarray(self._base_array)}")

  def __array__(self, dtype=None, copy=None):
    raise TypeError("JAX array with PRNGKey dtype cannot be converted to a NumPy array. Use "
                    "jax.random.key_data(arr) if you wish to extract the underlying integer "
                    "array.")

  def __bool__(self):
    raise TypeError("The truth value of a key array is ambiguous")

  def __reduce__(self):
    return PRNGKeyArray, (self._impl, self._base_array)


physical.value_data[PRNGKeyArray] = lambda keys: keys._base_array

# Typed key arrays are jax Arrays, as in JAX (`isinstance(jax.random.key(0), jax.Array)`).
_Array.register(PRNGKeyArray)
