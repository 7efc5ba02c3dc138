"""jax.typing, jax.Device, jax.dtypes, jax.stages and traceback filtering."""

import os

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import dtypes
from jax._src import traceback_util


def test_device_class(backend):
  assert isinstance(jax.devices()[0], jax.Device)
  assert not isinstance("cpu", jax.Device)


def test_array_like():
  from jax.typing import ArrayLike, DTypeLike
  for x in (jnp.ones(2), np.ones(2), np.float32(1), 1, 2.0, True, 1j):
    assert isinstance(x, ArrayLike), x
  for x in ([1, 2], (1,), "a", None):
    assert not isinstance(x, ArrayLike), x
  seen = []
  jax.jit(lambda x: seen.append(isinstance(x, ArrayLike)) or x)(1.0)
  assert seen == [True]
  assert DTypeLike is not None


def test_issubdtype_including_extended():
  assert dtypes.issubdtype(jnp.float32, jnp.floating)
  assert dtypes.issubdtype(jnp.bfloat16, jnp.inexact)
  assert not dtypes.issubdtype(jnp.int32, jnp.floating)
  key = jax.random.key(0)
  assert dtypes.issubdtype(key.dtype, dtypes.prng_key)
  assert dtypes.issubdtype(key.dtype, dtypes.extended)
  assert not dtypes.issubdtype(jnp.float32, dtypes.prng_key)
  assert not dtypes.issubdtype(jax.random.PRNGKey(0).dtype, dtypes.prng_key)


@pytest.mark.parametrize("arg1, arg2, expected", [
    # JAX 0.10.2 (and numpy): Python's types stand for bool, int64, float64, complex128.
    (jnp.bool_, bool, True), (jnp.int32, int, False), (jnp.int64, int, True),
    (jnp.float32, float, False), (jnp.float64, float, True), (jnp.complex64, complex, False),
    (jnp.bfloat16, float, False), (bool, jnp.bool_, True), (bool, jnp.integer, False),
    (int, jnp.integer, True), (float, jnp.floating, True), ("float32", jnp.inexact, True),
])
def test_issubdtype_with_python_types(arg1, arg2, expected):
  # distrax's Bernoulli checks `jnp.issubdtype(dtype, bool)` for its sample dtype.
  assert jnp.issubdtype(arg1, arg2) is expected


def test_float0():
  assert dtypes.float0.itemsize == 0 and jax.float0 is dtypes.float0
  z = np.zeros((3,), dtypes.float0)
  assert z.shape == (3,) and z.nbytes == 0


def test_canonicalize_and_result_type():
  assert dtypes.canonicalize_dtype(np.float64) == (
      np.float64 if jax.config.jax_enable_x64 else np.float32)
  assert dtypes.canonicalize_dtype(np.int8) == np.int8
  assert dtypes.result_type(jnp.int8, jnp.float16) == np.float16
  assert dtypes.result_type(np.int32, 1.0) == np.float32
  dt, weak = dtypes.result_type(1.0, return_weak_type_flag=True)
  assert weak is True
  with pytest.raises(ValueError, match="at least one"):
    dtypes.result_type()
  with pytest.raises(ValueError, match="extended"):
    dtypes.canonicalize_dtype(jax.random.key(0).dtype)


def test_scalar_type_of_and_sizes():
  assert dtypes.scalar_type_of(jnp.int8(1)) is int
  assert dtypes.scalar_type_of(np.bool_(True)) is bool
  assert dtypes.scalar_type_of(jnp.bfloat16(1)) is float
  assert dtypes.scalar_type_of(np.complex64(1)) is complex
  assert dtypes.itemsize_bits(np.float32) == 32 and dtypes.itemsize_bits(jnp.bfloat16) == 16
  assert dtypes.itemsize_bits(np.bool_) == 8 and dtypes.itemsize_bits(dtypes.float0) == 0
  assert dtypes.finfo(jnp.bfloat16).bits == 16 and dtypes.iinfo(np.int16).max == 32767
  np.testing.assert_equal(float(dtypes.finfo(np.float32).eps), float(np.finfo(np.float32).eps))


