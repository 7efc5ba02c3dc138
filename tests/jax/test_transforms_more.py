"""Transformations as JAX documents them: vjp pullbacks as pytrees, grad options,
jacobians, custom derivative rules (what they see, how often they run), and the
small APIs libraries use (named_call, ensure_compile_time_eval, lax.Precision,
lax.broadcast_shapes, the older 5-argument cond, tracers as jax.Array).

Expected values are analytic derivatives or central finite differences in numpy.
"""

import weakref

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax


def _finite_diff_jacobian(f, x, eps=1e-6):
  """d f_i / d x_j by central differences, in float64 numpy."""
  x = np.asarray(x, np.float64)
  fx = np.asarray(f(x))
  jac = np.zeros(fx.shape + x.shape)
  for idx in np.ndindex(x.shape):
    step = np.zeros_like(x)
    step[idx] = eps
    jac[(...,) + idx] = (np.asarray(f(x + step)) - np.asarray(f(x - step))) / (2 * eps)
  return jac


# ----------------------------------------------------------------------------- vjp


def test_vjp_returns_partial_usable_through_jit():
  f = lambda x: jnp.sin(x) * x
  x = np.array([0.5, 1.0, 2.0], np.float32)
  y, pullback = jax.vjp(f, x)
  assert isinstance(pullback, jax.tree_util.Partial)
  expected = np.sin(x) + x * np.cos(x)  # d/dx (x sin x), times a cotangent of ones
  (eager,) = pullback(jnp.ones(3))
  (jitted,) = jax.jit(lambda pb, ct: pb(ct))(pullback, jnp.ones(3))
  np.testing.assert_allclose(eager, expected, rtol=1e-6)
  np.testing.assert_allclose(jitted, expected, rtol=1e-6)
  np.testing.assert_allclose(y, np.sin(x) * x, rtol=1e-6)


def test_vjp_pullback_returned_from_jit_and_staged_by_make_jaxpr():
  f = lambda x: x ** 3
  pullback = jax.jit(lambda x: jax.vjp(f, x)[1])(jnp.float32(2.0))
  np.testing.assert_allclose(pullback(jnp.float32(1.0))[0], 12.0)
  _, pb = jax.vjp(f, jnp.float32(2.0))
  jaxpr = jax.make_jaxpr(lambda ct: pb(ct))(jnp.float32(1.0))
  assert len(jaxpr.jaxpr.invars) == 1
  from jax._src import core  # evaluates the staged jaxpr directly
  (out,) = core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, [jnp.float32(1.0)])
  np.testing.assert_allclose(out, 12.0)


def test_vjp_pullback_checks_cotangent_structure():
  _, pb = jax.vjp(lambda x: (x, x), jnp.ones(2))
  with pytest.raises(ValueError, match="tree structure"):
    pb(jnp.ones(2))


def test_vjp_has_aux():
  y, pb, aux = jax.vjp(lambda x: (x * 2, {"n": x + 1}), jnp.float32(3.0), has_aux=True)
  assert float(y) == 6.0 and float(aux["n"]) == 4.0
  assert float(pb(jnp.float32(1.0))[0]) == 2.0


# ----------------------------------------------------------------------------- grad options


def test_grad_holomorphic_matches_complex_derivative():
  f = lambda z: z ** 3 + (2 + 1j) * z * z
  z = 0.7 + 0.3j
  got = jax.grad(f, holomorphic=True)(jnp.complex64(z))
  np.testing.assert_allclose(got, 3 * z ** 2 + 2 * (2 + 1j) * z, rtol=1e-5)


def test_grad_of_complex_output_needs_holomorphic():
  with pytest.raises(TypeError, match="holomorphic=True"):
    jax.grad(lambda z: z * z)(jnp.complex64(1 + 1j))
  with pytest.raises(TypeError, match="complex dtype"):
    jax.grad(lambda x: x * x, holomorphic=True)(1.0)


