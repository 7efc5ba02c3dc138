"""Execution tests: numbers compared with numpy. Skipped when no backend is available."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp

pytestmark = pytest.mark.usefixtures("backend")
rng = np.random.RandomState(0)


def randn(*shape):
  return rng.randn(*shape).astype(np.float32)


def test_eager_weak_scalar():
  out = jnp.add(1, 1)
  assert repr(out) == "Array(2, dtype=int32, weak_type=True)"


def test_jit_scalar():
  out = jax.jit(lambda x: x * 2)(1.0)
  assert repr(out) == "Array(2., dtype=float32, weak_type=True)"
  assert float(out) == 2.0


def test_broadcast_and_reductions():
  a, b = randn(3, 1), randn(1, 4)
  np.testing.assert_allclose(jnp.add(a, b), a + b)
  x = randn(4, 5)
  np.testing.assert_allclose(jnp.sum(x, axis=1, keepdims=True), x.sum(1, keepdims=True), rtol=1e-6)
  np.testing.assert_allclose(jnp.max(x, axis=0), x.max(0))
  np.testing.assert_allclose(jnp.mean(x), x.mean(), rtol=1e-6)
  np.testing.assert_allclose(jnp.prod(x, axis=1), x.prod(1), rtol=1e-5)


def test_shapes_and_indexing():
  x = randn(2, 3, 4)
  np.testing.assert_array_equal(x.reshape(6, 4).T, jnp.reshape(x, (6, 4)).T)
  np.testing.assert_array_equal(x[1, ::-1, 1:3], jnp.asarray(x)[1, ::-1, 1:3])
  np.testing.assert_array_equal(np.stack([x, x], 1), jnp.stack([x, x], 1))
  np.testing.assert_array_equal(np.concatenate([x, x], -1), jnp.concatenate([x, x], -1))


def test_dot_matmul():
  a, b = randn(3, 4, 8), randn(3, 8, 5)
  np.testing.assert_allclose(jnp.matmul(a, b), a @ b, rtol=1e-5, atol=1e-5)
  np.testing.assert_allclose(jnp.dot(a[0], b[0, :, 0]), a[0] @ b[0, :, 0], rtol=1e-5)


def test_grad_variants():
  f = lambda x: jnp.sum(jnp.sin(x) * x ** 2)
  x = randn(5)
  want = np.cos(x) * x ** 2 + 2 * x * np.sin(x)
  for g in (jax.grad(f), jax.jit(jax.grad(f)), jax.grad(jax.jit(f))):
    np.testing.assert_allclose(g(x), want, rtol=1e-5, atol=1e-6)


def test_value_and_grad_argnums_has_aux():
  def f(w, x):
    y = jnp.tanh(x @ w)
    return jnp.sum(y ** 2), y

  w, x = randn(4, 3), randn(2, 4)
  (val, aux), (gw, gx) = jax.value_and_grad(f, argnums=(0, 1), has_aux=True)(w, x)
  y = np.tanh(x @ w)
  np.testing.assert_allclose(val, (y ** 2).sum(), rtol=1e-5)
  np.testing.assert_allclose(aux, y, rtol=1e-5)
  dy = 2 * y * (1 - y ** 2)
  np.testing.assert_allclose(gw, x.T @ dy, rtol=1e-4, atol=1e-5)
  np.testing.assert_allclose(gx, dy @ w.T, rtol=1e-4, atol=1e-5)


def test_jvp_vjp():
  x = randn(3)
  p, t = jax.jvp(jnp.exp, (x,), (np.ones(3, np.float32),))
  np.testing.assert_allclose(t, np.exp(x), rtol=1e-6)
  out, f_vjp = jax.vjp(lambda a: a * 3.0, x)
  np.testing.assert_allclose(f_vjp(np.ones(3, np.float32))[0], 3 * np.ones(3))


def test_vmap():
  m, v = randn(5, 4), randn(4)
  np.testing.assert_allclose(jax.vmap(jnp.dot, in_axes=(0, None))(m, v), m @ v, rtol=1e-5)
  np.testing.assert_allclose(jax.vmap(jax.vmap(lambda a: a * 2))(m), m * 2)
  np.testing.assert_allclose(jax.vmap(lambda a: a.sum(), in_axes=1)(m), m.sum(0), rtol=1e-6)
  g = jax.vmap(jax.grad(lambda a: jnp.sum(a ** 3)))(m)
  np.testing.assert_allclose(g, 3 * m ** 2, rtol=1e-5)


def test_nn():
  x = randn(3, 5)
  e = np.exp(x - x.max(1, keepdims=True))
  np.testing.assert_allclose(jax.nn.softmax(x), e / e.sum(1, keepdims=True), rtol=1e-5)
  np.testing.assert_allclose(jax.nn.log_softmax(x), np.log(e / e.sum(1, keepdims=True)),
                             rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(jax.nn.logsumexp(x, axis=1), np.log(np.exp(x).sum(1)), rtol=1e-5)
  np.testing.assert_allclose(jax.nn.relu(x), np.maximum(x, 0))
  np.testing.assert_allclose(jax.nn.sigmoid(x), 1 / (1 + np.exp(-x)), rtol=1e-6)
  np.testing.assert_array_equal(jax.nn.one_hot(np.array([0, 2]), 3), np.eye(3)[[0, 2]])


def test_lower_compile():
  lowered = jax.jit(lambda x: x + 1).lower(np.ones(3, np.float32))
  compiled = lowered.compile()
  np.testing.assert_array_equal(compiled(np.ones(3, np.float32)), 2 * np.ones(3))


def test_array_protocol():
  a = jnp.arange(4)
  assert len(a) == 4 and [int(v) for v in a] == [0, 1, 2, 3]
  assert a.dtype == np.int32 and a[2].item() == 2
  assert bool(jnp.array(True)) and a.block_until_ready() is a
  assert jax.block_until_ready({"a": a})["a"] is a
  np.testing.assert_array_equal(np.asarray(a * 2 - 1), [-1, 1, 3, 5])
  assert (jnp.arange(3) // 2).tolist() == [0, 0, 1]
  assert (jnp.array([-3, 3]) % 2).tolist() == [1, 1]


def test_x64():
  from jax._src.config import config
  config.update("jax_enable_x64", True)
  assert jnp.add(1.0, 1.0).dtype == np.float64
  assert jax.jit(lambda x: x * 2)(np.ones(2)).dtype == np.float64


@pytest.mark.parametrize("make", [jnp.array, jnp.asarray, jax.device_put])
def test_arrays_never_alias_their_numpy_source(make):
  source = np.arange(6, dtype=np.float32)
  x = make(source)
  source[0] = 100.0
  assert float(x[0]) == 0.0
  np.testing.assert_array_equal(np.asarray(jax.jit(lambda v: v * 1)(x)), np.arange(6.0))


def test_shape_dtype_struct_like_and_typeof_of_host_values():
  s = jax.ShapeDtypeStruct.like(np.ones((2, 3), np.float64))
  assert s.shape == (2, 3)
  assert s.dtype == jnp.zeros((), np.float64).dtype  # canonicalized: float32 without x64
  assert jax.ShapeDtypeStruct.like(3.0).weak_type
  t = jax.typeof(np.ones(2, np.int32))
  assert (t.shape, t.dtype) == ((2,), np.int32)


def test_static_argnums_and_argnames_given_together_are_used_as_they_are():
  seen = []

  def k(a, n):
    seen.append(type(n).__name__)
    return a * 2

  jax.jit(k, static_argnames="n")(1.0, 3)  # the name also makes position 1 static
  assert seen == ["int"]
  seen.clear()
  # Both given: JAX does not complete either from the other, so `n` passed by
  # position is traced (flax's lifted jit relies on it).
  jax.jit(k, static_argnums=(0,), static_argnames=("n",))(1.0, 3)
  assert len(seen) == 1 and seen[0] != "int"

  def f(a, b, *, flag=True):
    return b * a if flag else b - a

  g = jax.jit(f, static_argnums=(0,), static_argnames="flag")
  np.testing.assert_array_equal(g(2, jnp.ones(2), flag=False), [-1.0, -1.0])
  np.testing.assert_array_equal(g(2, jnp.ones(2)), [2.0, 2.0])


def test_static_argnums_past_the_arguments_given_are_unused():
  # A static position the call does not reach names no argument (it does not wrap).
  seen = []
  f = jax.jit(lambda *xs: seen.append([type(x).__name__ for x in xs]) or xs[0] * 2,
              static_argnums=(2,))
  assert float(f(1.0, 2.0)) == 2.0
  assert "float" not in seen[-1]  # both arguments traced, neither taken as static
  g = jax.jit(lambda a, b: a if b else -a, static_argnums=(-1,))
  assert float(g(3.0, False)) == -3.0


def test_numpy_integers_as_axes_and_argnums():
  # Anything with __index__ names an axis or an argument, as in JAX.
  x = jnp.ones((2, 3))
  assert jnp.expand_dims(x, np.int32(1)).shape == (2, 1, 3)
  assert jnp.squeeze(jnp.ones((1, 3)), np.int64(0)).shape == (3,)
  np.testing.assert_array_equal(jnp.sum(x, axis=np.int32(1)), [3.0, 3.0])
  g = jax.grad(lambda a, b: a * b, argnums=np.int32(1))(2.0, 3.0)
  assert np.ndim(g) == 0 and float(g) == 2.0  # a single number: not a tuple
  assert isinstance(jax.jacrev(lambda a, b: a * b, argnums=[np.int64(0)])(2.0, 3.0), tuple)
  with pytest.raises(TypeError):
    jnp.expand_dims(x, 1.0)


def test_arange_with_a_step_and_no_stop():
  # numpy's reading: arange(n, step=s) counts from 0 to n.
  np.testing.assert_array_equal(jnp.arange(np.int32(5), step=2), np.arange(5, step=2))
  np.testing.assert_array_equal(jnp.arange(4, step=1.5), np.arange(4, step=1.5))
  assert jnp.arange(np.int32(2), None, np.int32(1)).dtype == np.int32


def test_jit_shows_the_wrapped_functions_attributes():
  def f(x):
    return x

  f.marker = "original"
  j = jax.jit(f)
  assert j.marker == "original" and j.__wrapped__ is f
  # jit of jit keeps its own state.
  jj = jax.jit(j)
  np.testing.assert_array_equal(jj(jnp.ones(2)), np.ones(2))
  assert jj.marker == "original"
