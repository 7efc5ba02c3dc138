"""Names of jax.errors, jax.tree_util, jax.custom_derivatives, jax.ad_checkpoint,
jax.profiler, jax.extend.backend and jax.extend.random added for JAX 0.10.2."""

import collections
import dataclasses
import json

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import tree_util
from jax.extend import backend as xb
from jax.extend import random as xr

pytestmark = pytest.mark.usefixtures("backend")


def test_error_classes():
  assert issubclass(jax.errors.KeyReuseError, TypeError)
  assert issubclass(jax.errors.JaxprTypeError, TypeError)
  assert issubclass(jax.errors.InconclusiveDimensionOperation, Exception)
  with pytest.raises(jax.errors.JaxRuntimeError):
    jax.jit(lambda x: jnp.sin(x))(jnp.ones(2, jnp.complex64) * 1j)  # no complex sine kernel
  with pytest.raises(jax.errors.NonConcreteBooleanIndexError, match="concrete"):
    jax.jit(lambda x: x[x > 0])(jnp.arange(3.))


def test_flatten_one_level():
  assert tree_util.flatten_one_level([1, (2, 3)]) == ([1, (2, 3)], None)
  children, keys = tree_util.flatten_one_level({"b": 1, "a": [2]})
  assert children == [[2], 1] and keys == ("a", "b")
  with pytest.raises(ValueError, match="can't tree-flatten"):
    tree_util.flatten_one_level(3)
  pairs, _ = tree_util.flatten_one_level_with_keys({"a": 1, "b": 2})
  assert pairs == [(tree_util.DictKey("a"), 1), (tree_util.DictKey("b"), 2)]


def test_is_tree_node_and_default_registry():
  @dataclasses.dataclass
  class Point:
    x: float
    y: float
  assert not tree_util.is_tree_node(Point)
  tree_util.register_dataclass(Point, data_fields=["x", "y"], meta_fields=[])
  assert tree_util.is_tree_node(Point)
  assert tree_util.is_tree_node(list) and tree_util.is_tree_node(type(None))
  assert tree_util.is_tree_node(collections.namedtuple("NT", "a"))
  assert not tree_util.is_tree_node(int)
  leaves, _ = tree_util.default_registry.flatten([1, {"a": 2}])
  assert leaves == [1, 2]


def test_is_leaf_takes_path():
  tree = {"keep": [1, 2], "walk": [3, (4, 5)]}
  stop_at_keep = lambda path, x: bool(path) and path[0] == tree_util.DictKey("keep")
  pairs = tree_util.tree_leaves_with_path(tree, stop_at_keep, is_leaf_takes_path=True)
  assert [v for _, v in pairs] == [[1, 2], 3, 4, 5]
  out = tree_util.tree_map_with_path(lambda p, x: len(p), tree, is_leaf=stop_at_keep,
                                     is_leaf_takes_path=True)
  assert out == {"keep": 1, "walk": [2, (3, 3)]}
  assert jax.tree.leaves_with_path(tree, is_leaf_takes_path=True, is_leaf=stop_at_keep) == pairs
  for flatten in (tree_util.tree_flatten_with_path, jax.tree.flatten_with_path):
    flat, treedef = flatten(tree, is_leaf=stop_at_keep, is_leaf_takes_path=True)
    assert flat == pairs
    assert treedef.unflatten([v for _, v in flat]) == tree


def test_linear_call_uses_the_given_transpose():
  f = lambda x: jax.custom_derivatives.linear_call(
      lambda r, l: r * l, lambda r, ct: 10. * ct, 3., x)
  assert float(f(2.)) == 6.
  assert float(jax.grad(f)(2.)) == 10.   # the transpose rule, not the function's own
  assert float(jax.jit(jax.grad(f))(2.)) == 10.


def test_custom_vjp_primal_tree_values():
  boxes = {"a": jax.custom_derivatives.CustomVJPPrimal(1., True), "b": 2.}
  assert jax.custom_derivatives.custom_vjp_primal_tree_values(boxes) == {"a": 1., "b": 2.}
  assert jax.custom_derivatives.custom_gradient is not None


def test_print_saved_residuals(capsys):
  jax.ad_checkpoint.print_saved_residuals(lambda x, y: jnp.sin(x) * y, jnp.ones(3), jnp.ones(3))
  lines = capsys.readouterr().out.strip().splitlines()
  assert lines and all(line.startswith("f32[3]") for line in lines)
  assert any("argument at flat index 1" in line for line in lines)


def test_profile_data_reads_a_trace(tmp_path):
  with jax.profiler.trace(str(tmp_path)):
    with jax.profiler.TraceAnnotation("outer", step=1):
      jnp.ones(3).block_until_ready()
  path = next(tmp_path.rglob("*.trace.json"))
  data = jax.profiler.ProfileData.from_file(str(path))
  plane = data.find_plane_with_name("/host:CPU")
  events = [e for line in plane.lines for e in line.events]
  assert [e.name for e in events] == ["outer"] and events[0].duration_ns >= 0
  same = jax.profiler.ProfileData.from_serialized_xspace(path.read_bytes())
  assert same.planes[0].name == "/host:CPU"
  assert jax.profiler.ProfileOptions().python_tracer_level == 0
  with pytest.raises(NotImplementedError, match="remote"):
    jax.profiler.register_subprocess(1, 2)
  with pytest.raises(NotImplementedError):
    jax.profiler.start_server(9999, requires_backend=False)


