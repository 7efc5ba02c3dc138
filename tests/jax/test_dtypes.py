import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax._src import core
from jax._src import dtypes
from jax._src.config import config


@pytest.mark.parametrize("a, b, want", [
    (np.int8, np.uint8, np.int16), (np.uint8, np.int32, np.int32),
    (np.float16, dtypes.bfloat16, np.float32), (np.int64, np.float16, np.float16),
    (np.bool_, np.int8, np.int8), (np.float32, np.complex64, np.complex64),
    (np.uint32, np.int32, np.int32),  # int64 canonicalized with x64 off
])
def test_promote_types(a, b, want):
  assert dtypes.promote_types(a, b) == np.dtype(want)


def test_weak_types():
  assert dtypes.result_type(1, 1, return_weak_type_flag=True) == (np.int32, True)
  assert dtypes.result_type(np.int32(1), 1.0, return_weak_type_flag=True) == (np.float32, True)
  assert dtypes.result_type(np.uint8, 1) == np.uint8
  assert dtypes.result_type(np.float16, 1.0) == np.float16
  assert dtypes.result_type(True, 1, return_weak_type_flag=True) == (np.int32, True)
  assert dtypes.result_type(np.bool_, np.bool_) == np.bool_


def test_x64_canonicalization():
  assert dtypes.canonicalize_dtype(np.float64) == np.float32
  config.update("jax_enable_x64", True)
  assert dtypes.canonicalize_dtype(np.float64) == np.float64
  assert dtypes.result_type(1.0) == np.float64
  assert core.get_aval(1).dtype == np.int64


def test_avals_of_values():
  assert core.get_aval(1.0) == core.ShapedArray((), np.float32, True)
  assert core.get_aval(np.zeros((2, 3), np.float64)) == core.ShapedArray((2, 3), np.float32)
  assert core.get_aval(True).weak_type is False


def test_jnp_promotion_in_jaxpr():
  jaxpr = jax.make_jaxpr(lambda x: x + 1)(np.ones(3, np.float16))
  assert jaxpr.out_avals[0] == core.ShapedArray((3,), np.float16)
  jaxpr = jax.make_jaxpr(lambda x: x * 2.0)(np.ones(3, np.int32))
  assert jaxpr.out_avals[0] == core.ShapedArray((3,), np.float32, True)
  jaxpr = jax.make_jaxpr(lambda x: x * 2.0)(1.0)
  assert jaxpr.out_avals[0].weak_type
