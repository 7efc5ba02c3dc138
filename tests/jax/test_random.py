"""jax.random: threefry known answers, keys and samplers against real JAX's numbers."""

import os

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax
from jax._src import prng

# The corpus sits in shared/ beside the repository (CONFORMANCE_DIR overrides).
CORPUS = os.path.join(
    os.environ.get("CONFORMANCE_DIR") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "conformance"),
    "frontend")


def _expected(case):
  path = os.path.join(CORPUS, f"{case}.expected.npz")
  if not os.path.exists(path):
    pytest.skip(f"conformance corpus not found at {CORPUS}")
  return np.load(path)


@pytest.mark.parametrize("key,count,out", [
    # Random123 known-answer vectors for Threefry-2x32 with 20 rounds.
    ((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
    ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
    ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
])
def test_threefry_known_answers(backend, key, count, out):
  u = lambda v: jnp.asarray(np.uint32(v))
  got = prng.threefry2x32(u(key[0]), u(key[1]), u(count[0]).reshape(1), u(count[1]).reshape(1))
  assert [int(np.asarray(g)[0]) for g in got] == list(out)


def test_keys_split_fold_in_match_jax(backend):
  exp = _expected("random_keys_raw")
  k = jax.random.PRNGKey(0)
  tk = jax.random.key(0)
  k1, k2 = jax.random.split(k)
  got = [k, jax.random.key_data(tk), k1, k2, jax.random.split(k, 4), jax.random.fold_in(k, 42),
         jax.random.key_data(jax.random.split(tk, 3)),
         jax.random.key_data(jax.random.fold_in(tk, 7)), jax.random.PRNGKey(12345),
         jax.random.key_data(jax.random.wrap_key_data(k2)), jax.random.PRNGKey(2**31 + 5)]
  for i, g in enumerate(got):
    np.testing.assert_array_equal(np.asarray(g), exp[f"leaf{i}"])
    assert np.asarray(g).dtype == np.uint32


def test_uniform_normal_bits_match_jax(backend):
  exp = _expected("random_uniform_normal")
  k = jax.random.PRNGKey(0)
  got = [jax.random.uniform(k, (5,)), jax.random.uniform(k, (2, 3), minval=-2.0, maxval=5.0),
         jax.random.normal(k, (6,)), jax.random.uniform(k, (3,), dtype=jnp.float16),
         jax.random.bits(k, (4,)), jax.random.bits(k, (3,), dtype=jnp.uint8)]
  for i, g in enumerate(got):
    # Bits are exact; floats within an ulp (the backend may contract a*b+c into an FMA).
    np.testing.assert_allclose(np.asarray(g), exp[f"leaf{i}"], rtol=4e-7, atol=0)


def test_integer_and_bool_samplers_match_jax(backend):
  exp = _expected("random_int_bool")
  k = jax.random.PRNGKey(7)
  got = [jax.random.randint(k, (8,), 0, 10),
         jax.random.randint(k, (2, 3), -5, 5, dtype=jnp.int8),
         jax.random.randint(k, (4,), 0, 2**31 - 1), jax.random.bernoulli(k, 0.3, (10,))]
  for i, g in enumerate(got):
    np.testing.assert_array_equal(np.asarray(g), exp[f"leaf{i}"])


def test_typed_keys_are_pytrees_of_key_data(backend):
  ks = jax.random.split(jax.random.key(42), (2, 3))
  assert ks.shape == (2, 3) and str(ks.dtype) == "key<fry>"
  assert jax.random.key_data(ks).shape == (2, 3, 2)
  out = jax.vmap(lambda k: jax.random.uniform(k, (2,)))(ks[0])
  assert out.shape == (3, 2)
  np.testing.assert_array_equal(np.asarray(out[1]), np.asarray(jax.random.uniform(ks[0, 1], (2,))))
  with pytest.raises(TypeError, match="key_data"):
    np.asarray(ks)


def test_abstract_typed_keys_have_a_shape_and_a_type():
  # eval_shape over keys gives a ShapeDtypeStruct of the key dtype.
  out = jax.eval_shape(lambda: jax.random.split(jax.random.key(0), 3))
  assert isinstance(out, jax.ShapeDtypeStruct)
  assert out.shape == (3,) and out.ndim == 1 and str(out.dtype) == "key<fry>"
  assert jax.typeof(out).str_short() == "key<fry>[3]"


def test_sampler_ranges(backend):
  k = jax.random.PRNGKey(3)
  u = np.asarray(jax.random.uniform(k, (1000,), minval=2.0, maxval=3.0))
  assert u.min() >= 2.0 and u.max() < 3.0
  t = np.asarray(jax.random.truncated_normal(k, -0.5, 1.5, (1000,)))
  assert t.min() > -0.5 and t.max() < 1.5
  r = np.asarray(jax.random.randint(k, (1000,), 3, 7))
  assert set(np.unique(r)) == {3, 4, 5, 6}


def test_erf_inv_and_nextafter(backend):
  x = np.array([-0.999, -0.5, 0.0, 0.3, 0.9999], np.float32)
  from math import erf
  y = np.asarray(lax.erf_inv(jnp.asarray(x)))
  np.testing.assert_allclose([erf(v) for v in y], x, rtol=2e-6, atol=2e-7)
  a = np.array([1.0, 1.0, 0.0, -2.0], np.float32)
  b = np.array([2.0, 0.0, -1.0, -2.0], np.float32)
  np.testing.assert_array_equal(np.asarray(lax.nextafter(jnp.asarray(a), jnp.asarray(b))),
                                np.nextafter(a, b))


def test_shift_and_bitcast_lowering():
  f = jax.jit(lambda x: lax.bitcast_convert_type(lax.shift_right_logical(x, jnp.uint32(9)),
                                                 jnp.float32))
  text = f.lower(np.zeros(3, np.uint32)).as_text()
  assert "u32[3]{0} shift-right-logical(" in text
  assert "f32[3]{0} bitcast-convert(" in text


def test_typed_key_arrays_compare_copy_and_broadcast():
  import jax.numpy as jnp
  keys = jax.random.split(jax.random.key(0), 3)
  others = jax.random.split(jax.random.key(1), 3)
  np.testing.assert_array_equal(keys == keys, [True] * 3)
  np.testing.assert_array_equal(keys != others, [True] * 3)
  np.testing.assert_array_equal(jax.jit(lambda a, b: a == b)(keys, others), [False] * 3)
  assert bool(jnp.array_equal(keys, keys.copy())) and not bool(jnp.array_equal(keys, others))
  wide = jnp.broadcast_to(jax.random.key(7), (2, 3))
  assert wide.shape == (2, 3)
  np.testing.assert_array_equal(jax.random.key_data(wide)[1, 2],
                                jax.random.key_data(jax.random.key(7)))


def test_jnp_comparisons_of_typed_keys():
  import jax.numpy as jnp
  k = jax.random.split(jax.random.key(0), 3)
  np.testing.assert_array_equal(jnp.equal(k, k[0]), [True, False, False])
  np.testing.assert_array_equal(jnp.not_equal(k, k), [False] * 3)
  np.testing.assert_array_equal(jax.jit(jnp.equal)(k, k), [True] * 3)
  np.testing.assert_array_equal(jnp.isclose(k, k), [True] * 3)
  assert bool(jnp.allclose(k, k)) and not bool(jnp.allclose(k, k[::-1]))
  with pytest.raises(TypeError, match="equal does not accept dtypes key<fry>, int32"):
    jnp.equal(k, 1)


def test_typed_keys_compare_with_broadcasting():
  keys = jax.random.split(jax.random.key(3), 4)
  np.testing.assert_array_equal(keys == keys[0], [True, False, False, False])
  same = jax.vmap(lambda _: jax.random.key(5))(np.arange(3))
  assert bool((same == same[0]).all())


def test_bfloat16_draws():
  import jax.numpy as jnp
  key = jax.random.PRNGKey(0)
  u = jax.random.uniform(key, (1000,), jnp.bfloat16)
  n = jax.random.normal(key, (1000,), jnp.bfloat16)
  assert u.dtype == jnp.bfloat16 and n.dtype == jnp.bfloat16
  u32 = np.asarray(u, np.float32)
  assert u32.min() >= 0 and u32.max() < 1 and abs(u32.mean() - 0.5) < 0.05
  assert abs(np.asarray(n, np.float32).std() - 1) < 0.1


def test_typed_key_arrays_update_by_index():
  keys = jax.random.split(jax.random.key(0), 3)
  fresh = jax.random.key(9)
  updated = keys.at[1].set(fresh)
  np.testing.assert_array_equal(updated == keys, [True, False, True])
  assert bool(updated.at[1].get() == fresh)
  with pytest.raises(TypeError, match="typed keys"):
    keys.at[0].set(np.zeros(2, np.uint32))


def test_uniform_bounds_broadcast_against_each_other():
  import jax.numpy as jnp
  key = jax.random.PRNGKey(0)
  u = jax.random.uniform(key, (2, 2), minval=jnp.zeros((2, 1)), maxval=jnp.array([[1.0, 4.0]]))
  base = jax.random.uniform(key, (2, 2))
  np.testing.assert_allclose(u, np.asarray(base) * np.array([[1.0, 4.0]]), rtol=1e-6)
  v = jax.random.uniform(key, (2,), minval=jnp.zeros(2), maxval=jnp.full((1,), 3.0))
  np.testing.assert_allclose(v, 3 * np.asarray(jax.random.uniform(key, (2,))), rtol=1e-6)


def test_complex_normal_has_independent_parts_of_half_variance():
  import jax.numpy as jnp
  z = np.asarray(jax.random.normal(jax.random.PRNGKey(0), (20000,), jnp.complex64))
  assert z.dtype == np.complex64
  np.testing.assert_allclose(np.mean(np.abs(z) ** 2), 1.0, rtol=0.03)
  np.testing.assert_allclose([z.real.std(), z.imag.std()], [np.sqrt(0.5)] * 2, rtol=0.03)
  assert abs(np.corrcoef(z.real, z.imag)[0, 1]) < 0.03
  with pytest.raises(ValueError, match="float dtype"):
    jax.random.normal(jax.random.PRNGKey(0), (2,), jnp.int32)
