"""lax special-function primitives and the rest of jax.scipy.special, against scipy.special:
values over grids with edge values, under jit and vmap, gradients against finite
differences."""

import numpy as np
import pytest
import scipy.special as ss

import jax
import jax.numpy as jnp
import jax.scipy.special as sp
from jax import lax

POS = np.concatenate([np.geomspace(1e-3, 1, 15), np.linspace(1.5, 30, 20), [55.0, 170.0]])
REAL = np.concatenate([np.linspace(-9.7, 9.7, 41), [-25.0, -0.3, 0.0, 0.2, 25.0]])


@pytest.fixture(params=[np.float32, np.float64])
def dtype(request):
  jax.config.update("jax_enable_x64", request.param == np.float64)
  yield request.param
  jax.config.update("jax_enable_x64", False)


def _tol(dtype, scale=1.0):
  return (2e-6 if dtype == np.float32 else 1e-12) * scale


def _check(got, want, dtype, scale=1.0, atol=0.0):
  got = np.asarray(got)
  assert got.dtype == dtype
  np.testing.assert_allclose(got, want, rtol=_tol(dtype, scale), atol=atol)


def _grid(*arrays, dtype):
  return [a.astype(dtype).ravel() for a in np.meshgrid(*arrays, indexing="ij")]


def test_lgamma_digamma_erfc_bessel(backend, dtype):
  x = POS.astype(dtype)
  # lgamma's zeros at 1 and 2 are met with an absolute error of a few ulps of 1
  _check(jax.jit(lax.lgamma)(x), ss.gammaln(x), dtype, 5, atol=_tol(dtype, 2))
  _check(lax.digamma(x), ss.digamma(x), dtype, 5, atol=_tol(dtype, 2))
  neg = np.array([-0.5, -1.5, -2.25, -7.3], dtype)
  _check(lax.lgamma(neg), ss.gammaln(neg), dtype, 5)
  _check(lax.digamma(neg), ss.digamma(neg), dtype, 50)
  r = REAL.astype(dtype)
  _check(lax.erfc(r), ss.erfc(r), dtype, 5, atol=1e-37)
  _check(lax.bessel_i0e(r), ss.i0e(r), dtype, 2)
  _check(lax.bessel_i1e(r), ss.i1e(r), dtype, 2)
  assert np.isinf(lax.lgamma(np.array([0.0, -3.0, np.inf], dtype))).all()
  assert np.isnan(lax.digamma(np.array([0.0, -2.0], dtype))).all()


def test_zeta_polygamma(backend, dtype):
  s, q = _grid(np.array([1.5, 2.0, 3.3, 8.0, 20.0]), np.array([0.1, 0.5, 1.0, 4.0, 25.0]),
               dtype=dtype)
  _check(jax.jit(lax.zeta)(s, q), ss.zeta(s, q), dtype, 5)
  _check(sp.zeta(np.array([2.0, 4.0], dtype)), [np.pi ** 2 / 6, np.pi ** 4 / 90], dtype, 5)
  n, x = _grid(np.array([1.0, 2.0, 3.0, 5.0]), POS[POS < 60], dtype=dtype)
  _check(sp.polygamma(n, x), ss.polygamma(n.astype(int), x), dtype, 20)
  _check(sp.polygamma(0, x[:8]), ss.digamma(x[:8]), dtype, 5)
  out = np.asarray(lax.zeta(np.array([1.0, 0.5, 2.0], dtype), np.array([1.0, 1.0, -2.0], dtype)))
  assert np.isinf(out[0]) and np.isnan(out[1]) and np.isinf(out[2])
  assert np.isnan(sp.polygamma(np.array(1.5, dtype), np.array(2.0, dtype)))


A_GRID = np.array([0.05, 0.5, 1.0, 3.0, 10.0, 80.0, 500.0])
X_GRID = np.array([0.0, 0.01, 0.3, 1.0, 2.5, 9.0, 30.0, 100.0, 600.0, np.inf])


def test_incomplete_gamma(backend, dtype):
  a, x = _grid(A_GRID, X_GRID, dtype=dtype)
  want_p, want_q = ss.gammainc(a, x), ss.gammaincc(a, x)
  # relative accuracy only where the value is not in float's underflow range
  atol = 1e-30 if dtype == np.float32 else 1e-300
  # float32 loses ~eps * a log x in the prefactor exp(a log x - x - lgamma(a)): 1e-4 at a=500
  scale = 100 if dtype == np.float32 else 50
  _check(jax.jit(sp.gammainc)(a, x), want_p, dtype, scale, atol)
  _check(sp.gammaincc(a, x), want_q, dtype, scale, atol)
  _check(lax.igamma(a, x), want_p, dtype, scale, atol)
  _check(lax.igammac(a, x), want_q, dtype, scale, atol)
  bad = lax.igamma(np.array([-1.0, 1.0, 0.0], dtype), np.array([1.0, -1.0, 1.0], dtype))
  assert np.isnan(np.asarray(bad)).all()


