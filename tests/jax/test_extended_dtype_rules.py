"""Extended dtypes defined by a library (jax.dtypes.ExtendedDType with a rules class, as
flax's fp8 "meta" dtypes are): values of them live inside traced programs, lower as
their physical element type, convert to and from it, and autodiff accumulates their
cotangents with the dtype's own `add` starting from its own `zero`."""

import dataclasses

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax
# Where libraries (flax) take the base class and the aval type from, as with JAX.
from jax._src import core
from jax._src import dtypes as jax_dtypes


@pytest.fixture(autouse=True)
def _needs_backend(backend):
  yield


class _MaxRules:
  """A float32 whose cotangents combine by maximum (a running statistic)."""

  @staticmethod
  def physical_element_aval(dtype):
    return core.ShapedArray((), dtype.float_dtype)

  @staticmethod
  def convert_from(dtype, other):
    return other == dtype.float_dtype

  @staticmethod
  def convert_to(other, dtype):
    return other == dtype.float_dtype

  @staticmethod
  def add(dtype, x, y):
    as_float = lambda v: lax.convert_element_type(v, dtype.float_dtype)
    return lax.convert_element_type(lax.max(as_float(x), as_float(y)), dtype)

  @staticmethod
  def zero(dtype):
    return lax.convert_element_type(np.array(-np.inf, dtype.float_dtype), dtype)

  @staticmethod
  def tangent_dtype(dtype):
    return dtype


class max_float(jax.dtypes.extended):
  pass


@dataclasses.dataclass(frozen=True)
class MaxFloat(jax_dtypes.ExtendedDType):
  float_dtype: np.dtype
  _rules: type = _MaxRules
  type: type = max_float

  @property
  def name(self):
    return "maxf32"


MAXF32 = MaxFloat(np.dtype(np.float32))


def test_convert_round_trip_inside_jit():
  f = jax.jit(lambda x: lax.convert_element_type(lax.convert_element_type(x, MAXF32),
                                                 jnp.float32) * 2)
  np.testing.assert_array_equal(np.asarray(f(jnp.arange(3.0))), [0.0, 2.0, 4.0])
  jaxpr = str(jax.make_jaxpr(lambda x: lax.convert_element_type(x, MAXF32))(1.0))
  assert "maxf32[]" in jaxpr
  assert jnp.issubdtype(MAXF32, jax.dtypes.extended) and jnp.issubdtype(MAXF32, max_float)
  assert not jnp.issubdtype(MAXF32, jnp.floating)


@jax.custom_vjp
def _tap(v, stat):
  del stat
  return v


def _tap_fwd(v, stat):
  del stat
  return v, v


def _tap_bwd(v, g):
  # The statistic's "cotangent" is the magnitude this step saw.
  return g, lax.convert_element_type(jnp.abs(v), MAXF32)


_tap.defvjp(_tap_fwd, _tap_bwd)


def _outer(x, stat32):
  stat = lax.convert_element_type(stat32, MAXF32)

  def body(c, _):
    return _tap(c, stat) * 2.0, None

  c, _ = lax.scan(body, x, None, length=3)
  return c


@pytest.mark.parametrize("use_jit", [True, False])
def test_cotangents_accumulate_with_the_dtypes_add(use_jit):
  grad = jax.grad(_outer, (0, 1))
  if use_jit:
    grad = jax.jit(grad)
  dx, dstat = grad(1.5, 0.0)
  assert float(dx) == 8.0
  # Three uses saw 1.5, 3 and 6: their maximum, not their sum (10.5).
  assert float(dstat) == 6.0
