"""Control flow (cond/switch/while/fori/scan/map/associative_scan), dynamic slicing,
custom derivatives and jacobians: jaxprs, HLO text, and numbers against numpy."""

import re

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax
from jax._src import core

from test_lowering import verify_hlo


def prims(closed):
  return [e.primitive.name for e in closed.jaxpr.eqns]


# ----------------------------------------------------------------------------- tracing and HLO


def test_cond_jaxpr_and_hlo_conditional():
  f = lambda p, x, y: lax.cond(p, lambda a, b: a * b, lambda a, b: a + b, x, y)
  args = (True, np.ones(4, np.float32), np.ones(4, np.float32))
  closed = jax.make_jaxpr(f)(*args)
  assert "cond" in prims(closed)
  core.check_jaxpr(closed.jaxpr)
  text = jax.jit(f).lower(*args).as_text()
  verify_hlo(text)
  assert re.search(r"f32\[4\]\{0\} conditional\(\S+, \S+, \S+\), branch_computations=\{region_0\.\d+, "
                   r"region_1\.\d+\}", text)
  assert "s32[] convert(" in text


def test_switch_clamps_and_passes_single_operand():
  f = lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, lambda v: v * 2], x)
  text = jax.jit(f).lower(np.int32(1), np.ones(5, np.float32)).as_text()
  verify_hlo(text)
  assert "branch_computations={region_0" in text and text.count("parameter(0)") >= 3


def test_while_hlo_has_tuple_regions():
  f = lambda x, n: lax.fori_loop(0, n, lambda i, v: v * 1.5 + 1, x)
  text = jax.jit(f).lower(np.ones(3, np.float32), np.int32(4)).as_text()
  verify_hlo(text)
  m = re.search(r"while\(\S+\), condition=(\S+), body=(\S+)$", text, re.M)
  assert m
  assert f"\n{m.group(1)} {{" in text and f"\n{m.group(2)} {{" in text
  assert "direction=LT" in text


def test_scan_lowers_to_while_with_dynamic_slices():
  f = lambda xs: lax.scan(lambda c, x: (c + x, c * x), 0.0, xs)
  text = jax.jit(f).lower(np.ones(8, np.float32)).as_text()
  verify_hlo(text)
  assert "while(" in text and "dynamic-slice(" in text and "dynamic-update-slice(" in text


def test_weak_types_follow_jax():
  closed = jax.make_jaxpr(lambda: lax.fori_loop(0, 10, lambda i, a: a + i * i, 0))()
  assert closed.out_avals[0].weak_type
  out = jax.eval_shape(lambda x: lax.scan(lambda c, v: (c * 0.5 + v, c), 1.0, x),
                       np.ones(6, np.float32))
  assert out[1].shape == (6,)


def test_grad_of_scan_jaxpr_checks():
  f = lambda x: lax.scan(lambda c, a: (c * a + 1.0, c), x, jnp.arange(1.0, 5.0))[0]
  closed = jax.make_jaxpr(jax.grad(f))(0.5)
  core.check_jaxpr(closed.jaxpr)
  assert prims(closed).count("scan") == 2  # the known forward scan and the transposed one


def test_errors_for_bad_bodies():
  with pytest.raises(TypeError, match="structure"):
    lax.while_loop(lambda c: c < 3, lambda c: (c, c), 0)
  with pytest.raises(TypeError, match="boolean scalar"):
    jax.make_jaxpr(lambda: lax.while_loop(lambda c: c, lambda c: c + 1, 0))()
  with pytest.raises(ValueError, match="lengths"):
    lax.scan(lambda c, x: (c, x), 0.0, None)


# ----------------------------------------------------------------------------- execution


