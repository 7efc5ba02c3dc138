"""8-bit floats end to end: every ml_dtypes float8 type JAX computes with moves to and
from devices, converts to and from f32/f64 exactly as ml_dtypes does (round to nearest
even, subnormals, each format's inf/NaN rules), computes elementwise ops in f32 with one
rounding per op, and goes through dot, sort, gather/scatter, bitcasts, jit, grad and
vmap; dtype promotion, finfo and printing follow JAX 0.10.2."""

import ml_dtypes
import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax

F8_NAMES = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
            "float8_e4m3b11fnuz", "float8_e4m3", "float8_e3m4"]
F8 = [np.dtype(getattr(ml_dtypes, n)) for n in F8_NAMES]


@pytest.fixture(autouse=True)
def _needs_backend(backend):
  yield


def all_bit_patterns(dt):
  return np.arange(256, dtype=np.uint8).view(dt)


def same_bits(a, b):
  """Equal as bit patterns, except that a NaN equals a NaN of either sign: which sign
  the NaN of an op on two NaNs gets depends on the CPU and the operand order the
  compiler picks (XLA:CPU and NumPy differ on the same machine)."""
  a, b = np.atleast_1d(np.asarray(a)), np.atleast_1d(np.asarray(b))
  assert a.dtype == b.dtype and a.shape == b.shape
  ua = a.view(np.uint8 if a.itemsize == 1 else np.dtype(f"u{a.itemsize}"))
  ub = b.view(ua.dtype)
  both_nan = np.zeros(a.shape, bool)
  if a.dtype.kind not in "biu":
    both_nan = np.isnan(a.astype(np.float32)) & np.isnan(b.astype(np.float32))
  bad = np.nonzero((ua != ub) & ~both_nan)[0]
  assert bad.size == 0, (f"{bad.size} differ, first at {bad[:8]}: got {ua[bad[:8]]}, "
                         f"want {ub[bad[:8]]} for inputs index {bad[:8]}")


def f32_sweep(dt):
  """f32 values around every f8 value: the values themselves, the midpoints between
  neighbours (ties), one f32 ulp either side of them, beyond the largest finite value,
  f32 subnormals, specials, and a dense random sample of the format's range."""
  values = np.unique(all_bit_patterns(dt).astype(np.float32))
  finite = np.sort(values[np.isfinite(values)])
  mids = ((finite[:-1].astype(np.float64) + finite[1:]) / 2).astype(np.float32)
  big = np.float32(finite[-1])
  beyond = big * np.float32([1.01, 1.03, 1.0625, 1.07, 1.125, 1.2, 2, 1e10])
  edges = np.concatenate([finite, mids, beyond])
  edges = np.concatenate([edges, -edges])
  near = np.concatenate([np.nextafter(edges, np.float32(np.inf)),
                         np.nextafter(edges, np.float32(-np.inf))])
  specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 1e-40,
                       3.4e38, -3.4e38, 1.1754942e-38], np.float32)
  rng = np.random.default_rng(0)
  lo, hi = np.log2(float(finite[finite > 0][0])) - 3, np.log2(float(big)) + 2
  dense = (2.0 ** rng.uniform(lo, hi, 200_000) * rng.choice([-1, 1], 200_000)).astype(np.float32)
  return np.concatenate([edges, near, specials, dense]).astype(np.float32)


@pytest.mark.parametrize("dt", F8, ids=F8_NAMES)
def test_every_bit_pattern_to_f32_and_back(dt):
  bits = all_bit_patterns(dt)
  x = jnp.asarray(bits)
  assert x.dtype == dt
  same_bits(np.asarray(x), bits)  # the host round trip keeps every byte
  as_f32 = jax.jit(lambda v: v.astype(jnp.float32))(x)
  same_bits(as_f32, bits.astype(np.float32))
  back = jax.jit(lambda v: v.astype(dt))(as_f32)
  same_bits(back, bits.astype(np.float32).astype(dt))
  # f8 -> f64 is exact too (the value is already exact in f32).
  same_bits(np.asarray(x.astype(jnp.float16)), bits.astype(np.float16))


