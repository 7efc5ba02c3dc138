"""lax operations that are primitives defined by other primitives (split, stack, tile,
mulhi, approx_top_k, scatter_sub, ...), ragged_dot, scaled_dot, rng_bit_generator and the
identity-like primitives: values against numpy, jaxprs, jit, grad and vmap."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax

pytestmark = pytest.mark.usefixtures("backend")

X = np.arange(24., dtype=np.float32).reshape(4, 6)


def test_split_stack_unstack_tile_are_primitives_in_jaxprs():
  jaxpr = str(jax.make_jaxpr(lambda x: lax.split(x, [2, 4], axis=1))(X))
  assert "split[" in jaxpr
  assert "stack[" in str(jax.make_jaxpr(lambda x: lax.stack([x, x], 1))(X))
  assert "tile[" in str(jax.make_jaxpr(lambda x: lax.tile(x, (2, 1)))(X))
  assert lax.split_p.multiple_results and lax.unstack_p.multiple_results


@pytest.mark.parametrize("jit", [False, True])
def test_values_match_numpy(jit):
  wrap = jax.jit if jit else (lambda f: f)
  a, b = wrap(lambda x: lax.split(x, [2, 4], axis=1))(X)
  np.testing.assert_array_equal(a, X[:, :2])
  np.testing.assert_array_equal(b, X[:, 2:])
  np.testing.assert_array_equal(wrap(lambda x: lax.stack([x, 2 * x], 1))(X),
                                np.stack([X, 2 * X], 1))
  np.testing.assert_array_equal(wrap(lambda x: lax.unstack(x, 1)[3])(X), X[:, 3])
  np.testing.assert_array_equal(wrap(lambda x: lax.tile(x, (2, 3)))(X), np.tile(X, (2, 3)))
  ints = np.array([1, 2, 7, 12], np.int32)
  assert int(wrap(lambda v: lax.reduce_xor(v, (0,)))(ints)) == 1 ^ 2 ^ 7 ^ 12


def test_mulhi_against_wide_products():
  x = np.array([2 ** 31 + 5, 123456789, 7], np.uint32)
  y = np.array([4, 987654321, 3], np.uint32)
  want = ((x.astype(np.uint64) * y.astype(np.uint64)) >> 32).astype(np.uint32)
  np.testing.assert_array_equal(lax.mulhi(x, y), want)
  xs, ys = np.array([-7, 2 ** 30], np.int32), np.array([3, 8], np.int32)
  want = ((xs.astype(np.int64) * ys.astype(np.int64)) >> 32).astype(np.int32)
  np.testing.assert_array_equal(jax.jit(lax.mulhi)(xs, ys), want)
  with pytest.raises(TypeError, match="integer"):
    lax.mulhi(1.5 * jnp.ones(2), jnp.ones(2))


def test_approx_top_k_is_exact():
  v = np.array([[3., 1., 4., 1., 5.], [9., 2., 6., 5., 3.]], np.float32)
  vals, idx = lax.approx_max_k(v, 2)
  np.testing.assert_array_equal(vals, [[5, 4], [9, 6]])
  np.testing.assert_array_equal(idx, [[4, 2], [0, 2]])
  vals, idx = lax.approx_min_k(v, 1, reduction_dimension=0)
  np.testing.assert_array_equal(vals, [[3, 1, 4, 1, 3]])
  with pytest.raises(ValueError, match="recall_target"):
    lax.approx_max_k(v, 2, recall_target=0.)


def test_grad_and_vmap_through_derived_primitives():
  g = jax.grad(lambda x: (lax.split(x, [1, 5], 1)[1] ** 2).sum())(X)
  want = 2 * X
  want[:, :1] = 0
  np.testing.assert_allclose(g, want)
  np.testing.assert_allclose(jax.grad(lambda x: lax.tile(x, (3, 1)).sum())(X), 3 * np.ones_like(X))
  out = jax.vmap(lambda r: lax.stack([r, -r]))(X)
  np.testing.assert_array_equal(out, np.stack([X, -X], 1))
  np.testing.assert_array_equal(jax.vmap(lambda r: lax.unstack(r)[2])(X), X[:, 2])


def test_scatter_sub():
  dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                   scatter_dims_to_operand_dims=(0,))
  out = lax.scatter_sub(jnp.ones(4), jnp.array([[1], [3], [1]]), jnp.array([2., 5., 1.]), dn)
  np.testing.assert_array_equal(out, [1., -2., 1., -4.])
  assert "scatter-sub" in str(jax.make_jaxpr(
      lambda o: lax.scatter_sub(o, jnp.array([[0]]), jnp.array([1.]), dn))(jnp.ones(4)))
  g = jax.grad(lambda u: lax.scatter_sub(jnp.ones(4), jnp.array([[2]]), u, dn).sum())(
      jnp.array([3.]))
  np.testing.assert_array_equal(g, [-1.])


def _ragged_ref(lhs, rhs, sizes):
  out = np.zeros((lhs.shape[0], rhs.shape[2]), np.float32)
  start = 0
  for g, n in enumerate(sizes):
    out[start:start + n] = lhs[start:start + n] @ rhs[g]
    start += n
  return out


def test_ragged_dot_against_per_group_products():
  rng = np.random.default_rng(0)
  lhs = rng.standard_normal((7, 3)).astype(np.float32)
  rhs = rng.standard_normal((3, 3, 2)).astype(np.float32)
  sizes = np.array([2, 0, 4], np.int32)   # the last row is in no group: zeros
  np.testing.assert_allclose(lax.ragged_dot(lhs, rhs, sizes), _ragged_ref(lhs, rhs, sizes),
                             rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(jax.jit(lax.ragged_dot)(lhs, rhs, sizes),
                             _ragged_ref(lhs, rhs, sizes), rtol=1e-5, atol=1e-6)
  g = jax.grad(lambda l: lax.ragged_dot(l, rhs, sizes).sum())(lhs)
  want = np.zeros_like(lhs)
  want[:2] = rhs[0].sum(1)
  want[2:6] = rhs[2].sum(1)
  np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-6)
  dn = lax.RaggedDotDimensionNumbers((((1,), (1,)), ((), ())), [0], [0])
  np.testing.assert_allclose(lax.ragged_dot_general(lhs, rhs, sizes, dn),
                             _ragged_ref(lhs, rhs, sizes), rtol=1e-5, atol=1e-6)
  with pytest.raises(TypeError, match="group_sizes"):
    lax.ragged_dot(lhs, rhs, np.array([1, 2], np.int32))


def test_scaled_dot_dequantizes_blocks():
  rng = np.random.default_rng(1)
  lhs = rng.standard_normal((1, 2, 4)).astype(np.float32)
  rhs = rng.standard_normal((1, 3, 4)).astype(np.float32)
  ls = np.array([[[2., 0.5]] * 2], np.float32)      # blocks of 2 along K
  rs = np.array([[[1., 3.]] * 3], np.float32)
  out = lax.scaled_dot(lhs, rhs, lhs_scale=ls, rhs_scale=rs)
  deq_l = lhs * np.repeat(ls, 2, axis=2)
  deq_r = rhs * np.repeat(rs, 2, axis=2)
  np.testing.assert_allclose(out, np.einsum("bmk,bnk->bmn", deq_l, deq_r), rtol=1e-5)
  with pytest.raises(TypeError, match="does not tile"):
    lax.scaled_dot(lhs, rhs, lhs_scale=np.ones((1, 2, 3), np.float32))


def test_rng_bit_generator_is_deterministic_and_advances_the_key():
  key = jnp.array([1, 2, 3, 4], jnp.uint32)
  k1, bits = lax.rng_bit_generator(key, (2, 3))
  k1b, bits_b = jax.jit(lambda k: lax.rng_bit_generator(k, (2, 3)))(key)
  np.testing.assert_array_equal(bits, bits_b)
  np.testing.assert_array_equal(k1, k1b)
  assert bits.shape == (2, 3) and bits.dtype == jnp.uint32 and k1.shape == (4,)
  _, bits2 = lax.rng_bit_generator(k1, (2, 3))
  assert not np.array_equal(bits, bits2)
  _, small = lax.rng_bit_generator(key, (1000,), jnp.uint8)
  assert small.dtype == jnp.uint8 and 100 < float(small.astype(jnp.float32).mean()) < 155
  with pytest.raises(TypeError, match="key"):
    lax.rng_bit_generator(jnp.zeros(2, jnp.uint32), (2,))
  with pytest.raises(TypeError, match="unsigned"):
    lax.rng_bit_generator(key, (2,), jnp.float32)
  with pytest.raises(TypeError, match="unsigned"):
    lax.rng_bit_generator(key, (2,), jnp.int32)


# (algorithm, shape, dtype) -> (new key, bits) of key [1, 2, 3, 4], recorded from JAX 0.10.2
# on CPU: XLA's Philox (the default) and Threefry streams.
_RBG_RECORDED = [
    ("RNG_DEFAULT", (2, 3), np.uint32, [1, 2, 5, 4],
     [[512747620, 1298009047, 1267190206], [761827841, 1383286907, 1639995030]]),
    ("RNG_PHILOX", (5,), np.uint8, [1, 2, 5, 4], [100, 215, 190, 1, 123]),
    ("RNG_DEFAULT", (3,), np.uint16, [1, 2, 4, 4], [59492, 3031, 51646]),
    ("RNG_DEFAULT", (), np.uint32, [1, 2, 4, 4], 512747620),
    ("RNG_DEFAULT", (0,), np.uint32, [1, 2, 3, 4], []),
    ("RNG_THREE_FRY", (6,), np.uint32, [1, 2, 6, 4],
     [1576285164, 2249660814, 740599976, 2425682526, 2436392515, 1497962777]),
    ("RNG_THREE_FRY", (2, 3), np.uint32, [1, 2, 6, 4],
     [[1576285164, 740599976, 2436392515], [2249660814, 2425682526, 1497962777]]),
    ("RNG_THREE_FRY", (3, 5), np.uint32, [1, 2, 12, 4],
     [[1576285164, 2249660814, 740599976, 2425682526, 2436392515],
      [1335360347, 2260235687, 3981753173, 3953550934, 3812192618],
      [2959620048, 1759477693, 3014899208, 3167314751, 1878941568]]),
    ("RNG_THREE_FRY", (3,), np.uint16, [1, 2, 5, 4], [13292, 6542, 43176]),
]


@pytest.mark.parametrize("algorithm,shape,dtype,want_key,want_bits", _RBG_RECORDED)
def test_rng_bit_generator_matches_xla_streams(algorithm, shape, dtype, want_key, want_bits):
  key = jnp.array([1, 2, 3, 4], jnp.uint32)
  alg = getattr(lax.RandomAlgorithm, algorithm)
  new_key, bits = jax.jit(lambda k: lax.rng_bit_generator(k, shape, dtype, algorithm=alg))(key)
  np.testing.assert_array_equal(new_key, np.array(want_key, np.uint32))
  assert bits.dtype == dtype and bits.shape == shape
  np.testing.assert_array_equal(bits, np.array(want_bits, dtype))


def test_rng_bit_generator_counter_carries_and_batches_from_the_first_key():
  # The 64-bit counter wraps into the hashed high word (key [2**64-1, 2**64-2]).
  key = jnp.array([0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFF], jnp.uint32)
  new_key, bits = lax.rng_bit_generator(key, (9,))
  np.testing.assert_array_equal(new_key, [0xFFFFFFFF, 0xFFFFFFFF, 1, 0])
  np.testing.assert_array_equal(bits, [25431128, 3820715433, 3113638199, 2713815922, 1083123565,
                                       1103641358, 2718681030, 1834242557, 1923381001])
  # As in JAX, a batch of keys draws all its bits from the first key, which alone advances.
  keys = jnp.array([[1, 2, 3, 4], [9, 9, 9, 9]], jnp.uint32)
  new_keys, batched = jax.vmap(lambda k: lax.rng_bit_generator(k, (3,)))(keys)
  _, flat = lax.rng_bit_generator(keys[0], (2, 3))
  np.testing.assert_array_equal(batched, flat)
  np.testing.assert_array_equal(new_keys, [[1, 2, 5, 4], [9, 9, 9, 9]])


def test_identity_like_primitives():
  x = jnp.arange(4.)
  np.testing.assert_array_equal(lax.pcast(x, "i", to="varying"), x)
  with pytest.raises(ValueError, match="to"):
    lax.pcast(x, "i", to="sideways")
  assert lax.dce_sink(x) is None
  assert "dce_sink" in str(jax.make_jaxpr(lambda v: (lax.dce_sink(v), v + 1)[1])(x))
  np.testing.assert_array_equal(lax.copy_p.bind(x), x)
  assert lax.device_put_p.multiple_results


def test_shape_as_value_and_ormqr_primitive():
  v = lax.shape_as_value((2, 3))
  assert v.dtype == jnp.int32
  np.testing.assert_array_equal(v, [2, 3])
  rng = np.random.default_rng(0)
  packed = rng.standard_normal((4, 4)).astype(np.float32)
  taus = rng.random(3).astype(np.float32)
  c = rng.standard_normal((4, 2)).astype(np.float32)
  q = lax.linalg.householder_product(packed, taus)
  np.testing.assert_allclose(lax.linalg.ormqr(packed, taus, c), q @ c, atol=1e-5)
  np.testing.assert_allclose(lax.linalg.ormqr(packed, taus, c, transpose=True), q.T @ c,
                             atol=1e-5)
  assert "ormqr" in str(jax.make_jaxpr(lambda c_: lax.linalg.ormqr(packed, taus, c_))(c))