def test_incomplete_gamma_gradients(backend, dtype):
  a = np.array([0.3, 1.0, 2.5, 7.0, 30.0], dtype)
  x = np.array([0.2, 2.0, 1.5, 9.0, 25.0], dtype)
  h = 1e-3 if dtype == np.float32 else 1e-6
  ga = jax.vmap(jax.grad(lax.igamma, argnums=0))(a, x)
  gx = jax.vmap(jax.grad(sp.gammaincc, argnums=1))(a, x)
  fd_a = (ss.gammainc(a.astype(float) + h, x) - ss.gammainc(a.astype(float) - h, x)) / (2 * h)
  fd_x = (ss.gammaincc(a, x.astype(float) + h) - ss.gammaincc(a, x.astype(float) - h)) / (2 * h)
  tol = 2e-3 if dtype == np.float32 else 1e-7
  np.testing.assert_allclose(ga, fd_a, rtol=tol, atol=tol * 1e-2)
  np.testing.assert_allclose(gx, fd_x, rtol=tol, atol=tol * 1e-2)
  np.testing.assert_allclose(lax.igamma_grad_a(a, x), fd_a, rtol=tol, atol=tol * 1e-2)
  # random_gamma_grad = -(dP/da) / pdf(x)
  pdf = np.exp((a - 1.0) * np.log(x.astype(float)) - x - ss.gammaln(a.astype(float)))
  np.testing.assert_allclose(lax.random_gamma_grad(a, x), -fd_a / pdf, rtol=tol)
  with pytest.raises(NotImplementedError, match="igamma_grad_a"):
    jax.jvp(lambda v: lax.igamma_grad_a(v, 1.0), (2.0,), (1.0,))


def test_betainc(backend, dtype):
  a, b, x = _grid(np.array([0.2, 1.0, 3.0, 25.0, 300.0]), np.array([0.5, 2.0, 40.0]),
                  np.array([0.0, 1e-3, 0.1, 0.5, 0.9, 0.999, 1.0]), dtype=dtype)
  atol = 1e-30 if dtype == np.float32 else 1e-300
  _check(jax.jit(sp.betainc)(a, b, x), ss.betainc(a, b, x), dtype, 200, atol)
  _check(lax.betainc(a[:7], 2.0, x[:7]), ss.betainc(a[:7], 2.0, x[:7]), dtype, 200, atol)
  assert np.isnan(np.asarray(sp.betainc(np.array([-1.0, 1.0], dtype), 1.0,
                                        np.array([0.5, 1.5], dtype)))).all()
  h = 1e-3 if dtype == np.float32 else 1e-6
  a, b = np.array([0.5, 2.0, 3.0, 30.0], dtype), np.array([0.7, 1.0, 5.0, 40.0], dtype)
  x = np.array([0.3, 0.5, 0.2, 0.45], dtype)
  gx = jax.vmap(jax.grad(sp.betainc, argnums=2))(a, b, x)
  fd = (ss.betainc(a, b, x.astype(float) + h) - ss.betainc(a, b, x.astype(float) - h)) / (2 * h)
  np.testing.assert_allclose(gx, fd, rtol=3e-3 if dtype == np.float32 else 1e-6)
  with pytest.raises(NotImplementedError, match="betainc"):
    jax.jvp(lambda v: sp.betainc(v, 2.0, 0.5), (1.0,), (1.0,))


def test_lax_special_gradients(backend):
  x = np.array([0.3, 1.7, 4.0, 12.0], np.float32)
  for f, d in [(lax.lgamma, ss.digamma), (lax.digamma, lambda v: ss.polygamma(1, v)),
               (lax.erfc, lambda v: -2 / np.sqrt(np.pi) * np.exp(-v * v))]:
    np.testing.assert_allclose(jax.vmap(jax.grad(f))(x), d(x.astype(float)), rtol=2e-5,
                               atol=1e-37)
  r = np.array([-3.0, -0.4, 0.0, 0.7, 5.0, 20.0], np.float32)
  h = 1e-5
  for f, g in [(lax.bessel_i0e, ss.i0e), (lax.bessel_i1e, ss.i1e)]:
    fd = (g(r.astype(float) + h) - g(r.astype(float) - h)) / (2 * h)
    np.testing.assert_allclose(jax.vmap(jax.grad(f))(r), fd, rtol=1e-4, atol=1e-6)
  q = np.array([0.5, 2.0], np.float32)
  dq = jax.grad(lambda v: lax.zeta(3.0, v).sum())(q)
  np.testing.assert_allclose(dq, -3 * ss.zeta(4.0, q.astype(float)), rtol=1e-5)
  # no derivative in x: a concrete non-zero tangent is an error
  with pytest.raises(NotImplementedError, match="zeta"):
    jax.jvp(lambda s: lax.zeta(s, 2.0), (3.0,), (1.0,))


