"""Casts, integer division and other XLA-defined edge cases, eager and under `jit`,
against values recorded from JAX 0.10.2 (jaxlib 0.10.2, CPU)."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax

NAN, INF = float("nan"), float("inf")
I32_MIN = np.iinfo(np.int32).min

# (operation, operands, JAX 0.10.2's result) - each operation runs eagerly on the
# operands and under jit with them as arguments.
CASES = {
    "astype_int32": (lambda x: x.astype(jnp.int32), [np.array([NAN, INF, 3e9], np.float32)],
                     [0, 2147483647, 2147483647]),
    "floor_divide_by_0": (lambda x: x // 0, [np.array([7, -7], np.int32)], [-2, -2]),
    "remainder_by_0": (lambda x: x % 0, [np.array([7, -7], np.int32)], [0, 0]),
    "to_uint32": (lambda x: x.astype(jnp.uint32), [np.array([-1.5, 3e9, -3e9, NAN], np.float32)],
                  [0, 3000000000, 0, 0]),
    "to_uint8": (lambda x: x.astype(jnp.uint8), [np.array([-1.5, 3e9, -3e9, NAN], np.float32)],
                 [0, 255, 0, 0]),
    "u8_rem0": (lax.rem, [np.array([0, 7, 255], np.uint8), np.zeros(3, np.uint8)], [0, 7, 255]),
    "shl": (lax.shift_left,
            [np.array([1, 1, 1, -1], np.int32), np.array([31, 32, 33, -1], np.int32)],
            [-2147483648, 0, 0, 0]),
    "shrl": (lax.shift_right_logical,
             [np.array([-8, -8, 8, -1], np.int32), np.array([1, 32, 40, -1], np.int32)],
             [2147483644, 0, 0, 0]),
    "shra": (lax.shift_right_arithmetic,
             [np.array([-8, -8, 8, 8], np.int32), np.array([1, 32, 40, -1], np.int32)],
             [-4, -1, 0, 0]),
    "round_afz": (lambda x: lax.round(x, 0), [np.array([0.5, 1.5, 2.5, -0.5, -2.5], np.float32)],
                  [1.0, 2.0, 3.0, -1.0, -3.0]),
    "round_even": (lambda x: lax.round(x, 1), [np.array([0.5, 1.5, 2.5, -0.5, -2.5], np.float32)],
                   [0.0, 2.0, 2.0, -0.0, -2.0]),
    "max_nan": (lax.max, [np.array([NAN, 1.0], np.float32), np.array([1.0, NAN], np.float32)],
                [NAN, NAN]),
    "clamp": (lambda x: lax.clamp(np.float32(0), x, np.float32(1)),
              [np.array([-1, 0.5, 2, NAN], np.float32)], [0.0, 0.5, 1.0, NAN]),
    "f32_to_i8": (lambda x: lax.convert_element_type(x, np.int8),
                  [np.array([127.9, 128.0, -129.0, -128.9, NAN, -INF], np.float32)],
                  [127, 127, -128, -128, 0, -128]),
    "i32_to_i8": (lambda x: lax.convert_element_type(x, np.int8),
                  [np.array([300, -129, 255, 128], np.int32)], [44, 127, -1, -128]),
    "c64_to_f32": (lambda x: lax.convert_element_type(x, np.float32),
                   [np.array([1 + 2j, -3.5 - 1j], np.complex64)], [1.0, -3.5]),
    "c64_to_bool": (lambda x: lax.convert_element_type(x, np.bool_),
                    [np.array([1j, 0j, 2 + 0j, complex(NAN, 0)], np.complex64)],
                    [False, False, True, True]),
    "c64_to_i32": (lambda x: lax.convert_element_type(x, np.int32),
                   [np.array([1j, 2.7 + 5j, complex(NAN, 1), 3e9 + 1j], np.complex64)],
                   [0, 2, 0, 2147483647]),
    "f32_to_bool": (lambda x: lax.convert_element_type(x, np.bool_),
                    [np.array([0.0, -0.0, NAN, 1e-3], np.float32)], [False, False, True, True]),
    "integer_pow": (lambda x: lax.integer_pow(x, 3), [np.array([3, -3, 100], np.int32)],
                    [27, -27, 1000000]),
    "sign": (lax.sign, [np.array([-0.0, 0.0, -2.0, NAN], np.float32)], [-0.0, 0.0, -1.0, NAN]),
    "fmod_int_by_0": (jnp.fmod, [np.array([7, -7, 5], np.int32), np.array([0, 0, -3], np.int32)],
                      [0, 0, 2]),
    "floor_divide_int": (jnp.floor_divide, [np.array([7, -7, -7, I32_MIN], np.int32),
                                            np.array([0, 0, 2, -1], np.int32)],
                         [-2, -2, -4, I32_MIN]),
    "remainder_int": (jnp.remainder, [np.array([7, -7, -7, I32_MIN], np.int32),
                                      np.array([0, 0, 2, -1], np.int32)], [0, 0, 1, 0]),
    "int_power_low_6_bits": (jnp.power, [np.array([3, 3, -1, 2], np.int32),
                                         np.array([64, 65, 64, 100], np.int32)], [1, 3, 1, 0]),
    "int_power_negative": (jnp.power, [np.array([3, 3, 2, -2, 0, 1, -1, 100], np.int8),
                                       np.array([-1, -2, -1, -1, -1, -3, -3, 2], np.int8)],
                           [-85, 57, 0, 0, 0, 1, -1, 16]),
    "int_min_div_rem": (lambda x, y: (lax.div(x, y), lax.rem(x, y)),
                        [np.array([I32_MIN, 7], np.int32), np.array([-1, -1], np.int32)],
                        ([I32_MIN, -7], [0, 0])),
}
CASES_X64 = {
    "f64_to_u64": (lambda x: lax.convert_element_type(x, np.uint64),
                   [np.array([2.0**64, 2.0**63, -1.0, 1e300, NAN])],
                   [18446744073709551615, 9223372036854775808, 0, 18446744073709551615, 0]),
    "f64_to_i64": (lambda x: lax.convert_element_type(x, np.int64),
                   [np.array([2.0**63, -2.0**63, 9.2e18, -1e300, NAN])],
                   [9223372036854775807, -9223372036854775808, 9200000000000000000,
                    -9223372036854775808, 0]),
    "float_floor_divide": (jnp.floor_divide, [np.array([1.0, -1.0, 7.0, -7.0, 5.0]),
                                              np.array([0.0, 0.0, 2.0, 2.0, INF])],
                           [INF, -INF, 3.0, -4.0, 0.0]),
    "float_remainder": (jnp.remainder, [np.array([1.0, -1.0, 7.0, -7.0, 5.0]),
                                        np.array([0.0, 0.0, 2.0, 2.0, -INF])],
                        [NAN, NAN, 1.0, 1.0, -INF]),
}


def _check(result, expected):
  if isinstance(expected, tuple):
    for r, e in zip(result, expected):
      _check(r, e)
    return
  r = np.asarray(result)
  e = np.asarray(expected, dtype=r.dtype)
  np.testing.assert_array_equal(r, e)
  if r.dtype.kind == "f":  # the sign of zero counts too
    num = ~np.isnan(e)
    np.testing.assert_array_equal(np.signbit(r[num]), np.signbit(e[num]))


def _run(fn, args, expected):
  _check(fn(*[jnp.array(a) for a in args]), expected)      # eager, host-backed operands
  _check(fn(*[jax.device_put(a) for a in args]), expected)  # eager, device operands
  _check(jax.jit(fn)(*args), expected)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_jax_0_10_2(backend, name):
  """Eager (host and device operands) and jit give JAX 0.10.2's result."""
  _run(*CASES[name])


