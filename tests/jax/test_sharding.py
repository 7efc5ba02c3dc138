"""Meshes, NamedSharding device_put, shard_map as an SPMD program, jit over sharded arrays."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import AxisType, Mesh, NamedSharding, PartitionSpec as P, SingleDeviceSharding


@pytest.fixture
def mesh(backend):
  n = jax.device_count()
  if n < 2:
    pytest.skip("needs at least 2 devices (JAX_NUM_CPU_DEVICES)")
  # Auto axes (JAX 0.10.2's make_mesh defaults to Explicit): these tests are about the
  # layouts jit chooses, test_sharding_explicit.py about layouts in types.
  return jax.make_mesh((n,), ("x",), axis_types=(AxisType.Auto,))


def _n(mesh):
  return mesh.size


def test_partition_spec_and_mesh_basics(backend):
  assert repr(P("x", None)) == "P('x', None)" and repr(P()) == "P()" and repr(P("x")) == "P('x',)"
  assert P("x") != P("x", None) and P("x") == P("x")
  m = jax.make_mesh((1,), ("a",))
  assert m.shape == {"a": 1} and m.axis_names == ("a",) and m.size == 1
  with pytest.raises(ValueError, match="not found in mesh"):
    NamedSharding(m, P("b"))
  with pytest.raises(ValueError, match="duplicate"):
    NamedSharding(jax.make_mesh((1, 1), ("a", "b")), P("a", "a"))
  with pytest.raises(ValueError, match="must be >="):
    jax.make_mesh((jax.device_count() + 1,), ("a",))


def test_device_put_splits_into_per_device_blocks(mesh):
  n = _n(mesh)
  value = np.arange(4.0 * n, dtype=np.float32).reshape(2 * n, 2)
  x = jax.device_put(value, NamedSharding(mesh, P("x")))
  assert x.sharding == NamedSharding(mesh, P("x")) and len(x.sharding.device_set) == n
  shards = x.addressable_shards
  assert len(shards) == n and x.devices() == set(mesh.devices.flat)
  for i, s in enumerate(shards):
    assert s.device == mesh.devices[i] and s.replica_id == 0
    assert s.index == (slice(2 * i, 2 * i + 2), slice(None))
    assert s.data.devices() == {s.device}
    np.testing.assert_array_equal(s.data, value[2 * i:2 * i + 2])
  np.testing.assert_array_equal(x, value)
  assert not x.is_fully_replicated


def test_abstract_shardings_know_whether_they_replicate(mesh):
  # jax.typeof(x).sharding is over an abstract mesh, which has no devices (chex asks it).
  assert not NamedSharding(mesh.abstract_mesh, P("x")).is_fully_replicated
  assert NamedSharding(mesh.abstract_mesh, P()).is_fully_replicated
  assert jax.typeof(jnp.ones(3)).sharding.is_fully_replicated


def test_device_put_takes_a_format_and_shardings_name_their_devices(mesh):
  from jax._src.layout import Format, Layout
  dev = jax.devices()[1]
  one = jax.sharding.SingleDeviceSharding(dev)
  assert one._addressable_device_assignment == (dev,)  # JAX's name, which orbax reads
  assert NamedSharding(mesh, P("x"))._addressable_device_assignment == tuple(mesh.devices.flat)
  x = jax.device_put(jnp.ones((2, 3)), Format(None, one))
  assert x.sharding == one
  assert jax.device_put(jnp.ones((2, 3)), Format(Layout((0, 1)), one)).sharding == one
  with pytest.raises(ValueError, match="row-major"):
    jax.device_put(jnp.ones((2, 3)), Format(Layout((1, 0)), one))


def test_replicated_sharding_has_replica_ids(mesh):
  x = jax.device_put(np.ones(3, np.float32), NamedSharding(mesh, P()))
  assert x.is_fully_replicated
  assert [s.replica_id for s in x.addressable_shards] == list(range(_n(mesh)))
  np.testing.assert_array_equal(x + 1, np.full(3, 2.0))


def test_device_put_uneven_is_an_error(mesh):
  with pytest.raises(ValueError, match="does not evenly divide the dimension size"):
    jax.device_put(np.ones(2 * _n(mesh) + 1), NamedSharding(mesh, P("x")))


def test_shard_map_psum_and_per_shard_work(mesh):
  n = _n(mesh)
  f = jax.shard_map(lambda a: (a * 2, lax.psum(a.sum(), "x")), mesh=mesh, in_specs=P("x"),
                    out_specs=(P("x"), P()))
  value = np.arange(2.0 * n, dtype=np.float32)
  for fun in (f, jax.jit(f)):
    y, total = fun(jax.device_put(value, NamedSharding(mesh, P("x"))))
    np.testing.assert_array_equal(y, value * 2)
    assert float(total) == value.sum()
    assert y.sharding == NamedSharding(mesh, P("x"))
    assert total.sharding == NamedSharding(mesh, P())


def test_shard_map_collectives(mesh):
  n = _n(mesh)
  value = np.arange(2.0 * n, dtype=np.float32)
  g = jax.shard_map(lambda a: lax.all_gather(a, "x", tiled=True) + lax.axis_index("x"),
                    mesh=mesh, in_specs=P("x"), out_specs=P("x"), check_vma=False)
  expect = np.concatenate([value + i for i in range(n)])
  np.testing.assert_array_equal(g(value), expect)
  perm = [(i, (i + 1) % n) for i in range(n)]
  h = jax.shard_map(lambda a: lax.ppermute(a, "x", perm), mesh=mesh, in_specs=P("x"),
                    out_specs=P("x"))
  np.testing.assert_array_equal(h(value), np.roll(value, 2))
  m = jax.shard_map(lambda a: a - lax.pmean(a, "x"), mesh=mesh, in_specs=P("x"), out_specs=P("x"))
  blocks = value.reshape(n, 2)
  np.testing.assert_allclose(m(value), (blocks - blocks.mean(0)).reshape(-1))


def test_shard_map_checks(mesh):
  with pytest.raises(ValueError, match="can't be statically inferred"):
    jax.shard_map(lambda a: a.sum(), mesh=mesh, in_specs=P("x"), out_specs=P())(
        np.ones(2 * _n(mesh), np.float32))
  out = jax.shard_map(lambda a: a.sum(keepdims=True), mesh=mesh, in_specs=P("x"),
                      out_specs=P(), check_vma=False)(np.arange(2.0 * _n(mesh), dtype=np.float32))
  np.testing.assert_array_equal(out, [1.0])  # the first device's block
  with pytest.raises(ValueError, match="not evenly divisible"):
    jax.shard_map(lambda a: a, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(
        np.ones(2 * _n(mesh) + 1))


def test_shard_map_jvp_and_vmap(mesh):
  n = _n(mesh)
  value = np.arange(2.0 * n, dtype=np.float32)
  f = jax.shard_map(jnp.sin, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
  y, t = jax.jvp(f, (value,), (np.ones_like(value),))
  np.testing.assert_allclose(y, np.sin(value), rtol=1e-6)
  np.testing.assert_allclose(t, np.cos(value), rtol=1e-6)
  g = jax.vmap(jax.shard_map(lambda a: a * 2 + lax.psum(a, "x"), mesh=mesh, in_specs=P("x"),
                             out_specs=P("x")))
  batch = np.stack([value, value + 1])
  blocks = batch.reshape(2, n, 2)
  expect = (blocks * 2 + blocks.sum(1, keepdims=True)).reshape(2, -1)
  np.testing.assert_allclose(g(batch), expect)


def test_experimental_shard_map_spelling(mesh):
  from jax.experimental.shard_map import shard_map
  f = shard_map(lambda a: lax.psum(a, "x"), mesh, P("x"), P(), check_rep=True)
  np.testing.assert_array_equal(f(np.ones(2 * _n(mesh), np.float32)), [_n(mesh)] * 2)


def test_jit_over_sharded_inputs_is_partitioned(mesh):
  n = _n(mesh)
  value = np.arange(4.0 * n, dtype=np.float32).reshape(2 * n, 2)
  x = jax.device_put(value, NamedSharding(mesh, P("x")))
  y = jax.jit(lambda a: (a * 2).sum(axis=0))(x)
  z = jax.jit(lambda a: jnp.sum(a * a, axis=1))(x)
  np.testing.assert_array_equal(y, (value * 2).sum(0))
  np.testing.assert_array_equal(z, (value * value).sum(1))
  assert y.sharding == NamedSharding(mesh, P())
  assert z.sharding == NamedSharding(mesh, P("x"))
  outs = jax.jit(lambda a: (a + 1.0, jnp.mean(a), a.max(0), jnp.exp(a) * a))(x)
  np.testing.assert_allclose(outs[0], value + 1)
  np.testing.assert_allclose(outs[1], value.mean())
  np.testing.assert_allclose(outs[2], value.max(0))
  np.testing.assert_allclose(outs[3], np.exp(value) * value, rtol=1e-6)
  assert [o.sharding.spec for o in outs] == [P("x"), P(), P(), P("x")]


def test_jit_over_sharded_inputs_runs_what_does_not_split_on_whole_values(mesh):
  n = _n(mesh)
  value = np.arange(4.0 * n, dtype=np.float32).reshape(2 * n, 2)
  x = jax.device_put(value, NamedSharding(mesh, P("x")))
  # As GSPMD does: a dot over the split dimension all-gathers its operands and runs on
  # every device; the elementwise work beside it stays split.
  w, y = jax.jit(lambda a: (a.T @ a, a * 2))(x)
  np.testing.assert_array_equal(w, value.T @ value)
  np.testing.assert_array_equal(y, value * 2)
  assert w.sharding == NamedSharding(mesh, P()) and y.sharding == NamedSharding(mesh, P("x"))
  # Split differently: made whole before they are combined.
  xt = jax.device_put(value.T.copy(), NamedSharding(mesh, P(None, "x")))
  np.testing.assert_array_equal(jax.jit(lambda a, b: a + b.T)(x, xt), 2 * value)
  # A reduction no collective combines (a product) runs on the whole value.
  p = jax.jit(lambda a: jnp.prod(a[:, 0] / 10 + 1))(x)
  np.testing.assert_allclose(p, np.prod(value[:, 0] / 10 + 1), rtol=1e-6)


def test_dot_of_row_split_values_stays_split(mesh):
  n = _n(mesh)
  value = np.arange(6.0 * n, dtype=np.float32).reshape(2 * n, 3)
  w = np.arange(12.0, dtype=np.float32).reshape(3, 4) / 7
  x = jax.device_put(value, NamedSharding(mesh, P("x")))
  y = jax.jit(lambda a, b: jnp.tanh(a @ b))(x, w)  # no gather: each device its rows
  np.testing.assert_allclose(y, np.tanh(value @ w), rtol=1e-6)
  assert y.sharding == NamedSharding(mesh, P("x"))
  # The split operand on the right: the result is split on its columns.
  z = jax.jit(lambda b, a: lax.dot_general(b, a, (((0,), (1,)), ((), ()))))(w, x)
  np.testing.assert_allclose(z, w.T @ value.T, rtol=1e-6)
  assert z.sharding == NamedSharding(mesh, P(None, "x"))


def test_jit_over_arguments_on_different_meshes_runs_on_one_device(mesh):
  n = _n(mesh)
  other = Mesh(np.array(jax.devices()[:n])[::-1], ("y",))
  a = jax.device_put(np.arange(2.0 * n), NamedSharding(mesh, P("x")))
  b = jax.device_put(np.arange(2.0 * n), NamedSharding(other, P("y")))
  out = jax.jit(lambda u, v: u + v)(a, b)
  np.testing.assert_array_equal(out, 2 * np.arange(2.0 * n))
  assert out.sharding == SingleDeviceSharding(jax.devices()[0])


def test_two_axis_mesh(backend):
  if jax.device_count() < 4:
    pytest.skip("needs 4 devices")
  mesh = jax.make_mesh((2, 2), ("a", "b"), axis_types=(AxisType.Auto,) * 2)
  value = np.arange(16.0, dtype=np.float32).reshape(4, 4)
  x = jax.device_put(value, NamedSharding(mesh, P("a", "b")))
  assert [s.index for s in x.addressable_shards][1] == (slice(0, 2), slice(2, 4))
  s = jax.jit(lambda a: a.sum(0))(x)
  np.testing.assert_array_equal(s, value.sum(0))
  assert s.sharding == NamedSharding(mesh, P("b"))
  f = jax.shard_map(lambda a: (lax.psum(a, "a"), jnp.full((1,), lax.axis_index("b"))),
                    mesh=mesh, in_specs=P("a", "b"), out_specs=(P(None, "b"), P("b")))
  summed, idx = f(x)
  np.testing.assert_array_equal(summed, value[:2] + value[2:])
  np.testing.assert_array_equal(idx, [0, 1])


def test_named_sharding_update_replaces_mesh_spec_or_memory_kind(mesh):
  # flax's scan over sharded inputs drops the batch axis with `sharding.update(spec=...)`.
  s = NamedSharding(mesh, P("x"))
  assert s.update(spec=P()) == NamedSharding(mesh, P())
  assert s.update(mesh=mesh) == s and s.update() == s
  assert s.update(memory_kind="device").memory_kind == "device"
  typed = jax.typeof(jnp.ones((2, 3))).sharding  # over the empty AbstractMesh
  assert typed.update(spec=P(None)).spec == P(None) and typed.update().mesh == typed.mesh
  with pytest.raises(TypeError, match=r"unexpected keyword arguments \['axes'\]"):
    s.update(axes=P())


def test_jit_takes_shardings_as_pytrees_of_any_kind(backend):
  # flax passes out_shardings as a dict of NamedShardings (its params' layouts); dicts
  # are unhashable, and the wrapper still caches its traces.
  m = jax.make_mesh((1,), ("x",))
  s = NamedSharding(m, P())
  traces = []

  def init(x):
    traces.append(1)
    return {"w": x * 2, "b": {"c": x + 1}}

  f = jax.jit(init, in_shardings=(s,), out_shardings={"w": s, "b": {"c": s}})
  for _ in range(2):
    out = f(jnp.arange(3.0))
    np.testing.assert_array_equal(out["w"], [0, 2, 4])
    np.testing.assert_array_equal(out["b"]["c"], [1, 2, 3])
    assert out["w"].sharding == s
  assert len(traces) == 1
  f.clear_cache()
  f(jnp.arange(3.0))
  assert len(traces) == 2


def test_mesh_axis_type_queries_match_jax(backend):
  # Values from JAX 0.10.2 for a mesh with one axis of each type, and the empty
  # abstract mesh (all of "all axes" are False there).
  T = AxisType
  m = jax.make_mesh((1, 1, 1), ("x", "y", "z"), axis_types=(T.Explicit, T.Auto, T.Manual))
  empty = jax.sharding.get_abstract_mesh()
  for mesh in (m, m.abstract_mesh):
    assert (mesh.explicit_axes, mesh.auto_axes, mesh.manual_axes) == (("x",), ("y",), ("z",))
    assert not (mesh.are_all_axes_explicit or mesh.are_all_axes_auto or mesh.are_all_axes_manual)
    assert mesh._any_axis_explicit and mesh._any_axis_auto and mesh._any_axis_manual
    assert not (mesh._are_all_axes_auto_or_manual or mesh._are_all_axes_explicit_or_manual)
  assert not (empty.are_all_axes_explicit or empty.are_all_axes_auto or empty._any_axis_auto)
  explicit = jax.make_mesh((1,), ("x",))
  assert explicit.are_all_axes_explicit and explicit.abstract_mesh.are_all_axes_explicit
  assert not explicit.are_all_axes_auto


def test_in_shardings_cover_the_arguments_that_are_not_static(backend):
  # As in JAX: with use_relu static, in_shardings has one entry per dynamic argument.
  s = NamedSharding(jax.make_mesh((1,), ("x",)), P("x"))

  def fn(x, scale, use_relu):
    y = x * scale
    return jnp.maximum(y, 0).sum() if use_relu else y.sum()

  x = jnp.linspace(-1.0, 1.0, 16, dtype=jnp.float32).reshape(4, 4)
  for kw in ({"static_argnums": 2}, {"static_argnames": "use_relu"}):
    f = jax.jit(fn, in_shardings=(s, None), **kw)
    assert float(f(x, 0.5, True)) == pytest.approx(32 / 15)  # 0.5 * (1 + 3 + ... + 15) / 15
    assert float(f(x, 0.5, False)) == pytest.approx(0.0, abs=1e-6)