@pytest.mark.parametrize("dt", F8, ids=F8_NAMES)
def test_f32_to_f8_matches_ml_dtypes(dt):
  x = f32_sweep(dt)
  got = jax.jit(lambda v: v.astype(dt))(x)
  same_bits(got, x.astype(dt))
  # Eager conversion runs the same kernel.
  same_bits(jnp.asarray(x[:4096]).astype(dt), x[:4096].astype(dt))


def round_once_from_f64(x, dt):
  """f64 -> f8 rounded once, as XLA converts (ml_dtypes goes through f32 and can round
  twice): round to f32 *to odd* first, which keeps enough bits for one correct rounding."""
  f = x.astype(np.float32)
  with np.errstate(over="ignore", invalid="ignore"):
    too_far = np.abs(f.astype(np.float64)) > np.abs(x)
  f = np.where(too_far, np.nextafter(f, np.float32(0)), f)  # truncate toward zero
  inexact = np.isfinite(x) & (f.astype(np.float64) != x)
  f = (f.view(np.uint32) | inexact.astype(np.uint32)).view(np.float32)
  return f.astype(dt)


@pytest.mark.parametrize("dt", F8, ids=F8_NAMES)
def test_f64_to_f8_rounds_once(dt):
  finite = np.unique(all_bit_patterns(dt).astype(np.float64))
  finite = finite[np.isfinite(finite)]
  mids = (finite[:-1] + finite[1:]) / 2
  # Just above and below a tie: f32 would round these onto the tie itself.
  x = np.concatenate([mids + mids * 2.0**-40, mids - mids * 2.0**-40, mids, finite])
  jax.config.update("jax_enable_x64", True)
  try:
    got = jax.jit(lambda v: v.astype(dt))(jnp.asarray(x, jnp.float64))
    assert jnp.asarray(x, jnp.float64).dtype == np.float64
  finally:
    jax.config.update("jax_enable_x64", False)
  same_bits(got, round_once_from_f64(x, dt))
  assert not np.array_equal(x.astype(np.float32).astype(dt).view(np.uint8),
                            np.asarray(got).view(np.uint8))  # the cases double rounding breaks
  same_bits(round_once_from_f64(x[-len(finite):], dt), finite.astype(dt))


def test_f64_to_f8_matches_jax():
  # Recorded on JAX 0.10.2 (x64): 1.0625 + 2^-40 and 1.1875 - 2^-40 in e4m3fn.
  jax.config.update("jax_enable_x64", True)
  try:
    x = jnp.asarray([1.0625 + 2.0**-40, -(1.0625 + 2.0**-40), 1.0625, 1.1875 - 2.0**-40])
    got = np.asarray(jax.jit(lambda v: v.astype(jnp.float8_e4m3fn))(x)).view(np.uint8)
  finally:
    jax.config.update("jax_enable_x64", False)
  np.testing.assert_array_equal(got, [57, 185, 56, 57])


@pytest.mark.parametrize("dt", F8, ids=F8_NAMES)
def test_conversions_with_other_types(dt):
  bits = all_bit_patterns(dt)
  x = jnp.asarray(bits)
  for other in (np.float16, ml_dtypes.bfloat16, np.int32, np.uint8, np.bool_):
    want = bits.astype(np.float64)
    if np.dtype(other).kind in "iu":
      # XLA's float -> int conversion saturates and sends NaN to 0.
      info = np.iinfo(other)
      want = np.where(np.isnan(want), 0, np.clip(want, info.min, info.max))
    same_bits(jax.jit(lambda v: v.astype(other))(x), want.astype(other))
  ints = np.arange(-300, 300, dtype=np.int32)
  same_bits(jax.jit(lambda v: v.astype(dt))(ints), ints.astype(np.float32).astype(dt))
  halves = np.arange(-70000, 70000, 37, dtype=np.float32).astype(np.float16)
  same_bits(jax.jit(lambda v: v.astype(dt))(halves), halves.astype(np.float32).astype(dt))
  other8 = F8[(F8.index(dt) + 1) % len(F8)]
  same_bits(jax.jit(lambda v: v.astype(other8))(x), bits.astype(np.float32).astype(other8))


