"""jax.nn activations, softmax family, one_hot, standardize and initializers."""

import numpy as np
import pytest
import scipy.special as ss

import jax
import jax.numpy as jnp
from jax import nn

X = np.linspace(-4.0, 4.0, 9).astype(np.float32)


def _close(got, want, tol=1e-5):
  np.testing.assert_allclose(np.asarray(got), want, rtol=tol, atol=tol)


def test_activations_match_formulas(backend):
  x = X.astype(np.float64)
  _close(nn.relu(X), np.maximum(x, 0))
  _close(nn.relu6(2 * X), np.clip(2 * x, 0, 6))
  _close(nn.sigmoid(X), ss.expit(x))
  _close(nn.softplus(X), np.logaddexp(x, 0))
  _close(nn.log_sigmoid(X), -np.logaddexp(-x, 0))
  _close(nn.silu(X), x * ss.expit(x))
  _close(nn.gelu(X, approximate=False), x * 0.5 * (1 + ss.erf(x / np.sqrt(2))))
  _close(nn.gelu(X), 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))))
  _close(nn.elu(X), np.where(x > 0, x, np.expm1(x)))
  _close(nn.celu(X, 2.0), np.maximum(x, 0) + 2 * np.expm1(np.minimum(x, 0) / 2))
  _close(nn.selu(X), 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)))
  _close(nn.leaky_relu(X, 0.1), np.where(x >= 0, x, 0.1 * x))
  _close(nn.hard_tanh(X), np.clip(x, -1, 1))
  _close(nn.hard_sigmoid(X), np.clip(x + 3, 0, 6) / 6)
  _close(nn.hard_silu(X), x * np.clip(x + 3, 0, 6) / 6)
  _close(nn.soft_sign(X), x / (np.abs(x) + 1))
  _close(nn.mish(X), x * np.tanh(np.logaddexp(x, 0)))
  _close(nn.sparse_plus(X), np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4)))
  _close(nn.squareplus(X), (x + np.sqrt(x * x + 4)) / 2)
  assert nn.relu(X).dtype == np.float32 and nn.sigmoid(np.int32(1)).dtype == np.float32


def test_gradient_conventions_at_kinks(backend):
  x = np.array([-2.0, 0.0, 1.0, 6.0], np.float32)
  g = lambda f: np.asarray(jax.vmap(jax.grad(f))(x))
  np.testing.assert_array_equal(g(nn.relu), [0, 0, 1, 1])
  np.testing.assert_array_equal(g(nn.relu6), [0, 0, 1, 0])
  np.testing.assert_array_equal(g(nn.hard_tanh), [0, 1, 1, 0])
  _close(g(nn.sigmoid), ss.expit(x) * (1 - ss.expit(x)))
  _close(g(nn.softplus), ss.expit(x))


def test_softmax_family(backend):
  x = np.array([[1.0, 2.0, 3.0, 4.0], [1000.0, 1000.0, -1000.0, 0.0]], np.float32)
  _close(nn.softmax(x), ss.softmax(x.astype(np.float64), axis=-1))
  _close(nn.softmax(x, axis=0), ss.softmax(x.astype(np.float64), axis=0))
  _close(nn.log_softmax(x), ss.log_softmax(x.astype(np.float64), axis=-1), 1e-4)
  mask = np.array([True, True, False, True])
  sm = np.asarray(nn.softmax(x, where=mask))
  assert np.all(sm[:, 2] == 0)
  _close(sm[0, mask], ss.softmax(x[0, mask].astype(np.float64)))
  lsm = np.asarray(nn.log_softmax(x, where=mask))
  assert np.all(np.isneginf(lsm[:, 2]))
  _close(nn.logsumexp(x, axis=1), ss.logsumexp(x.astype(np.float64), axis=1), 1e-4)
  g = jax.grad(lambda v: nn.logsumexp(v))(x[1])
  _close(g, ss.softmax(x[1].astype(np.float64)))


def test_one_hot_glu_standardize(backend):
  oh = nn.one_hot(np.array([0, 2, -1, 5]), 4)
  np.testing.assert_array_equal(oh, np.eye(4)[[0, 2]].tolist() + [[0] * 4] * 2)
  assert oh.dtype == np.float32
  assert nn.one_hot(np.array([1, 3]), 4, dtype=jnp.int32).dtype == np.int32
  np.testing.assert_array_equal(nn.one_hot(np.array([[0], [1]]), 3, axis=0)[:, :, 0],
                                [[1, 0], [0, 1], [0, 0]])
  x = np.arange(8.0, dtype=np.float32).reshape(2, 4)
  _close(nn.glu(x), x[:, :2] * ss.expit(x[:, 2:]))
  _close(nn.standardize(x), (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5),
         1e-4)
  with pytest.raises(ValueError, match="divisible by 2"):
    nn.glu(np.ones((2, 3)))
  with pytest.raises(TypeError, match="num_classes"):
    nn.one_hot(np.array([1]), 2.5)