def test_half_precision_goes_through_float32(backend):
  x = np.array([0.5, 2.0, 7.5], np.float16)
  out = lax.lgamma(x)
  assert out.dtype == np.float16
  np.testing.assert_allclose(np.asarray(out, float), ss.gammaln(x.astype(float)), rtol=2e-3,
                             atol=2e-3)


def test_combinatorics_and_boxcox(backend, dtype):
  n = np.arange(-2, 25).astype(dtype)
  _check(sp.factorial(n), ss.factorial(n), dtype, 20)
  N, k = _grid(np.array([0.0, 5.0, 20.0, 60.0]), np.arange(-1, 25.0), dtype=dtype)
  _check(jax.jit(sp.comb)(N, k), ss.comb(N, k), dtype, 50)
  N, k = N[N > 0], k[N > 0]
  _check(sp.comb(N, k, repetition=True), ss.comb(N, k, repetition=True), dtype, 50)
  z, m = _grid(np.array([-2.25, 0.3, 1.0, 7.5]), np.array([0.0, 1.0, 2.5, 6.0]), dtype=dtype)
  _check(sp.poch(z, m), ss.poch(z, m), dtype, 20)
  x = POS[:30].astype(dtype)
  for lm in (0.0, 0.5, -1.3):
    _check(sp.boxcox(x, lm), ss.boxcox(x, lm), dtype, 5)
    _check(sp.boxcox1p(x, lm), ss.boxcox1p(x, lm), dtype, 5)
  _check(sp.loggamma(x), ss.loggamma(x), dtype, 5, atol=_tol(dtype, 2))
  assert np.isnan(np.asarray(sp.loggamma(np.array(-1.5, dtype))))
  np.testing.assert_allclose(sp.bernoulli(12), ss.bernoulli(12), rtol=1e-7)
  with pytest.raises(NotImplementedError):
    sp.factorial(3, exact=True)
  with pytest.raises(ValueError):
    sp.bernoulli(-1)


def test_exponential_integrals_erfcx_dawsn(backend, dtype):
  x = POS[POS < 80].astype(dtype)
  _check(jax.jit(sp.exp1)(x), ss.exp1(x), dtype, 5, atol=1e-37)
  for n in (0, 1, 2, 5):
    _check(sp.expn(n, x), ss.expn(n, x), dtype, 10, atol=1e-37)
  r = np.concatenate([-x[::3], x]).astype(dtype)
  # Ei has a zero at 0.3725; near it only absolute accuracy is meaningful
  _check(sp.expi(r), ss.expi(r), dtype, 10, atol=_tol(dtype, 0.1))
  _check(sp.expn(3, np.array([0.0], dtype)), [0.5], dtype)
  r = REAL.astype(dtype)
  _check(sp.dawsn(r), ss.dawsn(r), dtype, 5)
  r = r[r > -9]
  _check(sp.erfcx(r), ss.erfcx(r), dtype, 5)
  _check(jax.vmap(sp.erfcx)(r), ss.erfcx(r), dtype, 5)


def test_log_ndtr_series_order(backend):
  x = np.array([-40.0, -15.0, -11.0, -3.0, 0.0, 4.0], np.float32)
  for order in (0, 3, 8):
    np.testing.assert_allclose(sp.log_ndtr(x, series_order=order), ss.log_ndtr(x.astype(float)),
                               rtol=3e-3 if order == 0 else 2e-6)
  with pytest.raises(ValueError, match="series_order"):
    sp.log_ndtr(x, series_order=31)
  with pytest.raises(TypeError, match="series_order"):
    sp.log_ndtr(x, series_order=2.0)


def test_spence_hyp1f1(backend, dtype):
  x = np.array([0.0, 1e-3, 0.3, 0.5, 0.9, 1.0, 1.5, 2.0, 3.0, 10.0, 100.0, 1e4], dtype)
  _check(jax.jit(sp.spence)(x), ss.spence(x), dtype, 100, atol=_tol(dtype, 0.1))
  assert np.isnan(np.asarray(sp.spence(np.array(-1.0, dtype))))
  a, b, z = _grid(np.array([0.5, 1.0, 3.0]), np.array([1.5, 4.0, 10.0]),
                  np.array([-20.0, -3.0, -0.5, 0.0, 0.5, 3.0, 20.0]), dtype=dtype)
  _check(sp.hyp1f1(a, b, z), ss.hyp1f1(a, b, z), dtype, 500)


