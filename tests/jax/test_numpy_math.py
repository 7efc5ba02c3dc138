"""jax.numpy math against NumPy: elementwise functions, complex numbers, integer division,
bits, cumulative ops (with grad/vmap), nan-functions, einsum and tensor products,
reductions with where/initial, and jnp.ufunc methods."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax

X = np.linspace(0.1, 3.0, 9).astype(np.float32)
U = np.linspace(-0.9, 0.9, 8).astype(np.float32)


def _close(got, want, rtol=2e-6, atol=1e-6):
  got = np.asarray(got)
  assert got.shape == np.shape(want), (got.shape, np.shape(want))
  np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name, x", [
    ("log2", X), ("log10", X), ("sinh", X), ("cosh", X), ("arcsinh", X), ("arctan", X),
    ("sinc", X), ("deg2rad", X), ("rad2deg", X), ("arcsin", U), ("arccos", U),
    ("arctanh", U), ("arccosh", X + 1), ("exp2", X), ("cbrt", X - 1)])
def test_unary_transcendental(backend, name, x):
  _close(getattr(jnp, name)(x), getattr(np, name)(x), rtol=1e-5)


def _ulps(got, x):
  """Distance of float32 `got` from e^x in units of float32 spacing at the exact value."""
  exact = np.exp(x.astype(np.float64))
  return np.abs(got.astype(np.float64) - exact) / np.spacing(exact.astype(np.float32))


def test_float32_exp_is_within_1_5_ulp_over_its_whole_range(backend):
  # The CPU backend computes f32 exp inline (a polynomial, the one XLA:CPU uses),
  # not through libm. Like XLA:CPU's, it gives no denormal precision: results
  # below the normal range are zero or (just below it) a few denormal steps off.
  rng = np.random.default_rng(0)
  x = np.concatenate([np.linspace(-103.9, 88.72, 400_001), rng.uniform(-1, 1, 100_000),
                      [-87.33, -87.34, -100.0, -103.2, 1e-30, -1e-30, 0.5, 1.0, 10.0]])
  x = x.astype(np.float32)
  got = np.asarray(jax.jit(jnp.exp)(x))
  normal = np.exp(x.astype(np.float64)) >= np.finfo(np.float32).tiny
  top = x > 88.0  # 2^n stops at 2^127 there, so |r| grows past ln2/2: up to 5 ulp
  assert _ulps(got[normal & ~top], x[normal & ~top]).max() <= 1.5
  assert _ulps(got[top], x[top]).max() <= 5.5
  assert (got[~normal] < np.finfo(np.float32).tiny).all()
  edges = np.array([np.inf, -np.inf, np.nan, 88.73, 89.0, -104.5, -1e4, 0.0, -0.0], np.float32)
  np.testing.assert_array_equal(np.asarray(jax.jit(jnp.exp)(edges)),
                                [np.inf, 0, np.nan, np.inf, np.inf, 0, 0, 1, 1])
  # Fused with other ops (a softmax row) and under vmap, the same numbers.
  rows = rng.standard_normal((8, 1000)).astype(np.float32) * 20
  soft = np.asarray(jax.jit(lambda v: jax.nn.softmax(v, axis=-1))(rows))
  want = np.exp(rows - rows.max(1, keepdims=True)).astype(np.float64)
  np.testing.assert_allclose(soft, want / want.sum(1, keepdims=True), rtol=2e-6, atol=1e-12)


def test_hyperbolic_extremes(backend):
  x = np.array([-80.0, -1e-4, 0.0, 1e-4, 80.0], np.float32)
  _close(jnp.sinh(x), np.sinh(x), rtol=1e-5)
  _close(jnp.arcsinh(np.float32([1e20, -1e-6])), np.arcsinh(np.float32([1e20, -1e-6])), 1e-6)
  assert np.isnan(np.asarray(jnp.arctanh(np.float32([1.5])))).all()


def test_inverse_trig_gradients(backend):
  g = jax.grad(lambda v: jnp.sum(jnp.arcsin(v) + jnp.arctanh(v) + jnp.sinh(v)))(U)
  _close(g, 1 / np.sqrt(1 - U ** 2) + 1 / (1 - U ** 2) + np.cosh(U), rtol=1e-5)


def test_complex(backend):
  z = np.array([1 + 2j, -3 + 0.5j, 0.25 - 1j], np.complex64)
  w = np.array([0.5 - 1j, 2 + 2j, -1 + 0j], np.complex64)
  jz = jnp.asarray(z)
  _close(jz * w, z * w)
  _close(jz / w, z / w)
  assert jnp.abs(jz).dtype == np.float32
  _close(jnp.abs(jz), np.abs(z))
  _close(jnp.angle(jz), np.angle(z))
  _close(jnp.conj(jz), np.conj(z))
  _close(jz.real, z.real)
  _close(jz.imag, z.imag)
  _close(jnp.exp(jz), np.exp(z), rtol=1e-5)
  _close(jnp.sqrt(jz), np.sqrt(z), rtol=1e-5)
  _close(lax.complex(np.float32([1.0]), np.float32([2.0])), np.array([1 + 2j]))
  _close(jnp.imag(jnp.array([1.0])), [0.0])
  with pytest.raises(TypeError, match="complex"):
    lax.real(jnp.array([1.0]))


def test_complex_abs_gradient(backend):
  g = jax.grad(lambda r: jnp.abs(lax.complex(r, 4.0)))(3.0)
  assert abs(float(g) - 0.6) < 1e-6


def test_integer_division_signs(backend):
  a = np.array([7, -7, 7, -7, 0, 13], np.int32)
  b = np.array([2, 2, -2, -2, 3, -5], np.int32)
  np.testing.assert_array_equal(jnp.asarray(a) // b, a // b)
  np.testing.assert_array_equal(jnp.asarray(a) % b, a % b)
  np.testing.assert_array_equal(jnp.fmod(a, b), np.fmod(a, b))
  q, r = jnp.divmod(a, b)
  np.testing.assert_array_equal(q, a // b)
  np.testing.assert_array_equal(r, a % b)
  f = np.array([5.5, -5.5, 7.0, -0.5], np.float32)
  _close(jnp.floor_divide(f, 2.0), np.floor_divide(f, 2.0))
  _close(jnp.remainder(f, -2.0), np.remainder(f, -2.0))
  _close(jnp.fmod(f, 2.0), np.fmod(f, 2.0))


def test_bits_and_gcd(backend):
  a = np.array([12, 18, -8, 0, 35], np.int32)
  b = np.array([8, 27, 6, 5, 49], np.int32)
  np.testing.assert_array_equal(jnp.gcd(a, b), np.gcd(a, b))
  np.testing.assert_array_equal(jnp.lcm(a, b), np.lcm(a, b))
  np.testing.assert_array_equal(jnp.left_shift(a, 2), np.left_shift(a, 2))
  np.testing.assert_array_equal(jnp.right_shift(a, 1), np.right_shift(a, 1))
  np.testing.assert_array_equal(jnp.asarray(a) << 1, a << 1)
  np.testing.assert_array_equal(jnp.bitwise_count(a), np.bitwise_count(a))
  np.testing.assert_array_equal(lax.population_count(a), [2, 2, 29, 0, 3])
  np.testing.assert_array_equal(lax.clz(np.int32([1, 256, -1])), [31, 23, 0])
  with pytest.raises(ValueError, match="must be integers"):
    jnp.gcd(np.float32([1.0]), 2)


def test_power_variants(backend):
  x = np.array([0.5, 1.0, 2.0, 3.0], np.float32)
  i = np.array([2, 3, -2, 5], np.int32)
  _close(jnp.power(x, 2.5), x ** 2.5, rtol=1e-5)
  _close(jnp.asarray(x) ** -1, 1 / x)
  np.testing.assert_array_equal(jnp.power(i, 3), i ** 3)
  np.testing.assert_array_equal(jnp.power(i, np.int32([0, 1, 2, 3])), i ** np.int32([0, 1, 2, 3]))
  _close(jnp.float_power(x, 2), x ** 2)
  _close(2.0 ** jnp.asarray(x), 2.0 ** x, rtol=1e-5)


def test_rounding(backend):
  x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1.234567, -7.77], np.float32)
  _close(jnp.round(x), np.round(x))
  _close(jnp.rint(x), np.rint(x))
  _close(jnp.trunc(x), np.trunc(x))
  _close(jnp.round(x, 2), np.round(x, 2))
  _close(lax.round(x), [-3, -2, -1, 1, 2, 3, 1, -8])
  _close(lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN), np.round(x))
  frac, whole = jnp.modf(x)
  _close(frac, np.modf(x)[0], atol=1e-6)
  _close(whole, np.modf(x)[1])


def test_sign_and_float_bits(backend):
  x = np.array([-2.0, -0.0, 0.0, 3.0, np.inf, -np.inf, np.nan], np.float32)
  np.testing.assert_array_equal(jnp.signbit(x), np.signbit(x))
  np.testing.assert_array_equal(np.signbit(jnp.copysign(1.0, x)), np.signbit(np.copysign(1, x)))


def test_frexp_ldexp_nextafter(backend):
  y = np.array([-100.0, -1.0, 0.0, 1.0, 50.0, 3e-39], np.float32)
  m, e = jnp.frexp(y)
  want_m, want_e = np.frexp(y)
  _close(m[:5], want_m[:5])
  np.testing.assert_array_equal(e[:5], want_e[:5])
  _close(jnp.ldexp(np.float32([1.0, 3.0, 1.0]), np.int32([3, -1, 127])),
         np.ldexp(np.float32([1.0, 3.0, 1.0]), [3, -1, 127]))
  _close(jnp.nextafter(np.float32(1), np.float32(2)), np.nextafter(np.float32(1), np.float32(2)))
  # 3e-39 is a float32 denormal, which the CPU backend reads as zero, as XLA:CPU does:
  # JAX 0.10.2 gives h0 there where numpy gives 1.
  _close(jnp.heaviside(y, 0.5), np.float32([0.0, 0.0, 0.5, 1.0, 1.0, 0.5]))


def test_logaddexp_and_hypot(backend):
  x = np.array([-100.0, -1.0, 0.0, 1.0, 50.0, -np.inf, np.inf], np.float32)
  y = np.array([-100.0, 2.0, 0.0, -1.0, 60.0, -np.inf, np.inf], np.float32)
  _close(jnp.logaddexp(x, y), np.logaddexp(x, y))
  _close(jnp.logaddexp2(x, y), np.logaddexp2(x, y))
  _close(jnp.hypot(x[:5], 2.0), np.hypot(x[:5], 2.0))


def test_nan_functions(backend):
  x = np.array([1.0, np.nan, 3.0, np.inf, -np.inf, -2.0], np.float32)
  _close(jnp.nansum(x[[0, 1, 2, 5]]), np.nansum(x[[0, 1, 2, 5]]))
  _close(jnp.nanmax(x), np.nanmax(x))
  _close(jnp.nanmin(x), np.nanmin(x))
  _close(jnp.nanmean(np.float32([1, np.nan, 3])), 2.0)
  _close(jnp.nanvar(np.float32([1, np.nan, 3])), 1.0)
  assert int(jnp.nanargmax(x)) == np.nanargmax(x)
  assert int(jnp.nanargmin(np.float32([np.nan, np.nan]))) == -1
  assert np.isnan(float(jnp.nanmax(np.float32([np.nan]))))


def test_nan_to_num_and_isclose(backend):
  x = np.array([1.0, np.nan, 3.0, np.inf, -np.inf, -2.0], np.float32)
  _close(jnp.nan_to_num(x), np.nan_to_num(x))
  _close(jnp.nan_to_num(x, nan=-1.0, posinf=9.0), np.nan_to_num(x, nan=-1.0, posinf=9.0))
  np.testing.assert_array_equal(jnp.isclose(x, x), np.isclose(x, x))
  np.testing.assert_array_equal(jnp.isclose(x, x, equal_nan=True), np.isclose(x, x, equal_nan=True))
  _close(jnp.nancumsum(x[:3]), np.nancumsum(x[:3]))


def test_isclose_takes_array_tolerances(backend):
  # Tolerances broadcast with the operands, as in NumPy (numpyro passes atol of shape (1,)).
  a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
  b = a + np.float32(1e-5)
  for rtol, atol in [(1e-5, np.array([1e-6])), (0.0, np.array([[0.0], [1.0]])),
                     (np.array([0.0, 1e-4]), 0.0)]:
    np.testing.assert_array_equal(jnp.isclose(a, b, rtol, atol), np.isclose(a, b, rtol, atol))
  got = jax.jit(lambda v: jnp.isclose(v, 0.0, atol=jnp.array([2.0])))(jnp.ones(3))
  np.testing.assert_array_equal(got, [True] * 3)


def test_minmax_nan_variants(backend):
  x = np.array([1.0, np.nan, -2.0, 5.0], np.float32)
  y = np.array([0.0, 3.0, np.nan, 4.0], np.float32)
  _close(jnp.maximum(x, y), np.maximum(x, y))
  _close(jnp.fmax(x, y), np.fmax(x, y))
  _close(jnp.fmin(x, y), np.fmin(x, y))


def test_logic_and_equality(backend):
  x = np.array([1.0, 2.0, np.nan], np.float32)
  assert not bool(jnp.array_equal(x, x))
  assert bool(jnp.array_equal(x, x, equal_nan=True))
  assert not bool(jnp.array_equal(x, x[:2]))
  assert bool(jnp.array_equiv(jnp.ones(3), jnp.ones((2, 3))))
  assert not bool(jnp.array_equiv(jnp.ones(3), jnp.ones(2)))
  assert bool(jnp.allclose(jnp.ones(3), jnp.ones(3) + 1e-9))


def test_cumulative(backend):
  x = np.array([[1.0, 2.0, 3.0], [4.0, -1.0, 0.5]], np.float32)
  _close(jnp.cumsum(x), np.cumsum(x))
  _close(jnp.cumsum(x, axis=0), np.cumsum(x, axis=0))
  _close(jnp.cumprod(x, axis=1), np.cumprod(x, axis=1))
  _close(lax.cummax(x, axis=1), np.maximum.accumulate(x, axis=1))
  _close(lax.cummin(x, axis=1, reverse=True), np.minimum.accumulate(x[:, ::-1], axis=1)[:, ::-1])
  _close(lax.cumlogsumexp(x, axis=1), np.logaddexp.accumulate(x, axis=1), rtol=1e-5)
  out = jnp.cumsum(np.array([True, True, False]))
  assert out.dtype == np.int32
  np.testing.assert_array_equal(out, [1, 2, 2])
  assert jnp.cumsum(np.int8([1, 2])).dtype == np.int8


def test_diff_and_trapezoid(backend):
  x = np.array([[1.0, 2.0, 3.0], [4.0, -1.0, 0.5]], np.float32)
  _close(jnp.diff(x), np.diff(x))
  _close(jnp.diff(x, n=2, axis=1), np.diff(x, n=2, axis=1))
  _close(jnp.diff(x, axis=0, prepend=0.0), np.diff(x, axis=0, prepend=0.0))
  _close(jnp.ediff1d(x.ravel(), to_begin=-1), np.ediff1d(x.ravel(), to_begin=-1))
  _close(jnp.trapezoid(x, axis=1), np.trapezoid(x, axis=1))
  _close(jnp.trapezoid(x, x=np.float32([0, 1, 3])), np.trapezoid(x, x=np.float32([0, 1, 3])))


def test_cumulative_grad_and_vmap(backend):
  v = np.array([1.0, 2.0, 3.0], np.float32)
  _close(jax.grad(lambda a: jnp.cumsum(a).sum())(v), [3.0, 2.0, 1.0])
  _close(jax.grad(lambda a: jnp.cumprod(a).sum())(v), [9.0, 4.0, 2.0])
  _close(jax.grad(lambda a: lax.cummax(a, 0).sum())(np.float32([1, 3, 2])), [1.0, 2.0, 0.0])


def test_cumulative_vmap_and_jit(backend):
  m = np.arange(6.0, dtype=np.float32).reshape(2, 3)
  _close(jax.vmap(lambda r: jnp.cumsum(r))(m), np.cumsum(m, axis=1))
  _close(jax.vmap(lambda c: lax.cumprod(c, 0), in_axes=1, out_axes=1)(m + 1),
         np.cumprod(m + 1, axis=0))
  _close(jax.jit(lambda a: jnp.cumsum(a, axis=1))(m), np.cumsum(m, axis=1))


def test_einsum(backend):
  rng = np.random.default_rng(6)
  a = rng.standard_normal((2, 3, 4)).astype(np.float32)
  b = rng.standard_normal((2, 4, 5)).astype(np.float32)
  m = rng.standard_normal((4, 4)).astype(np.float32)
  tol = dict(rtol=1e-5, atol=1e-5)
  _close(jnp.einsum("bij,bjk->bik", a, b), np.einsum("bij,bjk->bik", a, b), **tol)
  _close(jnp.einsum("ii->", m), np.einsum("ii->", m), **tol)
  _close(jnp.einsum("ii->i", m), np.einsum("ii->i", m), **tol)
  _close(jnp.einsum("...j,jk->...k", a, m), np.einsum("...j,jk->...k", a, m), **tol)
  _close(jnp.einsum("bij->j", a), np.einsum("bij->j", a), **tol)
  _close(jnp.einsum("ij,jk,kl->il", m, m, m, optimize="greedy"), m @ m @ m, **tol)
  _close(jnp.einsum(m, [0, 1], [1, 0]), m.T)
  _close(jnp.einsum("i,j", a[0, 0], a[1, 1]), np.outer(a[0, 0], a[1, 1]), **tol)
  with pytest.raises(ValueError, match="subscript"):
    jnp.einsum("ij,jk->ik", m)
  # Any character but ',', '-', '>' and '.' is a label, as in JAX (flax's GQA: 'kh1d').
  q = rng.standard_normal((2, 3, 2, 4, 5)).astype(np.float32)
  k = rng.standard_normal((2, 6, 2, 1, 5)).astype(np.float32)
  _close(jnp.einsum("...qhgd,...kh1d->...hgqk", q, k),
         np.einsum("...qhgd,...khzd->...hgqk", q, k), **tol)
  _close(jnp.einsum("i1,j2->ij", m, m), np.einsum("iz,jy->ij", m, m), **tol)
  with pytest.raises(ValueError, match="invalid subscript character '.'"):
    jnp.einsum("i.,j->ij", m, m[0])


def test_tensor_products(backend):
  rng = np.random.default_rng(5)
  a = rng.standard_normal((3, 4)).astype(np.float32)
  b = rng.standard_normal((4, 2)).astype(np.float32)
  v = np.arange(3.0, dtype=np.float32)
  tol = dict(rtol=1e-5, atol=1e-5)
  _close(jnp.inner(v, v), np.inner(v, v))
  _close(jnp.cross(v, v[::-1]), np.cross(v, v[::-1]))
  _close(jnp.kron(np.eye(2, dtype=np.float32), np.ones((2, 3), np.float32)),
         np.kron(np.eye(2), np.ones((2, 3))))
  _close(jnp.tensordot(a, b, axes=1), np.tensordot(a, b, axes=1), **tol)
  _close(jnp.tensordot(a, a, axes=([0, 1], [0, 1])), np.tensordot(a, a, axes=([0, 1], [0, 1])),
         **tol)


def test_reductions_where_initial(backend):
  x = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4) - 10
  m = x > 0
  _close(jnp.sum(x, where=m), np.sum(x, where=m))
  _close(jnp.max(x, axis=1, initial=5.0), np.max(x, axis=1, initial=5.0))
  _close(jnp.mean(x[1], axis=0, where=m[1]), np.mean(x[1], axis=0, where=m[1]))
  np.testing.assert_array_equal(jnp.argmax(x, axis=1, keepdims=True),
                                np.argmax(x, axis=1, keepdims=True))
  with pytest.raises(ValueError, match="identity"):
    jnp.max(x, where=m)
  with pytest.raises(ValueError, match="zero-size"):
    jnp.min(jnp.zeros((0,)))


def test_reduction_dtypes(backend):
  b = np.array([[True, False], [True, True]])
  assert jnp.sum(b).dtype == np.int32 and int(jnp.sum(b)) == 3
  assert jnp.sum(np.uint8([200, 100])).dtype == np.uint32
  assert jnp.sum(np.int8([100, 100, 100]), dtype=jnp.int8).dtype == np.int8
  assert jnp.max(b).dtype == np.bool_
  np.testing.assert_array_equal(jnp.count_nonzero(b, axis=1), [1, 2])


def test_ufunc_methods(backend):
  x = np.arange(1.0, 7.0, dtype=np.float32)
  assert repr(jnp.add) == "<jnp.ufunc 'add'>"
  _close(jnp.add.reduce(x), np.add.reduce(x))
  _close(jnp.multiply.accumulate(x), np.multiply.accumulate(x))
  _close(jnp.subtract.accumulate(x), np.subtract.accumulate(x))
  _close(jnp.subtract.reduce(x), np.subtract.reduce(x))


def test_ufunc_outer_reduceat_at(backend):
  x = np.arange(1.0, 7.0, dtype=np.float32)
  _close(jnp.add.outer(x[:3], x[:2]), np.add.outer(x[:3], x[:2]))
  _close(jnp.maximum.reduce(x.reshape(2, 3), axis=1), np.maximum.reduce(x.reshape(2, 3), axis=1))
  _close(jnp.add.reduceat(x, np.array([0, 2, 5])), np.add.reduceat(x, [0, 2, 5]))
  _close(jnp.add.reduceat(x, np.array([3, 1])), np.add.reduceat(x, [3, 1]))
  assert bool(jnp.logical_or.reduce(np.array([False, True])))
  _close(jnp.add.at(jnp.zeros(4), np.array([0, 2, 0]), 1.0, inplace=False), [2, 0, 1, 0])
  with pytest.raises(NotImplementedError, match="inplace"):
    jnp.add.at(jnp.zeros(4), np.array([0]), 1.0)


def test_operators(backend):
  i = np.array([5, -3, 7], np.int32)
  ji = jnp.asarray(i)
  np.testing.assert_array_equal(-7 // ji, -7 // i)
  np.testing.assert_array_equal(10 % ji, 10 % i)
  np.testing.assert_array_equal(ji >> 1, i >> 1)
  q, r = divmod(ji, 4)
  np.testing.assert_array_equal(q, i // 4)
  np.testing.assert_array_equal(r, i % 4)
  out = round(jnp.float32(2.5))
  assert out.dtype == np.int32 and int(out) == 2


def test_gradients_at_kinks(backend):
  x = np.array([-2.0, 0.0, 2.0], np.float32)
  _close(jax.vmap(jax.grad(jnp.abs))(x), [-1.0, 1.0, 1.0])
  softplus_grad = jax.vmap(jax.grad(lambda v: jnp.logaddexp(v, 0.0)))(x)
  _close(softplus_grad, 1 / (1 + np.exp(-x)))