@pytest.mark.parametrize("name", sorted(CASES_X64))
def test_matches_jax_0_10_2_x64(backend, name):
  """As above, for 64-bit types."""
  jax.config.update("jax_enable_x64", True)
  _run(*CASES_X64[name])


def test_python_scalar_casts(backend):
  """Python scalars cast with XLA's conversion (saturating, NaN to 0, ints wrapping)."""
  assert lax.convert_element_type(3e9, jnp.int32).tolist() == 2147483647
  assert lax.convert_element_type(NAN, jnp.int32).tolist() == 0
  assert lax.convert_element_type(300, jnp.int8).tolist() == 44
  assert jnp.full(3, NAN, dtype=jnp.int32).tolist() == [0, 0, 0]
  assert jnp.full(3, -1, dtype=jnp.uint8).tolist() == [255, 255, 255]
  assert (jnp.array([1], dtype=jnp.int8) + 300).tolist() == [45]


def test_complex_clamp_is_a_clear_error(backend):
  """Complex clamp, which crashes our compiler, is refused before compiling."""
  x = np.array([1 + 1j], np.complex64)
  with pytest.raises(TypeError, match="clamp does not accept dtype complex64"):
    lax.clamp(x, x, x)


# jnp.arange rounds as JAX 0.10.2's compiled start + step * iota (float32 for narrower
# floats, converted at the end); these are JAX 0.10.2's results.
ARANGE = {
    (0, 1, 0.1): [0.0, 0.10000000149011612, 0.20000000298023224, 0.30000001192092896,
                  0.4000000059604645, 0.5, 0.6000000238418579, 0.699999988079071,
                  0.800000011920929, 0.9000000357627869],
    (1, 2, 0.1): [1.0, 1.100000023841858, 1.2000000476837158, 1.2999999523162842,
                  1.399999976158142, 1.5, 1.600000023841858, 1.7000000476837158,
                  1.7999999523162842, 1.9000000953674316],
    (0.0, 2.0, 0.3, jnp.float16): [0.0, 0.300048828125, 0.60009765625, 0.89990234375,
                                   1.2001953125, 1.5, 1.7998046875],
    (0, 1, 0.1, jnp.bfloat16): [0.0, 0.10009765625, 0.2001953125, 0.30078125, 0.400390625,
                                0.5, 0.6015625, 0.69921875, 0.80078125, 0.8984375],
    (2.5, 7, None, jnp.bfloat16): [2.5, 3.5, 4.5, 5.5, 6.5],
}


