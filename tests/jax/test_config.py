"""jax.config and the configuration context managers, as JAX documents them.

Every option of JAX 0.10.2 is known; the ones this jax acts on change results
(x64, disable_jit, dtype promotion, debug_nans/infs, default device), and the
context managers are thread-local.
"""

import json
import os
import pathlib
import subprocess
import sys
import threading

import numpy as np
import pytest

import jax
import jax.experimental
import jax.numpy as jnp
from jax._src import dtypes


def _manifest_options():
  """The option names of JAX 0.10.2, from the API manifest in shared/ beside the
  repository (JAX_API_MANIFEST overrides)."""
  if os.environ.get("JAX_API_MANIFEST"):
    return sorted(json.loads(pathlib.Path(os.environ["JAX_API_MANIFEST"]).read_text())
                  ["jax.config (options)"])
  for parent in pathlib.Path(__file__).resolve().parents:
    path = parent / "shared" / "api" / "jax-0.10.2-api.json"
    if path.exists():
      return sorted(json.loads(path.read_text())["jax.config (options)"])
  return None


def test_every_jax_option_is_known():
  names = _manifest_options()
  if names is None:
    pytest.skip("the JAX 0.10.2 API manifest is not next to this checkout")
  missing = [n for n in names if n not in jax.config.flag_names()]
  assert not missing
  for n in names:
    getattr(jax.config, n)  # readable as an attribute


def test_update_reads_back_and_unknown_names_raise():
  jax.config.update("jax_debug_nans", True)
  try:
    assert jax.config.jax_debug_nans is True
    assert jax.config.read("jax_debug_nans") is True
  finally:
    jax.config.update("jax_debug_nans", False)
  with pytest.raises(AttributeError, match="Unrecognized config option: jax_no_such"):
    jax.config.update("jax_no_such_option", 1)
  with pytest.raises(AttributeError):
    jax.config.jax_no_such_option


def test_stored_option_round_trips_and_enums_are_checked():
  before = jax.config.jax_transfer_guard
  jax.config.update("jax_transfer_guard", "log")
  try:
    assert jax.config.jax_transfer_guard == "log"
  finally:
    jax.config.update("jax_transfer_guard", before)
  with pytest.raises(ValueError, match="standard"):
    jax.config.update("jax_numpy_dtype_promotion", "loose")


def test_environment_variables_set_defaults():
  code = ("import jax; print(jax.config.jax_debug_nans, jax.config.jax_numpy_rank_promotion, "
          "jax.config.jax_compilation_cache_max_size)")
  env = dict(os.environ, JAX_DEBUG_NANS="1", JAX_NUMPY_RANK_PROMOTION="raise",
             JAX_COMPILATION_CACHE_MAX_SIZE="123")
  out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       cwd="/", check=True).stdout.split()
  assert out == ["True", "raise", "123"]


def test_enable_x64_context_is_thread_local():
  assert jnp.arange(2).dtype == np.int32
  seen = []
  with jax.enable_x64(True):
    assert jnp.arange(2).dtype == np.int64
    assert jnp.ones(2).dtype == np.float64
    t = threading.Thread(target=lambda: seen.append(jnp.arange(2).dtype))
    t.start()
    t.join()
  assert seen == [np.int32]
  assert jnp.arange(2).dtype == np.int32
  with jax.enable_x64(True):
    with jax.enable_x64(False):
      assert jnp.zeros(1).dtype == np.float32
    assert jnp.zeros(1).dtype == np.float64


def test_enable_x64_retraces_a_cached_jit():
  f = jax.jit(lambda x: x + jnp.arange(3))
  x = jnp.ones(3, jnp.int32)
  assert f(x).dtype == np.int32 and f(x).dtype == np.int32  # second call: native cache
  with jax.enable_x64(True):
    assert f(x).dtype == np.int64
  assert f(x).dtype == np.int32


def test_disable_jit_runs_python():
  traced = []

  @jax.jit
  def f(x):
    traced.append(type(x).__name__)
    return x * 2

  f(jnp.ones(2))
  f(jnp.ones(2))
  assert len(traced) == 1
  with jax.disable_jit():
    np.testing.assert_allclose(f(jnp.ones(2)), [2.0, 2.0])
  assert traced[-1] == "ArrayImpl"  # ran on the concrete array, not a tracer
  f(jnp.ones(2))
  assert len(traced) == 2


def test_strict_dtype_promotion():
  x, i = jnp.ones(2, jnp.float32), jnp.ones(2, jnp.int32)
  with jax.numpy_dtype_promotion("strict"):
    assert (x + 1).dtype == np.float32 and (x * 2.0).dtype == np.float32
    assert (i + 1).dtype == np.int32
    with pytest.raises(dtypes.TypePromotionError, match="strict"):
      x + i
    with pytest.raises(dtypes.TypePromotionError):
      i + 1.5
    with pytest.raises(dtypes.TypePromotionError):
      jax.jit(lambda a, b: a + b)(x, jnp.ones(2, jnp.float16))
  assert (x + i).dtype == np.float32
  with pytest.raises(TypeError, match="needs a value"):
    jax.numpy_dtype_promotion()