def _round_per_op(dt, op, *xs):
  return op(*(np.asarray(v).astype(np.float32) for v in xs)).astype(dt)


@pytest.mark.parametrize("dt", F8, ids=F8_NAMES)
def test_elementwise_ops_compute_in_f32_and_round(dt):
  bits = all_bit_patterns(dt)
  a = np.repeat(bits, 256)
  b = np.tile(bits, 256)  # every pair of bit patterns
  # max/min of +-0 is left to the backend: compare with its own f32 result.
  f32_max, f32_min = jax.jit(jnp.maximum), jax.jit(jnp.minimum)
  binary = ((jnp.add, np.add), (jnp.subtract, np.subtract), (jnp.multiply, np.multiply),
            (jnp.divide, np.divide), (jnp.maximum, lambda x, y: np.asarray(f32_max(x, y))),
            (jnp.minimum, lambda x, y: np.asarray(f32_min(x, y))))
  unary = ((jnp.negative, np.negative), (jnp.abs, np.abs), (jnp.sqrt, np.sqrt),
           (jnp.floor, np.floor))
  compares = ((jnp.less, np.less), (jnp.equal, np.equal), (jnp.greater_equal, np.greater_equal),
              (jnp.not_equal, np.not_equal))
  with np.errstate(all="ignore"):
    for op, ref in binary:
      got = jax.jit(op)(a, b)
      assert got.dtype == dt
      same_bits(got, _round_per_op(dt, ref, a, b))
    for op, ref in unary:
      same_bits(jax.jit(op)(bits), _round_per_op(dt, ref, bits))
    for op, ref in compares:
      same_bits(jax.jit(op)(a, b), ref(a.astype(np.float32), b.astype(np.float32)))
  same_bits(jax.jit(jnp.isnan)(bits), np.isnan(bits.astype(np.float32)))
  same_bits(jax.jit(jnp.isfinite)(bits), np.isfinite(bits.astype(np.float32)))
  # A fused chain rounds after every op, as one op at a time does.
  chain = jax.jit(lambda x, y: (x * y + x) * y)
  want = _round_per_op(dt, lambda x, y: x * y, a, b)
  want = _round_per_op(dt, lambda x, y: x + y, want, a)
  want = _round_per_op(dt, lambda x, y: x * y, want, b)
  with np.errstate(all="ignore"):
    same_bits(chain(a, b), want)


def test_transcendentals_round_the_f32_result():
  dt = np.dtype(ml_dtypes.float8_e4m3fn)
  x = np.linspace(-4, 4, 33).astype(dt)
  for op, ref in ((jnp.exp, np.exp), (jnp.tanh, np.tanh), (jnp.sin, np.sin)):
    got = np.asarray(jax.jit(op)(x)).astype(np.float32)
    want = ref(x.astype(np.float32)).astype(dt).astype(np.float32)
    # One f8 ulp of slack: the f32 kernel may differ from libm by an f32 ulp next to a tie.
    np.testing.assert_allclose(got, want, rtol=0.13, atol=2e-3)