def test_grad_allow_int_gives_float0_zeros():
  gx, gi = jax.grad(lambda x, i: x * i, argnums=(0, 1), allow_int=True)(2.0, 3)
  assert float(gx) == 3.0
  assert gi.dtype == jax.float0 and gi.shape == ()
  with pytest.raises(TypeError, match="allow_int"):
    jax.grad(lambda x, i: x * i, argnums=(0, 1))(2.0, 3)


def test_grad_requires_scalar_output():
  with pytest.raises(TypeError, match="scalar-output"):
    jax.grad(lambda x: x * 2)(jnp.ones(3))


def test_value_and_grad_has_aux_and_argnums():
  (v, aux), (ga, gb) = jax.value_and_grad(lambda a, b: (a * b, a - b), argnums=(0, 1),
                                          has_aux=True)(2.0, 5.0)
  assert (float(v), float(aux), float(ga), float(gb)) == (10.0, -3.0, 5.0, 2.0)


# ----------------------------------------------------------------------------- jacobians


def _vector_fn(x):
  return jnp.stack([x[0] * x[1], jnp.sin(x[2]), x[0] ** 2 + jnp.exp(x[1])])


def _vector_fn_np(x):
  return np.stack([x[0] * x[1], np.sin(x[2]), x[0] ** 2 + np.exp(x[1])])


@pytest.mark.parametrize("jac", [jax.jacobian, jax.jacrev, jax.jacfwd])
def test_jacobians_match_finite_differences(jac):
  x = np.array([0.3, -0.4, 1.1], np.float32)
  got = jac(_vector_fn)(x)
  np.testing.assert_allclose(got, _finite_diff_jacobian(_vector_fn_np, x), rtol=1e-4, atol=1e-5)


def test_hessian_analytic():
  f = lambda x: x[0] ** 2 * x[1] + jnp.sin(x[1])
  x = np.array([1.5, 0.5], np.float32)
  expected = np.array([[2 * x[1], 2 * x[0]], [2 * x[0], -np.sin(x[1])]])
  np.testing.assert_allclose(jax.hessian(f)(x), expected, rtol=1e-5)


def test_holomorphic_jacobians():
  z = jnp.array([0.5 + 1j, -1 + 0.25j], jnp.complex64)
  expected = np.diag(2 * np.asarray(z))
  np.testing.assert_allclose(jax.jacfwd(lambda v: v * v, holomorphic=True)(z), expected,
                             rtol=1e-6)
  np.testing.assert_allclose(jax.jacrev(lambda v: v * v, holomorphic=True)(z), expected,
                             rtol=1e-6)
  with pytest.raises(TypeError, match="holomorphic"):
    jax.jacfwd(lambda v: v * v)(z)


def test_linearize_has_aux():
  y, f_jvp, aux = jax.linearize(lambda x: (jnp.sin(x), x * 2), jnp.float32(0.5), has_aux=True)
  np.testing.assert_allclose(f_jvp(jnp.float32(2.0)), 2 * np.cos(0.5), rtol=1e-6)
  assert float(aux) == 1.0 and np.isclose(float(y), np.sin(0.5))


# ----------------------------------------------------------------------------- custom rules


def _counted_custom_jvp(log):
  @jax.custom_jvp
  def f(x):
    log.append("primal")
    return jnp.sin(x)

  @f.defjvp
  def f_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    log.append(("rule", _is_tracer(x)))
    return jnp.sin(x), 3.0 * t  # deliberately not cos: proves the rule is used

  return f


def _is_tracer(x):
  from jax._src import core  # the tracer base class, to tell values from tracers
  return isinstance(x, core.Tracer)


def test_custom_jvp_rule_sees_concrete_values_and_runs_once():
  log = []
  f = _counted_custom_jvp(log)
  assert float(jax.grad(f)(1.0)) == 3.0
  assert log == [("rule", False)]  # once, on a concrete value; the primal never ran
  log.clear()
  np.testing.assert_allclose(f(1.0), np.sin(1.0), rtol=1e-6)
  assert log == ["primal"]