def test_debug_nans_and_infs():
  f = jax.jit(lambda x: jnp.log(x))
  np.testing.assert_array_equal(np.isnan(f(-jnp.ones(2))), [True, True])  # off: no check
  with jax.debug_nans(True):
    with pytest.raises(FloatingPointError, match="nan"):
      f(-jnp.ones(2))
    with pytest.raises(FloatingPointError, match="nan"):
      jnp.sqrt(-jnp.ones(2))
    np.testing.assert_allclose(f(jnp.ones(2)), [0.0, 0.0])
  with jax.debug_infs(True):
    with pytest.raises(FloatingPointError, match="inf"):
      jnp.log(jnp.zeros(2))
  assert np.isnan(np.asarray(f(-jnp.ones(2)))).all()


def test_default_device_places_arrays():
  devices = jax.devices()
  target = devices[-1]
  with jax.default_device(target):
    x = jnp.ones(2)
    y = jax.jit(lambda v: v * 3)(jnp.ones(2))
    assert x.devices() == {target} and y.devices() == {target}
  assert jnp.ones(2).devices() == {devices[0]}


def test_other_context_managers_set_their_option():
  with jax.default_matmul_precision("highest"):
    assert jax.config.jax_default_matmul_precision == "highest"
  assert jax.config.jax_default_matmul_precision is None
  with jax.transfer_guard("disallow"):
    assert jax.config.jax_transfer_guard_host_to_device == "disallow"
  assert jax.config.jax_transfer_guard_host_to_device is None
  with jax.numpy_rank_promotion("raise"):
    assert jax.config.jax_numpy_rank_promotion == "raise"


def test_numpy_rank_promotion_raise_and_warn():
  a, b = jnp.ones((2, 3)), jnp.ones(3)
  np.testing.assert_allclose(a + b, np.full((2, 3), 2.0))  # default: allow
  with jax.numpy_rank_promotion("raise"):
    np.testing.assert_allclose(a + 1.0, np.full((2, 3), 2.0))  # scalars are exempt
    with pytest.raises(ValueError, match="jax_numpy_rank_promotion='raise'"):
      a + b
  with jax.numpy_rank_promotion("warn"):
    with pytest.warns(UserWarning, match="rank promotion"):
      a * b


def test_no_tracing_and_no_execution():
  f = jax.jit(lambda x: x + 1)
  f(1.0)
  with jax.no_tracing(True):
    assert float(f(1.0)) == 2.0  # cached: no tracing needed
    with pytest.raises(RuntimeError, match="no_tracing"):
      f(jnp.ones(2))
  with jax.no_execution(True):
    with pytest.raises(RuntimeError, match="no_execution"):
      jnp.sin(jnp.ones(2))
    with pytest.raises(RuntimeError, match="no_execution"):
      f(1.0)
  assert float(f(1.0)) == 2.0


def test_clear_caches_and_typeof():
  traced = []
  f = jax.jit(lambda x: traced.append(1) or x * 2)
  f(jnp.ones(2))
  jax.clear_caches()
  np.testing.assert_allclose(f(jnp.ones(2)), [2.0, 2.0])
  assert len(traced) == 2
  t = jax.typeof(jnp.ones((2, 3), jnp.int32))
  assert (t.shape, t.dtype, t.weak_type) == ((2, 3), np.int32, False)
  assert jax.typeof(1.0).weak_type


def test_parse_flags_with_absl_reads_jax_options_from_the_command_line():
  import jax
  saved = jax.config.jax_numpy_rank_promotion
  try:
    jax.config.parse_flags_with_absl(["prog", "--jax_numpy_rank_promotion=raise", "--other=1"])
    assert jax.config.jax_numpy_rank_promotion == "raise"
  finally:
    jax.config.update("jax_numpy_rank_promotion", saved)
  with pytest.raises(AttributeError, match="jax_no_such_option"):
    jax.config.parse_flags_with_absl(["--jax_no_such_option=1"])
  jax.config.parse_flags_with_absl()  # the test runner's own argv has no jax_ options


def test_parse_flags_with_absl_leaves_absl_flags_parsed():
  # As in JAX: a test reading an absl flag (test_tmpdir) afterwards gets its default.
  absl_flags = pytest.importorskip("absl.flags")
  import jax
  jax.config.parse_flags_with_absl()
  assert absl_flags.FLAGS.is_parsed()


def test_x64_enabled_reports_the_option():
  import jax
  assert jax.config.x64_enabled is False
  with jax.enable_x64(True):
    assert jax.config.x64_enabled is True
  assert jax.config.x64_enabled is False