@pytest.mark.parametrize("args", list(ARANGE), ids=str)
def test_arange_rounding(backend, args):
  """jnp.arange's values round as JAX 0.10.2's."""
  assert jnp.arange(*args).tolist() == ARANGE[args]


@pytest.mark.parametrize("make, error, message", [
    (lambda: jnp.array(300, dtype=jnp.int8), OverflowError,
     "Python integer 300 out of bounds for int8"),
    (lambda: jnp.array([300], dtype=jnp.int8), OverflowError, "out of bounds for int8"),
    (lambda: jnp.array([NAN], dtype=jnp.int32), ValueError, "cannot convert float NaN to integer"),
    (lambda: jnp.int8(300), OverflowError, "Python integer 300 out of bounds for int8"),
    (lambda: jnp.array(2**31), OverflowError,
     "Python int 2147483648 too large to convert to int32"),
    (lambda: jnp.array([2**31, 1]), OverflowError, "out of bounds for int32"),
])
def test_python_numbers_out_of_range(backend, make, error, message):
  """Python numbers a type cannot hold raise JAX 0.10.2's errors."""
  with pytest.raises(error, match=message):
    make()


def test_arrays_cast_like_astype(backend):
  """Arrays (unlike Python numbers) are cast without a range check; integers wrap."""
  assert jnp.array(np.array([300, -129]), dtype=jnp.int8).tolist() == [44, 127]


def test_complex_astype_bool_is_nonzero(backend):
  """jnp's astype(bool) asks x != 0; lax's cast (above) keeps the real part only."""
  assert jnp.array([1j, 0j, 1 + 0j]).astype(bool).tolist() == [True, False, True]


def test_empty_repr_shows_shape(backend):
  """An empty array's repr names its shape, as JAX's does."""
  assert repr(jnp.zeros((0, 3))) == "Array([], shape=(0, 3), dtype=float32)"


# Operand types JAX 0.10.2's lax rejects with TypeError (checked before compiling).
@pytest.mark.parametrize("fn, operand", [
    (lax.population_count, np.array([True])),
    (lax.clz, np.array([True])),
    (lax.abs, np.array([1], np.uint8)),
    (lax.conj, np.array([1], np.float16)),
    (lax.is_finite, np.array([1j], np.complex64)),
    (lax.erf_inv, np.array([0.5j], np.complex64)),
    (lambda x: lax.integer_pow(x, -1), np.array([3], np.int32)),
])
def test_rejected_operand_types(backend, fn, operand):
  """lax refuses these operand types with a TypeError, as JAX 0.10.2 does."""
  with pytest.raises(TypeError, match="does not accept|cannot be raised"):
    fn(operand)


def test_bool_max_min_clamp(backend):
  """bool max, min and clamp order False < True (JAX 0.10.2's results)."""
  b, c = np.array([True, False, True]), np.array([False, False, True])
  for run in (lambda f, *a: f(*a), lambda f, *a: jax.jit(f)(*a)):
    assert run(lax.max, b, c).tolist() == [True, False, True]
    assert run(lax.min, b, c).tolist() == [False, False, True]
    assert run(lax.clamp, c, b, c).tolist() == [False, False, True]


@pytest.mark.parametrize("name", ["sinh", "cosh", "asinh", "acosh", "atanh"])
def test_complex_hyperbolic(backend, name):
  """Complex hyperbolic functions (accepted by JAX 0.10.2) agree with numpy, eager = jit."""
  z = np.array([0.5 + 0.25j, -1 + 2j, 3 - 1j, 0.01 + 0.02j, 10 + 1j, -2.5 - 0.5j], np.complex64)
  fn = getattr(lax, name)
  eager, jitted = np.asarray(fn(z)), np.asarray(jax.jit(fn)(z))
  assert eager.tobytes() == jitted.tobytes()
  ref = getattr(np, "arc" + name[1:] if name.startswith("a") else name)(z.astype(np.complex128))
  np.testing.assert_allclose(eager, ref, rtol=2e-5)
