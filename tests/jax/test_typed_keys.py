"""Typed PRNG keys (`jax.random.key`) are arrays of an extended dtype, as in JAX: pytree
leaves with shape `S` and dtype `key<fry>`, held as uint32[*S, 2] data. They pass through
jit, vmap, grad, control flow, indexing and the shape functions as keys, and draw the
same numbers as the raw uint32[2] keys with the same data."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax

KEY = jax.random.key(0)
KEYS = jax.random.split(KEY, 4)
RAW_KEYS = np.asarray(jax.random.split(jax.random.PRNGKey(0), 4))


def data(keys):
  return np.asarray(jax.random.key_data(keys))


def is_keys(x):
  return jnp.issubdtype(x.dtype, jax.dtypes.prng_key)


def test_keys_are_pytree_leaves_with_the_key_dtype():
  assert jax.tree.leaves({"a": KEY, "b": [KEYS]}) == [KEY, KEYS]
  assert jax.tree.structure(KEY).num_leaves == 1 and jax.tree.structure(KEY).num_nodes == 1
  assert KEYS.shape == (4,) and KEYS.ndim == 1 and KEYS.size == 4
  assert str(KEYS.dtype) == "key<fry>" and KEYS.dtype.itemsize == 8
  assert jax.typeof(KEYS).str_short() == "key<fry>[4]"
  assert isinstance(KEY, jax.Array)
  assert jnp.issubdtype(KEY.dtype, jax.dtypes.prng_key)
  assert jnp.issubdtype(KEY.dtype, jax.dtypes.extended)
  assert not jnp.issubdtype(KEY.dtype, jnp.integer)
  assert jax.random.key_impl(KEY) == "threefry2x32"
  np.testing.assert_array_equal(data(KEYS), RAW_KEYS)


def test_keys_draw_what_their_data_draws():
  for i in range(4):
    np.testing.assert_array_equal(np.asarray(jax.random.normal(KEYS[i], (3,))),
                                  np.asarray(jax.random.normal(RAW_KEYS[i], (3,))))
  np.testing.assert_array_equal(data(jax.random.fold_in(KEYS[1], 7)),
                                np.asarray(jax.random.fold_in(RAW_KEYS[1], 7)))


def test_jit_takes_and_returns_keys():
  f = jax.jit(lambda k, x: (jax.random.split(k, 3), x + jax.random.uniform(k)))
  keys, y = f(KEYS[2], 1.0)
  assert is_keys(keys) and keys.shape == (3,)
  np.testing.assert_array_equal(data(keys), np.asarray(jax.random.split(RAW_KEYS[2], 3)))
  assert float(y) == pytest.approx(1.0 + float(jax.random.uniform(RAW_KEYS[2])))
  # Keys inside a pytree, and as a closed-over constant.
  out = jax.jit(lambda tree: tree["k"][1:])({"k": KEYS})
  np.testing.assert_array_equal(data(out), RAW_KEYS[1:])
  out = jax.jit(lambda: jax.random.split(KEY)[0])()
  np.testing.assert_array_equal(data(out), RAW_KEYS[0] * 0 + data(jax.random.split(KEY)[0]))


def test_vmap_maps_over_keys():
  draws = jax.vmap(lambda k: jax.random.normal(k, (2,)))(KEYS)
  want = np.stack([np.asarray(jax.random.normal(k, (2,))) for k in RAW_KEYS])
  np.testing.assert_array_equal(np.asarray(draws), want)
  split = jax.vmap(jax.random.split)(KEYS)
  assert is_keys(split) and split.shape == (4, 2)
  np.testing.assert_array_equal(data(split[3]), np.asarray(jax.random.split(RAW_KEYS[3])))
  moved = jax.vmap(lambda k: k, in_axes=1, out_axes=0)(KEYS.reshape(2, 2))
  np.testing.assert_array_equal(data(moved), RAW_KEYS.reshape(2, 2, 2).transpose(1, 0, 2))


def test_control_flow_carries_keys():
  def body(carry, k):
    return jax.random.fold_in(carry, 1), jax.random.uniform(k)
  last, us = lax.scan(body, KEY, KEYS)
  want = KEY
  for _ in range(4):
    want = jax.random.fold_in(want, 1)
  np.testing.assert_array_equal(data(last), data(want))
  np.testing.assert_array_equal(np.asarray(us), [float(jax.random.uniform(k)) for k in RAW_KEYS])
  k, n = lax.while_loop(lambda c: c[1] < 2, lambda c: (jax.random.split(c[0])[1], c[1] + 1),
                        (KEY, 0))
  np.testing.assert_array_equal(data(k), data(jax.random.split(jax.random.split(KEY)[1])[1]))
  chosen = lax.cond(False, lambda: KEYS[0], lambda: KEYS[3])
  np.testing.assert_array_equal(data(chosen), RAW_KEYS[3])


def test_indexing_and_shape_functions():
  np.testing.assert_array_equal(data(KEYS[1:3]), RAW_KEYS[1:3])
  np.testing.assert_array_equal(data(KEYS[-1]), RAW_KEYS[-1])
  np.testing.assert_array_equal(data(KEYS[jnp.array([2, 0])]), RAW_KEYS[[2, 0]])
  np.testing.assert_array_equal(data(KEYS.take(jnp.array([1, 1]))), RAW_KEYS[[1, 1]])
  updated = KEYS.at[0].set(KEY)
  np.testing.assert_array_equal(data(updated), np.concatenate([[[0, 0]], RAW_KEYS[1:]]))
  np.testing.assert_array_equal(data(KEYS.reshape(2, 2).T),
                                RAW_KEYS.reshape(2, 2, 2).transpose(1, 0, 2))
  np.testing.assert_array_equal(data(KEYS.reshape(2, 2).ravel()), RAW_KEYS)
  np.testing.assert_array_equal(data(jnp.concatenate([KEYS, KEYS[:1]])),
                                np.concatenate([RAW_KEYS, RAW_KEYS[:1]]))
  np.testing.assert_array_equal(data(jnp.stack([KEYS[0], KEYS[1]])), RAW_KEYS[:2])
  np.testing.assert_array_equal(data(jnp.broadcast_to(KEYS[2], (3,))), [RAW_KEYS[2]] * 3)
  np.testing.assert_array_equal(data(jnp.expand_dims(KEYS[2], 0)), RAW_KEYS[2:3])
  picked = jnp.where(jnp.array([True, False, True, False]), KEYS, KEY)
  np.testing.assert_array_equal(data(picked), [RAW_KEYS[0], [0, 0], RAW_KEYS[2], [0, 0]])
  assert [k.shape for k in KEYS] == [()] * 4 and len(KEYS) == 4
  assert jnp.asarray(KEYS) is KEYS


def test_equality_compares_key_data():
  np.testing.assert_array_equal(np.asarray(KEYS == KEYS[1]), [False, True, False, False])
  np.testing.assert_array_equal(np.asarray(KEYS != KEYS[1]), [True, False, True, True])
  assert bool(jax.jit(lambda a, b: a == b)(KEY, jax.random.key(0)))


def test_gradients_pass_keys_through():
  f = lambda x, k: x * jax.random.normal(k, ())
  g = jax.grad(f)(1.0, KEYS[0])
  assert float(g) == float(jax.random.normal(RAW_KEYS[0], ()))
  g = jax.grad(jax.checkpoint(f))(2.0, KEYS[0])
  assert float(g) == float(jax.random.normal(RAW_KEYS[0], ()))
  tangent = jax.jvp(lambda k: jax.random.split(k), (KEY,), (np.zeros((), jax.dtypes.float0),))
  assert is_keys(tangent[0]) and tangent[1].dtype == jax.dtypes.float0


def test_abstract_evaluation_and_jaxprs():
  out = jax.eval_shape(jax.random.split, KEY)
  assert out.shape == (2,) and out.dtype == KEY.dtype
  text = str(jax.make_jaxpr(lambda k: jax.random.split(k)[0])(KEY))
  assert "key<fry>[]" in text and "random_unwrap" in text and "random_wrap" in text
  hlo = jax.jit(lambda k: k[1]).lower(KEYS).as_text()
  assert "u32[4,2]" in hlo  # lowered as the key data


def test_placement_and_pmap():
  put = jax.device_put(KEYS, jax.devices()[0])
  assert is_keys(put) and put.devices() == {jax.devices()[0]}
  np.testing.assert_array_equal(data(put), RAW_KEYS)
  n = jax.device_count()
  draws = jax.pmap(lambda k: jax.random.normal(k, ()))(KEYS[:n])
  np.testing.assert_array_equal(np.asarray(draws),
                                [float(jax.random.normal(k, ())) for k in RAW_KEYS[:n]])
  keys = jax.pmap(jax.random.split)(KEYS[:n])
  assert is_keys(keys) and keys.shape == (n, 2)


def test_keys_are_not_numbers():
  with pytest.raises(TypeError):
    KEY + 1
  with pytest.raises(TypeError, match="key_data"):
    np.asarray(KEY)
  with pytest.raises(TypeError):
    jax.jit(lambda k: k * 2)(KEY)
  with pytest.raises(TypeError, match="key"):
    KEYS == jnp.zeros(4)
  with pytest.raises(TypeError, match="wrap_key_data"):
    jax.random.wrap_key_data(KEY)
  with pytest.raises(TypeError, match="uint32"):
    jax.random.wrap_key_data(jnp.zeros((3,), jnp.uint32))


def test_sharded_keys_over_a_mesh():
  from jax.experimental.shard_map import shard_map
  from jax.sharding import NamedSharding, PartitionSpec as P
  if jax.device_count() < 4:
    pytest.skip("needs 4 devices")
  mesh = jax.make_mesh((4,), ("x",))
  keys = jax.random.split(KEY, 8)
  raw = np.asarray(jax.random.split(jax.random.PRNGKey(0), 8))
  placed = jax.device_put(keys, NamedSharding(mesh, P("x")))
  assert placed.sharding.spec == P("x")
  assert [s.data.shape for s in placed.addressable_shards] == [(2,)] * 4
  np.testing.assert_array_equal(data(placed.addressable_shards[1].data), raw[2:4])
  want = np.asarray([float(jax.random.uniform(k)) for k in raw])
  draws = jax.jit(jax.vmap(jax.random.uniform))(placed)
  np.testing.assert_array_equal(np.asarray(draws), want)
  draws = shard_map(jax.vmap(jax.random.uniform), mesh=mesh, in_specs=P("x"),
                    out_specs=P("x"))(keys)
  np.testing.assert_array_equal(np.asarray(draws), want)
  out = shard_map(lambda k: k[::-1], mesh=mesh, in_specs=P("x"), out_specs=P("x"))(keys)
  np.testing.assert_array_equal(data(out), raw.reshape(4, 2, 2)[:, ::-1].reshape(8, 2))


def test_other_implementations_have_their_own_key_dtype():
  keys = jax.random.split(jax.random.key(1, impl="rbg"), 3)
  assert str(keys.dtype) == "key<rbg>" and data(keys).shape == (3, 4)
  assert jax.random.key_impl(keys) == "rbg" and keys.dtype != KEY.dtype
  with jax.default_prng_impl("rbg"):
    assert jax.random.PRNGKey(0).shape == (4,)
  with pytest.raises(TypeError):
    jnp.concatenate([keys, KEYS])
  custom = jax.extend.random.define_prng_impl(
      key_shape=(3,), seed=lambda s: jnp.full((3,), s, jnp.uint32),
      split=lambda k, shape: jnp.broadcast_to(k + 1, (*shape, 3)),
      random_bits=lambda k, width, shape: jnp.zeros(shape, jnp.uint32),
      fold_in=lambda k, d: k + d, name="counting", tag="cnt")
  k = jax.random.key(5, impl=custom)
  assert str(k.dtype) == "key<cnt>"
  np.testing.assert_array_equal(data(jax.random.split(k, 2)), [[6, 6, 6]] * 2)
  np.testing.assert_array_equal(data(jax.jit(jax.random.fold_in)(k, 2)), [7, 7, 7])


# jax.random with key(3, impl=...) for the rbg implementations, recorded from JAX 0.10.2 on
# CPU: bits come from XLA's Philox stream through lax.rng_bit_generator.
_RBG_DRAWS = {
    "rbg": dict(
        uniform=[0.7327027320861816, 0.7895294427871704, 0.4403529167175293],
        normal=[0.6210078597068787, 0.8047896027565002, -0.15007442235946655],
        gamma=[4.361684322357178, 1.8579996824264526, 3.081705331802368],
        randint=[3, 6, 7], permutation=[4, 2, 1, 0, 3],
        beta=[0.7063866257667542, 0.3250504434108734],
        fold_in=[2647473427, 4234374204, 2647473427, 4234374204],
        choice=[4, 2, 1], categorical=[1, 1, 2],
        vmapped_normal=[-0.4695451855659485, -0.4173797369003296, 0.8501624464988708]),
    "unsafe_rbg": dict(
        uniform=[0.7327027320861816, 0.7895294427871704, 0.4403529167175293],
        normal=[0.6210078597068787, 0.8047896027565002, -0.15007442235946655],
        gamma=[0.44849711656570435, 5.840036392211914, 2.136956214904785],
        randint=[9, 1, 7], permutation=[3, 1, 4, 0, 2],
        beta=[0.7331390380859375, 0.8030793070793152],
        fold_in=[2104303640, 250182024, 1106406590, 1983638453],
        choice=[3, 1, 4], categorical=[1, 1, 2],
        vmapped_normal=[-1.3912163972854614, -0.5867478251457214, 0.5299779772758484]),
}


@pytest.mark.parametrize("impl", sorted(_RBG_DRAWS))
def test_samplers_draw_from_rbg_keys_as_jax_does(impl):
  want = _RBG_DRAWS[impl]
  k = jax.random.key(3, impl=impl)
  np.testing.assert_array_equal(data(k), [0, 3, 0, 3])
  np.testing.assert_array_equal(jax.random.bits(k, (3,)), [3146934739, 3391003311, 1891301882])
  got = dict(
      uniform=jax.random.uniform(k, (3,)), normal=jax.random.normal(k, (3,)),
      gamma=jax.random.gamma(k, 2.0, (3,)), randint=jax.random.randint(k, (3,), 0, 10),
      permutation=jax.random.permutation(k, 5), beta=jax.random.beta(k, 2.0, 3.0, (2,)),
      fold_in=data(jax.random.fold_in(k, 7)),
      choice=jax.random.choice(k, 5, (3,), replace=False),
      categorical=jax.random.categorical(k, jnp.zeros(4), shape=(3,)),
      vmapped_normal=jax.vmap(lambda kk: jax.random.normal(kk))(jax.random.split(k, 3)))
  for name, value in got.items():
    np.testing.assert_allclose(np.asarray(value), want[name], rtol=2e-6, err_msg=name)
  # Under jit and from raw keys of the default implementation, the same draws.
  np.testing.assert_array_equal(jax.jit(lambda kk: jax.random.normal(kk, (3,)))(k), got["normal"])
  with jax.default_prng_impl(impl):
    raw = jax.random.PRNGKey(3)
    np.testing.assert_array_equal(jax.random.uniform(raw, (3,)), got["uniform"])
