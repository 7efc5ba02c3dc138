"""jax.scipy.special against scipy.special, in float32 and float64."""

import numpy as np
import pytest
import scipy.special as ss

import jax
import jax.numpy as jnp
import jax.scipy.special as sp

X = np.concatenate([np.linspace(-25, 25, 101), [-3.3, -0.7, 1e-3, 0.5, 2.5, 40.0]])
NONINT = X[np.abs(X - np.round(X)) > 1e-2]
P = np.linspace(0.002, 0.998, 50)


@pytest.fixture(params=[np.float32, np.float64])
def dtype(request):
  jax.config.update("jax_enable_x64", request.param == np.float64)
  return request.param


def _check(got, want, dtype, scale=1.0):
  got = np.asarray(got)
  assert got.dtype == dtype
  tol = (3e-5 if dtype == np.float32 else 1e-10) * scale
  np.testing.assert_allclose(got, want, rtol=tol, atol=tol * 1e-3)


def test_error_functions(backend, dtype):
  x = X.astype(dtype)
  _check(sp.erf(x), ss.erf(x), dtype)
  _check(sp.erfc(x), ss.erfc(x), dtype)
  _check(sp.ndtr(x), ss.ndtr(x), dtype)
  _check(sp.log_ndtr(x), ss.log_ndtr(x), dtype)
  _check(sp.ndtri(P.astype(dtype)), ss.ndtri(P), dtype, 100)
  _check(sp.erfinv(2 * P.astype(dtype) - 1), ss.erfinv(2 * P - 1), dtype, 100)


def test_gamma_family(backend, dtype):
  x = NONINT.astype(dtype)
  _check(sp.gammaln(x), ss.gammaln(x), dtype, 30)
  _check(sp.digamma(x), ss.digamma(x), dtype, 30)
  small = x[x < 20]
  _check(sp.gamma(small), ss.gamma(small), dtype, 30)
  pos = x[x > 0]
  _check(sp.betaln(pos, pos + 1), ss.betaln(pos, pos + 1), dtype, 30)
  _check(sp.multigammaln(pos + 2, 3), ss.multigammaln(pos + 2, 3), dtype, 30)
  assert np.isnan(sp.gamma(np.array(-2.0, dtype)))


def test_bessel_and_logistic(backend, dtype):
  x = X.astype(dtype)
  _check(sp.i0e(x), ss.i0e(x), dtype)
  _check(sp.i1e(x), ss.i1e(x), dtype)
  _check(sp.expit(x), ss.expit(x), dtype)
  p = P.astype(dtype)
  _check(sp.logit(p), ss.logit(p), dtype, 10)


def test_xlogy_family(backend, dtype):
  x = np.array([0.0, 1.0, 2.0, 0.5], dtype)
  y = np.array([0.0, 0.5, 3.0, 2.0], dtype)
  _check(sp.xlogy(x, y), ss.xlogy(x, y), dtype)
  _check(sp.xlog1py(x, y - 1), ss.xlog1py(x, y - 1), dtype)
  _check(sp.entr(np.array([0.0, 0.3, 1.0, -1.0], dtype)), ss.entr([0.0, 0.3, 1.0, -1.0]), dtype)
  _check(sp.kl_div(x[1:], y[1:]), ss.kl_div(x[1:], y[1:]), dtype)
  _check(sp.rel_entr(x, y + 1), ss.rel_entr(x, y + 1), dtype)
  # xlogy's derivative in x at x = 0 is log(y), not nan.
  g = jax.grad(lambda a: sp.xlogy(a, dtype(2.0)))(dtype(0.0))
  np.testing.assert_allclose(g, np.log(2.0), rtol=1e-6)


def test_logsumexp_options(backend):
  x = np.array([[1000.0, 1000.0, -1000.0], [1.0, 2.0, 3.0]], np.float32)
  b = np.array([1.0, -2.0, 1.0], np.float32)
  s, sign = sp.logsumexp(x, axis=1, b=b, return_sign=True)
  ws, wsign = ss.logsumexp(x.astype(np.float64), axis=1, b=b, return_sign=True)
  np.testing.assert_allclose(s, ws, rtol=1e-5)
  np.testing.assert_array_equal(sign, wsign)
  assert np.isnan(sp.logsumexp(x[0], b=b))  # a negative sum without return_sign
  np.testing.assert_allclose(sp.logsumexp(x, axis=0, keepdims=True),
                             ss.logsumexp(x.astype(np.float64), axis=0, keepdims=True), rtol=1e-5)
  assert sp.logsumexp(np.array([-np.inf, -np.inf], np.float32)) == -np.inf
  where = np.array([True, False, True])
  np.testing.assert_allclose(sp.logsumexp(x[1], where=where), np.logaddexp(1.0, 3.0), rtol=1e-6)
  with pytest.raises(ValueError, match="out of bounds"):
    sp.logsumexp(x, axis=2)
