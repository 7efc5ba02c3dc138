"""4-bit integers (int4/uint4): one per byte in buffers with the value in the low 4 bits
(ml_dtypes' layout), 4-bit wrap-around arithmetic, saturating float conversions and
JAX 0.10.2's promotion rules. Expected values were recorded on JAX 0.10.2."""

import ml_dtypes
import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax


@pytest.fixture(autouse=True)
def _needs_backend(backend):
  yield


def values(x):
  return np.asarray(x).astype(np.int64).tolist()


def test_host_round_trip_keeps_ml_dtypes_layout():
  bits = np.arange(16, dtype=np.uint8)
  for dt in (jnp.int4, jnp.uint4):
    host = bits.view(dt)
    x = jnp.asarray(host)
    assert x.dtype == np.dtype(dt)
    np.testing.assert_array_equal(np.asarray(x).view(np.uint8), bits)
    np.testing.assert_array_equal(np.asarray(jax.jit(lambda v: v)(x)).view(np.uint8), bits)
    # A computed result is stored the same way: low 4 bits, zeros above.
    np.testing.assert_array_equal(np.asarray(jax.jit(lambda v: v + 0)(x)).view(np.uint8), bits)


def test_signed_arithmetic_wraps():
  x = jnp.array([1, -2, 7, -8], jnp.int4)
  y = jnp.array([3, 3, 3, 3], jnp.int4)
  want = {jnp.add: [4, 1, -6, -5], jnp.subtract: [-2, -5, 4, 5], jnp.multiply: [3, -6, 5, -8],
          jnp.floor_divide: [0, -1, 2, -3], jnp.remainder: [1, 1, 1, 1],
          jnp.maximum: [3, 3, 7, 3], jnp.bitwise_and: [1, 2, 3, 0],
          jnp.bitwise_xor: [2, -3, 4, -5], jnp.left_shift: [-8, 0, -8, 0],
          jnp.right_shift: [0, -1, 0, -1]}
  for op, expected in want.items():
    got = jax.jit(op)(x, y)
    assert got.dtype == np.dtype(jnp.int4), op
    assert values(got) == expected, op.__name__
  assert np.asarray(jnp.less(x, y)).tolist() == [True, True, False, True]
  assert values(-x) == [-1, 2, -7, -8]
  assert values(~x) == [-2, 1, -8, 7]
  assert values(jnp.sign(x)) == [1, -1, 1, -1]
  assert values(lax.population_count(x)) == [1, 3, 3, 1]
  assert values(lax.clz(x)) == [3, 0, 1, 0]
  assert values(lax.shift_right_logical(x, jnp.int4(1))) == [0, 7, 3, 4]


def test_unsigned_arithmetic_wraps():
  u = jnp.array([1, 2, 15, 0], jnp.uint4)
  assert values(u + u) == [2, 4, 14, 0]
  assert values(u * u) == [1, 4, 1, 0]
  assert values(u - jnp.uint4(3)) == [14, 15, 12, 13]
  assert int(jnp.max(u)) == 15
  assert values(jnp.sort(u)) == [0, 1, 2, 15]


def test_conversions():
  x = jnp.array([1, -2, 7, -8], jnp.int4)
  np.testing.assert_array_equal(np.asarray(x.astype(jnp.float32)), [1, -2, 7, -8])
  # float -> int4 saturates, NaN -> 0; int -> int4 keeps the low 4 bits.
  assert values(jnp.array([3.7, -9, 100, np.nan]).astype(jnp.int4)) == [3, -8, 7, 0]
  assert values(jnp.array([300, -1], jnp.int32).astype(jnp.uint4)) == [12, 15]
  assert values(jnp.array([300, -9], jnp.int32).astype(jnp.int4)) == [-4, 7]
  assert values(jnp.array([1, 2, 15, 0], jnp.uint4).astype(jnp.int4)) == [1, 2, -1, 0]
  assert values(jax.jit(lambda v: v.astype(jnp.int32))(x)) == [1, -2, 7, -8]


def test_data_movement_and_constants():
  x = np.arange(-8, 8).astype(ml_dtypes.int4).reshape(4, 4)
  np.testing.assert_array_equal(np.asarray(jax.jit(jnp.transpose)(x)).view(np.uint8),
                                x.T.copy().view(np.uint8))
  got = jax.jit(lambda v: v[jnp.array([3, 0])])(x)
  np.testing.assert_array_equal(np.asarray(got).view(np.uint8), x[[3, 0]].view(np.uint8))
  # A constant in the program text.
  c = np.array([-8, 7, -1], ml_dtypes.int4)
  assert values(jax.jit(lambda: jnp.asarray(c) + jnp.int4(0))()) == [-8, 7, -1]
  assert "s4[3]" in jax.jit(lambda v: v + 1).lower(c).as_text(dialect="hlo")


def test_promotion_as_jax():
  for other in (jnp.bool_, int, jnp.int4):
    assert jnp.promote_types(jnp.int4, other) == np.dtype(jnp.int4)
  for other in (jnp.int8, jnp.uint8, jnp.uint4, jnp.float32, float):
    with pytest.raises(jax.dtypes.TypePromotionError, match="4-bit integers do not support"):
      jnp.promote_types(jnp.int4, other)
  with pytest.raises(jax.dtypes.TypePromotionError, match="8-bit floats do not support"):
    jnp.promote_types(jnp.int4, jnp.float8_e4m3fn)
  assert jnp.issubdtype(jnp.int4, jnp.signedinteger)
  assert not jnp.issubdtype(jnp.uint4, jnp.signedinteger)
  assert jnp.issubdtype(jnp.uint4, jnp.integer)
  assert int(jnp.iinfo(jnp.int4).min) == -8
  assert str(jax.make_jaxpr(lambda v: v + 1)(jnp.ones(2, jnp.int4))).count("i4[2]") == 2
