"""pmap: tracing, cross-replica HLO text, execution on the available devices."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax


def _hlo(f, *args):
  return f.lower(*args).as_text()


def test_collectives_lower_to_cross_replica_hlo():
  # Each collective is one cross-replica instruction over all 4 replicas.
  f = jax.pmap(lambda v: (lax.psum(v, "i"), lax.pmax(v, "i"), lax.pmin(v, "i"),
                          lax.all_gather(v, "i"), lax.ppermute(v, "i", [(0, 1), (1, 0)]),
                          lax.axis_index("i")), axis_name="i")
  text = _hlo(f, np.zeros((4, 3), np.float32))
  assert text.startswith("HloModule pmap__lambda, replica_count=4, "
                         "entry_computation_layout={(f32[3]{0})->")
  assert text.count("all-reduce(Arg_0.1), replica_groups={{0,1,2,3}}, to_apply=region_") == 3
  assert "f32[1,3]{1,0} reshape(Arg_0.1)" in text
  assert "f32[4,3]{1,0} all-gather(" in text and "dimensions={0}" in text
  assert "collective-permute(Arg_0.1), source_target_pairs={{0,1},{1,0}}" in text
  assert "u32[] replica-id()" in text and "s32[] convert(" in text
  for opcode in ("add", "maximum", "minimum"):
    assert f"f32[] {opcode}(" in text


def test_tiled_all_gather_has_no_reshape():
  f = jax.pmap(lambda v: lax.all_gather(v, "i", tiled=True), axis_name="i")
  text = _hlo(f, np.zeros((2, 3), np.float32))
  assert "f32[6]{0} all-gather(Arg_0.1), replica_groups={{0,1}}, dimensions={0}" in text


def test_pmean_divides_by_axis_size():
  text = _hlo(jax.pmap(lambda v: lax.pmean(v, "d"), axis_name="d"), np.zeros((3, 2), np.float32))
  assert "constant(3)" in text and "divide(" in text


def test_static_broadcasted_and_in_axes_none_trace_per_shard():
  f = jax.pmap(lambda x, w, n: x * w ** n, in_axes=(0, None), static_broadcasted_argnums=(2,))
  text = _hlo(f, np.zeros((2, 5), np.float32), np.float32(2), 3)
  assert "entry_computation_layout={(f32[5]{0}, f32[])->f32[5]{0}}" in text


def test_unbound_axis_name_in_lowering_is_an_error():
  with pytest.raises(NameError, match="unbound axis name"):
    jax.pmap(lambda v: lax.psum(v, "j"), axis_name="i").lower(np.zeros((1, 2), np.float32))


def test_pmap_without_collectives_runs(backend):
  n = jax.device_count()
  x = jnp.arange(n * 3, dtype=jnp.float32).reshape(n, 3)
  out = jax.pmap(lambda s: s * 2 + 1)(x)
  assert out.shape == (n, 3)
  np.testing.assert_array_equal(np.asarray(out), np.arange(n * 3).reshape(n, 3) * 2 + 1)
  assert len(out.device_buffers()) == n
  # A sharded result feeds single-device ops and another pmap.
  np.testing.assert_array_equal(np.asarray(out + 1), np.asarray(out) + 1)
  np.testing.assert_array_equal(np.asarray(jax.pmap(lambda s: -s)(out)), -np.asarray(out))


def test_out_axes_and_in_axes_1(backend):
  n = jax.device_count()
  x = np.arange(3 * n, dtype=np.float32).reshape(3, n)
  out = jax.pmap(lambda s: s * 10, in_axes=1, out_axes=1)(x)
  np.testing.assert_array_equal(np.asarray(out), x * 10)


def test_too_many_devices_names_both_numbers(backend):
  n = jax.device_count()
  with pytest.raises(ValueError, match=rf"size {n + 1}.*only {n} device"):
    jax.pmap(lambda s: s)(np.zeros((n + 1, 2), np.float32))


def test_pmap_of_tracers_runs_as_vmap(backend):
  # Inside jit the pmap body is batched; the collective reduces over the axis.
  f = jax.jit(lambda x: jax.pmap(lambda v: lax.psum(v, "i"), axis_name="i")(x))
  x = np.arange(6, dtype=np.float32).reshape(2, 3)
  np.testing.assert_allclose(np.asarray(f(x)), np.broadcast_to(x.sum(0), (2, 3)))


def test_ppermute_under_vmap(backend):
  x = np.arange(8, dtype=np.float32).reshape(4, 2)
  out = jax.vmap(lambda v: lax.ppermute(v, "i", [(0, 1), (1, 2), (2, 3)]), axis_name="i")(x)
  np.testing.assert_array_equal(np.asarray(out), np.stack([np.zeros(2), x[0], x[1], x[2]]))


def test_collectives_execute(backend):
  # Runs where the backend has collectives (the real-jaxlib adapter now; ours when they land).
  n = jax.device_count()
  x = np.arange(2 * n, dtype=np.float32).reshape(n, 2)
  f = jax.pmap(lambda v: (lax.psum(v, "i"), lax.pmean(v, "i"), lax.pmax(v, "i"),
                          lax.pmin(v, "i"), lax.all_gather(v, "i"),
                          lax.ppermute(v, "i", [(i, (i + 1) % n) for i in range(n)]),
                          lax.axis_index("i")), axis_name="i")
  try:
    outs = [np.asarray(o) for o in f(x)]
  except Exception as e:  # noqa: BLE001 (the backend's error type)
    if "UNIMPLEMENTED" in str(e) or "not supported" in str(e):
      pytest.skip(f"backend lacks collectives: {e}")
    raise
  rows = lambda r: np.broadcast_to(r, x.shape)
  np.testing.assert_allclose(outs[0], rows(x.sum(0)))
  np.testing.assert_allclose(outs[1], rows(x.mean(0)))
  np.testing.assert_allclose(outs[2], rows(x.max(0)))
  np.testing.assert_allclose(outs[3], rows(x.min(0)))
  np.testing.assert_allclose(outs[4], np.broadcast_to(x, (n, n, 2)))
  np.testing.assert_allclose(outs[5], np.roll(x, 1, axis=0))
  np.testing.assert_array_equal(outs[6], np.arange(n))


def test_lower_compile_and_call_ahead_of_time():
  f = jax.pmap(lambda v, k: lax.psum(v * k, "i"), axis_name="i", static_broadcasted_argnums=1)
  x = np.arange(8, dtype=np.float32).reshape(4, 2)
  lowered = f.lower(x, 3)
  compiled = lowered.compile()
  assert compiled.as_text() == lowered.as_text()
  # As JAX's compiled functions: static arguments are fixed, the others are passed.
  np.testing.assert_array_equal(compiled(x), f(x, 3))
  np.testing.assert_array_equal(compiled(x), np.broadcast_to(3 * x.sum(0), (4, 2)))
  with pytest.raises(TypeError, match="compiled for 1 positional arguments, got 2"):
    compiled(x, 3)
  with pytest.raises(TypeError,
                     match=r"per-device types \['f32\[2\]'\], called with .* \['i32\[2\]'\]"):
    compiled(x.astype(np.int32))
  with pytest.raises(TypeError, match="concrete arguments"):
    jax.jit(lambda a: f.lower(a, 3))(x)
