"""jit of functions holding shard_map: one SPMD program, lowered and compiled ahead of time."""

import re

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import NamedSharding, PartitionSpec as P


@pytest.fixture
def mesh(backend):
  if jax.device_count() < 4:
    pytest.skip("needs 4 devices (JAX_NUM_CPU_DEVICES=4)")
  # Auto axes: these tests are about the SPMD programs jit builds around shard_maps.
  return jax.make_mesh((4,), ("i",), axis_types=(jax.sharding.AxisType.Auto,))


def _psum_fn(mesh):
  return jax.shard_map(lambda a: lax.psum(a, "i"), mesh=mesh, in_specs=P("i"), out_specs=P())


def _same_results(eager, compiled):
  eager, compiled = jax.tree.leaves(eager), jax.tree.leaves(compiled)
  assert len(eager) == len(compiled)
  for e, c in zip(eager, compiled):
    np.testing.assert_array_equal(np.asarray(c), np.asarray(e))
    assert c.sharding == e.sharding


def test_lower_gives_the_per_device_spmd_module(mesh):
  x = jnp.arange(8.0)
  text = jax.jit(_psum_fn(mesh)).lower(x).as_text()
  header = text.splitlines()[0]
  assert header.startswith("HloModule jit_") and "replica_count=4" in header
  # Per-device shapes: each device holds 2 of the 8 elements and gets 2 back.
  assert "entry_computation_layout={(f32[2]{0})->f32[2]{0}}" in header
  assert re.search(r"all-reduce\(.*replica_groups=\{\{0,1,2,3\}\}", text)
  assert jax.jit(_psum_fn(mesh)).lower(x).as_text(dialect="hlo") == text


def test_compiled_matches_jit_and_numpy(mesh):
  f = _psum_fn(mesh)
  x = jnp.arange(8.0)
  compiled = jax.jit(f).lower(x).compile()
  out = compiled(x)
  np.testing.assert_array_equal(out, np.arange(8.0).reshape(4, 2).sum(0))
  assert out.sharding == NamedSharding(mesh, P())
  _same_results(jax.jit(f)(x), out)
  # Already laid out as the program wants it: its blocks are used as they are.
  xs = jax.device_put(x, NamedSharding(mesh, P("i")))
  _same_results(jax.jit(f)(xs), compiled(xs))


def test_compiled_shardings_and_analyses(mesh):
  f = jax.shard_map(lambda a, b: (a * b, lax.psum(a.sum(), "i")), mesh=mesh,
                    in_specs=(P("i"), P()), out_specs=(P("i"), P()))
  x, y = jnp.arange(8.0), jnp.float32(3.0)
  compiled = jax.jit(f).lower(x, y).compile()
  assert compiled.input_shardings == ((NamedSharding(mesh, P("i")), NamedSharding(mesh, P())), {})
  assert compiled.output_shardings == (NamedSharding(mesh, P("i")), NamedSharding(mesh, P()))
  outs = compiled(x, y)
  assert tuple(o.sharding for o in outs) == compiled.output_shardings
  np.testing.assert_array_equal(outs[0], np.arange(8.0) * 3)
  np.testing.assert_array_equal(outs[1], np.float32(28.0))
  # Per device: a[2] * b, a local sum of 2 elements (one add), then a psum of one element.
  cost = compiled.cost_analysis()
  assert cost["flops"] == 2 + 1 + 1
  assert cost["bytes accessed"] > 0
  mem = compiled.memory_analysis()
  assert mem.argument_size_in_bytes == 2 * 4 + 4
  assert mem.output_size_in_bytes == 2 * 4 + 4
  assert mem.generated_code_size_in_bytes > 0