@pytest.mark.parametrize("dt", F8[:2], ids=F8_NAMES[:2])
def test_dot_with_preferred_element_type(dt):
  rng = np.random.default_rng(1)
  a = rng.normal(size=(16, 32)).astype(dt)
  b = rng.normal(size=(32, 8)).astype(dt)
  want = a.astype(np.float32) @ b.astype(np.float32)
  dims = (((1,), (0,)), ((), ()))
  got = jax.jit(lambda x, y: lax.dot_general(x, y, dims, preferred_element_type=jnp.float32))(a, b)
  assert got.dtype == np.float32
  np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-6)
  got = jnp.dot(a, b, preferred_element_type=jnp.float32)
  np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-6)
  # Without a preferred type the result is f8: the f32 sum rounded once.
  small = np.array([[1, 2], [3, 0.5]], dt)
  same_bits(jnp.dot(small, small), (small.astype(np.float32) @ small.astype(np.float32)).astype(dt))
  # Batched, as flax's fp8 einsum does.
  batched = jax.jit(lambda x, y: jnp.einsum("bij,bjk->bik", x, y,
                                            preferred_element_type=jnp.float32))
  x3 = rng.normal(size=(2, 4, 8)).astype(dt)
  y3 = rng.normal(size=(2, 8, 3)).astype(dt)
  want3 = np.einsum("bij,bjk->bik", x3.astype(np.float32), y3.astype(np.float32))
  np.testing.assert_allclose(np.asarray(batched(x3, y3)), want3, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dt", F8, ids=F8_NAMES)
def test_data_movement(dt):
  rng = np.random.default_rng(2)
  x = rng.normal(scale=4, size=(6, 10)).astype(dt)
  same_bits(jax.jit(jnp.transpose)(x), x.T.copy())
  same_bits(jax.jit(lambda v: jnp.concatenate([v, v[:2]]))(x), np.concatenate([x, x[:2]]))
  same_bits(jax.jit(lambda v, i: lax.dynamic_slice(v, (i, 2), (3, 4)))(x, 2), x[2:5, 2:6])
  idx = np.array([5, 0, 3, 3])
  same_bits(jax.jit(lambda v, i: v[i])(x, idx), x[idx])
  upd = np.ones((4, 10), dt)
  want = x.copy()
  want[[1, 4]] = upd[:2]
  same_bits(jax.jit(lambda v, u: v.at[jnp.array([1, 4])].set(u[:2]))(x, upd), want)
  added = jax.jit(lambda v: v.at[0, 0].add(v[1, 1]))(x)
  same_bits(added[0, 0], _round_per_op(dt, np.add, x[0, 0], x[1, 1]))
  same_bits(jax.jit(lambda v: jnp.where(v > 0, v, -v))(x), _round_per_op(dt, np.abs, x))
  same_bits(jax.jit(jnp.flip)(x), np.flip(x).copy())


@pytest.mark.parametrize("dt", F8, ids=F8_NAMES)
def test_bitcast_convert(dt):
  bits = all_bit_patterns(dt)
  finite = bits[np.isfinite(bits.astype(np.float32))]
  as_u8 = jax.jit(lambda v: lax.bitcast_convert_type(v, jnp.uint8))(finite)
  same_bits(as_u8, finite.view(np.uint8))
  as_s8 = jax.jit(lambda v: lax.bitcast_convert_type(v, jnp.int8))(finite)
  same_bits(as_s8, finite.view(np.int8))
  same_bits(jax.jit(lambda v: lax.bitcast_convert_type(v, dt))(np.arange(256, dtype=np.uint8)[
      np.isfinite(bits.astype(np.float32))]), finite)
  # Four f8 values make one u32 and back.
  words = jax.jit(lambda v: lax.bitcast_convert_type(v, jnp.uint32))(finite[:64].reshape(16, 4))
  same_bits(words, finite[:64].reshape(16, 4).view(np.uint32).reshape(16))


@pytest.mark.parametrize("dt", F8, ids=F8_NAMES)
def test_sort_and_reductions(dt):
  rng = np.random.default_rng(3)
  x = rng.normal(scale=3, size=200).astype(dt)
  same_bits(jax.jit(jnp.sort)(x), np.sort(x.astype(np.float32)).astype(dt))
  order = np.argsort(x.astype(np.float32), kind="stable").astype(np.int32)
  same_bits(jax.jit(jnp.argsort)(x), order)
  same_bits(jax.jit(jnp.max)(x), np.max(x.astype(np.float32)).astype(dt))
  assert int(jax.jit(jnp.argmin)(x)) == int(np.argmin(x.astype(np.float32)))
  # Small integers add exactly in any order.
  ints = np.array([1, 2, 0.5, -1.5], dt)
  total = jax.jit(jnp.sum)(ints)
  assert total.dtype == dt and float(total) == 2
  values, _ = lax.top_k(x.astype(np.float32).astype(dt), 3)
  same_bits(values, np.sort(x.astype(np.float32))[::-1][:3].astype(dt))


def test_jit_grad_vmap_through_astype():
  dt = jnp.float8_e4m3fn
  x = np.array([0.3, 1.7, -2.2, 100.0], np.float32)

  def f(v):
    return (v.astype(dt).astype(jnp.float32) * 3.0).sum()

  assert float(jax.jit(f)(x)) == float((x.astype(dt).astype(np.float32) * 3).sum())
  assert np.isnan(float(jax.jit(f)(np.float32([500.0]))))  # beyond 448: NaN, no inf
  g = jax.grad(f)(x)
  np.testing.assert_array_equal(np.asarray(g), np.full(4, 3.0, np.float32))
  v = jax.vmap(lambda r: r.astype(dt))(x.reshape(2, 2))
  same_bits(v, x.reshape(2, 2).astype(dt))
  q = jax.jit(jax.grad(lambda v: jnp.sum(v.astype(jnp.float8_e5m2).astype(jnp.float32) ** 2)))(x)
  np.testing.assert_allclose(np.asarray(q), 2 * x.astype(ml_dtypes.float8_e5m2).astype(np.float32))


def test_constants_in_programs():
  dt = np.dtype(ml_dtypes.float8_e4m3fn)
  c = np.array([1.5, 448, -0.3125, np.nan, 0.001953125, -0.0], dt)
  got = jax.jit(lambda: jnp.asarray(c) * jnp.asarray(1, dt))()
  same_bits(got, c)
  for t in F8:
    vals = all_bit_patterns(t)
    same_bits(jax.jit(lambda: jnp.asarray(vals))(), vals.astype(np.float32).astype(t))
  text = jax.jit(lambda v: v * 2).lower(jnp.ones(3, dt)).as_text(dialect="hlo")
  assert "f8e4m3fn[3]" in text


def test_promotion_as_jax():
  e4, e5 = jnp.float8_e4m3fn, jnp.float8_e5m2
  for other in (jnp.int8, jnp.uint8, jnp.int32, jnp.uint64, jnp.bool_, int, float, e4):
    assert jnp.promote_types(e4, other) == np.dtype(e4)
  for other in (jnp.float32, jnp.bfloat16, jnp.float16, e5, jnp.complex64, complex):
    with pytest.raises(jax.dtypes.TypePromotionError, match="8-bit floats do not support"):
      jnp.promote_types(e4, other)
  x = jnp.arange(3.0, dtype=e4)
  assert (x + 1).dtype == np.dtype(e4)
  assert (x * 2.5).dtype == np.dtype(e4)
  assert (x + jnp.int32(1)).dtype == np.dtype(e4)
  with pytest.raises(jax.dtypes.TypePromotionError):
    x + np.float32(1)
  assert jnp.issubdtype(e4, jnp.floating) and jnp.issubdtype(e4, np.inexact)
  assert not jnp.issubdtype(e4, jnp.integer) and jnp.issubdtype(e4, e4)
  assert not jnp.issubdtype(e4, e5)


def test_finfo_array_and_printing():
  fi = jnp.finfo(jnp.float8_e4m3fn)
  assert float(fi.max) == 448 and float(fi.eps) == 0.125 and fi.bits == 8
  assert float(jnp.finfo(jnp.float8_e4m3b11fnuz).max) == 30
  x = jnp.array([1, 2, 448, 500], jnp.float8_e4m3fn)
  assert repr(x) == "Array([1, 2, 448, nan], dtype=float8_e4m3fn)"
  assert str(x) == "[1 2 448 nan]"
  assert float(jnp.array(3.3, jnp.float8_e4m3fn)) == 3.25
  assert str(jax.make_jaxpr(lambda v: v * 2)(x)).count("f8_e4m3fn[4]") == 2


def test_unsupported_type_errors_clearly():
  with pytest.raises(TypeError, match="no HLO element type"):
    jax.jit(lambda v: v.astype(jnp.float8_e8m0fnu)).lower(jnp.ones(2)).as_text()
