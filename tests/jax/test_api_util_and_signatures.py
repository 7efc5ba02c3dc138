"""jax.api_util helpers; parameters JAX 0.10.2 accepts (ufunc out/where, PartitionSpec
unreduced/reduced, local_devices(process_index), initializer out_sharding, jet
factorial_scaled), with their behaviour."""

import inspect
import pickle

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import api_util
from jax._src import tree_util
from jax.sharding import PartitionSpec as P

pytestmark = pytest.mark.usefixtures("backend")


def test_argnums_partial():
  g, dyn = api_util.argnums_partial(lambda a, b, c: a * b + c, (0, 2), (2., 3., 4.))
  assert dyn == (2., 4.) and g(*dyn) == 10. and g(1., 1.) == 4.
  with pytest.raises(ValueError, match="Non-hashable"):
    api_util.argnums_partial(lambda a, b: a, (0,), (1., [1]))


def test_donation_and_axes():
  _, tree = tree_util.tree_flatten(((1, (2, 3)), {"a": 4, "b": (5, 6)}))
  assert api_util.donation_vector((1,), ("b",), tree) == (False, True, True, False, True, True)
  assert api_util.rebase_donate_argnums((3, 1), (0, 2)) == (0, 1)
  with pytest.raises(ValueError, match="Static"):
    api_util.rebase_donate_argnums((2,), (2,))
  treedef = tree_util.tree_structure((1, (2, 3)))
  assert api_util.flatten_axes("in_axes", treedef, (0, (None, 1))) == [0, None, 1]
  assert api_util.flatten_axes("in_axes", treedef, 0) == [0, 0, 0]
  with pytest.raises(ValueError, match="tree prefix"):
    api_util.flatten_axes("in_axes", treedef, (0, 1, 2))


def test_debug_info_and_abstractify():
  def f(x, y, *, scale):
    return x
  info = api_util.debug_info("jit", f, ({"a": 1, "b": 2}, 3), {"scale": 1.},
                             static_argnames=("scale",))
  assert info.traced_for == "jit" and info.arg_names == ("x['a']", "x['b']", "y")
  assert info.func_src_info.startswith("test_debug_info_and_abstractify.<locals>.f")
  assert api_util.shaped_abstractify(jnp.ones((2, 3))) == jax.core.ShapedArray((2, 3),
                                                                               jnp.float32)
  assert api_util.shaped_abstractify(1.).weak_type
  assert api_util.safe_map(lambda a, b: a + b, [1, 2], [3, 4]) == [4, 6]
  with pytest.raises(ValueError, match="length"):
    api_util.safe_map(lambda a, b: a, [1], [1, 2])


def test_ufunc_signatures_and_out_where():
  assert str(inspect.signature(jnp.add)) == "(*args, out=None, where=None)"
  assert str(inspect.signature(jnp.divide)) == "(x1, x2, /)"
  assert str(inspect.signature(jnp.nextafter)) == "(x, y, /)"
  assert int(jnp.add(1, 2, out=None, where=None)) == 3
  with pytest.raises(NotImplementedError, match="'out'"):
    jnp.multiply(1, 2, out=jnp.ones(()))
  with pytest.raises(NotImplementedError, match="'where'"):
    jnp.subtract(1, 2, where=True)
  assert bool(jnp.isposinf(jnp.inf, out=None)) and bool(jnp.isneginf(-jnp.inf))
  with pytest.raises(NotImplementedError, match="'out'"):
    jnp.isposinf(1., out=jnp.ones(()))
  u = jnp.ufunc(lambda a, b: a * 10 + b, 2, 1, name="shift_add", identity=0)
  assert u.__name__ == "shift_add" and u.nargs == 2
  assert int(u.reduce(jnp.array([1, 2, 3]))) == 123
  custom = jnp.ufunc(lambda a, b: a + b, 2, 1, reduce=lambda a, axis=0: "custom reduce")
  assert custom.reduce(jnp.ones(3)) == "custom reduce"


