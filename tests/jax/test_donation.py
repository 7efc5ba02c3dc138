"""Buffer donation through jit: what is declared to the compiler, what is deleted,
and that outputs really take over the donated memory."""

import pickle
import warnings
from functools import partial

import numpy as np
import pytest

import jax
import jax.numpy as jnp


def _header(text: str) -> str:
  return text.splitlines()[0]


def test_donated_argument_is_deleted_and_its_memory_reused():
  f = jax.jit(lambda x: x * 2.0 + 1.0, donate_argnums=0)
  x = jnp.arange(1024, dtype=jnp.float32)
  x = x + 0  # a fresh buffer nothing else refers to
  before = x.unsafe_buffer_pointer()
  y = f(x)
  assert x.is_deleted()
  assert y.unsafe_buffer_pointer() == before
  np.testing.assert_allclose(np.asarray(y), np.arange(1024, dtype=np.float32) * 2 + 1)


def test_using_a_donated_array_raises():
  f = jax.jit(lambda x: x + 1, donate_argnums=0)
  x = jnp.ones(3)
  f(x)
  with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[3\]"):
    x + 1
  with pytest.raises(RuntimeError, match="deleted"):
    np.asarray(x)
  with pytest.raises(RuntimeError, match="deleted"):
    f(x)


def test_every_use_of_a_deleted_array_raises():
  x = jnp.arange(3.0) + 1
  x.delete()
  assert x.is_deleted()
  uses = {
      "block_until_ready": x.block_until_ready,
      "jax.block_until_ready": lambda: jax.block_until_ready(x),
      "device_put": lambda: jax.device_put(x, jax.devices()[0]),
      "device_put to another device": lambda: jax.device_put(x, jax.devices()[-1]),
      "jit": lambda: jax.jit(lambda a: a * 2)(x),
      "index": lambda: x[0],
      "repr": lambda: repr(x),
      "devices": x.devices,
      "unsafe_buffer_pointer": x.unsafe_buffer_pointer,
      "__dlpack__": x.__dlpack__,
  }
  for name, use in uses.items():
    with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[3\]"):
      use()
      pytest.fail(f"{name} of a deleted array did not raise")
  x.delete()  # deleting again is allowed, as in JAX
  assert x.shape == (3,) and x.dtype == np.float32  # metadata stays readable


def test_loop_with_the_fast_path_matches_numpy():
  # The conformance case: x = step(x, g) with x donated, cached after the first call.
  @partial(jax.jit, donate_argnums=(0,))
  def step(x, g):
    return x - 0.1 * g

  x = jnp.arange(4.0)
  want = np.arange(4.0, dtype=np.float32)
  for _ in range(5):
    old = x
    x = step(x, jnp.ones(4))
    want = want - np.float32(0.1)
    assert old.is_deleted()
  np.testing.assert_allclose(np.asarray(x), want, rtol=1e-6)
  assert len(step._fast_cache) == 1


def test_lowered_text_declares_aliases_like_jax():
  f = jax.jit(lambda x, y: (x + y, x * 2.0, y[:2]), donate_argnums=(0, 1))
  text = f.lower(jnp.ones(3), jnp.ones(3)).as_text(dialect="hlo")
  assert _header(text) == (
      "HloModule jit__lambda, input_output_alias={ {0}: (0, {}, may-alias), "
      "{1}: (1, {}, may-alias) }, entry_computation_layout={(f32[3]{0}, f32[3]{0})->"
      "(f32[3]{0}, f32[3]{0}, f32[2]{0})}")


def test_single_output_and_buffer_donor():
  f = jax.jit(lambda x, y: (x.T, y + 1), donate_argnums=(0, 1))
  header = _header(f.lower(jnp.ones((2, 3)), jnp.ones((3, 2))).as_text())
  # y pairs with the first (3, 2) output; x only matches by size: a donor.
  assert "input_output_alias={ {0}: (1, {}, may-alias) }, buffer_donor={ (0, {}) }" in header
  g = jax.jit(lambda x: x + 1, donate_argnums=0)
  assert "input_output_alias={ {}: (0, {}, may-alias) }" in _header(g.lower(jnp.ones(3)).as_text())


def test_same_size_donor_is_consumed():
  f = jax.jit(lambda x: x.reshape(6).astype(jnp.int32), donate_argnums=0)
  x = jnp.arange(6.0).reshape(2, 3)
  out = f(x)
  assert x.is_deleted()
  np.testing.assert_array_equal(np.asarray(out), np.arange(6, dtype=np.int32))