def test_cond_switch_values(backend):
  assert float(lax.cond(True, lambda v: v + 1, lambda v: v - 1, 1.0)) == 2.0
  assert float(lax.cond(jnp.array(0), lambda v: v + 1, lambda v: v - 1, 1.0)) == 0.0
  outs = [lax.switch(i, [lambda x: x + 1, lambda x: x * 10, lambda x: -x], jnp.arange(2))
          for i in (-1, 0, 1, 2, 5)]
  np.testing.assert_array_equal(np.stack(outs), [[1, 2], [1, 2], [0, 10], [0, -1], [0, -1]])
  got = jax.jit(lambda p, x: lax.cond(p > 1, lambda v: v * 2, lambda v: -v, x))(2.5, jnp.arange(3.0))
  np.testing.assert_array_equal(got, [0, 2, 4])


def test_select_n_three_cases(backend):
  got = lax.select_n(jnp.array([0, 1, 2, 1]), jnp.zeros(4), jnp.ones(4), jnp.full(4, 2.0))
  np.testing.assert_array_equal(got, [0, 1, 2, 1])


def test_while_and_fori_values(backend):
  collatz = lax.while_loop(lambda c: c[0] != 1,
                           lambda c: (jnp.where(c[0] % 2 == 0, c[0] // 2, 3 * c[0] + 1), c[1] + 1),
                           (27, 0))
  assert int(collatz[1]) == 111
  assert int(lax.fori_loop(0, 10, lambda i, a: a + i * i, 0)) == 285
  assert int(jax.jit(lambda n: lax.fori_loop(0, n, lambda i, a: a * 2, 1))(5)) == 32


def test_scan_values(backend):
  xs = np.arange(5.0, dtype=np.float32)
  c, ys = lax.scan(lambda c, x: (c + x, c * x), 1.0, xs)
  cr, ysr = lax.scan(lambda c, x: (c + x, c * x), 1.0, xs, reverse=True)
  acc, want = 1.0, []
  for x in xs:
    want.append(acc * x)
    acc += x
  assert float(c) == acc
  np.testing.assert_allclose(ys, want)
  acc, want = 1.0, []
  for x in xs[::-1]:
    want.append(acc * x)
    acc += x
  np.testing.assert_allclose(ysr, want[::-1])
  _, fib = lax.scan(lambda c, _: ((c[1], c[0] + c[1]), c[0]), (0, 1), None, length=10)
  np.testing.assert_array_equal(fib, [0, 1, 1, 2, 3, 5, 8, 13, 21, 34])


def test_map_and_associative_scan(backend):
  xs = jnp.arange(12.0).reshape(6, 2)
  np.testing.assert_allclose(lax.map(jnp.sum, xs, batch_size=4), np.arange(12.0).reshape(6, 2).sum(1))
  for n in (1, 2, 7, 8):
    np.testing.assert_allclose(lax.associative_scan(jnp.add, jnp.arange(1.0, n + 1)),
                               np.cumsum(np.arange(1.0, n + 1)))
  got = lax.associative_scan(jnp.maximum, jnp.array([3, 1, 4, 1, 5, 9, 2, 6]), reverse=True)
  np.testing.assert_array_equal(got, np.maximum.accumulate([3, 1, 4, 1, 5, 9, 2, 6][::-1])[::-1])


def test_grad_through_control_flow(backend):
  f_cond = lambda x: lax.cond(x > 0, lambda v: v ** 2, lambda v: -v ** 3, x)
  assert float(jax.grad(f_cond)(2.0)) == 4.0
  assert float(jax.grad(f_cond)(-2.0)) == -12.0
  f_scan = lambda x: lax.scan(lambda c, a: (c * a + 1.0, c), x, jnp.arange(1.0, 5.0))[0]
  np.testing.assert_allclose(jax.grad(f_scan)(0.5), 24.0)  # c_final = 24 x + const
  f_fori = lambda x: lax.fori_loop(0, 3, lambda i, v: jnp.sin(v), x)
  x, d = 0.2, 1.0
  for _ in range(3):
    d *= np.cos(x)
    x = np.sin(x)
  np.testing.assert_allclose(jax.grad(f_fori)(0.2), d, rtol=1e-5)
  f_while = lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 1.5), (0, x))[1]
  np.testing.assert_allclose(jax.jvp(f_while, (2.0,), (1.0,))[1], 3.375)


