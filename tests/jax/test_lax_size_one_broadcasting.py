"""lax's n-ary elementwise ops broadcast size-1 dimensions, as JAX 0.10.2's do: operands
of one rank whose sizes agree or are 1 (`div a:f32[50] b:f32[1]`), and jax.numpy only
adds leading size-1 dimensions before calling them. Jaxprs and values recorded from
JAX 0.10.2; the ops differentiate (cotangents summed over the broadcast dimensions),
batch (unbatched operands get a size-1 batch dimension) and lower."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax

A = np.arange(1.0, 6.0, dtype=np.float32)  # f32[5]
B = np.array([2.0], np.float32)  # f32[1]


def _eqns(f, *args):
  return [(e.primitive.name, tuple(v.aval.shape for v in e.invars), e.outvars[0].aval.shape)
          for e in jax.make_jaxpr(f)(*args).jaxpr.eqns]


def test_jnp_division_by_a_size_one_array_is_one_div():
  # JAX 0.10.2: { lambda ; a:f32[50] b:f32[1]. let c:f32[50] = div a b in (c,) }
  assert _eqns(lambda a, b: a / b, jnp.ones(50), jnp.ones(1)) == [("div", ((50,), (1,)), (50,))]


def test_jnp_adds_leading_size_one_dimensions_only():
  # JAX 0.10.2: broadcast_in_dim b to f32[1,50], then div a:f32[4,50] c:f32[1,50].
  assert _eqns(lambda a, b: a / b, jnp.ones((4, 50)), jnp.ones(50)) == [
      ("broadcast_in_dim", ((50,),), (1, 50)), ("div", ((4, 50), (1, 50)), (4, 50))]
  # Both operands broadcast: f32[4,1] and f32[1,5] make f32[4,5] in one op.
  assert _eqns(lambda a, b: a * b, jnp.ones((4, 1)), jnp.ones((1, 5))) == [
      ("mul", ((4, 1), (1, 5)), (4, 5))]


@pytest.mark.parametrize("fn, ref", [
    (lax.add, np.add), (lax.sub, np.subtract), (lax.mul, np.multiply), (lax.div, np.divide),
    (lax.max, np.maximum), (lax.min, np.minimum), (lax.atan2, np.arctan2), (lax.pow, np.power),
    (lax.lt, np.less), (lax.eq, np.equal),
])
def test_values_match_numpy_eagerly_and_under_jit(fn, ref):
  x = np.linspace(0.5, 3.0, 12, dtype=np.float32).reshape(4, 3)
  y = np.array([[1.5, 0.75, 2.0]], np.float32)  # f32[1,3]
  col = np.array([[1.0], [2.0], [0.5], [3.0]], np.float32)  # f32[4,1]
  for a, b in ((x, y), (y, x), (col, y), (x, col)):
    want = ref(a, b)
    np.testing.assert_allclose(fn(a, b), want, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(fn)(a, b), want, rtol=1e-6)


def test_complex_and_bitwise_ops_broadcast():
  np.testing.assert_array_equal(lax.complex(A, B), A + 2j)
  i = np.arange(6, dtype=np.int32).reshape(2, 3)
  np.testing.assert_array_equal(lax.bitwise_and(i, np.array([[3, 1, 2]], np.int32)),
                                i & np.array([[3, 1, 2]]))
  np.testing.assert_array_equal(lax.shift_left(i, np.array([[1], [2]], np.int32)),
                                i << np.array([[1], [2]]))


def test_gradients_sum_over_the_broadcast_dimensions():
  f = lambda a, b: jnp.sum(lax.div(a, b) + lax.mul(a, b) * lax.max(a, b))
  ga, gb = jax.grad(f, (0, 1))(A, B)
  assert ga.shape == (5,) and gb.shape == (1,)
  big = np.maximum(A, B)
  want_a = 1 / B + B * big + A * B * (A > B) + A * B * 0.5 * (A == B)
  want_b = np.sum(-A / B ** 2 + A * big + A * B * (B > A) + A * B * 0.5 * (A == B))
  np.testing.assert_allclose(ga, want_a, rtol=1e-6)
  np.testing.assert_allclose(gb, [want_b], rtol=1e-6)
  gaj, gbj = jax.jit(jax.grad(f, (0, 1)))(A, B)
  np.testing.assert_allclose(gaj, ga, rtol=1e-6)
  np.testing.assert_allclose(gbj, gb, rtol=1e-6)


def test_gradient_of_a_size_one_divisor_matches_jax():
  # JAX 0.10.2's jaxpr of this gradient multiplies by integer_pow[y=-2] of b:f32[1]
  # and sums to f32[] before reshaping to f32[1]; its value here: -sum(a) / 4.
  g = jax.grad(lambda b: jnp.sum(A / b))(B)
  np.testing.assert_allclose(g, [-15.0 / 4.0], rtol=1e-7)
  eqns = _eqns(jax.grad(lambda b: jnp.sum(A / b)), B)
  assert ("integer_pow", ((1,),), (1,)) in eqns
  assert eqns[-1][0] in ("reshape", "neg") and eqns[-1][2] == (1,)


def test_jvp_of_ops_with_size_one_operands():
  primal, tangent = jax.jvp(lambda a, b: lax.atan2(a, b), (A, B), (np.ones(5, np.float32), B))
  np.testing.assert_allclose(primal, np.arctan2(A, B), rtol=1e-6)
  want = (B * 1 - A * B) / (A * A + B * B)
  np.testing.assert_allclose(tangent, want, rtol=1e-6)


def test_vmap_gives_unbatched_operands_a_size_one_batch_dimension():
  # JAX 0.10.2: broadcast_in_dim b:f32[5] to f32[1,5], then mul a:f32[4,5] c:f32[1,5].
  eqns = _eqns(jax.vmap(lambda a, b: a * b, (0, None)), jnp.ones((4, 5)), jnp.ones(5))
  assert eqns == [("broadcast_in_dim", ((5,),), (1, 5)), ("mul", ((4, 5), (1, 5)), (4, 5))]
  x = np.arange(12.0, dtype=np.float32).reshape(4, 3)
  y = np.array([1.0, 2.0, 3.0], np.float32)
  np.testing.assert_allclose(jax.vmap(lax.sub, (0, None))(x, y), x - y)
  np.testing.assert_allclose(jax.vmap(lax.sub, (None, 0))(y, x), y - x)
  # A batched scalar beside an unbatched vector, and batch axes in different places.
  s = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
  np.testing.assert_allclose(jax.vmap(lax.mul, (0, None))(s, y), s[:, None] * y)
  np.testing.assert_allclose(jax.vmap(lax.add, (1, 0))(x.T, x), 2 * x)
  # Size-1 dimensions inside the batched operands.
  col = np.ones((4, 1, 3), np.float32)
  row = np.arange(8.0, dtype=np.float32).reshape(4, 2, 1)
  np.testing.assert_allclose(jax.vmap(lax.add)(col, row), col + row)
  np.testing.assert_allclose(jax.jit(jax.vmap(jax.grad(lambda a, b: jnp.sum(a * b))))(col, row),
                             np.broadcast_to(row.sum(axis=1, keepdims=True), (4, 1, 3)))


def test_shapes_that_do_not_broadcast_are_refused_with_jax_messages():
  with pytest.raises(TypeError, match=r"add: arrays must have the same number of dimensions, "
                                      r"got \{1, 2\}"):
    lax.add(np.ones(3, np.float32), np.ones((1, 4), np.float32))
  with pytest.raises(TypeError, match=r"add got incompatible shapes for broadcasting: "
                                      r"\(3,\), \(4,\)\."):
    lax.add(np.ones(3, np.float32), np.ones(4, np.float32))
  with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
    jnp.add(np.ones(3, np.float32), np.ones(4, np.float32))


def test_reshaped_exp_squared_rounds_as_xla_does():
  # numpyro reshapes a distribution's scale to f32[1]; XLA moves the reshape below the
  # square, so 1 / exp(z)^2 becomes exp(-(z + z)). Bits from JAX 0.10.2 (1 / (e * e)
  # rounds differently at 0.3 and -0.42).
  z = np.array([0.3, -1.7, 2.5, 0.01, -0.42], np.float32)
  g = jax.jit(lambda z: jnp.reshape(jnp.exp(z), (1,)) ** -2)
  got = [int(np.asarray(g(v)).view(np.uint32)[0]) for v in z]
  assert got == [1057783531, 1106228860, 1004325375, 1065021005, 1075068763]
  f = jax.jit(jax.vmap(lambda z: jnp.sum(jnp.ones(4, jnp.float32) / jnp.reshape(jnp.exp(z), (1,)) ** 2)))
  assert np.asarray(f(z)).view(np.uint32).tolist() == [
      1074560747, 1123006076, 1021102591, 1081798221, 1091845979]
