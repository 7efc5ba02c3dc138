"""jax.export: exporting jitted functions, serializing and deserializing them, and calling
them back (eagerly, under jit and vmap), with pytree structures and type checks."""

import collections

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import export

pytestmark = pytest.mark.usefixtures("backend")


def f(x, y):
  return {"s": jnp.sin(x) * y, "t": (x + 1,)}


def test_export_and_call():
  exp = export.export(jax.jit(f))(jnp.ones(3), jax.ShapeDtypeStruct((3,), jnp.float32))
  assert exp.fun_name == "f" and exp.platforms == ("cpu",) and exp.nr_devices == 1
  assert [a.shape for a in exp.in_avals] == [(3,), (3,)]
  assert "ENTRY" in exp.mlir_module() and "sine" in exp.mlir_module()
  x, y = jnp.arange(3.), jnp.full(3, 2.)
  out = exp.call(x, y)
  np.testing.assert_allclose(out["s"], np.sin(np.arange(3.)) * 2, rtol=1e-6)
  np.testing.assert_allclose(out["t"][0], np.arange(3.) + 1)


def test_serialize_round_trip():
  exp = export.export(jax.jit(f))(jnp.ones(3), jnp.ones(3))
  blob = exp.serialize()
  assert isinstance(blob, bytearray)
  back = export.deserialize(blob)
  assert back.in_tree == exp.in_tree and back.out_tree == exp.out_tree
  assert back.in_avals == exp.in_avals and back.out_avals == exp.out_avals
  x = jnp.arange(3.)
  np.testing.assert_allclose(back.call(x, x)["s"], np.sin(np.arange(3.)) * np.arange(3.),
                             rtol=1e-6)
  with pytest.raises(ValueError, match="not a serialized Exported"):
    export.deserialize(b"junk")


def test_call_under_jit_and_vmap():
  exp = export.export(jax.jit(lambda v: v * 2 + 1))(jnp.ones(4))
  np.testing.assert_allclose(jax.jit(exp.call)(jnp.arange(4.)), np.arange(4.) * 2 + 1)
  batched = jax.vmap(exp.call)(jnp.ones((3, 4)))
  np.testing.assert_allclose(batched, np.full((3, 4), 3.))


def test_argument_checks():
  exp = export.export(jax.jit(lambda v: v))(jnp.ones(4))
  with pytest.raises(ValueError, match="exported for argument 0"):
    exp.call(jnp.ones(5))
  with pytest.raises(ValueError, match="pytree structure"):
    exp.call(jnp.ones(4), jnp.ones(4))
  with pytest.raises(ValueError, match="must be the result of `jit`"):
    export.export(lambda v: v)
  other = export.export(jax.jit(lambda v: v), platforms=["tpu"])(jnp.ones(2))
  with pytest.raises(ValueError, match="exported for platforms"):
    other.call(jnp.ones(2))
  relaxed = export.export(jax.jit(lambda v: v + 1), platforms=["tpu"],
                          disabled_checks=[export.DisabledSafetyCheck.platform()])(jnp.ones(2))
  np.testing.assert_allclose(relaxed.call(jnp.ones(2)), [2., 2.])


Point = collections.namedtuple("Point", ["x", "y"])


class Box:
  def __init__(self, v, tag):
    self.v, self.tag = v, tag


jax.tree_util.register_pytree_node(Box, lambda b: ((b.v,), b.tag), lambda tag, c: Box(c[0], tag))


def test_custom_pytree_serialization():
  exp = export.export(jax.jit(lambda p: Point(p.y, p.x)))(Point(jnp.ones(2), jnp.zeros(2)))
  with pytest.raises(ValueError, match="unregistered type"):
    exp.serialize()
  export.register_namedtuple_serialization(Point, serialized_name="tests.Point")
  back = export.deserialize(exp.serialize())
  out = back.call(Point(jnp.ones(2), jnp.zeros(2)))
  assert isinstance(out, Point) and float(out.x.sum()) == 0.
  export.register_pytree_node_serialization(
      Box, serialized_name="tests.Box", serialize_auxdata=lambda tag: tag.encode(),
      deserialize_auxdata=lambda b: b.decode())
  exp_box = export.export(jax.jit(lambda b: Box(b.v * 3, b.tag)))(Box(jnp.ones(2), "hi"))
  out = export.deserialize(exp_box.serialize()).call(Box(jnp.ones(2), "hi"))
  assert isinstance(out, Box) and out.tag == "hi" and float(out.v[0]) == 3.


def test_versions_and_platform():
  assert export.minimum_supported_calling_convention_version() <= \
      export.maximum_supported_calling_convention_version()
  assert export.default_export_platform() == "cpu"
  assert export.DisabledSafetyCheck.custom_call("x").is_custom_call() == "x"