def test_vmap_of_control_flow(backend):
  xs = jnp.array([-2.0, 0.5, 3.0, 7.0])
  c = jax.vmap(lambda x: lax.cond(x > 1, jnp.sin, jnp.cos, x))(xs)
  np.testing.assert_allclose(c, np.where(np.asarray(xs) > 1, np.sin(xs), np.cos(xs)), rtol=1e-6)
  w = jax.vmap(lambda x: lax.while_loop(lambda v: jnp.abs(v) < 10, lambda v: v * 2 + 1, x))(xs)
  np.testing.assert_allclose(w, [-17.0, 11.0, 15.0, 15.0])
  i = jnp.array([0, 1, 2, 1])
  n = jax.vmap(lambda i, x: lax.switch(i, [jnp.negative, jnp.abs, jnp.square], x))(i, xs)
  np.testing.assert_allclose(n, [2.0, 0.5, 9.0, 7.0])


def test_dynamic_slicing_in_jit(backend):
  x = np.arange(16.0, dtype=np.float32).reshape(4, 4)
  f = jax.jit(lambda x, i, j: (x[i, j], lax.dynamic_slice(x, (i, 0), (2, 2)),
                               lax.dynamic_update_slice(x, jnp.full((1, 2), -1.0), (j, i))))
  a, b, c = f(x, 1, 3)
  assert float(a) == 7.0
  np.testing.assert_array_equal(b, x[1:3, 0:2])
  want = x.copy()
  want[3, 1:3] = -1
  np.testing.assert_array_equal(c, want)
  assert float(jax.jit(lambda x, i: x[i])(np.arange(10.0), 12)) == 9.0  # clamped


def test_custom_derivatives_and_jacobians(backend):
  @jax.custom_jvp
  def f(x):
    return jnp.sin(x)

  f.defjvp(lambda p, t: (f(p[0]), t[0] * 3.0))
  assert float(jax.grad(f)(0.3)) == 3.0

  @jax.custom_vjp
  def clip_grad(x):
    return x

  clip_grad.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -1.0, 1.0),))
  np.testing.assert_allclose(jax.grad(lambda v: jnp.sum(clip_grad(v) * jnp.array([0.5, 3.0])))(
      jnp.ones(2)), [0.5, 1.0])
  v = lambda x: jnp.array([x[0] * x[1], jnp.exp(x[1])])
  x = jnp.array([0.5, -1.0])
  want = np.array([[-1.0, 0.5], [0.0, np.exp(-1.0)]])
  np.testing.assert_allclose(jax.jacfwd(v)(x), want, rtol=1e-6)
  np.testing.assert_allclose(jax.jacrev(v)(x), want, rtol=1e-6)
  np.testing.assert_allclose(jax.hessian(lambda x: jnp.sum(x ** 3))(x), np.diag(6 * np.asarray(x)),
                             rtol=1e-6)
  assert float(jax.grad(lambda x: x * lax.stop_gradient(x))(3.0)) == 3.0


def test_vmap_named_axis_collectives(backend):
  x = np.arange(8.0, dtype=np.float32).reshape(4, 2)
  f = lambda v: (v - lax.pmean(v, "i"), lax.psum(v, "i"), lax.pmax(v, "i"), lax.axis_index("i"),
                 lax.all_gather(v, "i"), lax.psum(1.0, "i"))
  centered, total, biggest, idx, gathered, count = jax.vmap(f, axis_name="i")(x)
  np.testing.assert_allclose(centered, x - x.mean(0))
  np.testing.assert_allclose(total, np.broadcast_to(x.sum(0), x.shape))
  np.testing.assert_allclose(biggest, np.broadcast_to(x.max(0), x.shape))
  np.testing.assert_array_equal(idx, np.arange(4))
  np.testing.assert_allclose(gathered, np.broadcast_to(x, (4, 4, 2)))
  np.testing.assert_allclose(count, [4.0] * 4)