def test_unsafe_alias_still_consumes_and_computes_right():
  # A transpose cannot write over its input; the output gets its own memory.
  f = jax.jit(lambda x: x.T, donate_argnums=0)
  value = np.arange(16, dtype=np.float32).reshape(4, 4)
  x = jnp.asarray(value)
  out = f(x)
  assert x.is_deleted()
  np.testing.assert_array_equal(np.asarray(out), value.T)


def test_unusable_donation_warns_and_keeps_the_array():
  f = jax.jit(lambda x: x.sum(), donate_argnums=0)
  x = jnp.ones(3)
  with pytest.warns(UserWarning, match=r"Some donated buffers were not usable: float32\[3\]"):
    assert float(f(x)) == 3.0
  assert not x.is_deleted()
  np.testing.assert_array_equal(np.asarray(x), np.ones(3, np.float32))


def test_donate_argnames_donates_every_leaf():
  f = jax.jit(lambda d, s: {"a": d["a"] + s, "b": d["b"] * s}, donate_argnames="d")
  d = {"a": jnp.ones(3), "b": jnp.arange(3.0)}
  s = jnp.float32(2.0)
  out = f(d, s)
  assert d["a"].is_deleted() and d["b"].is_deleted()
  assert not s.is_deleted()
  np.testing.assert_allclose(np.asarray(out["b"]), np.arange(3.0) * 2)


def test_argnums_and_argnames_are_the_same_argument():
  f = jax.jit(lambda x, y: x + y, donate_argnames="y")
  x, y = jnp.ones(3), jnp.ones(3)
  f(x, y)
  assert y.is_deleted() and not x.is_deleted()


def test_static_and_donated_clash_is_a_value_error():
  with pytest.raises(ValueError, match="both static and donated"):
    jax.jit(lambda x, s: x * s, static_argnums=1, donate_argnums=1)


def test_donate_argnums_out_of_range_is_a_value_error():
  with pytest.raises(ValueError, match=r"donate_argnums=\(5,\).*1 positional"):
    jax.jit(lambda x: x + 1, donate_argnums=5)


def test_numpy_and_python_arguments_can_be_donated():
  f = jax.jit(lambda x: x + 1, donate_argnums=0)
  value = np.ones(3, np.float32)
  np.testing.assert_array_equal(np.asarray(f(value)), value + 1)
  np.testing.assert_array_equal(value, np.ones(3, np.float32))  # numpy input untouched


def test_inner_jit_donation_is_ignored():
  inner = jax.jit(lambda x: x + 1, donate_argnums=0)
  outer = jax.jit(lambda z: inner(z))
  z = jnp.ones(3)
  np.testing.assert_array_equal(np.asarray(outer(z)), np.full(3, 2.0))
  assert not z.is_deleted()
  assert "input_output_alias" not in _header(outer.lower(z).as_text())


def test_grad_does_not_donate_but_vmap_does():
  f = jax.jit(lambda x: (x * x).sum(), donate_argnums=0)
  w = jnp.ones(3)
  np.testing.assert_allclose(np.asarray(jax.grad(f)(w)), np.full(3, 2.0))
  assert not w.is_deleted()
  g = jax.jit(lambda x: x + 1, donate_argnums=0)
  v = jnp.ones((2, 3))
  np.testing.assert_array_equal(np.asarray(jax.vmap(g)(v)), np.full((2, 3), 2.0))
  assert v.is_deleted()


def test_aot_compiled_call_donates():
  lowered = jax.jit(lambda x, y: x + y, donate_argnums=0).lower(jnp.ones(3), jnp.ones(3))
  assert lowered.donate_argnums == (0,)
  compiled = lowered.compile()
  infos = compiled.args_info[0]
  assert [i.donated for i in infos] == [True, False]
  x, y = jnp.ones(3), jnp.ones(3)
  np.testing.assert_array_equal(np.asarray(compiled(x, y)), np.full(3, 2.0))
  assert x.is_deleted() and not y.is_deleted()


def test_serialized_executable_keeps_donation():
  from jax.experimental import serialize_executable as se
  compiled = jax.jit(lambda x: x * 3, donate_argnums=0).lower(jnp.ones(4)).compile()
  payload, in_tree, out_tree = se.serialize(compiled)
  loaded = se.deserialize_and_load(payload, in_tree, out_tree)
  x = jnp.arange(4.0)
  np.testing.assert_array_equal(np.asarray(loaded(x)), np.arange(4.0) * 3)
  assert x.is_deleted()
  assert pickle.loads(payload)["donated"] == [0]


def test_non_donating_jit_never_deletes():
  f = jax.jit(lambda x: x + 1)
  x = jnp.ones(3)
  for _ in range(3):
    f(x)
  assert not x.is_deleted()
  with warnings.catch_warnings():
    warnings.simplefilter("error")
    f(x)
