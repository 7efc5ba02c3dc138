"""jax.scipy.stats against scipy.stats: every distribution function over a grid with
points outside the support, non-default loc/scale, under jit and vmap, and gradients
against finite differences."""

import numpy as np
import pytest
import scipy.stats as ss

import jax
import jax.numpy as jnp
import jax.scipy.stats as st

X = np.concatenate([np.linspace(-6, 12, 37), [-30.0, 0.0, 1.0, 40.0]])
Q = np.array([0.0, 1e-4, 0.02, 0.3, 0.5, 0.77, 0.999, 1.0])


def _cmp(got, want, rtol=2e-5, atol=1e-30):
  got = np.asarray(got)
  assert got.dtype == np.float32
  np.testing.assert_allclose(got, np.asarray(want, np.float64), rtol=rtol, atol=atol)


# (module name, scipy frozen-args, our args, extra kwargs); x grids shifted by loc/scale
CONTINUOUS = [
    ("norm", (), {"loc": 1.5, "scale": 2.0}),
    ("expon", (), {"loc": -1.0, "scale": 3.0}),
    ("uniform", (), {"loc": -2.0, "scale": 5.0}),
    ("cauchy", (), {"loc": 0.5, "scale": 1.5}),
    ("logistic", (), {"loc": 1.0, "scale": 0.7}),
    ("laplace", (), {"loc": -0.5, "scale": 2.0}),
    ("gamma", (2.5,), {"loc": -1.0, "scale": 1.5}),
    ("chi2", (4.0,), {"loc": 0.5, "scale": 2.0}),
    ("beta", (2.0, 3.5), {"loc": -1.0, "scale": 4.0}),
    ("t", (3.0,), {"loc": 1.0, "scale": 2.0}),
    ("pareto", (2.5,), {"loc": -1.0, "scale": 2.0}),
    ("gumbel_r", (), {"loc": 1.0, "scale": 2.0}),
    ("gumbel_l", (), {"loc": 1.0, "scale": 2.0}),
    ("truncnorm", (-1.0, 2.5), {"loc": 1.0, "scale": 2.0}),
]
FUNCS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")


@pytest.mark.parametrize("name,args,kw", CONTINUOUS, ids=[c[0] for c in CONTINUOUS])
def test_continuous(backend, name, args, kw):
  ours, ref = getattr(st, name), getattr(ss, name)(*args, **kw)
  x = X.astype(np.float32)
  for fn in FUNCS:
    if not hasattr(ours, fn):
      continue
    want = getattr(ref, fn)(x.astype(np.float64))
    got = jax.jit(lambda v, f=getattr(ours, fn): f(v, *args, **kw))(x)
    # log tails of tiny probabilities are compared in absolute terms
    _cmp(got, want, rtol=1e-4, atol=1e-5 if fn.startswith("log") else 1e-30)
  for fn in ("ppf", "isf"):
    if hasattr(ours, fn):
      q = Q.astype(np.float32)
      _cmp(getattr(ours, fn)(q, *args, **kw), getattr(ref, fn)(Q), rtol=2e-4, atol=1e-5)


def test_default_loc_scale_and_broadcasting(backend):
  x = np.linspace(-3, 3, 7, dtype=np.float32)
  _cmp(st.norm.logpdf(x), ss.norm.logpdf(x))
  loc = np.array([[0.0], [1.0]], np.float32)
  _cmp(st.norm.cdf(x, loc), ss.norm.cdf(x, loc))
  _cmp(st.gennorm.logpdf(x, 1.5), ss.gennorm.logpdf(x, 1.5))
  _cmp(st.gennorm.cdf(x, 1.5), ss.gennorm.cdf(x, 1.5))
  v = np.linspace(-3, 3, 9, dtype=np.float32)
  _cmp(st.vonmises.logpdf(v, 2.0), ss.vonmises.logpdf(v, 2.0), rtol=1e-5)
  w = np.linspace(0.1, 6.2, 9, dtype=np.float32)
  _cmp(st.wrapcauchy.pdf(w, 0.4), ss.wrapcauchy.pdf(w, 0.4))
  _cmp(jax.vmap(st.t.logpdf, (0, None))(x, 5.0), ss.t.logpdf(x, 5.0))