def test_unbound_axis_name_is_an_error():
  with pytest.raises(NameError, match="unbound axis name"):
    lax.psum(np.float32(1.0), "nope")


def test_grad_through_scan_from_a_constant_carry():
  # An RNN-style scan whose carry starts from a constant: its tangent starts as
  # a known zero, and the transpose must still treat the carry as linear.
  def f(w, x):
    return jnp.sum(lax.scan(lambda h, xi: (w * h + xi, h), 0.0, x)[1])

  g = jax.grad(f)(0.5, jnp.ones(3))
  # d/dw of h1 + h2 with h0 = 0, h1 = 1, h2 = w + 1: 1.0
  np.testing.assert_allclose(float(g), 1.0, rtol=1e-6)
  # Four steps: ys = 0, 1, w + 1, w^2 + w + 1, so d/dw sum(ys) = 2w + 2.
  ws = jnp.array([0.5, 2.0])
  np.testing.assert_allclose(jax.vmap(jax.grad(f), in_axes=(0, None))(ws, jnp.ones(4)),
                             [3.0, 6.0], rtol=1e-6)


def test_control_flow_bodies_are_traced_once_per_function_and_types():
  traces = []

  def body(c, x):
    traces.append(jax.typeof(c))
    return c + x, c * x

  xs = jnp.arange(4.0)
  first = lax.scan(body, 0.0, xs)
  second = lax.scan(body, 0.0, xs)
  assert len(traces) == 1
  np.testing.assert_array_equal(first[1], second[1])
  lax.scan(body, 0.0, jnp.arange(5.0))  # the body's types do not depend on the length
  assert len(traces) == 1
  lax.scan(body, jnp.float32(0.0), xs)  # a strongly typed carry is another type
  lax.scan(body, jnp.zeros(2), jnp.ones((4, 2)))
  assert len(traces) == 3

  def cond_body(v):
    traces.append("cond")
    return v < 10

  for _ in range(3):
    assert int(lax.while_loop(cond_body, lambda v: v + 3, 0)) == 12
  assert traces.count("cond") == 1


def test_control_flow_bodies_are_retraced_inside_transformations():
  # A body closing over a transformation's tracer must see that trace's values.
  def scaled_sum(s):
    return lax.scan(lambda c, x: (c + s * x, None), 0.0, jnp.arange(3.0))[0]

  np.testing.assert_allclose(jax.vmap(scaled_sum)(jnp.array([1.0, 2.0])), [3.0, 6.0])
  np.testing.assert_allclose(jax.jit(scaled_sum)(2.0), 6.0)
  np.testing.assert_allclose(jax.grad(scaled_sum)(2.0), 3.0)
  np.testing.assert_allclose(jax.jit(scaled_sum)(5.0), 15.0)


def test_cond_outputs_every_branch_passes_through_are_its_operands():
  def f(p, a, b):
    return lax.cond(p, lambda a, b: (a, b + 1), lambda a, b: (a, b * 2), a, b)

  # As in JAX 0.10.2: `in (b, e)`, the cond computing only the second output.
  jaxpr = jax.make_jaxpr(f)(True, 1.0, 2.0)
  assert [str(v) for v in jaxpr.jaxpr.outs][0] == str(jaxpr.jaxpr.invars[1])
  (eqn,) = [e for e in jaxpr.eqns if e.primitive.name == "cond"]
  assert all(len(b.jaxpr.outs) == 1 for b in eqn.params["branches"])
  # An unbatched operand passed through stays unbatched under a batched predicate.
  a, b = jax.vmap(f, in_axes=(0, None, 0), out_axes=(None, 0))(
      jnp.array([True, False]), 5.0, jnp.array([1.0, 2.0]))
  assert float(a) == 5.0 and a.weak_type
  np.testing.assert_array_equal(b, [2.0, 4.0])
  # Different operands (or a changed one) per branch are real outputs.
  out = jax.vmap(lambda p, a, b: lax.cond(p, lambda a, b: a, lambda a, b: b, a, b),
                 in_axes=(0, None, None))(jnp.array([True, False]), 1.0, 2.0)
  np.testing.assert_array_equal(out, [1.0, 2.0])
  assert float(jax.grad(lambda x: f(False, x, x)[0] + f(True, x, x)[1])(3.0)) == 2.0
  assert lax.switch(1, [lambda x: x, lambda x: x], np.float32(4)).dtype == np.float32