def test_custom_jvp_rule_can_branch_on_values_eagerly():
  @jax.custom_jvp
  def relu_like(x):
    return jnp.maximum(x, 0.0)

  @relu_like.defjvp
  def rule(primals, tangents):
    (x,), (t,) = primals, tangents
    slope = 1.0 if float(x) > 0 else 0.5  # needs a concrete x
    return relu_like(x), slope * t

  assert float(jax.grad(relu_like)(2.0)) == 1.0
  assert float(jax.grad(relu_like)(-2.0)) == 0.5


def test_custom_jvp_under_jit_vmap_and_jvp():
  f = _counted_custom_jvp([])
  assert float(jax.jit(jax.grad(f))(1.0)) == 3.0
  np.testing.assert_allclose(jax.vmap(jax.grad(f))(jnp.ones(3)), [3.0, 3.0, 3.0])
  np.testing.assert_allclose(jax.grad(lambda x: jax.vmap(f)(x).sum())(jnp.ones(2)), [3.0, 3.0])
  _, t = jax.jvp(f, (0.2,), (2.0,))
  assert float(t) == 6.0
  np.testing.assert_allclose(jax.jacfwd(f)(jnp.ones(2)), 3 * np.eye(2))


def test_custom_jvp_nondiff_argnames_and_defjvps():
  def scale(x, k):
    return x * k

  f = jax.custom_jvp(scale, nondiff_argnames=("k",))
  f.defjvp(lambda k, p, t: (p[0] * k, t[0] * k * 10))
  assert f.nondiff_argnums == (1,)
  assert float(jax.grad(f)(2.0, 3.0)) == 30.0

  g = jax.custom_jvp(lambda x, y: x * y)
  g.defjvps(lambda tx, ans, x, y: tx * y * 2, lambda ty, ans, x, y: ty * x * 2)
  assert jax.grad(g, argnums=(0, 1))(3.0, 4.0) == (8.0, 6.0)


def test_custom_vjp_runs_fwd_and_bwd_once_not_the_primal():
  log = []

  @jax.custom_vjp
  def f(x):
    log.append("primal")
    return x ** 2

  def fwd(x):
    log.append("fwd")
    return x ** 2, x

  def bwd(x, ct):
    log.append("bwd")
    return (10.0 * x * ct,)

  f.defvjp(fwd, bwd)
  assert float(jax.grad(f)(3.0)) == 30.0
  assert log == ["fwd", "bwd"]
  log.clear()
  assert float(f(3.0)) == 9.0 and log == ["primal"]
  assert float(jax.jit(jax.grad(f))(3.0)) == 30.0
  assert float(jax.grad(jax.jit(f))(3.0)) == 30.0
  np.testing.assert_allclose(jax.vmap(jax.grad(f))(jnp.arange(3.0)), [0.0, 10.0, 20.0])


def test_custom_vjp_bwd_must_return_tuple_per_argument():
  f = jax.custom_vjp(lambda x, y: x * y)
  f.defvjp(lambda x, y: (x * y, (x, y)), lambda res, ct: (ct,))
  with pytest.raises(TypeError, match="length 2"):
    jax.grad(f)(1.0, 2.0)


class _Box:
  """A pytree node around one value (as flax's variables are)."""

  def __init__(self, v):
    self.v = v


jax.tree_util.register_pytree_node(_Box, lambda b: ((b.v,), None), lambda _, c: _Box(*c))


def test_custom_vjp_cotangent_may_stop_at_a_single_leaf_node():
  @jax.custom_vjp
  def f(b, y):
    return b.v * y

  f.defvjp(lambda b, y: (f(b, y), (b.v, y)), lambda res, g: (g * res[1], g * res[0]))
  gb, gy = jax.grad(lambda v, y: f(_Box(v), y), argnums=(0, 1))(3.0, 4.0)
  assert (float(gb), float(gy)) == (4.0, 3.0)
  # A node with two leaves needs a cotangent per leaf.
  g = jax.custom_vjp(lambda p, y: p[0] * p[1] * y)
  g.defvjp(lambda p, y: (g(p, y), None), lambda res, ct: (ct, ct))
  with pytest.raises(ValueError):
    jax.grad(lambda a: g((a, a), a))(1.0)


