"""Zero tangents stay symbolic through differentiation, jit included: custom rules with
`symbolic_zeros=True` see which inputs are perturbed (recorded from JAX 0.10.2)."""

import functools

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import core
from jax.custom_derivatives import SymbolicZero
from jax.interpreters import ad

X, Y = np.float32(2.0), np.float32(3.0)


def _product_vjp():
  log = []

  @jax.custom_vjp
  def f(x, y):
    return x * y

  def fwd(x, y):
    log.append((x.perturbed, y.perturbed))
    return f(x.value, y.value), (x.value, y.value)

  def bwd(res, g):
    x, y = res
    return g * y, g * x

  f.defvjp(fwd, bwd, symbolic_zeros=True)
  return f, log


@pytest.mark.parametrize("wrap", ["plain", "grad_of_jit", "jit_of_grad"])
def test_custom_vjp_sees_perturbed_inputs(wrap):
  f, log = _product_vjp()
  if wrap == "grad_of_jit":
    g = jax.grad(jax.jit(f))
  elif wrap == "jit_of_grad":
    g = jax.jit(jax.grad(f))
  else:
    g = jax.grad(f)
  assert float(g(X, Y)) == 3.0
  assert log == [(True, False)]


def test_custom_vjp_second_argument_under_jit():
  f, log = _product_vjp()
  assert float(jax.grad(lambda y: jax.jit(f)(X, y))(Y)) == 2.0
  assert log == [(False, True)]
  log.clear()
  # Through a jit of a jit: the inner call still sees only y perturbed.
  inner = jax.jit(lambda a, b: f(a, b))
  assert float(jax.grad(jax.jit(lambda a, b: inner(a, b) * 2), argnums=1)(X, Y)) == 4.0
  assert log == [(False, True)]


def test_custom_vjp_nothing_perturbed_runs_the_function():
  f, log = _product_vjp()
  # y only enters through stop_gradient: the call is not differentiated at all.
  g = jax.grad(lambda x: x + f(jax.lax.stop_gradient(x), Y))(X)
  assert float(g) == 1.0 and log == []


def test_zero_cotangent_reaches_bwd_symbolically():
  seen = []

  @jax.custom_vjp
  def g(x):
    return x * 2, x * 3

  def fwd(x):
    return g(x.value), None

  def bwd(_, cts):
    a, b = cts
    seen.append((type(a) is SymbolicZero, type(b) is SymbolicZero))
    return (a * 2,)

  g.defvjp(fwd, bwd, symbolic_zeros=True)
  assert float(jax.grad(lambda x: g(x)[0])(X)) == 2.0
  assert float(jax.grad(jax.jit(lambda x: g(x)[0]))(X)) == 2.0
  assert seen == [(False, True), (False, True)]


def test_custom_jvp_symbolic_zero_tangents_under_jit():
  log = []

  @jax.custom_jvp
  def f(x, y):
    return jnp.sin(x) * y

  def f_jvp(primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    log.append((type(tx) is SymbolicZero, type(ty) is SymbolicZero))
    tx = jnp.zeros_like(x) if type(tx) is SymbolicZero else tx
    ty = jnp.zeros_like(y) if type(ty) is SymbolicZero else ty
    return f(x, y), jnp.cos(x) * y * tx + jnp.sin(x) * ty

  f.defjvp(f_jvp, symbolic_zeros=True)
  x, y = np.float32(0.5), np.float32(3.0)
  # JAX 0.10.2: 2.6327477 and 0.47942555, with the other tangent a SymbolicZero.
  np.testing.assert_allclose(jax.grad(jax.jit(f))(x, y), np.cos(x) * y, rtol=1e-6)
  np.testing.assert_allclose(jax.grad(jax.jit(f), argnums=1)(x, y), np.sin(x), rtol=1e-6)
  assert log == [(False, True), (True, False)]


def test_jvp_of_jit_with_integer_input_and_output():
  g = jax.jit(lambda a, n: (a * n, jnp.arange(3) * n))
  (p1, p2), (t1, t2) = jax.jvp(g, (X, 4), (np.float32(1.0), np.zeros((), jax.dtypes.float0)))
  assert float(p1) == 8.0 and float(t1) == 4.0
  np.testing.assert_array_equal(p2, [0, 4, 8])
  assert t2.dtype == jax.dtypes.float0 and t2.shape == (3,)


def test_jvp_of_jit_keeps_unused_tangent_out_of_the_call():
  # d/dx of a jit whose second input is a constant: the result is unchanged.
  f = jax.jit(lambda a, b: jnp.sin(a) * b)
  np.testing.assert_allclose(jax.grad(lambda a: f(a, Y))(X), np.cos(X) * Y, rtol=1e-6)
  np.testing.assert_allclose(jax.jacfwd(lambda a: f(a, Y))(X), np.cos(X) * Y, rtol=1e-6)
  np.testing.assert_allclose(jax.hessian(lambda a: f(a, Y))(X), -np.sin(X) * Y, rtol=1e-5)


def test_python_scalar_residuals_stay_python_scalars():
  log = []

  @jax.custom_vjp
  def f(x):
    return x * 2

  def fwd(x):
    return f(x), (True, 3, 2.5, x)

  def bwd(res, g):
    log.append(tuple(isinstance(r, t) and not isinstance(r, jax.Array)
                     for r, t in zip(res[:3], (bool, int, float))))
    return (g * res[2],)

  f.defvjp(fwd, bwd)
  for g in (jax.grad(f), jax.jit(jax.grad(f)), jax.grad(jax.jit(f))):
    assert float(g(1.0)) == 2.5
  assert log == [(True, True, True)] * 3


def test_residual_that_is_no_jax_type_is_refused():
  @jax.custom_vjp
  def h(x):
    return x * 2

  h.defvjp(lambda x: (h(x), jax.tree_util.tree_structure((1, 2))), lambda r, g: (g,))
  with pytest.raises(TypeError, match="not a valid JAX type"):
    jax.grad(h)(1.0)


def test_partial_keeps_a_functools_partial_function_static():
  treedef = jax.tree_util.tree_structure((1, 2))
  p = jax.tree_util.Partial(functools.partial(lambda t, a, b: t.num_leaves * a + b, treedef), 2.0)
  assert jax.tree_util.tree_leaves(p) == [2.0]
  assert p(3.0) == 7.0
  q = jax.jit(lambda p, x: p(x))(p, 1.0)
  assert float(q) == 5.0
  assert p.func.func is not None and p.func.args == (treedef,)


def test_zero_and_tangent_aval():
  z = ad.Zero(core.ShapedArray((2,), np.float32))
  np.testing.assert_array_equal(z.instantiate(), np.zeros(2, np.float32))
  assert core.ShapedArray((2,), np.int32).to_tangent_aval().dtype == jax.dtypes.float0
  aval = core.ShapedArray((), np.complex64, weak_type=True)
  assert aval.to_tangent_aval() == aval