def test_continuous_gradients(backend):
  x = np.array([0.3, 1.2, 2.7], np.float32)
  h = 1e-4
  for f, g in [(lambda v: st.norm.logcdf(v, 0.5, 2.0), lambda v: ss.norm.logcdf(v, 0.5, 2.0)),
               (lambda v: st.gamma.cdf(v, 2.5), lambda v: ss.gamma.cdf(v, 2.5)),
               (lambda v: st.beta.logpdf(v / 3, 2.0, 3.0), lambda v: ss.beta.logpdf(v / 3, 2, 3)),
               (lambda v: st.t.logpdf(v, 3.0), lambda v: ss.t.logpdf(v, 3.0))]:
    fd = (g(x.astype(float) + h) - g(x.astype(float) - h)) / (2 * h)
    np.testing.assert_allclose(jax.vmap(jax.grad(f))(x), fd, rtol=1e-3)
  # gradient in the shape parameter goes through igamma_grad_a
  fd = (ss.gamma.cdf(1.5, 2.5 + h) - ss.gamma.cdf(1.5, 2.5 - h)) / (2 * h)
  np.testing.assert_allclose(jax.grad(st.gamma.cdf, argnums=1)(1.5, 2.5), fd, rtol=1e-3)


K = np.array([-1.0, 0.0, 1.0, 2.0, 3.0, 2.5, 7.0, 15.0])


def test_discrete(backend):
  k = K.astype(np.float32)
  _cmp(st.bernoulli.logpmf(k, 0.3), ss.bernoulli.logpmf(K, 0.3))
  _cmp(st.bernoulli.pmf(k, 0.3, loc=1), ss.bernoulli.pmf(K, 0.3, loc=1))
  _cmp(st.bernoulli.cdf(k, 0.3), ss.bernoulli.cdf(K, 0.3))
  _cmp(st.bernoulli.ppf(Q.astype(np.float32), 0.3), ss.bernoulli.ppf(Q, 0.3))
  _cmp(jax.jit(st.poisson.logpmf)(k, 3.5), ss.poisson.logpmf(K, 3.5), rtol=1e-5)
  _cmp(st.poisson.pmf(k, 3.5, 1), ss.poisson.pmf(K, 3.5, 1), rtol=1e-5)
  _cmp(st.poisson.cdf(k, 3.5), ss.poisson.cdf(K, 3.5), rtol=1e-5)
  mu = np.array([0.5, 3.0, 40.0], np.float32)
  _cmp(st.poisson.entropy(mu), ss.poisson.entropy(mu.astype(float)), rtol=1e-5)
  _cmp(st.geom.logpmf(k, 0.2), ss.geom.logpmf(K, 0.2), rtol=1e-5)
  _cmp(st.binom.logpmf(k, 10, 0.35), ss.binom.logpmf(K, 10, 0.35), rtol=1e-5)
  _cmp(st.binom.pmf(k, 10, 0.35, loc=2), ss.binom.pmf(K, 10, 0.35, loc=2), rtol=1e-5)
  _cmp(st.nbinom.logpmf(k, 4.0, 0.4), ss.nbinom.logpmf(K, 4.0, 0.4), rtol=1e-5)
  _cmp(st.betabinom.logpmf(k, 12, 2.0, 3.5), ss.betabinom.logpmf(K, 12, 2.0, 3.5), rtol=1e-5)
  _cmp(jax.vmap(st.binom.pmf, (0, None, None))(k, 10, 0.35), ss.binom.pmf(K, 10, 0.35),
       rtol=1e-5)