def test_initializers_constant_and_errors(backend):
  key = jax.random.PRNGKey(0)
  init = nn.initializers
  assert init.zeros(key, (2, 3)).shape == (2, 3)
  np.testing.assert_array_equal(init.ones(key, (2,)), [1, 1])
  np.testing.assert_array_equal(init.constant(0.5)(key, (3,)), [0.5] * 3)
  with pytest.raises(ValueError, match="invalid mode"):
    init.variance_scaling(1.0, "fan_bogus", "normal")
  with pytest.raises(ValueError, match="at least 2D"):
    init.glorot_normal()(key, (3,))


def test_initializers_statistics(backend):
  key = jax.random.PRNGKey(0)
  init = nn.initializers
  w = np.asarray(init.glorot_uniform()(key, (200, 300)))
  bound = np.sqrt(6 / 500)
  assert w.dtype == np.float32 and np.abs(w).max() <= bound
  assert abs(w.std() - bound / np.sqrt(3)) < 0.01 * bound
  w = np.asarray(init.he_normal()(key, (400, 100)))
  assert abs(w.std() - np.sqrt(2 / 400)) < 0.05 * np.sqrt(2 / 400)
  assert np.abs(w).max() <= 2 * np.sqrt(2 / 400) / 0.87962566103423978 * 1.0001


def test_initializers_are_scaled_draws(backend):
  key = jax.random.PRNGKey(0)
  init = nn.initializers
  # normal(stddev) is the standard normal draw scaled by stddev.
  _close(init.normal(0.1)(key, (4,)), 0.1 * np.asarray(jax.random.normal(key, (4,))))
  # A convolution kernel's fan-in counts its receptive field: 3 * 3 * 16.
  conv = init.variance_scaling(1.0, "fan_in", "normal")(key, (3, 3, 16, 8))
  _close(conv, np.asarray(jax.random.normal(key, (3, 3, 16, 8))) / np.sqrt(144), 1e-6)


def test_orthogonal_initializer_is_orthogonal(backend):
  from jax.nn import initializers
  key = jax.random.PRNGKey(3)
  tall = np.asarray(initializers.orthogonal()(key, (4, 3)))
  np.testing.assert_allclose(tall.T @ tall, np.eye(3), atol=1e-5)
  wide = np.asarray(initializers.orthogonal(scale=2.0)(key, (3, 5)))
  np.testing.assert_allclose(wide @ wide.T, 4 * np.eye(3), atol=1e-5)
  conv = np.asarray(initializers.orthogonal(column_axis=0)(key, (4, 3, 2)))
  assert conv.shape == (4, 3, 2)
  flat = np.moveaxis(conv, 0, -1).reshape(6, 4)
  np.testing.assert_allclose(flat.T @ flat, np.eye(4), atol=1e-5)
  with pytest.raises(ValueError, match="two-dimensional"):
    initializers.orthogonal()(key, (3,))


@pytest.mark.parametrize("distribution,second_moment,max_modulus",
                         [("normal", 1.0, None), ("uniform", 1.0, np.sqrt(2)),
                          ("truncated_normal", (1 - 5 * np.exp(-4)) / (1 - np.exp(-4)), 2.0)])
def test_variance_scaling_draws_complex_parameters(distribution, second_moment, max_modulus):
  init = jax.nn.initializers.variance_scaling(2.0, "fan_in", distribution, dtype=jnp.complex64)
  w = np.asarray(init(jax.random.PRNGKey(0), (400, 300)))
  assert w.dtype == np.complex64
  unit = w / np.sqrt(2.0 / 400)  # draws of unit variance before truncation
  np.testing.assert_allclose(np.mean(np.abs(unit) ** 2), second_moment, rtol=0.01)
  assert abs(np.mean(unit)) < 0.02  # uniform phase: no preferred direction
  if max_modulus is not None:
    assert np.abs(unit).max() <= max_modulus * (1 + 1e-5)


def test_masked_softmax_rows_masked_out_whole():
  # JAX 0.10.2: a row masked out whole gives 0 (softmax) or -inf (log_softmax), and
  # no NaN gradient (optax's masked cross-entropy).
  ys = np.array([[10.0, 1.0, -2.0], [1.0, 4.0, 0.2]], np.float32)
  m = np.array([[True, False, True], [False, False, False]])
  np.testing.assert_array_equal(jax.nn.softmax(ys, where=m)[1], [0, 0, 0])
  np.testing.assert_array_equal(jax.nn.log_softmax(ys, where=m)[1], [-np.inf] * 3)
  g = jax.grad(lambda y: jnp.sum(jax.nn.softmax(y, where=m) * jnp.arange(3.0)))(ys)
  np.testing.assert_array_equal(g[1], [0, 0, 0])
  assert np.isfinite(np.asarray(g)).all()
  g = jax.grad(lambda y: jnp.sum(jnp.where(m, jax.nn.log_softmax(y, where=m), 0.0)))(ys)
  np.testing.assert_allclose(g[0], [-0.9999876, 0.0, 0.9999877], rtol=1e-5)
  np.testing.assert_array_equal(g[1], [0, 0, 0])
