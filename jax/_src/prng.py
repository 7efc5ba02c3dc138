"""The threefry2x32 PRNG: keys, the hash primitive, seeding, splitting, random bits.

Bit-identical to JAX 0.10.2's default implementation (`threefry2x32`, with
`jax_threefry_partitionable` on): a key is two uint32 words; `split` and
`random_bits` hash a counter (the flat index of each output element, as the
64-bit pair (hi, lo)) under the key; `fold_in` hashes the counter (0, data).

Typed keys (`jax.random.key`) are `PRNGKeyArray`s: a pytree node over the raw
uint32[..., 2] data, so jit, vmap and the tree utilities see only the data.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src import tree_util
from jax._src.core import ShapedArray
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lax import elementwise as ew
from jax._src.lax import shape as lax_shape
from jax._src.lax.utils import standard_primitive
from jax._src.lowering import hlo
from jax._src.sharding import NamedSharding, PartitionSpec

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


def threefry_split(key, shape: Sequence[int]):
  """uint32[*shape, 2]: the keys hashed from counters 0..n-1."""
  k1, k2 = _key_words(key)
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
  hi, lo = _counters(tuple(shape))
  b1, b2 = threefry2x32(k1, k2, hi, lo)
  dtype = UINT_DTYPES[bit_width]
  if bit_width == 64:
    high = ew.convert_element_type(b1, dtype)
    low = ew.convert_element_type(b2, dtype)
    return ew.bitwise_or(ew.shift_left(high, lax_shape.full_like(high, 32)), low)
  bits = ew.bitwise_xor(b1, b2)
  return bits if bit_width == 32 else ew.convert_element_type(bits, dtype)


# ----------------------------------------------------------------------------- typed keys


class KeyDtype:
  """The dtype of typed key arrays: `key<fry>`."""

  name = "key<fry>"

  def __repr__(self):
    return self.name

  __str__ = __repr__

  def __eq__(self, other):
    return isinstance(other, KeyDtype) or other == self.name

  def __hash__(self):
    return hash(self.name)


key_dtype = KeyDtype()


def _broadcast_key_data(data, shape):
  """uint32[..., 2] key data broadcast (numpy-style) to keys of `shape`."""
  ndim = core.get_aval(data).ndim
  full = (*shape, 2)
  if core.get_aval(data).shape == full:
    return data
  return lax_shape.broadcast_in_dim(data, full, tuple(range(len(full) - ndim, len(full))))


class _KeyIndexUpdate:
  """The `.at` of a key array: updates go to the key data at the same positions."""

  def __init__(self, keys: "PRNGKeyArray"):
    self._keys = keys

  def __getitem__(self, idx) -> "_KeyIndexRef":
    idx = idx if isinstance(idx, tuple) else (idx,)
    if any(i is Ellipsis for i in idx):
      idx = (*idx, slice(None))  # the key-data axis stays whole
    return _KeyIndexRef(self._keys, idx)


class _KeyIndexRef:
  def __init__(self, keys: "PRNGKeyArray", idx: tuple):
    self._keys, self._idx = keys, idx

  def get(self) -> "PRNGKeyArray":
    return PRNGKeyArray(self._keys._base_array[self._idx])

  def set(self, values: "PRNGKeyArray") -> "PRNGKeyArray":
    if not isinstance(values, PRNGKeyArray):
      raise TypeError(f"a key array can only be updated with typed keys, got {type(values)}")
    return PRNGKeyArray(self._keys._base_array.at[self._idx].set(values._base_array))


class KeyShapedArray(ShapedArray):
  """The abstract type of a typed key array (what `jax.typeof` gives for one): its
  shape and the key dtype, which is not a numpy dtype."""

  __slots__ = ()

  def __init__(self, shape):
    super().__init__(shape, np.uint32)
    self.dtype = key_dtype

  def update(self, shape=None, dtype=None, weak_type=None) -> ShapedArray:
    if dtype is None or dtype == key_dtype:
      return KeyShapedArray(self.shape if shape is None else shape)
    return ShapedArray(self.shape if shape is None else shape, dtype, bool(weak_type))

  def __eq__(self, other):
    return type(other) is KeyShapedArray and self.shape == other.shape

  def __hash__(self):
    return hash((KeyShapedArray, self.shape))

  def str_short(self, short_dtypes: bool = False, mesh_axis_types: bool = False) -> str:
    return f"{key_dtype.name}[{','.join(map(str, self.shape))}]"


class PRNGKeyArray:
  """An array of typed PRNG keys (from `jax.random.key`), backed by uint32[..., 2] data."""

  __slots__ = ("_base_array",)

  def __init__(self, base_array):
    self._base_array = base_array

  # The uint32[..., 2] key data (what jax.random.key_data returns), for the modules
  # that compute on it (random, the jnp ufuncs and broadcasting).
  base_array = property(lambda self: self._base_array)

  @property
  def shape(self) -> tuple:
    # The data may be an array, a tracer or (under eval_shape) a ShapeDtypeStruct;
    # what has no shape gets get_aval's error.
    shape = getattr(self._base_array, "shape", None)
    if shape is None:
      shape = core.get_aval(self._base_array).shape
    return tuple(shape[:-1])
  ndim = property(lambda self: len(self.shape))
  size = property(lambda self: math.prod(self.shape))
  dtype = property(lambda self: key_dtype)

  @property
  def sharding(self):
    """How the keys are laid out: their data's layout without its trailing key dimension."""
    base = self._base_array.sharding
    if isinstance(base, NamedSharding):
      return NamedSharding(base.mesh, PartitionSpec(*base.spec[:self.ndim]))
    return base

  def devices(self) -> set:
    return self._base_array.devices()

  def abstract_type(self) -> "KeyShapedArray":
    # Not named `aval`: key arrays are pytrees of their uint32 data, never leaves that
    # tracing would give an abstract value of their own.
    return KeyShapedArray(self.shape)

  def __len__(self):
    if not self.shape:
      raise TypeError("len() of unsized object")
    return self.shape[0]

  def __iter__(self):
    return (self[i] for i in range(len(self)))

  def __getitem__(self, idx):
    idx = idx if isinstance(idx, tuple) else (idx,)
    if any(i is Ellipsis for i in idx):
      idx = (*idx, slice(None))  # the key-data axis stays whole
    return PRNGKeyArray(self._base_array[idx])

  def reshape(self, *shape):
    shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
    return PRNGKeyArray(self._base_array.reshape((*shape, 2)))

  @property
  def at(self) -> "_KeyIndexUpdate":
    """`keys.at[idx].set(other_keys)` / `.get()`, as for other jax arrays."""
    return _KeyIndexUpdate(self)

  def copy(self) -> "PRNGKeyArray":
    return PRNGKeyArray(self._base_array)  # arrays are immutable: the data is shared

  def __eq__(self, other):
    """Elementwise: whether each key equals the other's (same key data)."""
    if not isinstance(other, PRNGKeyArray):
      return NotImplemented
    shape = lax_shape.broadcast_shapes(self.shape, other.shape)
    same = ew.eq(*(_broadcast_key_data(k._base_array, shape) for k in (self, other)))
    last = core.get_aval(same).ndim - 1
    halves = [lax_shape.squeeze(lax_shape.slice(same, [0] * last + [i],
                                                list(core.get_aval(same).shape[:-1]) + [i + 1]),
                                [last]) for i in (0, 1)]
    return ew.bitwise_and(*halves)

  def __ne__(self, other):
    eq = self.__eq__(other)
    return eq if eq is NotImplemented else ew.bitwise_not(eq)

  __hash__ = None  # mutable-free but array-like: unhashable, as jax arrays are

  def block_until_ready(self):
    if hasattr(self._base_array, "block_until_ready"):
      self._base_array.block_until_ready()
    return self

  def __repr__(self):
    return (f"Array({self.shape}, dtype={key_dtype.name}) overlaying:\n"
            f"{np.asarray(self._base_array)}")

  def __array__(self, dtype=None, copy=None):
    raise TypeError("JAX array with PRNGKey dtype cannot be converted to a NumPy array. Use "
                    "jax.random.key_data(arr) if you wish to extract the underlying integer "
                    "array.")


tree_util.register_pytree_node(PRNGKeyArray, lambda k: ((k._base_array,), None),
                               lambda _, xs: PRNGKeyArray(xs[0]))

# Typed key arrays are jax Arrays, as in JAX (`isinstance(jax.random.key(0), jax.Array)`).
from jax._src.array import Array as _Array  # noqa: E402  (array sits below prng)
_Array.register(PRNGKeyArray)