def test_work_around_the_shard_map_joins_its_program(mesh):
  f = _psum_fn(mesh)
  g = jax.shard_map(lambda a: a * lax.axis_index("i"), mesh=mesh, in_specs=P("i"),
                    out_specs=P("i"))
  x = jnp.arange(8.0)
  expect_g = np.arange(8.0) * np.repeat(np.arange(4), 2)

  # `a` reaches a shard_map only through `a * 2`: it stays replicated and each
  # device slices its own block out of `a * 2`; the body's psum is the only collective.
  chained = jax.jit(lambda a: f(g(a * 2) + 1) - 1)
  out = chained.lower(x).compile()(x)
  np.testing.assert_array_equal(out, (2 * expect_g + 1).reshape(4, 2).sum(0) - 1)
  assert out.sharding == NamedSharding(mesh, P())
  _same_results(chained(x), out)
  text = chained.lower(x).as_text()
  assert text.count("all-reduce(") == 1 and "dynamic-slice(" in text

  # `a` goes straight into g, so it arrives split; its sum is a local sum and a psum.
  both = jax.jit(lambda a: (g(a), a.sum()))
  out = both.lower(x).compile()(x)
  np.testing.assert_array_equal(out[0], expect_g)
  np.testing.assert_array_equal(out[1], np.float32(28.0))
  assert [o.sharding.spec for o in out] == [P("i"), P()]
  _same_results(both(x), out)
  text = both.lower(x).as_text()
  assert text.count("all-reduce(") == 1 and "dynamic-slice(" not in text


def test_two_dimensional_mesh(mesh):
  mesh2 = jax.make_mesh((2, 2), ("a", "b"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
  f = jax.shard_map(lambda a: lax.psum(a, "b") + lax.axis_index("a"), mesh=mesh2,
                    in_specs=P("a", "b"), out_specs=P("a"))
  y = np.arange(16.0, dtype=np.float32).reshape(4, 4)
  out = jax.jit(f).lower(y).compile()(y)
  blocks = y.reshape(2, 2, 2, 2).transpose(0, 2, 1, 3)  # [a, b, 2, 2]
  expect = np.concatenate([blocks[a].sum(0) + a for a in range(2)])
  np.testing.assert_array_equal(out, expect)
  assert out.sharding == NamedSharding(mesh2, P("a"))
  assert "replica_count=4" in jax.jit(f).lower(y).as_text()


def test_what_does_not_split_runs_on_whole_values(mesh):
  g = jax.shard_map(lambda a: a + 1, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
  x = jnp.arange(8.0)
  h = jax.jit(lambda a: g(a).reshape(2, 4))
  # As GSPMD does: the split value is all-gathered and reshaped on every device.
  text = h.lower(x).as_text()
  assert "replica_count=4" in text and "all-gather(" in text
  out = h(x)
  np.testing.assert_array_equal(out, (np.arange(8.0) + 1).reshape(2, 4))
  assert out.sharding == NamedSharding(mesh, P())


def test_shard_maps_over_different_meshes_are_a_clear_error_but_still_run(mesh):
  g = jax.shard_map(lambda a: a + 1, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
  x = jnp.arange(8.0)
  other = jax.make_mesh((2, 2), ("a", "b"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
  k = jax.shard_map(lambda a: a, mesh=other, in_specs=P("a"), out_specs=P("a"))
  both = jax.jit(lambda a: (g(a), k(a)))
  with pytest.raises(NotImplementedError, match="shard_maps run over 2 different meshes"):
    both.lower(x)
  first, second = both(x)  # each shard_map as its own program
  np.testing.assert_array_equal(first, np.arange(8.0) + 1)
  np.testing.assert_array_equal(second, np.arange(8.0))


def test_compiled_checks_its_arguments(mesh):
  compiled = jax.jit(_psum_fn(mesh)).lower(jnp.arange(8.0)).compile()
  with pytest.raises(TypeError,
                     match=r"Argument 0 compiled with f32\[8\] and called with f32\[12\]"):
    compiled(jnp.arange(12.0))


def test_spmd_programs_are_not_serializable_yet(mesh):
  from jax.experimental import serialize_executable
  compiled = jax.jit(_psum_fn(mesh)).lower(jnp.arange(8.0)).compile()
  with pytest.raises(NotImplementedError, match="multi-device SPMD program"):
    serialize_executable.serialize(compiled)