def test_partition_spec_unreduced_and_reduced():
  p = P("x", None, unreduced={"y"})
  assert p.unreduced == frozenset({"y"}) and p.reduced == frozenset()
  assert p != P("x", None) and pickle.loads(pickle.dumps(p)) == p
  assert "unreduced" in repr(p) and repr(P("x")) == "P('x',)"
  with pytest.raises(ValueError, match="cannot both"):
    P("x", unreduced={"x"})
  with pytest.raises(ValueError, match="both unreduced and reduced"):
    P(unreduced={"y"}, reduced={"y"})


def test_devices_and_shardings_parameters():
  assert jax.local_devices(process_index=0) == jax.devices()
  assert jax.local_devices(host_id=0) == jax.devices()
  with pytest.raises(ValueError, match="process_index 3"):
    jax.local_devices(process_index=3)
  s = jax.sharding.make_single_device_sharding(jax.devices()[1], memory_kind=None)
  assert s.device_set == {jax.devices()[1]}
  x = jax.nn.initializers.zeros(None, (2,), jnp.float32, out_sharding=s)
  assert x.sharding == s and float(x.sum()) == 0.
  assert str(inspect.signature(jax.sharding.AxisType)) == "(*values)"
  assert jax.sharding.AxisType("Auto" and 1) is jax.sharding.AxisType.Auto


def test_jet_factorial_scaled_false():
  from jax.experimental.jet import jet
  _, coeffs = jet(jnp.exp, (0.,), ((1., 0., 0.),), factorial_scaled=False)
  np.testing.assert_allclose(coeffs, [1., 0.5, 1. / 6], rtol=1e-6)


def test_plain_function_ufunc_signatures():
  assert str(inspect.signature(jnp.fmax)) == "(x1, x2)"
  assert float(jnp.fmax(x1=1., x2=jnp.nan)) == 1. and float(jnp.gcd(12, x2=18)) == 6
  assert str(inspect.signature(jnp.equal)) == "(x, y, /)"
  assert str(inspect.signature(jnp.negative)) == "(*args, out=None, where=None)"
  assert float(jnp.negative(2., out=None)) == -2.
  assert int(jnp.power(2, 3)) == 8 and jnp.power.reduce(jnp.array([2, 3])) == 8
  with pytest.raises(TypeError, match="boolean"):
    jnp.negative(True)


def test_checkpoint_static_argnames_and_concrete():
  f = jax.ad_checkpoint.checkpoint(lambda x, *, n: x ** n, static_argnames=("n",))
  assert float(f(2., n=3)) == 8. and float(jax.grad(lambda x: f(x, n=3))(2.)) == 12.
  assert float(jax.checkpoint(lambda x: x * 2, static_argnames=())(1.)) == 2.
  with pytest.raises(NotImplementedError, match="concrete"):
    jax.checkpoint(lambda x: x, concrete=True)
  with pytest.raises(NotImplementedError, match="concrete"):
    jax.ad_checkpoint.checkpoint(lambda x: x, concrete=True)


def test_shape_dtype_struct_ref_and_manual_axis_type():
  s = jax.ShapeDtypeStruct((2,), jnp.float32, is_ref=True,
                           manual_axis_type=jax.sharding.ManualAxisType(varying={"i"}))
  assert s.is_ref and s.manual_axis_type.varying == frozenset({"i"})
  assert not jax.ShapeDtypeStruct((2,), jnp.float32).is_ref


def test_shaped_array_annotations_and_random_gamma_grad_arguments():
  a = jax.core.ShapedArray((2,), jnp.float32, sharding=None, memory_space=None)
  assert a == jax.core.ShapedArray((2,), jnp.float32)
  with pytest.raises(TypeError, match="must be a NamedSharding"):
    jax.core.ShapedArray((2,), jnp.float32, sharding=jax.sharding.SingleDeviceSharding(
        jax.devices()[0]))
  g = jax.lax.random_gamma_grad(2., 1.5)
  assert np.isfinite(float(g)) and float(g) > 0
  with pytest.raises(TypeError, match="two arguments"):
    jax.lax.random_gamma_grad(1.)
