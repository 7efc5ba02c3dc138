"""Explicit sharding (JAX 0.10.2): meshes with Explicit axes, layouts as part of types
(jax.typeof(x).sharding), their propagation through operations, reshard, auto_axes /
explicit_axes, out_sharding=, with_sharding_constraint and device_put(x, P(...)).

Expected shardings and errors are those JAX 0.10.2 gives for the same programs."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax
from jax._src.core import ShardingTypeError
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P


@pytest.fixture
def mesh(backend):
  if jax.device_count() < 4:
    pytest.skip("needs 4 devices (JAX_NUM_CPU_DEVICES=4)")
  m = jax.make_mesh((2, 2), ("x", "y"))
  with jax.set_mesh(m):
    yield m


def _put(shape, *spec):
  value = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
  return value, jax.device_put(value, P(*spec))


def _spec(x):
  return jax.typeof(x).sharding.spec


def _dims(t) -> str:
  """The dimensions of a type as JAX writes them, e.g. '4@x,2@y' (dtype names aside)."""
  s = str(t)
  return s[s.index("[") + 1:s.index("]")]


# ----------------------------------------------------------------------------- meshes and types


def test_mesh_defaults_and_abstract_mesh(backend):
  if jax.device_count() < 4:
    pytest.skip("needs 4 devices")
  assert jax.make_mesh((2, 2), ("x", "y")).axis_types == (AxisType.Explicit,) * 2
  devices = np.array(jax.devices()[:4]).reshape(2, 2)
  assert jax.sharding.Mesh(devices, ("x", "y")).axis_types == (AxisType.Auto,) * 2
  m = jax.make_mesh((4,), ("i",), (AxisType.Auto,))
  assert m.axis_types == (AxisType.Auto,)
  with pytest.raises(ValueError, match="should match the number of axis_types"):
    jax.make_mesh((2, 2), ("x", "y"), (AxisType.Auto,))
  am = jax.make_mesh((2, 2), ("x", "y")).abstract_mesh
  assert repr(am) == ("AbstractMesh('x': 2, 'y': 2, axis_types=(Explicit, Explicit), "
                      "device_kind=cpu, num_cores=None, platform=cpu)")
  assert repr(jax.sharding.get_abstract_mesh()) == "AbstractMesh((), axis_types=())"
  s = NamedSharding(am, P("x"))
  assert s.mesh is am and s.spec == P("x")
  with pytest.raises(ValueError, match="AbstractMesh, which has no devices"):
    s.device_set


def test_set_mesh_context_and_global(backend):
  if jax.device_count() < 4:
    pytest.skip("needs 4 devices")
  m = jax.make_mesh((2, 2), ("x", "y"))
  with jax.set_mesh(m):
    assert jax.sharding.get_abstract_mesh() == m.abstract_mesh
  assert jax.sharding.get_abstract_mesh().empty
  jax.set_mesh(m)
  try:
    assert jax.sharding.get_mesh() is m
  finally:
    jax.set_mesh(None)
  assert jax.sharding.get_mesh() is None


def test_typeof_sharding_of_unsharded_values(backend):
  # Every aval has a NamedSharding (libraries such as chex read it).
  s = jax.typeof(jnp.ones(3)).sharding
  assert isinstance(s, NamedSharding) and s.spec == P(None) and s.mesh.empty
  assert jax.typeof(np.ones((2, 2))).sharding.spec == P(None, None)
  assert jax.typeof(1.0).sharding.spec == P()


def test_device_put_partition_spec(mesh):
  value, x = _put((4, 2), "x", "y")
  assert x.sharding == NamedSharding(mesh, P("x", "y"))
  np.testing.assert_array_equal(x, value)
  assert _dims(jax.typeof(x)) == "4@x,2@y"
  assert jax.typeof(x).sharding.mesh == mesh.abstract_mesh
  assert [s.index for s in x.addressable_shards][1] == (slice(0, 2), slice(1, 2))


def test_device_put_partition_spec_needs_a_mesh(backend):
  with pytest.raises(ValueError, match="Please set a mesh via `jax.set_mesh` if a "
                                       "PartitionSpec is passed to device_put"):
    jax.device_put(np.ones(4), P("x"))


# ----------------------------------------------------------------------------- propagation


def test_elementwise_and_broadcasting(mesh):
  value, x = _put((4, 2), "x", "y")
  assert _spec(x + 1) == P("x", "y") and _spec(x * 2.0) == P("x", "y")
  assert _spec(jnp.exp(x)) == P("x", "y") and _spec(x.astype(jnp.int32)) == P("x", "y")
  assert _spec(jnp.where(x > 2, x, 0.0)) == P("x", "y")
  _, col = _put((4, 2), "x", None)
  _, row = _put((4, 2), None, "y")
  assert _spec(col + row) == P("x", "y")
  assert _spec(x[None] + 1) == P(None, "x", "y")
  np.testing.assert_allclose(x * 2 + 1, value * 2 + 1)
  assert (x + 1).sharding == NamedSharding(mesh, P("x", "y"))
  _, other = _put((4, 2), "y", "x")
  with pytest.raises(ShardingTypeError, match=r"add got incompatible shardings for "
                                              r"broadcasting: \('x', 'y'\), \('y', 'x'\)"):
    x + other


def test_reductions_and_transpose(mesh):
  value, x = _put((4, 2), "x", "y")
  assert x.sum(0).sharding.spec == P("y") and x.sum(1).sharding.spec == P("x")
  np.testing.assert_allclose(x.sum(0), value.sum(0))
  assert _spec(jnp.max(x, axis=0)) == P("y") and _spec(jnp.argmax(x, axis=1)) == P("x")
  assert _spec(x.sum()) == P() and _spec(x.mean(1)) == P("x")
  assert x.T.sharding.spec == P("y", "x")
  np.testing.assert_array_equal(x.T, value.T)
  _, z = _put((4, 2, 2), "x", "y", None)
  assert _spec(jnp.transpose(z, (2, 0, 1))) == P(None, "x", "y")


def test_reshape_rules(mesh):
  _, a = _put((4, 2), "x", None)
  assert _spec(a.reshape(8)) == P("x")
  _, b = _put((4, 2), "x", "y")
  assert _spec(b.reshape(8)) == P(("x", "y"))
  _, c = _put((8,), ("x", "y"))
  assert _spec(c.reshape(4, 2)) == P(("x", "y"), None)
  _, d = _put((4, 6), None, "y")
  assert _spec(d.reshape(4, 2, 3)) == P(None, "y", None)
  _, e = _put((4, 2), None, "y")
  with pytest.raises(ShardingTypeError, match="This reshape is not supported"):
    e.reshape(8)
  value, f = _put((4, 2), "x", "y")
  out = jnp.reshape(f, (2, 4), out_sharding=P("x"))
  assert _spec(out) == P("x", None)
  np.testing.assert_array_equal(out, value.reshape(2, 4))


def test_slicing_and_concatenate(mesh):
  value, x = _put((8, 2), "x", None)
  assert _spec(x[:4]) == P("x", None) and _spec(x[:, :1]) == P("x", None)
  np.testing.assert_array_equal(x[:4], value[:4])
  assert _spec(jnp.concatenate([x, x])) == P("x", None)
  with pytest.raises(ShardingTypeError, match=r"out dim \(1\) is not divisible by mesh axes"):
    lax.slice(x, (0, 0), (1, 2))
  with pytest.raises(ShardingTypeError, match="must be unsharded over the sorting dimension"):
    jnp.sort(x, axis=0)


def test_dot_general_rules(mesh):
  lv, lhs = _put((4, 2), "x", None)
  rv, rhs = _put((2, 4), None, "y")
  out = lhs @ rhs
  assert _spec(out) == P("x", "y")
  np.testing.assert_allclose(out, lv @ rv)
  _, lc = _put((4, 2), None, "x")
  _, rc = _put((2, 4), "x", None)
  with pytest.raises(ShardingTypeError, match="Contracting dimensions are sharded"):
    lc @ rc
  out = jnp.dot(lc, rc, out_sharding=P("x"))
  assert _spec(out) == P("x", None)
  np.testing.assert_allclose(out, np.asarray(lc) @ np.asarray(rc))
  _, dup = _put((2, 4), None, "x")
  with pytest.raises(ShardingTypeError, match="produces an illegally sharded result"):
    lhs @ dup
  _, bl = _put((2, 4, 2), "x", None, None)
  _, br = _put((2, 2, 4), "x", None, None)
  assert _spec(jnp.einsum("bij,bjk->bik", bl, br)) == P("x", None, None)
  _, bad = _put((2, 2, 4), "y", None, None)
  with pytest.raises(ShardingTypeError, match="consistent sharding"):
    jnp.einsum("bij,bjk->bik", bl, bad)
  assert _spec(jnp.einsum("ij,jk->ik", lc, rc, out_sharding=P("x", None))) == P("x", None)


def test_gather_cumulative_top_k_and_conv(mesh):
  value, x = _put((4, 4), "x", None)
  cols = x[:, jnp.array([0, 1])]
  assert _spec(cols) == P("x", None)
  np.testing.assert_array_equal(cols, value[:, [0, 1]])
  assert _spec(jnp.cumsum(x, axis=1)) == P("x", None)
  np.testing.assert_array_equal(jnp.cumsum(x, axis=1), np.cumsum(value, axis=1))
  with pytest.raises(ShardingTypeError, match="Input should be unsharded over the axis being "
                                              "reduced"):
    jnp.cumsum(x, axis=0)
  top = lax.top_k(x, 2)
  assert _spec(top[0]) == P("x", None) and _spec(top[1]) == P("x", None)
  np.testing.assert_array_equal(top[0], -np.sort(-value, axis=1)[:, :2])
  out = lax.conv_general_dilated(x[:, None, :, None], jnp.ones((1, 1, 2, 1)), (1, 1), "SAME")
  assert _spec(out) == P("x", None, None, None)


def test_creation_with_out_sharding(mesh):
  assert _spec(jnp.zeros((4, 4), out_sharding=P("x", "y"))) == P("x", "y")
  a = jnp.arange(8, out_sharding=P("x"))
  assert a.sharding == NamedSharding(mesh, P("x"))
  np.testing.assert_array_equal(a, np.arange(8))
  _, x = _put((4, 2), "x", "y")
  assert _spec(jnp.zeros_like(x)) == P("x", "y")
  r = jax.random.normal(jax.random.key(0), (4, 4), out_sharding=P("x"))
  assert _spec(r) == P("x", None)
  np.testing.assert_array_equal(r, jax.random.normal(jax.random.key(0), (4, 4)))


def test_out_sharding_of_an_unsharded_type_leaves_results_in_place():
  # Outside any mesh jax.typeof(x).sharding is over an empty mesh; JAX's ops take it as
  # "unspecified" (flax's Dropout passes it to jax.random.bernoulli).
  x = jnp.arange(6.0).reshape(2, 3)
  unsharded = jax.typeof(x).sharding
  assert unsharded.mesh.empty
  key = jax.random.key(0)
  np.testing.assert_array_equal(
      jax.random.bernoulli(key, 0.5, (2, 3), out_sharding=unsharded),
      jax.random.bernoulli(key, 0.5, (2, 3)))
  np.testing.assert_array_equal(jax.random.normal(key, (2, 3), out_sharding=unsharded),
                                jax.random.normal(key, (2, 3)))
  np.testing.assert_array_equal(jnp.zeros((2, 3), out_sharding=unsharded), np.zeros((2, 3)))
  np.testing.assert_array_equal(
      jnp.reshape(x, (3, 2), out_sharding=jax.typeof(x.T).sharding), np.arange(6.0).reshape(3, 2))


# ----------------------------------------------------------------------------- transformations


def test_jit_propagates_and_places_results(mesh):
  value, x = _put((4, 2), "x", "y")
  seen = []
  out = jax.jit(lambda a: (seen.append(jax.typeof(a)), jnp.sin(a).T)[1])(x)
  assert _dims(seen[0]) == "4@x,2@y"
  assert out.sharding == NamedSharding(mesh, P("y", "x"))
  np.testing.assert_allclose(out, np.sin(value).T, rtol=1e-6)
  out = jax.jit(lambda a: jax.sharding.reshard(a * 2, P(None, "y")))(x)
  assert out.sharding.spec == P(None, "y")
  np.testing.assert_array_equal(out, value * 2)


def test_shape_dtype_struct_with_a_named_sharding_is_typed(mesh):
  s = jax.ShapeDtypeStruct((4, 2), jnp.float32, sharding=NamedSharding(mesh, P("x")))
  out = jax.eval_shape(lambda a: a.T * 2, s)
  assert out.shape == (2, 4) and out.sharding.spec == P(None, "x")


def test_grad_keeps_primal_shardings(mesh):
  wv, w = _put((2, 4), None, "y")
  av, a = _put((4, 2), "x", None)
  g = jax.grad(lambda w, a: (a @ w).sum())(w, a)
  assert g.sharding.spec == P(None, "y")
  np.testing.assert_allclose(g, np.broadcast_to(av.sum(0)[:, None], (2, 4)))
  g = jax.jit(jax.grad(lambda a: (a * a).sum()))(a)
  assert g.sharding.spec == P("x", None)
  np.testing.assert_allclose(g, 2 * av)


def test_vmap_removes_the_batch_dimension_from_types(mesh):
  value, x = _put((4, 2), "x", "y")
  seen = []
  out = jax.vmap(lambda a: (seen.append(jax.typeof(a)), a * 2)[1])(x)
  assert _dims(seen[0]) == "2@y"
  assert out.sharding.spec == P("x", "y")
  np.testing.assert_array_equal(out, value * 2)
  # Keys split over x draw numbers split over x (through random's inner jits).
  keys = jax.random.split(jax.random.key(0), 4)
  draws = jax.vmap(lambda k: jax.random.normal(k, (2,)))(jax.device_put(keys, P("x")))
  assert draws.sharding.spec == P("x", None)
  np.testing.assert_array_equal(draws, jax.vmap(lambda k: jax.random.normal(k, (2,)))(keys))
  # Resharding each element keeps the batch dimension's split.
  out = jax.vmap(lambda a: jax.sharding.reshard(a, P(None)))(x)
  assert out.sharding.spec == P("x", None)
  np.testing.assert_array_equal(out, value)


def test_reshard_and_with_sharding_constraint(mesh):
  value, x = _put((4, 2), "x", "y")
  y = jax.sharding.reshard(x, P(None, "x"))
  assert y.sharding == NamedSharding(mesh, P(None, "x"))
  np.testing.assert_array_equal(y, value)
  assert lax.with_sharding_constraint(x, P("x", "y")) is x
  assert lax.with_sharding_constraint(x, NamedSharding(mesh, P("x", "y"))) is x
  with pytest.raises(AssertionError, match=r"acts as an assert when all axes of mesh are of "
                                           r"type `Explicit`. The array sharding: "
                                           r"P\('x', 'y'\) did not match"):
    lax.with_sharding_constraint(x, P("x", None))


def test_reshard_specs_name_explicit_axes_only(backend):
  if jax.device_count() < 4:
    pytest.skip("needs 4 devices")
  with jax.set_mesh(jax.make_mesh((2, 2), ("x", "y"), (AxisType.Auto,) * 2)):
    with pytest.raises(ValueError, match="cannot contain axis names that are of type Auto or "
                                         "Manual. Got PartitionSpec: P\\('x',\\) with axis "
                                         "name: x of type: AxisType.Auto"):
      jax.sharding.reshard(np.ones((4, 4)), P("x"))


def test_reshard_needs_a_mesh_for_specs(backend):
  with pytest.raises(ValueError, match="Using PartitionSpec when you are not under a mesh "
                                       "context is not allowed"):
    jax.sharding.reshard(np.ones(4), P("x"))


def test_auto_axes_and_explicit_axes(mesh):
  value, x = _put((4, 2), "x", "y")
  seen = []

  def f(a):
    seen.append(jax.typeof(a))
    return a * 2

  out = jax.sharding.auto_axes(f, axes="x", out_sharding=P("x", "y"))(x)
  assert _dims(seen[-1]) == "4,2@y"  # only x became Auto
  assert _spec(out) == P("x", "y")
  out = jax.sharding.auto_axes(f, out_sharding=P("y", "x"))(x)
  # Inside, every axis is Auto: nothing about the split is in the type.
  assert _dims(seen[-1]) == "4,2"
  assert _spec(out) == P("y", "x")
  np.testing.assert_array_equal(out, value * 2)
  # A contraction over split dims, which Explicit axes refuse, is the compiler's business.
  _, lc = _put((4, 2), None, "x")
  _, rc = _put((2, 4), "x", None)
  prod = jax.jit(jax.sharding.auto_axes(lambda a, b: a @ b, out_sharding=P("x", None)))(lc, rc)
  assert prod.sharding.spec == P("x", None)
  np.testing.assert_allclose(prod, np.asarray(lc) @ np.asarray(rc))
  auto = jax.make_mesh((2, 2), ("x", "y"), (AxisType.Auto,) * 2)
  with jax.set_mesh(auto):
    z = jax.device_put(value, P("x", "y"))
    assert _dims(jax.typeof(z)) == "4,2"
    out = jax.sharding.explicit_axes(lambda a: (seen.append(jax.typeof(a)), a + 1)[1],
                                     in_sharding=P("x", None))(z)
    assert _dims(seen[-1]) == "4@x,2"
    np.testing.assert_array_equal(out, value + 1)


def test_data_and_model_parallel_training_steps(mesh):
  rng = np.random.default_rng(0)
  w1, w2 = rng.normal(size=(3, 8)).astype(np.float32), rng.normal(size=(8, 1)).astype(np.float32)
  x, y = rng.normal(size=(8, 3)).astype(np.float32), rng.normal(size=(8, 1)).astype(np.float32)

  def loss(params, x, y, out_sharding=None):
    a, b = params
    h = jnp.tanh(x @ a)
    # h is split over "model" along the contracted dimension: the sum's layout is ours to say.
    out = jnp.matmul(h, b, out_sharding=out_sharding) if out_sharding else h @ b
    return jnp.mean((out - y) ** 2)

  def step(params, x, y, out_sharding=None):
    g = jax.grad(loss)(params, x, y, out_sharding)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, g)

  ref = (w1, w2)
  with jax.set_mesh(None):
    for _ in range(5):
      ref = jax.jit(step)(ref, x, y)
  params = (jax.device_put(w1, P(None, "y")), jax.device_put(w2, P("y", None)))
  xs, ys = jax.device_put(x, P("x")), jax.device_put(y, P("x"))
  with pytest.raises(ShardingTypeError, match="Contracting dimensions are sharded"):
    jax.jit(step)(params, xs, ys)
  sharded_step = jax.jit(lambda p, a, b: step(p, a, b, P("x")))
  for _ in range(5):
    params = sharded_step(params, xs, ys)
  assert [p.sharding.spec for p in params] == [P(None, "y"), P("y", None)]
  for got, want in zip(params, ref):
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_shard_map_over_explicit_axes(mesh):
  value, x = _put((8,), ("x", "y"))
  f = jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P(("x", "y")), out_specs=P(("x", "y")))
  out = f(x)
  assert _spec(out) == P(("x", "y"))
  np.testing.assert_array_equal(out, value * 2)
  # in_specs may be left out: the types say them.
  inferred = jax.shard_map(lambda a: a + 1, out_specs=P(("x", "y")))(x)
  np.testing.assert_array_equal(inferred, value + 1)
  assert jax.jit(lambda a: jax.typeof(f(a)).sharding.spec == P(("x", "y")))(x)
  with pytest.raises(ValueError, match=r"in_specs passed to shard_map: P\(\) does not match the "
                                       r"specs of the input: P\(\('x', 'y'\),\)"):
    jax.shard_map(lambda a: a, mesh=mesh, in_specs=P(), out_specs=P())(x)


def test_unsplit_types_from_eager_and_jit_are_equal(mesh):
  # A replicated result typed by jit equals the eager one's type (and hashes equal):
  # both are "unsplit over the mesh in context".
  eager = jnp.zeros((), jnp.int32)
  jitted = jax.jit(lambda: jnp.zeros((), jnp.int32))()
  assert jax.typeof(eager) == jax.typeof(jitted)
  assert hash(jax.typeof(eager)) == hash(jax.typeof(jitted))
  assert jax.typeof(eager).sharding == jax.typeof(jitted).sharding
  _, x = _put((4, 2), "x")
  assert jax.typeof(x) != jax.typeof(jax.jit(lambda v: v)(np.zeros((4, 2), np.float32)))


def test_zeros_like_a_struct_keeps_its_explicit_sharding(mesh):
  _, x = _put((4, 2), None, "y")
  struct = jax.eval_shape(lambda v: jnp.sum(v, axis=0), x)
  assert struct.sharding.spec == P("y")
  z = jnp.zeros_like(struct)
  assert _dims(jax.typeof(z)) == "2@y" and z.sharding.mesh == mesh


def test_norm_of_a_split_value_needs_no_reshape(mesh):
  # (2, 4@x, 2) cannot be flattened under its type; the norm reduces it whole.
  value, x = _put((2, 4, 2), None, "x")
  np.testing.assert_allclose(jnp.linalg.norm(x), np.linalg.norm(value), rtol=1e-6)
  assert jnp.linalg.norm(x, keepdims=True).shape == (1, 1, 1)


def test_shard_shape_needs_no_devices(mesh):
  for m in (mesh, mesh.abstract_mesh):
    assert NamedSharding(m, P("x", "y")).shard_shape((8, 6)) == (4, 3)
    assert NamedSharding(m, P(("x", "y"))).shard_shape((8, 6)) == (2, 6)
  with pytest.raises(ValueError, match="evenly divide"):
    NamedSharding(mesh.abstract_mesh, P("x")).shard_shape((3,))


def test_array_reshape_takes_out_sharding(mesh):
  _, x = _put((8,), "x")
  y = x.reshape((2, 4), out_sharding=NamedSharding(mesh, P(None, "x")))
  assert _dims(jax.typeof(y)) == "2,4@x"
  np.testing.assert_array_equal(y, np.arange(8, dtype=np.float32).reshape(2, 4))


def test_indexed_updates_keep_the_operands_split(mesh):
  # A row or column update scatters whole windows: no flattening, which a split
  # operand's type could not describe (optax's L-BFGS memory, microbatching).
  value, x = _put((4, 2, 2), None, "x")
  y = x.at[1].set(jnp.ones((2, 2)))
  assert _dims(jax.typeof(y)) == "4,2@x,2"
  expect = value.copy()
  expect[1] = 1
  np.testing.assert_array_equal(y, expect)
  z = jax.jit(lambda v: v.at[:, :, jnp.array([0, 0])].add(1.0))(x)
  expect = value.copy()
  expect[:, :, 0] += 2
  np.testing.assert_array_equal(z, expect)