def test_branch_mismatch_errors_in_jax_words():
  with pytest.raises(TypeError, match="cond branch outputs must have the same pytree "
                                      "structure, but they differ"):
    lax.cond(True, lambda x: (x, x), lambda x: x, 1.0)
  with pytest.raises(TypeError, match="switch branch outputs must have the same pytree "
                                      "structure, but they differ"):
    lax.switch(1, [lambda x: (x, x), lambda x: x], 1.0)
  with pytest.raises(TypeError, match=re.escape(
      "The output of true_fun has type float32[] but the corresponding output of false_fun "
      "has type int32[], so the dtypes do not match.")):
    lax.cond(True, lambda x: x, lambda x: x.astype(int), 1.0)
  with pytest.raises(TypeError, match="switch branches must have equal output types"):
    lax.switch(0, [lambda x: x, lambda x: jnp.zeros(2)], 1.0)


def test_switch_traces_a_branch_function_given_twice_once():
  traces = []

  def branch(x):
    traces.append(1)
    return x + 1

  assert float(lax.switch(2, [branch, branch, branch], 1.0)) == 2.0
  assert len(traces) == 1


def test_scan_over_zero_length_xs():
  body = lambda c, x: (c + x.sum(), x * 2)
  for run in (lax.scan, jax.jit(lax.scan, static_argnums=0)):
    carry, ys = run(body, 1.0, jnp.zeros((0, 2)))
    assert float(carry) == 1.0 and ys.shape == (0, 2)
  g = jax.grad(lambda c0: lax.scan(lambda c, x: (c * x.sum(), x), c0, jnp.zeros((0, 2)))[0])
  assert float(g(1.0)) == 1.0


def test_effects_in_a_nested_cond_survive_forwarded_outputs():
  # The outer cond returns its operand in both branches, so that output is forwarded
  # and the branches are pruned; a callback inside a cond inside a branch must stay
  # (optax's line search reports its failures so).
  seen = []

  def report(s):
    jax.lax.cond(s > 0, lambda _: jax.debug.callback(lambda v: seen.append(float(v)), s),
                 lambda _: None, None)
    return s

  f = lambda x: jax.lax.cond(x > 0, report, lambda s: s, x)
  assert float(jax.jit(f)(2.0)) == 2.0
  f(3.0)
  jax.effects_barrier()
  assert seen == [2.0, 3.0]
  inner = [e for e in jax.make_jaxpr(f)(1.0).eqns if e.primitive.name == "cond"]
  assert len(inner) == 1 and any(
      e.primitive.name == "cond" for b in inner[0].params["branches"] for e in b.jaxpr.eqns)


def test_cond_operand_keyword_none_is_an_operand():
  # operand=None passes None (an empty pytree) to the branches, as in JAX.
  assert int(lax.cond(True, lambda _: 1, lambda _: 2, operand=None)) == 1
  assert int(jax.jit(lambda p: lax.cond(p, lambda o: 1, lambda o: 2, operand=None))(False)) == 2
  with pytest.raises(TypeError, match="no positional operands"):
    lax.cond(True, lambda a, b: 1, lambda a, b: 2, 1, operand=2)