def test_custom_gradient():
  @jax.custom_gradient
  def f(x):
    return x ** 3, lambda ct: (ct * 100.0 * x,)

  assert float(f(2.0)) == 8.0
  assert float(jax.grad(f)(2.0)) == 200.0
  assert float(jax.jit(jax.grad(f))(2.0)) == 200.0


# ----------------------------------------------------------------------------- small APIs


def test_named_call_and_named_scope_keep_values():
  from jax._src import name_stack  # the thread's name stack is internal

  seen = []

  def inner(x):
    seen.append(name_stack.current_name_stack())
    return x * 2

  f = jax.named_call(inner, name="double")
  with jax.named_scope("outer"):
    assert float(jax.jit(f)(2.0)) == 4.0  # a trace's names start at its own top
    assert float(f(2.0)) == 4.0
  assert seen == ["double", "outer/double"]  # as JAX 0.10.2 gives them
  assert name_stack.current_name_stack() == ""
  with pytest.raises(TypeError, match="must be a string"):
    with jax.named_scope(3):
      pass


def test_ensure_compile_time_eval_computes_under_jit():
  seen = []

  @jax.jit
  def f(x):
    with jax.ensure_compile_time_eval():
      c = jnp.sin(2.0)
      seen.append(float(c))  # concrete even while tracing
    return x + c

  np.testing.assert_allclose(f(1.0), 1.0 + np.sin(2.0), rtol=1e-6)
  np.testing.assert_allclose(seen, [np.sin(2.0)], rtol=1e-6)


def test_tracers_are_weakrefable_jax_arrays():
  checks = []

  @jax.jit
  def f(x):
    ref = weakref.ref(x)
    checks.append((ref() is x, isinstance(x, jax.Array)))
    return x

  f(1.0)
  jax.grad(lambda x: checks.append((weakref.ref(x)() is x, isinstance(x, jax.Array))) or x)(1.0)
  assert checks == [(True, True), (True, True)]
  assert isinstance(jnp.ones(2), jax.Array) and not isinstance(np.ones(2), jax.Array)


def test_lax_precision_and_broadcast_shapes():
  assert lax.Precision("highest") is lax.Precision.HIGHEST
  assert lax.Precision("bfloat16") is lax.Precision.DEFAULT
  assert str(lax.Precision.HIGH) == "HIGH"
  a = np.arange(6, dtype=np.float32).reshape(2, 3)
  b = np.arange(3, dtype=np.float32)
  for p in (lax.Precision.HIGHEST, "high", ("highest", None), None):
    np.testing.assert_allclose(lax.dot(a, b, precision=p), a @ b)
  with pytest.raises(ValueError, match="Precision"):
    lax.dot(a, b, precision=3)
  assert lax.broadcast_shapes((2, 1), (3,), ()) == (2, 3)
  with pytest.raises(ValueError, match="Incompatible shapes"):
    lax.broadcast_shapes((2,), (3,))


def test_legacy_five_argument_cond():
  out_t = lax.cond(True, 1.0, lambda x: x + 1, 2.0, lambda x: x * 10)
  out_f = lax.cond(False, 1.0, lambda x: x + 1, 2.0, lambda x: x * 10)
  assert (float(out_t), float(out_f)) == (2.0, 20.0)
  jitted = jax.jit(lambda p: lax.cond(p, 1.0, lambda x: x + 1, 2.0, lambda x: x * 10))
  assert float(jitted(False)) == 20.0


def test_vmap_spmd_axis_name_accepted():
  out = jax.vmap(lambda x: x * 2, spmd_axis_name="data")(jnp.arange(3.0))
  np.testing.assert_allclose(out, [0.0, 2.0, 4.0])
  with pytest.raises(TypeError, match="spmd_axis_name"):
    jax.vmap(lambda x: x, spmd_axis_name=3)


def test_shape_dtype_struct_like_and_make_jaxpr_return_shape():
  assert jax.ShapeDtypeStruct.like(jnp.ones((2, 3))) == jax.ShapeDtypeStruct((2, 3), jnp.float32)
  assert jax.ShapeDtypeStruct.like(1.0) == jax.ShapeDtypeStruct((), jnp.float32, weak_type=True)
  _, shapes = jax.make_jaxpr(lambda x: (x * 2, x.sum()), return_shape=True)(jnp.ones(3))
  assert shapes == (jax.ShapeDtypeStruct((3,), jnp.float32), jax.ShapeDtypeStruct((), jnp.float32))