def test_multivariate(backend):
  rng = np.random.default_rng(0)
  a = rng.normal(size=(3, 3))
  cov = (a @ a.T + 3 * np.eye(3)).astype(np.float32)
  mean = np.array([0.5, -1.0, 2.0], np.float32)
  x = rng.normal(size=(5, 3)).astype(np.float32)
  _cmp(jax.jit(st.multivariate_normal.logpdf)(x, mean, cov),
       ss.multivariate_normal.logpdf(x, mean, cov), rtol=1e-5)
  _cmp(st.multivariate_normal.pdf(x, mean, cov), ss.multivariate_normal.pdf(x, mean, cov),
       rtol=1e-5)
  diag = np.array([1.0, 2.0, 0.5], np.float32)
  _cmp(st.multivariate_normal.logpdf(x, mean, diag),
       ss.multivariate_normal.logpdf(x, mean, np.diag(diag)), rtol=1e-5)
  g = jax.grad(lambda m: st.multivariate_normal.logpdf(x[0], m, cov))(mean)
  np.testing.assert_allclose(g, np.linalg.solve(cov, x[0] - mean), rtol=1e-4)
  alpha = np.array([1.5, 2.0, 4.0], np.float32)
  p = rng.dirichlet(alpha, size=4).T.astype(np.float32)
  _cmp(st.dirichlet.logpdf(p, alpha), [ss.dirichlet.logpdf(p[:, i], alpha) for i in range(4)],
       rtol=1e-4)
  counts = np.array([[2.0, 3.0, 5.0], [0.0, 0.0, 10.0], [1.0, 1.0, 1.0]], np.float32)
  probs = np.array([0.2, 0.3, 0.5], np.float32)
  want = ss.multinomial.logpmf(counts, 10, probs)
  _cmp(st.multinomial.logpmf(counts, 10, probs), want, rtol=1e-5)
  _cmp(st.multinomial.pmf(counts, 10, probs), np.exp(want), rtol=1e-5)


def test_summaries(backend):
  a = np.array([[3, 1, 2, 3, 1, 3], [5, 5, 0, 0, 7, 9]], np.float32)
  for method in ("average", "min", "max", "dense", "ordinal"):
    np.testing.assert_array_equal(st.rankdata(a, method=method, axis=1),
                                  ss.rankdata(a, method=method, axis=1))
  np.testing.assert_array_equal(st.rankdata(a), ss.rankdata(a))
  m = st.mode(a, axis=1)
  want = ss.mode(a, axis=1)
  np.testing.assert_array_equal(m.mode, want.mode)
  np.testing.assert_array_equal(m.count, want.count)
  _cmp(st.sem(a, axis=1), ss.sem(a, axis=1), rtol=1e-5)
  _cmp(st.sem(a, axis=None, ddof=0), ss.sem(a, axis=None, ddof=0), rtol=1e-5)
  with pytest.raises(ValueError, match="method"):
    st.rankdata(a, method="bogus")


def test_gaussian_kde(backend):
  rng = np.random.default_rng(1)
  data = rng.normal(size=(2, 30)).astype(np.float32)
  w = rng.uniform(size=30).astype(np.float32)
  pts = rng.normal(size=(2, 5)).astype(np.float32)
  for bw in (None, "silverman", 0.4):
    ours, ref = st.gaussian_kde(data, bw, w), ss.gaussian_kde(data.astype(float), bw, w)
    _cmp(ours(pts), ref(pts), rtol=1e-5)
    _cmp(ours.logpdf(pts), ref.logpdf(pts), rtol=1e-5)
    _cmp(ours.integrate_gaussian([0.1, 0.2], np.eye(2)),
         ref.integrate_gaussian([0.1, 0.2], np.eye(2)), rtol=1e-5)
  one = st.gaussian_kde(data[0], "silverman")
  ref = ss.gaussian_kde(data[0].astype(float), "silverman")
  _cmp(one.integrate_box_1d(-0.5, 1.0), ref.integrate_box_1d(-0.5, 1.0), rtol=1e-5)
  _cmp(one.integrate_kde(one), ref.integrate_kde(ref), rtol=1e-5)
  kde = st.gaussian_kde(data)
  _cmp(jax.jit(lambda k, p: k.pdf(p))(kde, pts), ss.gaussian_kde(data.astype(float))(pts),
       rtol=1e-5)
  draws = kde.resample(jax.random.key(0), (4000,))
  assert draws.shape == (2, 4000)
  # a draw is a data point (biased data covariance) plus kernel noise (kde.covariance)
  want = np.cov(data, bias=True) + np.asarray(kde.covariance)
  np.testing.assert_allclose(np.cov(np.asarray(draws)), want, rtol=0.15, atol=0.05)
  with pytest.raises(ValueError, match="bw_method"):
    st.gaussian_kde(data, "bogus")
