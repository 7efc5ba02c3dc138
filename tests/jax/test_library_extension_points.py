"""The module-level names and tables JAX libraries reach into: the compile hook
(`jax._src.compiler`), the aval and canonicalization tables for foreign array
types, `jax._src.ad_util`, extended dtypes, `jax.experimental.layout` and
`jax.nn.initializers.delta_orthogonal`."""

import contextlib

import ml_dtypes
import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax._src import compiler
from jax._src import dtypes


class _Refused(RuntimeError):
  pass


@contextlib.contextmanager
def _refuse_compiles():
  original = compiler.backend_compile_and_load

  def refuse(backend, *args, **kwargs):
    raise _Refused(f"compile for {backend.platform} refused")

  compiler.backend_compile_and_load = refuse
  try:
    yield
  finally:
    compiler.backend_compile_and_load = original


def test_compiles_go_through_the_replaceable_compiler_function(backend):
  f = jax.jit(lambda x: x * 3.0 + 1.0)
  with _refuse_compiles():
    with pytest.raises(_Refused, match="compile for cpu refused"):
      f(jnp.arange(3.0))
  np.testing.assert_allclose(f(jnp.arange(3.0)), [1.0, 4.0, 7.0])


def test_cached_executables_do_not_compile_again(backend):
  f = jax.jit(lambda x: x - 2.0)
  f(jnp.ones(2))
  with _refuse_compiles():
    np.testing.assert_allclose(f(jnp.ones(2)), [-1.0, -1.0])


class _Wrapped(np.ndarray):
  pass


@pytest.mark.filterwarnings("ignore:jax.core.pytype_aval_mappings is deprecated")
def test_registered_python_type_gets_an_aval_and_runs(backend):
  value = np.arange(4, dtype=np.float64).view(_Wrapped)
  assert type(value) not in jax.core.pytype_aval_mappings
  jax.core.pytype_aval_mappings[_Wrapped] = jax.core.pytype_aval_mappings[np.ndarray]
  jax.interpreters.xla.canonicalize_dtype_handlers[_Wrapped] = (
      jax.interpreters.xla.canonicalize_dtype_handlers[np.ndarray])
  try:
    aval = jax.typeof(value)
    assert aval.shape == (4,) and aval.dtype == np.float32  # x64 is off: canonical dtype
    out = jax.jit(lambda x: x * 2)(value)
    np.testing.assert_array_equal(out, [0.0, 2.0, 4.0, 6.0])
    assert out.dtype == np.float32
  finally:
    del jax.core.pytype_aval_mappings[_Wrapped]
    del jax.interpreters.xla.canonicalize_dtype_handlers[_Wrapped]


@pytest.mark.filterwarnings("ignore:jax.core.pytype_aval_mappings is deprecated")
def test_default_tables_cover_numpy_and_python_scalars():
  assert jax.core.pytype_aval_mappings[float](2.0).weak_type
  assert jax.core.pytype_aval_mappings[np.float32](np.float32(1)).dtype == np.float32
  assert not jax.core.pytype_aval_mappings[np.ndarray](np.zeros(2, np.int32)).weak_type
  out = jax.interpreters.xla.canonicalize_dtype_handlers[np.ndarray](np.zeros(2, np.float64))
  assert out.dtype == np.float32


def test_ad_util_names_the_stop_gradient_primitive():
  from jax._src import ad_util
  assert ad_util.stop_gradient_p is jax.lax.stop_gradient_p
  jaxpr = jax.make_jaxpr(jax.lax.stop_gradient)(1.0)
  assert jaxpr.jaxpr.eqns[0].primitive is ad_util.stop_gradient_p
  assert jax.grad(lambda x: x * jax.lax.stop_gradient(x))(3.0) == 3.0


def test_extended_dtype_base_and_supports_inf():
  assert jax.dtypes.extended is dtypes.extended
  assert jax.dtypes.issubdtype(jax.random.key(0).dtype, jax.dtypes.extended)
  with pytest.raises(TypeError):
    dtypes.ExtendedDType()  # abstract: a subclass must say its type and rules
  assert dtypes.supports_inf(np.float32) and dtypes.supports_inf(np.complex64)
  assert dtypes.supports_inf(ml_dtypes.float8_e5m2)
  assert not dtypes.supports_inf(ml_dtypes.float8_e4m3fn)
  assert not dtypes.supports_inf(np.int32)
  assert dtypes.DType is np.dtype


def test_layout_and_format():
  from jax.experimental.layout import Format, Layout
  row = Layout.row_major(3)
  assert row == Layout((0, 1, 2)) and hash(row) == hash(Layout((0, 1, 2)))
  with pytest.raises(ValueError, match="permutation"):
    Layout((0, 0))
  sharding = jax.sharding.SingleDeviceSharding(jax.devices()[0])
  fmt = Format(row, sharding)
  assert fmt.layout is row and fmt.sharding is sharding
  assert fmt == Format(Layout((0, 1, 2)), sharding)
  assert Format(Layout.AUTO).layout is Layout.AUTO
  with pytest.raises(TypeError, match="Layout"):
    Format("row-major")


def test_delta_orthogonal_puts_an_orthogonal_matrix_at_the_centre(backend):
  init = jax.nn.initializers.delta_orthogonal(scale=2.0)
  w = np.array(init(jax.random.PRNGKey(1), (3, 5, 2, 4)))
  assert w.shape == (3, 5, 2, 4) and w.dtype == np.float32
  centre = w[1, 2]
  np.testing.assert_allclose(centre @ centre.T, 4.0 * np.eye(2), atol=1e-5)
  w[1, 2] = 0
  assert not w.any()
  w1 = np.asarray(init(jax.random.PRNGKey(1), (4, 3, 3)))
  assert np.abs(w1[1]).sum() > 0 and not np.delete(w1, 1, axis=0).any()
  with pytest.raises(ValueError, match="3D, 4D or 5D"):
    init(jax.random.PRNGKey(0), (3, 3))
  with pytest.raises(ValueError, match="fan_in"):
    init(jax.random.PRNGKey(0), (3, 4, 2))


def test_interpreter_modules_load_with_jax():
  assert hasattr(jax.interpreters, "xla") and hasattr(jax.interpreters, "ad")


def test_typed_keys_are_arrays_with_a_key_type():
  keys = jax.random.split(jax.random.key(0), 3)
  assert isinstance(keys, jax.Array)
  assert jnp.issubdtype(keys.dtype, jax.dtypes.prng_key)
  assert not jnp.issubdtype(jnp.float32, jax.dtypes.prng_key)
  assert jnp.issubdtype(jnp.float32, jnp.floating)
  ty = jax.typeof(keys)
  assert ty.shape == (3,) and ty.dtype == keys.dtype and ty.str_short() == "key<fry>[3]"
  assert ty == jax.typeof(jax.random.split(jax.random.key(1), 3))


def test_the_pytree_registry_answers_membership():
  from jax._src.tree_util import _registry

  class Point:
    def __init__(self, x):
      self.x = x

  assert Point not in _registry and tuple in _registry and dict in _registry
  jax.tree_util.register_pytree_node(Point, lambda p: ((p.x,), None), lambda _, c: Point(*c))
  assert Point in _registry
  assert jax.tree_util.tree_leaves(Point(3)) == [3]


def test_traceback_include_frame_follows_the_exclusions():
  import sys
  from jax._src import traceback_util
  assert traceback_util.include_frame(sys._getframe())
  inner = []
  jax.tree_util.tree_map(lambda x: inner.append(sys._getframe(1)), [0])
  assert not traceback_util.include_frame(inner[0])  # a frame of jax's own tree_util
