"""Dtype promotion with weak Python scalars, jnp scalar types, finfo/iinfo, x64 defaults."""

import ml_dtypes
import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax
from jax._src import dtypes
from jax._src.config import config


def _check(x, dtype, weak):
  assert x.dtype == np.dtype(dtype), (x.dtype, dtype)
  assert x.weak_type == weak, (x, weak)


@pytest.mark.parametrize("make, dtype, weak", [
    (lambda: jnp.array([1, 2], jnp.int8) + 1, np.int8, False),
    (lambda: jnp.array([1, 2], jnp.int8) * 2.5, np.float32, True),
    (lambda: jnp.array([250], jnp.uint8) + 10, np.uint8, False),
    (lambda: jnp.array([1.0], jnp.float16) * 3, np.float16, False),
    (lambda: jnp.array([1.0], jnp.bfloat16) + jnp.array([1.0], jnp.float16), np.float32, False),
    (lambda: jnp.array([1], jnp.uint8) + jnp.array([1], jnp.int8), np.int16, False),
    (lambda: jnp.array([3]) / 2, np.float32, False),
    (lambda: jnp.array([3]) > 1.5, np.bool_, True),
    (lambda: jnp.array([True]) + 1, np.int32, True),
    (lambda: jnp.array([True]) + True, np.bool_, False),
    (lambda: jnp.array([3]) + 2j, np.complex64, True),
], ids=range(11))
def test_weak_scalar_binary_ops(backend, make, dtype, weak):
  _check(make(), dtype, weak)


def test_bool_add_is_logical_or(backend):
  out = jnp.array([True, False]) + jnp.array([True, False])
  np.testing.assert_array_equal(out, [True, False])
  with pytest.raises(TypeError, match="boolean"):
    jnp.subtract(jnp.array([True]), jnp.array([False]))


def test_weak_type_of_created_values(backend):
  _check(jnp.asarray(1.0), np.float32, True)
  _check(jnp.array(2), np.int32, True)
  _check(jnp.array(True), np.bool_, False)
  _check(jnp.asarray(1.0, dtype=jnp.float32), np.float32, False)
  _check(jnp.full((2,), 7), np.int32, True)
  _check(jnp.full((2,), True), np.bool_, False)
  _check(jnp.zeros_like(jnp.asarray(1.0)), np.float32, True)
  _check(jnp.float32(1.0) + 1, np.float32, False)
  _check(jnp.sin(1.0), np.float32, True)
  _check(lax.add(1.0, 2.0), np.float32, True)


def test_reductions_are_strongly_typed(backend):
  _check(jnp.sum(jnp.asarray(2.0)), np.float32, False)
  _check(jnp.max(jnp.asarray(2.0)), np.float32, False)
  _check(jnp.mean(jnp.array([1, 2])), np.float32, False)


def test_scalar_types_make_arrays(backend):
  x = jnp.float32(2.5)
  assert isinstance(x, jax.Array)
  _check(x, np.float32, False)
  _check(jnp.int8(3), np.int8, False)
  np.testing.assert_array_equal(jnp.float32([1, 2]), np.array([1, 2], np.float32))
  assert jnp.float32 == np.float32 and hash(jnp.float32) == hash(np.float32)
  assert np.dtype(jnp.bfloat16) == ml_dtypes.bfloat16
  assert isinstance(np.float32(1), jnp.float32)
  assert jnp.issubdtype(jnp.float32, jnp.floating)
  assert jnp.dtype(jnp.int16) == np.int16


def test_finfo_iinfo():
  assert float(jnp.finfo(jnp.bfloat16).eps) == 0.0078125
  assert int(jnp.finfo(jnp.float16).nmant) == 10
  assert float(jnp.finfo(jnp.float32).tiny) == float(np.finfo(np.float32).tiny)
  assert int(jnp.iinfo(jnp.uint8).max) == 255
  assert int(jnp.iinfo(jnp.int16).min) == -32768
  assert jnp.iinfo(jnp.int32).bits == 32


@pytest.mark.parametrize("cast, dtype", [
    (jnp.int32, np.int32), (bool, np.bool_), (jnp.uint8, np.uint8), (jnp.float16, np.float16),
    (jnp.bfloat16, ml_dtypes.bfloat16)])
def test_astype(backend, cast, dtype):
  x = np.array([-1.7, -0.5, 0.0, 0.5, 1.7], np.float32)
  got = jnp.asarray(x).astype(cast)
  assert got.dtype == np.dtype(dtype)
  if dtype is not np.uint8:  # negative floats to unsigned are implementation defined
    np.testing.assert_array_equal(np.asarray(got), x.astype(dtype))


def test_x64_defaults(backend):
  config.update("jax_enable_x64", True)
  _check(jnp.arange(3), np.int64, False)
  _check(jnp.ones(2), np.float64, False)
  _check(jnp.array(1.0) / 3, np.float64, True)
  _check(jnp.float32(1) + 1.0, np.float32, False)
  big = jnp.array(2 ** 40) * 3
  assert int(big) == 3 * 2 ** 40
  np.testing.assert_allclose(float(jnp.array(1.0) / 3), 1 / 3, rtol=1e-15)


def test_result_type_of_type_objects():
  assert dtypes.result_type(jnp.float16, 1.0) == np.float16
  assert dtypes.result_type(jnp.int8, jnp.uint8) == np.int16
