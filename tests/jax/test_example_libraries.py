"""example_libraries: optimizer steps against numpy written from the update formulas;
stax layers against numpy."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax.example_libraries import optimizers as opt
from jax.example_libraries import stax

X0 = np.array([1.0, -2.0, 0.5], np.float32)
GRADS = [np.array([0.3, -0.1, 0.8], np.float32), np.array([-0.5, 0.2, 0.1], np.float32),
         np.array([0.05, 0.4, -0.3], np.float32)]


def _run(optimizer, jit=True):
  init, update, get_params = optimizer
  state = init({"w": jnp.asarray(X0)})
  step = jax.jit(update) if jit else update
  for i, g in enumerate(GRADS):
    state = step(i, {"w": jnp.asarray(g)}, state)
  return np.asarray(get_params(state)["w"])


def _np_sgd(lr):
  x = X0.astype(np.float64)
  for g in GRADS:
    x = x - lr * g
  return x


def _np_momentum(lr, mass, nesterov=False):
  x, v = X0.astype(np.float64), np.zeros(3)
  for g in GRADS:
    v = mass * v + g
    x = x - lr * (mass * v + g if nesterov else v)
  return x


def _np_adam(lr, b1=0.9, b2=0.999, eps=1e-8):
  x, m, v = X0.astype(np.float64), np.zeros(3), np.zeros(3)
  for i, g in enumerate(GRADS):
    m = (1 - b1) * g + b1 * m
    v = (1 - b2) * g * g + b2 * v
    mhat, vhat = m / (1 - b1 ** (i + 1)), v / (1 - b2 ** (i + 1))
    x = x - lr * mhat / (np.sqrt(vhat) + eps)
  return x


def _np_rmsprop(lr, gamma=0.9, eps=1e-8):
  x, a = X0.astype(np.float64), np.zeros(3)
  for g in GRADS:
    a = gamma * a + (1 - gamma) * g * g
    x = x - lr * g / np.sqrt(a + eps)
  return x


def _np_adagrad(lr, momentum=0.9):
  x, s, m = X0.astype(np.float64), np.zeros(3), np.zeros(3)
  for g in GRADS:
    s = s + g * g
    m = (1 - momentum) * g / np.sqrt(s) + momentum * m
    x = x - lr * m
  return x


def _np_adamax(lr, b1=0.9, b2=0.999, eps=1e-8):
  x, m, u = X0.astype(np.float64), np.zeros(3), np.zeros(3)
  for i, g in enumerate(GRADS):
    m = (1 - b1) * g + b1 * m
    u = np.maximum(b2 * u, np.abs(g))
    x = x - lr / (1 - b1 ** (i + 1)) * m / (u + eps)
  return x


@pytest.mark.parametrize("name,optimizer,expected", [
    ("sgd", opt.sgd(0.1), _np_sgd(0.1)),
    ("momentum", opt.momentum(0.1, 0.9), _np_momentum(0.1, 0.9)),
    ("nesterov", opt.nesterov(0.1, 0.9), _np_momentum(0.1, 0.9, nesterov=True)),
    ("adam", opt.adam(0.01), _np_adam(0.01)),
    ("rmsprop", opt.rmsprop(0.01), _np_rmsprop(0.01)),
    ("adagrad", opt.adagrad(0.1), _np_adagrad(0.1)),
    ("adamax", opt.adamax(0.01), _np_adamax(0.01)),
])
def test_optimizer_steps(backend, name, optimizer, expected):
  np.testing.assert_allclose(_run(optimizer), expected, rtol=2e-5, atol=1e-6)


def test_eager_equals_jit(backend):
  np.testing.assert_allclose(_run(opt.adam(0.01), jit=False), _run(opt.adam(0.01)), rtol=1e-6)


def test_schedules():
  assert opt.constant(0.5)(10) == 0.5
  np.testing.assert_allclose(opt.exponential_decay(1.0, 10, 0.5)(20), 0.25)
  np.testing.assert_allclose(opt.inverse_time_decay(1.0, 10, 1.0)(10), 0.5)
  np.testing.assert_allclose(opt.inverse_time_decay(1.0, 10, 1.0, staircase=True)(15), 0.5)
  np.testing.assert_allclose(opt.polynomial_decay(1.0, 10, 0.0)(5), 0.5)
  np.testing.assert_allclose(opt.polynomial_decay(1.0, 10, 0.1)(50), 0.1)
  pc = opt.piecewise_constant([2, 5], [1.0, 0.5, 0.1])
  np.testing.assert_allclose([pc(i) for i in (0, 2, 3, 5, 6)], [1.0, 1.0, 0.5, 0.5, 0.1])
  with pytest.raises(ValueError, match="one shorter"):
    opt.piecewise_constant([1, 2], [1.0])


def test_sgd_with_schedule(backend):
  sched = lambda i: 0.1 / (i + 1)
  x = X0.astype(np.float64)
  for i, g in enumerate(GRADS):
    x = x - 0.1 / (i + 1) * g
  np.testing.assert_allclose(_run(opt.sgd(sched)), x, rtol=1e-5)


def test_l2_norm_and_clip_grads():
  tree = {"a": jnp.array([3.0]), "b": jnp.array([4.0])}
  np.testing.assert_allclose(opt.l2_norm(tree), 5.0)
  clipped = opt.clip_grads(tree, 1.0)
  np.testing.assert_allclose([clipped["a"][0], clipped["b"][0]], [0.6, 0.8], rtol=1e-6)
  same = opt.clip_grads(tree, 10.0)
  np.testing.assert_allclose(same["a"], [3.0])


def test_state_pack_unpack_round_trip():
  init, update, get_params = opt.momentum(0.1, 0.9)
  state = update(0, {"w": jnp.ones(3)}, init({"w": jnp.zeros(3)}))
  unpacked = opt.unpack_optimizer_state(state)
  assert set(unpacked) == {"w"}
  back = opt.pack_optimizer_state(unpacked)
  np.testing.assert_array_equal(get_params(back)["w"], get_params(state)["w"])
  state2 = update(1, {"w": jnp.ones(3)}, back)
  np.testing.assert_allclose(get_params(state2)["w"], [-0.29] * 3, rtol=1e-6)


def test_mismatched_grad_tree():
  init, update, _ = opt.sgd(0.1)
  with pytest.raises(TypeError, match="did not match"):
    update(0, {"v": jnp.ones(3)}, init({"w": jnp.zeros(3)}))


# ----------------------------------------------------------------------------- stax


def test_dense_serial_against_numpy(backend):
  init, apply = stax.serial(stax.Dense(4), stax.Relu, stax.Dense(2), stax.LogSoftmax)
  out_shape, params = init(jax.random.key(0), (-1, 3))
  assert out_shape == (-1, 2)
  x = np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3)
  (w1, b1), _, (w2, b2), _ = [tuple(np.asarray(a) for a in p) for p in params]
  h = np.maximum(x @ w1 + b1, 0) @ w2 + b2
  expected = h - np.log(np.exp(h).sum(-1, keepdims=True))
  np.testing.assert_allclose(jax.jit(apply)(params, x), expected, rtol=1e-5, atol=1e-6)


def test_fanout_parallel_fanin(backend):
  init, apply = stax.serial(stax.FanOut(2), stax.parallel(stax.Identity, stax.Tanh),
                            stax.FanInSum)
  shape, params = init(jax.random.key(1), (2, 3))
  assert shape == (2, 3)
  x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
  np.testing.assert_allclose(apply(params, x), x + np.tanh(x), rtol=1e-6)
  init, apply = stax.serial(stax.FanOut(2), stax.parallel(stax.Dense(5), stax.Identity),
                            stax.FanInConcat())
  shape, params = init(jax.random.key(1), (2, 3))
  assert shape == (2, 8) and apply(params, x).shape == (2, 8)


def test_pooling_against_numpy(backend):
  x = np.arange(16.0, dtype=np.float32).reshape(1, 4, 4, 1)
  blocks = x[0, :, :, 0].reshape(2, 2, 2, 2).transpose(0, 2, 1, 3).reshape(2, 2, 4)
  for layer, ref in ((stax.MaxPool, blocks.max(-1)), (stax.SumPool, blocks.sum(-1)),
                     (stax.AvgPool, blocks.mean(-1))):
    init, apply = layer((2, 2), (2, 2))
    assert init(None, (1, 4, 4, 1))[0] == (1, 2, 2, 1)
    np.testing.assert_allclose(apply((), x)[0, :, :, 0], ref)


def test_conv_against_numpy(backend):
  init, apply = stax.Conv(2, (3, 3))
  shape, (w, b) = init(jax.random.key(2), (1, 5, 5, 1))
  assert shape == (1, 3, 3, 2) and w.shape == (3, 3, 1, 2) and b.shape == (1, 1, 1, 2)
  x = np.random.RandomState(0).randn(1, 5, 5, 1).astype(np.float32)
  wn, bn = np.asarray(w), np.asarray(b)
  ref = np.zeros((1, 3, 3, 2), np.float32)
  for i in range(3):
    for j in range(3):
      ref[0, i, j] = np.einsum("hwc,hwco->o", x[0, i:i + 3, j:j + 3], wn)
  np.testing.assert_allclose(apply((w, b), x), ref + bn, rtol=1e-4, atol=1e-5)


def test_batchnorm_and_flatten(backend):
  init, apply = stax.serial(stax.BatchNorm(axis=(0,)), stax.Flatten)
  shape, params = init(jax.random.key(3), (4, 3))
  assert shape == (4, 3)
  x = np.random.RandomState(1).randn(4, 3).astype(np.float32)
  ref = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5)
  np.testing.assert_allclose(apply(params, x), ref, rtol=1e-4, atol=1e-5)


def test_dropout_needs_a_key(backend):
  init, apply = stax.Dropout(0.5)
  with pytest.raises(ValueError, match="PRNG key"):
    apply((), jnp.ones(4))
  out = np.asarray(apply((), jnp.ones(1000), rng=jax.random.key(0)))
  assert set(np.unique(out)) <= {0.0, 2.0} and 300 < (out > 0).sum() < 700
  _, apply_test = stax.Dropout(0.5, mode="test")
  np.testing.assert_array_equal(apply_test((), jnp.ones(3), rng=jax.random.key(0)), 1.0)