def test_owens_t(backend, dtype):
  h, a = _grid(np.array([-3.0, -0.5, 0.0, 0.3, 1.0, 2.5, 6.0]),
               np.array([-4.0, -1.0, -0.3, 0.0, 0.5, 1.0, 2.0, 10.0]), dtype=dtype)
  # 40-point quadrature: ~3e-6 relative at worst (far tails), 2e-8 absolute
  np.testing.assert_allclose(jax.jit(sp.owens_t)(h, a), ss.owens_t(h, a), rtol=5e-6, atol=3e-8)


def test_sici_fresnel(backend, dtype):
  # float32 cannot hold the phase pi x^2 / 2 of large x, so its grid stops at 10
  top = 10.0 if dtype == np.float32 else 1e3
  x = np.array([-8.0, -3.0, -0.5, 0.0, 1e-3, 0.5, 1.4, 1.5, 1.6, 2.0, 2.1, 5.0, top], dtype)
  s, c = jax.jit(sp.fresnel)(x)
  want_s, want_c = ss.fresnel(x)
  _check(s, want_s, dtype, 50, atol=_tol(dtype, 0.1))
  _check(c, want_c, dtype, 50, atol=_tol(dtype, 0.1))
  x = np.array([-30.0, -3.0, -0.5, 1e-3, 0.5, 1.9, 2.0, 2.1, 5.0, 10.0, 50.0, top], dtype)
  si, ci = sp.sici(x)
  want_si, want_ci = ss.sici(x)
  _check(si, want_si, dtype, 50, atol=_tol(dtype, 0.1))
  _check(ci, want_ci, dtype, 50, atol=_tol(dtype, 0.1))
  si0, ci0 = sp.sici(np.array(0.0, dtype))
  assert si0 == 0 and np.isneginf(ci0)


def test_bessel_jn(backend, dtype):
  z = np.array([0.0, 1e-3, 0.5, 1.0, 3.0, 7.5, 15.0, 24.0], dtype)
  got = jax.jit(lambda v: sp.bessel_jn(v, v=6))(z)
  assert got.shape == (7, 8) and got.dtype == dtype
  want = ss.jv(np.arange(7)[:, None], z[None].astype(np.float64))
  # absolute: the values pass through zeros of J_n
  np.testing.assert_allclose(got, want, atol=_tol(dtype, 0.1), rtol=_tol(dtype, 5))
  with pytest.raises(ValueError, match="v must be"):
    sp.bessel_jn(z, v=-1)


def test_hyp2f1(backend, dtype):
  a, b, c, x = _grid(np.array([0.5, 1.0, -2.0]), np.array([1.5, 3.0]), np.array([2.5, 4.0]),
                     np.array([-5.0, -1.0, -0.3, 0.0, 0.3, 0.7, 0.95, 1.0]), dtype=dtype)
  # the terminating a = -2 polynomial cancels to ~1e-2 at x = 0.7, costing a few digits
  _check(jax.jit(sp.hyp2f1)(a, b, c, x), ss.hyp2f1(a, b, c, x), dtype, 5e3)
  assert np.isnan(np.asarray(sp.hyp2f1(1.0, 1.0, 2.0, np.array(1.5, dtype))))


def test_sph_harm_y(backend):
  n, m = [v.ravel() for v in np.meshgrid(np.arange(0, 6), np.arange(-5, 6))]
  theta = np.linspace(0.1, 3.0, n.size)
  phi = np.linspace(-2.0, 5.0, n.size)
  got = jax.jit(lambda *a: sp.sph_harm_y(*a, n_max=5))(n, m, theta.astype(np.float32),
                                                       phi.astype(np.float32))
  assert got.dtype == np.complex64
  np.testing.assert_allclose(got, ss.sph_harm_y(n, m, theta, phi), atol=1e-6)
  with pytest.raises(NotImplementedError, match="diff_n"):
    sp.sph_harm_y(1, 0, 0.3, 0.2, diff_n=1)


def test_wofz(backend):
  x, y = np.meshgrid([-6.0, -2.0, -0.5, 0.0, 0.3, 1.0, 4.0, 10.0], [-2.0, -0.5, 0.0, 0.2, 1.0, 20.0])
  z = (x + 1j * y).ravel()
  got = jax.jit(sp.wofz)(z.astype(np.complex64))
  assert got.dtype == np.complex64
  np.testing.assert_allclose(got, ss.wofz(z), rtol=2e-6)
  np.testing.assert_allclose(sp.wofz(np.array([0.5, 2.0], np.float32)), ss.wofz([0.5, 2.0]),
                             rtol=2e-6)