def test_symbolic_zeros_mark_inputs_not_differentiated():
  from jax._src.custom_derivatives import SymbolicZero  # re-exported by jax.custom_derivatives

  seen = []

  @jax.custom_jvp
  def f(x, y):
    return x * y

  def f_jvp(primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    seen.append((isinstance(tx, SymbolicZero), isinstance(ty, SymbolicZero)))
    out = 0.0
    if not isinstance(tx, SymbolicZero):
      out = out + tx * y
    if not isinstance(ty, SymbolicZero):
      out = out + ty * x
    return x * y, out

  f.defjvp(f_jvp, symbolic_zeros=True)
  assert float(jax.grad(f)(2.0, 3.0)) == 3.0
  assert [float(g) for g in jax.grad(f, argnums=(0, 1))(2.0, 3.0)] == [3.0, 2.0]
  assert seen == [(False, True), (False, False)]

  flags = []

  @jax.custom_vjp
  def g(x, y):
    return x * y

  def g_fwd(x, y):
    flags.append((x.perturbed, y.perturbed))
    return x.value * y.value, (x.value, y.value)

  g.defvjp(g_fwd, lambda res, ct: (ct * res[1], None), symbolic_zeros=True)
  assert float(jax.grad(g)(2.0, 3.0)) == 3.0
  assert flags == [(True, False)]


def test_jvp_argument_checks():
  with pytest.raises(TypeError, match="tuples or lists"):
    jax.jvp(jnp.sin, 1.0, 1.0)
  with pytest.raises(ValueError, match="tangent shape"):
    jax.jvp(jnp.sin, (jnp.ones(2),), (jnp.ones(3),))
  _, t = jax.jvp(jnp.sin, [jnp.float32(0.5)], [jnp.float32(2.0)])
  np.testing.assert_allclose(t, 2 * np.cos(0.5), rtol=1e-6)


def test_vjp_of_integer_input_is_float0():
  _, pb = jax.vjp(lambda x, n: x * n, 2.0, 3)
  gx, gn = pb(1.0)
  assert float(gx) == 3.0
  assert gn.dtype == jax.float0 and gn.shape == ()


def test_fwd_and_bwd_reuses_one_compiled_backward():
  fwd, bwd = jax.fwd_and_bwd(lambda x, w: x @ w, argnums=0)
  x = np.ones((2, 2), np.float32)
  for k in range(3):
    w = np.full((2, 2), k + 2.0, np.float32)
    _, residuals = fwd(x, w)
    with jax.no_tracing(k > 0):  # traced once, for the first forward result only
      ct = bwd(residuals, np.ones((2, 2), np.float32))
    np.testing.assert_allclose(ct, np.ones((2, 2)) @ w.T)
  fwd, bwd = jax.fwd_and_bwd(lambda x, w: (x @ w, 3), argnums=(0, 1), has_aux=True,
                             jitted=False)
  _, residuals, aux = fwd(x, 2 * x)
  gx, gw = bwd(residuals, np.ones((2, 2), np.float32))
  assert aux == 3
  np.testing.assert_allclose(gx, np.full((2, 2), 4.0))
  np.testing.assert_allclose(gw, np.full((2, 2), 2.0))


def test_auxiliary_data_may_hold_any_python_object():
  tag = object()
  g, aux = jax.grad(lambda x: (x * 2.0, (tag, x * 3, "name")), has_aux=True)(1.0)
  assert float(g) == 2.0 and aux[0] is tag and float(aux[1]) == 3.0 and aux[2] == "name"
  (value, aux), g = jax.value_and_grad(lambda x: (x * x, tag), has_aux=True)(3.0)
  assert (float(value), float(g)) == (9.0, 6.0) and aux is tag
  _, _, aux = jax.vjp(lambda x: (x * 2, {"k": tag}), 1.0, has_aux=True)
  assert aux["k"] is tag