def test_stages(backend):
  f = jax.jit(lambda x: x * 2)
  assert isinstance(f, jax.stages.Wrapped)
  traced = f.trace(1.0)
  assert isinstance(traced, jax.stages.Traced)
  lowered = traced.lower()
  assert isinstance(lowered, jax.stages.Lowered)
  compiled = lowered.compile()
  assert isinstance(compiled, jax.stages.Compiled)
  assert float(compiled(3.0)) == 6.0
  assert isinstance(lowered.args_info[0][0], jax.stages.ArgInfo)


def _internal_raise():
  raise ValueError("boom")


def test_api_boundary_filters_internal_frames(monkeypatch):
  here = os.path.dirname(os.path.abspath(__file__))
  monkeypatch.setattr(traceback_util, "_exclude_paths", [here])
  wrapped = traceback_util.api_boundary(lambda: _internal_raise())
  monkeypatch.setenv("JAX_TRACEBACK_FILTERING", "auto")
  with pytest.raises(ValueError, match="boom") as info:
    wrapped()
  names = [f.f_code.co_name for f, _ in _walk(info.value.__traceback__)]
  assert "_internal_raise" not in names and "<lambda>" not in names
  monkeypatch.setenv("JAX_TRACEBACK_FILTERING", "off")
  with pytest.raises(ValueError) as info:
    wrapped()
  names = [f.f_code.co_name for f, _ in _walk(info.value.__traceback__)]
  assert "_internal_raise" in names


def test_traceback_filtering_modes(monkeypatch, tmp_path):
  # A "library" file registered as excluded, whose entry point is an api_boundary.
  lib = tmp_path / "fake_library.py"
  lib.write_text("def deep(f):\n  return f()\n")
  import importlib.util
  spec = importlib.util.spec_from_file_location("fake_library", lib)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  monkeypatch.setattr(traceback_util, "_exclude_paths", [str(lib)])
  entry = traceback_util.api_boundary(lambda: module.deep(_internal_raise))
  outer = traceback_util.api_boundary(lambda: entry())  # only the outermost filters

  def raised(mode):
    jax.config.update("jax_traceback_filtering", mode)
    try:
      with pytest.raises(ValueError, match="boom") as info:
        outer()
    finally:
      jax.config.update("jax_traceback_filtering", "auto")
    return info.value

  def files(e):
    return [f.f_code.co_filename for f, _ in _walk(e.__traceback__)]

  e = raised("off")
  assert str(lib) in files(e) and e.__cause__ is None
  e = raised("remove_frames")
  assert str(lib) not in files(e)
  assert isinstance(e.__cause__, traceback_util.UnfilteredStackTrace)
  assert str(lib) in [f.f_code.co_filename for f, _ in _walk(e.__cause__.__traceback__)]
  e = raised("quiet_remove_frames")
  assert str(lib) not in files(e) and "JAX_TRACEBACK_FILTERING=off" in e.__notes__[-1]
  e = raised("tracebackhide")
  hidden = [f.f_code.co_filename for f, _ in _walk(e.__traceback__)
            if "__tracebackhide__" in f.f_locals]
  assert str(lib) in files(e) and str(lib) in hidden


def _walk(tb):
  while tb is not None:
    yield tb.tb_frame, tb.tb_lineno
    tb = tb.tb_next


def test_api_boundary_keeps_metadata():
  def documented(x):
    """doc"""
    return x

  w = traceback_util.api_boundary(documented)
  assert w.__name__ == "documented" and w.__doc__ == "doc" and w(3) == 3


def test_named_scope_and_named_call(backend):
  from jax._src import name_stack
  seen = []

  @jax.named_call
  def inner(x):
    seen.append(name_stack.current_name_stack())
    return x * 2

  with jax.named_scope("outer"):
    out = jax.jit(inner)(3.0)  # the jit's trace starts its own names, as in JAX 0.10.2
    inner(1.0)
  assert float(out) == 6.0 and seen == ["inner", "outer/inner"]
  assert name_stack.current_name_stack() == ""
  with pytest.raises(TypeError, match="string"):
    with jax.named_scope(3):
      pass


def test_version_info():
  assert isinstance(jax.__version_info__, tuple)
  assert all(isinstance(v, int) for v in jax.__version_info__)