def test_backend_helpers():
  opts = xb.get_compile_options(2, 1, [[d] for d in jax.devices()[:2]])
  assert opts.num_replicas == 2 and opts.device_assignment.tolist() == [[0], [1]]
  with pytest.raises(ValueError, match="device_assignment"):
    xb.get_compile_options(2, 2, [[0], [1]])

  class Cache:
    cleared = 0
    def cache_clear(self):
      Cache.cleared += 1
  xb.register_backend_cache(Cache(), "test")
  with pytest.raises(TypeError, match="cache_clear"):
    xb.register_backend_cache(object(), "test")
  before = jnp.arange(3.) + 1
  xb.clear_backends()
  assert Cache.cleared == 1
  np.testing.assert_array_equal(jnp.arange(3.) + 1, before)
  xb.clear_in_memory_compilation_cache()


def test_register_backend_factory():
  calls = []
  def factory():
    calls.append(1)
    raise RuntimeError("no such hardware")
  xb.register_backend_factory("fake_hw", factory, priority=-1)
  try:
    xb.clear_backends()
    with pytest.warns(RuntimeWarning, match="fake_hw"):
      jax.devices()
    assert calls == [1]
    with pytest.raises(RuntimeError, match="no such hardware"):
      xb.get_backend("fake_hw")
  finally:
    from jax._src import xla_bridge
    xla_bridge._registrations.pop("fake_hw")
    xb.clear_backends()


def test_threefry_2x32_known_answer():
  # The Threefry-2x32 (20 rounds) test vector of the Random123 suite: key 0, counter 0.
  out = xr.threefry_2x32((np.uint32(0), np.uint32(0)), np.zeros(2, np.uint32))
  np.testing.assert_array_equal(out, [0x6b200159, 0x99ba4efe])
  odd = xr.threefry_2x32((np.uint32(1), np.uint32(2)), np.arange(5, dtype=np.uint32))
  assert odd.shape == (5,) and odd.dtype == jnp.uint32


def test_prng_impls():
  k = xr.seed_with_impl(xr.threefry_prng_impl, 7)
  np.testing.assert_array_equal(jax.random.key_data(k), jax.random.key_data(jax.random.key(7)))
  ks = xr.random_seed(jnp.array([1, 2, 3]), xr.threefry_prng_impl)
  assert ks.shape == (3,)
  np.testing.assert_array_equal(jax.random.key_data(ks)[1],
                                jax.random.key_data(jax.random.key(2)))
  rbg = xr.rbg_prng_impl
  raw = rbg.seed(jnp.int32(3))
  assert raw.shape == (4,) and rbg.random_bits(raw, 32, (5,)).shape == (5,)
  assert rbg.split(raw, (2,)).shape == (2, 4)
  typed = xr.seed_with_impl(rbg, 0)  # typed keys of their own dtype
  assert str(typed.dtype) == "key<rbg>" and jax.random.key_data(typed).shape == (4,)
  # The samplers draw from the key's own implementation: its bits, through the same
  # float expansion as threefry keys.
  bits = jax.random.bits(typed, (4,))
  want = (np.asarray(bits) >> 9 | np.uint32(0x3F800000)).view(np.float32) - 1.0
  np.testing.assert_array_equal(jax.random.uniform(typed, (4,)), want)
  impl = xr.define_prng_impl(key_shape=(2,), seed=lambda s: s, split=lambda k, s: k,
                             random_bits=lambda k, b, s: k, fold_in=lambda k, d: k, name="mine")
  assert impl.key_shape == (2,) and impl.name == "mine"
  with pytest.raises(TypeError, match="callable"):
    xr.define_prng_impl(key_shape=(2,), seed=1, split=1, random_bits=1, fold_in=1)


def test_tree_static_fields():
  @jax.tree_util.register_dataclass
  @dataclasses.dataclass
  class MyOp:
    x: jax.Array
    y: jax.Array
    op: str = jax.tree.static(default="add")

  m = MyOp(x=jnp.ones(3), y=jnp.arange(3))
  leaves, treedef = jax.tree.flatten(m)
  assert len(leaves) == 2 and m.op == "add"
  back = jax.tree.unflatten(treedef, leaves)
  assert back.op == "add" and np.array_equal(back.y, np.arange(3))
  assert dataclasses.fields(MyOp)[2].metadata["static"] is True


def test_ifrt_program_descriptions():
  from jax.extend import ifrt_programs
  progs = ifrt_programs.ifrt_programs
  p = progs.make_plugin_program("payload")
  assert isinstance(p, progs.Program) and p.kind == "plugin" and p.fields["data"] == b"payload"
  assert progs.make_hlo_program(b"\x00mlir").fields["module"] == b"\x00mlir"
  assert isinstance(progs.make_plugin_compile_options(), progs.CompileOptions)
  with pytest.raises(TypeError, match="str or bytes"):
    progs.make_plugin_program(3)
