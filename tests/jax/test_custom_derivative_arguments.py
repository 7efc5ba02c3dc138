"""custom_jvp/custom_vjp resolve their arguments as JAX does: defaults are filled in, so
rules see every parameter and a nondiff argument left at its default keeps its place."""

from functools import partial

import pytest

import jax


@pytest.fixture(autouse=True)
def _needs_backend(backend):
  yield


def test_custom_jvp_rule_sees_defaults():
  @jax.custom_jvp
  def f(x, scale=2.0):
    return x * scale

  @f.defjvp
  def f_jvp(primals, tangents):
    x, s = primals
    tx, _ = tangents
    return f(x, s), tx * s

  # Recorded on JAX 0.10.2: (2.0, 2.0).
  assert tuple(map(float, jax.jvp(f, (1.0,), (1.0,)))) == (2.0, 2.0)


def test_nondiff_argnum_left_at_its_default():
  @partial(jax.custom_jvp, nondiff_argnums=(1,))
  def g(x, p=3):
    return x ** p

  @g.defjvp
  def g_jvp(p, primals, tangents):
    (x,), (t,) = primals, tangents
    return g(x, p), p * x ** (p - 1) * t

  assert float(jax.grad(g)(2.0)) == 12.0  # JAX 0.10.2 gives 12.0
  assert float(jax.jit(jax.grad(g))(2.0)) == 12.0


def test_custom_vjp_nondiff_default():
  @partial(jax.custom_vjp, nondiff_argnums=(1,))
  def h(x, k=5.0):
    return x * k

  h.defvjp(lambda x, k=5.0: (h(x, k), None), lambda k, _, g: (g * k,))
  assert float(jax.grad(h)(1.0)) == 5.0


def test_wrong_arguments_raise_type_error():
  @jax.custom_jvp
  def f(x, y):
    return x * y

  f.defjvp(lambda primals, tangents: (f(*primals), tangents[0]))
  with pytest.raises(TypeError):
    f(1.0, 2.0, 3.0)
