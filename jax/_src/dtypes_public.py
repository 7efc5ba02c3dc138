"""The public dtype helpers of `jax.dtypes` beyond the promotion core in dtypes.py.

`float0` is the dtype of tangents of integer and boolean values: a zero-byte
void type, so arrays of it carry a shape and no data. `extended` is the base of
dtypes that are not numpy's (typed PRNG keys are `prng_key`); `issubdtype`
understands both.
"""

from __future__ import annotations

import numpy as np

from jax._src import dtypes
from jax._src import prng

from jax._src.dtypes import float0 as float0  # one float0 for jax and jax.dtypes


from jax._src.dtypes import extended as extended  # one base for jax.dtypes and jax._src.dtypes


from jax._src.prng import prng_key as prng_key  # the scalar type of the key dtypes


TypePromotionError = dtypes.TypePromotionError


def _is_key_dtype(x) -> bool:
  return prng.is_key_dtype(x) or prng.is_key_dtype(getattr(x, "dtype", None))


def issubdtype(a, b) -> bool:
  """numpy's issubdtype, extended to bfloat16, float0 and typed key dtypes."""
  if _is_key_dtype(a):
    a = getattr(a, "dtype", a)
    return b in (prng_key, extended) or (_is_key_dtype(b) and getattr(b, "dtype", b) == a)
  if isinstance(a, dtypes.ExtendedDType):  # a library's own (flax's fp8 meta types)
    return dtypes.issubdtype(a, b)
  if b in (prng_key, extended):
    return False
  return dtypes.issubdtype(a, b)


def numpy_issubdtype(arg1, arg2) -> bool:
  """`jnp.issubdtype`: the same test under numpy's parameter names."""
  return issubdtype(arg1, arg2)


def canonicalize_dtype(dtype, allow_extended_dtype: bool = False):
  """The dtype jax computes in for `dtype` (64-bit types become 32-bit without x64)."""
  if _is_key_dtype(dtype):
    if not allow_extended_dtype:
      raise ValueError(f"canonicalize_dtype got the extended dtype {dtype}; pass "
                       "allow_extended_dtype=True to accept it")
    return dtype
  return dtypes.canonicalize_dtype(dtype)


def result_type(*args, return_weak_type_flag: bool = False):
  """The dtype jax's promotion rules give to a binary operation on `args`."""
  if not args:
    raise ValueError("at least one array or dtype is required")
  try:
    return dtypes.result_type(*args, return_weak_type_flag=return_weak_type_flag)
  except TypeError as e:
    raise TypePromotionError(str(e)) from e


def scalar_type_of(x) -> type:
  """The Python scalar type (bool, int, float or complex) that values like `x` map to."""
  dt = dtypes.dtype(x)
  if dt == np.bool_:
    return bool
  if np.issubdtype(dt, np.integer):
    return int
  if dtypes.is_float(dt):
    return float
  if np.issubdtype(dt, np.complexfloating):
    return complex
  raise TypeError(f"Invalid scalar value {x!r}")


def itemsize_bits(dtype) -> int:
  """The number of bits of one element of `dtype`."""
  if dtype is None:
    raise ValueError("itemsize_bits needs a dtype, got None")
  dt = np.dtype(dtype)
  if dt == float0:
    return 0
  return {"int4": 4, "uint4": 4, "int2": 2, "uint2": 2}.get(dt.name, dt.itemsize * 8)


def finfo(dtype):
  return dtypes.finfo(dtype)


def iinfo(dtype):
  return dtypes.iinfo(dtype)
