"""jnp scalar types (jnp.float32, jnp.int8, ...): calling one makes a jax array.

Each is a class whose metaclass makes it stand in for the numpy scalar type it
wraps: it compares and hashes equal to it, has its `dtype`, and instances of the
numpy type pass `isinstance` checks, so `np.dtype(jnp.float32)` and dict lookups
keyed by numpy types keep working.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from jax._src import dtypes
from jax._src.numpy.creation import asarray


class _ScalarMeta(type):
  dtype: np.dtype

  def __hash__(cls):
    return hash(cls.dtype.type)

  def __eq__(cls, other):
    return cls is other or other == cls.dtype.type

  def __ne__(cls, other):
    return not cls == other

  def __call__(cls, x):
    return asarray(x, dtype=cls.dtype)

  def __instancecheck__(cls, instance):
    return isinstance(instance, cls.dtype.type)


def _make_scalar_type(np_type) -> _ScalarMeta:
  dt = np.dtype(np_type)
  name = "bool" if dt == dtypes.bool_ else dt.name
  return _ScalarMeta(name, (object,), {"dtype": dt, "__module__": "jax.numpy"})


bool_ = _make_scalar_type(np.bool_)
int8 = _make_scalar_type(np.int8)
int16 = _make_scalar_type(np.int16)
int32 = _make_scalar_type(np.int32)
int64 = _make_scalar_type(np.int64)
uint8 = _make_scalar_type(np.uint8)
uint16 = _make_scalar_type(np.uint16)
uint32 = _make_scalar_type(np.uint32)
uint64 = _make_scalar_type(np.uint64)
bfloat16 = _make_scalar_type(dtypes.bfloat16)
float16 = _make_scalar_type(np.float16)
float32 = _make_scalar_type(np.float32)
float64 = _make_scalar_type(np.float64)
complex64 = _make_scalar_type(np.complex64)
complex128 = _make_scalar_type(np.complex128)

# Narrow floating and integer types come from ml_dtypes, as NumPy has none of them.
float8_e3m4 = _make_scalar_type(ml_dtypes.float8_e3m4)
float8_e4m3 = _make_scalar_type(ml_dtypes.float8_e4m3)
float8_e4m3b11fnuz = _make_scalar_type(ml_dtypes.float8_e4m3b11fnuz)
float8_e4m3fn = _make_scalar_type(ml_dtypes.float8_e4m3fn)
float8_e4m3fnuz = _make_scalar_type(ml_dtypes.float8_e4m3fnuz)
float8_e5m2 = _make_scalar_type(ml_dtypes.float8_e5m2)
float8_e5m2fnuz = _make_scalar_type(ml_dtypes.float8_e5m2fnuz)
float8_e8m0fnu = _make_scalar_type(ml_dtypes.float8_e8m0fnu)
float6_e2m3fn = _make_scalar_type(ml_dtypes.float6_e2m3fn)
float6_e3m2fn = _make_scalar_type(ml_dtypes.float6_e3m2fn)
float4_e2m1fn = _make_scalar_type(ml_dtypes.float4_e2m1fn)
int1 = _make_scalar_type(ml_dtypes.int1)
int2 = _make_scalar_type(ml_dtypes.int2)
int4 = _make_scalar_type(ml_dtypes.int4)
uint1 = _make_scalar_type(ml_dtypes.uint1)
uint2 = _make_scalar_type(ml_dtypes.uint2)
uint4 = _make_scalar_type(ml_dtypes.uint4)
