"""Every jax flag, in one place.

A flag has a name (``jax_enable_x64``), a default, an environment variable that
overrides the default at import time (``JAX_ENABLE_X64``), and a parser for values
read from the environment. Read a flag as ``config.jax_enable_x64`` or
``config.read("jax_enable_x64")``; change it with ``config.update(name, value)``.
"""

from __future__ import annotations

import contextlib
import os
import threading
from contextlib import contextmanager
from typing import Any, Callable


def _parse_bool(text: str) -> bool:
  lowered = text.strip().lower()
  if lowered in ("1", "true", "t", "yes", "y", "on"):
    return True
  if lowered in ("0", "false", "f", "no", "n", "off", ""):
    return False
  raise ValueError(f"cannot read {text!r} as a boolean (use 1/0, true/false)")


def _parse_optional_str(text: str) -> str | None:
  return text.strip() or None


class _Flag:
  __slots__ = ("name", "default", "env_var", "parse", "help", "choices", "affects_tracing")

  def __init__(self, name, default, env_var, parse, help, choices=None, affects_tracing=False):
    self.name, self.default, self.env_var, self.parse, self.help = (
        name, default, env_var, parse, help)
    self.choices, self.affects_tracing = choices, affects_tracing

  def check(self, value):
    if self.choices is not None and value not in self.choices:
      raise ValueError(f"{self.name} must be one of {sorted(map(str, self.choices))}, "
                       f"got {value!r}")
    return value


# Thread-local overrides set by the context managers (`jax.enable_x64(True)` etc.):
# one dict per thread mapping option name -> value; read() looks here first.
class _ThreadState(threading.local):
  # A class-level default: reading it in a thread that set nothing raises no
  # AttributeError (that path costs microseconds on every option read).
  overrides: dict | None = None


_local = _ThreadState()


# How many `with` overrides are active in all threads: while none is, reads skip the
# thread-local lookup (option reads sit on every eager operation's path).
_active_overrides = [0]


def _thread_overrides() -> dict | None:
  return _local.overrides if _active_overrides[0] else None


class Config:
  """Holds the current value of every flag; see the module docstring."""

  def __init__(self):
    self._flags: dict[str, _Flag] = {}
    self._values: dict[str, Any] = {}
    self._watchers: list[Callable[[str, Any], None]] = []
    self._override_watchers: list[Callable[[str, Any], None]] = []
    # How many context-manager overrides of options that change tracing are active
    # in any thread; while there are some, jit keeps its native fast path empty
    # (that path keys only on the process-wide x64 value).
    self._tracing_overrides = 0
    self._lock = threading.Lock()
    self._tracing: tuple[str, ...] = ()  # names of the options that change tracing
    self._trace_context: tuple | None = None  # their values, when no thread overrides one

  def define(self, name: str, default: Any, env_var: str, parse, help: str, *,
             choices=None, affects_tracing: bool = False):
    flag = _Flag(name, default, env_var, parse, help, choices, affects_tracing)
    self._flags[name] = flag
    self._tracing = tuple(n for n, f in self._flags.items() if f.affects_tracing)
    self._trace_context = None
    value = default
    if env_var in os.environ:
      try:
        value = flag.check(parse(os.environ[env_var]))
      except ValueError as e:
        raise ValueError(f"environment variable {env_var}: {e}") from None
    self._values[name] = value

  def update(self, name: str, value: Any) -> None:
    if name not in self._flags:
      raise AttributeError(f"Unrecognized config option: {name}")
    self._values[name] = self._flags[name].check(value)
    self._trace_context = None
    for watcher in self._watchers:
      watcher(name, value)

  def read(self, name: str) -> Any:
    overrides = _thread_overrides()
    if overrides and name in overrides:
      return overrides[name]
    try:
      return self._values[name]
    except KeyError:
      raise AttributeError(f"Unrecognized config option: {name}") from None

  @contextmanager
  def override(self, name: str, value: Any):
    """Set `name` to `value` in this thread only, for the extent of a `with` block."""
    if name not in self._flags:
      raise AttributeError(f"Unrecognized config option: {name}")
    flag = self._flags[name]
    value = flag.check(value)
    overrides = _local.overrides
    if overrides is None:
      overrides = _local.overrides = {}
    missing = object()
    prev = overrides.get(name, missing)
    overrides[name] = value
    with self._lock:
      _active_overrides[0] += 1
      if flag.affects_tracing:
        self._tracing_overrides += 1
    if flag.affects_tracing:
      for watcher in self._override_watchers:
        watcher(name, value)
    try:
      yield
    finally:
      if prev is missing:
        del overrides[name]
      else:
        overrides[name] = prev
      with self._lock:
        _active_overrides[0] -= 1
        if flag.affects_tracing:
          self._tracing_overrides -= 1

  def tracing_overridden(self) -> bool:
    """Whether some thread holds an override of an option that changes tracing."""
    return self._tracing_overrides > 0

  def trace_context(self) -> tuple:
    """The values of every option that changes what a function traces to (a cache key)."""
    overrides = _thread_overrides()
    if not overrides:
      context = self._trace_context
      if context is None:
        values = self._values
        context = self._trace_context = tuple(values[n] for n in self._tracing)
      return context
    return tuple(overrides[n] if n in overrides else self._values[n] for n in self._tracing)

  def add_watcher(self, fn: Callable[[str, Any], None]) -> None:
    """`fn(name, value)` runs after every update (used to drop caches)."""
    self._watchers.append(fn)

  def add_override_watcher(self, fn: Callable[[str, Any], None]) -> None:
    """`fn(name, value)` runs when a `with` block overrides an option that changes
    tracing (caches keyed on the option's value need not listen)."""
    self._override_watchers.append(fn)

  def __getattr__(self, name: str) -> Any:
    if name.startswith("_"):
      raise AttributeError(name)
    return self.read(name)

  @property
  def values(self) -> dict[str, Any]:
    """Every option's current value (in this thread)."""
    return {n: self.read(n) for n in self._flags}

  @property
  def x64_enabled(self) -> bool:
    """Whether 64-bit types are enabled (`jax_enable_x64`), as JAX's config says it."""
    return bool(self.read("jax_enable_x64"))

  def flag_names(self) -> list[str]:
    return sorted(self._flags)

  def parse_flags_with_absl(self, argv: list[str] | None = None) -> None:
    """Sets options given on the command line as `--jax_<name>=<value>` (or a bare
    `--jax_<name>` for true), as JAX does for programs using absl flags; other
    arguments are left alone. An unknown jax_ option is an error."""
    import sys  # argv is read when asked, not at import
    for arg in sys.argv[1:] if argv is None else argv:
      if not arg.startswith("--jax_"):
        continue
      name, eq, text = arg[2:].partition("=")
      if name not in self._flags:
        raise AttributeError(f"Unrecognized config option: {name} (command line {arg!r})")
      flag = self._flags[name]
      value = flag.parse(text) if eq else flag.parse("true")
      self.update(name, value)
    # As in JAX, absl's flags count as parsed afterwards, so a test reading an absl flag
    # (test_tmpdir) gets its default rather than an UnparsedFlagAccessError.
    try:
      from absl import flags as absl_flags  # absl is optional: only its users call this
    except ImportError:
      return
    if not absl_flags.FLAGS.is_parsed():
      absl_flags.FLAGS(sys.argv[:1], known_only=True)


config = Config()


def affects_tracing(name: str) -> bool:
  """Whether the option `name` changes what tracing produces (caches keyed on traces
  must be dropped when it changes); False for names that are not options."""
  flag = config._flags.get(name)
  return flag is not None and flag.affects_tracing

config.define(
    "jax_enable_x64", False, "JAX_ENABLE_X64", _parse_bool,
    "Use 64-bit types by default (float64/int64) instead of float32/int32.",
    affects_tracing=True)
config.define(
    "jax_platforms", None, "JAX_PLATFORMS", _parse_optional_str,
    "Comma-separated list of platform names (e.g. 'cpu') in priority order.")
config.define(
    "jax_num_cpu_devices", -1, "JAX_NUM_CPU_DEVICES", int,
    "Number of CPU devices the CPU backend creates (-1: backend default).")
config.define(
    "jax_dump_jaxpr", False, "JAX_DUMP_JAXPR", _parse_bool,
    "Print the jaxpr of every jit-compiled function before lowering.")
config.define(
    "jax_dump_hlo", False, "JAX_DUMP_HLO", _parse_bool,
    "Print the HLO text of every compiled module.")
config.define(
    "jax_log_compiles", False, "JAX_LOG_COMPILES", _parse_bool,
    "Log every compile (a WARNING on the 'jax._src.dispatch' logger) with its name, "
    "argument types and how long it took.")
config.define(
    "jax_check_jaxprs", False, "JAX_CHECK_JAXPRS", _parse_bool,
    "Run check_jaxpr on every traced jaxpr (tests turn this on).")

config.define(
    "jax_enable_compilation_cache", True, "JAX_ENABLE_COMPILATION_CACHE", _parse_bool,
    "Use the persistent compilation cache when jax_compilation_cache_dir is set.")
config.define(
    "jax_compilation_cache_dir", None, "JAX_COMPILATION_CACHE_DIR", _parse_optional_str,
    "Folder of the persistent compilation cache (serialized executables); unset: no cache.")
config.define(
    "jax_persistent_cache_min_compile_time_secs", 1.0,
    "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", float,
    "Only executables that took at least this long to compile are written to the cache.")
config.define(
    "jax_persistent_cache_min_entry_size_bytes", 0,
    "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", int,
    "Only serialized executables of at least this many bytes are written to the cache.")


# ----------------------------------------------------------------------------- JAX's other options
#
# Every option of JAX 0.10.2 is known, so programs and libraries that set one run
# unchanged. The first group changes behaviour here; the table after it holds
# options about backends, instrumentation and internals this jax does not have
# (GPU/TPU tuning, Pallas, profiling-guided optimisation, multi-host transfers,
# export versions, ...): they are validated by type, stored and readable, and act
# on nothing. Definitions skip names defined above.


def _parse_str(text: str) -> str:
  return text.strip()


_PRECISIONS = (None, "default", "high", "highest", "bfloat16", "tensorfloat32", "float32",
               "fastest", "bfloat16_3x", "tensorfloat32_3x", "ANY_F8_ANY_F8_F32",
               "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY", "ANY_F8_ANY_F8_ANY_FAST_ACCUM",
               "F16_F16_F16", "F16_F16_F32", "BF16_BF16_BF16", "BF16_BF16_F32",
               "BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "BF16_BF16_F32_X9", "TF32_TF32_F32",
               "TF32_TF32_F32_X3", "F32_F32_F32", "F64_F64_F64")
_TRANSFER_GUARD_LEVELS = (None, "allow", "log", "disallow", "log_explicit", "disallow_explicit")

_BEHAVIOUR_OPTIONS = [
    # (name, default, parse, choices, affects_tracing, help)
    ("jax_disable_jit", False, _parse_bool, None, True,
     "Run jitted functions op by op in Python instead of compiling them (debugging)."),
    ("jax_numpy_dtype_promotion", "standard", _parse_str, ("standard", "strict"), True,
     "'standard': jax's type promotion lattice; 'strict': binary operations on "
     "different dtypes raise TypePromotionError instead of promoting implicitly."),
    ("jax_numpy_rank_promotion", "allow", _parse_str, ("allow", "warn", "raise"), True,
     "What jax.numpy does when broadcasting operands of different ranks: allow, warn "
     "or raise ValueError."),
    ("jax_debug_nans", False, _parse_bool, None, True,
     "Check the outputs of every eager operation and jit call for NaNs and raise "
     "FloatingPointError naming the operation."),
    ("jax_debug_infs", False, _parse_bool, None, True,
     "Like jax_debug_nans, for infinities."),
    ("jax_default_device", None, _parse_optional_str, None, True,
     "The device (a jax Device) new arrays and computations go to; None: the backend's first."),
    ("jax_enable_checks", False, _parse_bool, None, False,
     "Run internal consistency checks (check_jaxpr on every traced jaxpr)."),
    ("jax_no_tracing", False, _parse_bool, None, False,
     "Raise RuntimeError when jit has to trace a function (to find retracing)."),
    ("jax_no_execution", False, _parse_bool, None, True,
     "Raise RuntimeError when a computation would run (to check code only traces)."),
    ("jax_threefry_partitionable", True, _parse_bool, None, True,
     "How the threefry PRNG splits keys and draws bits. True: each output element hashes "
     "its own index (JAX's default since 0.5); False: the flat counter stream of JAX "
     "before 0.5, whose draws and splits code written then reproduces."),
    ("jax_default_matmul_precision", None, _parse_optional_str, _PRECISIONS, True,
     "Default precision of dot and convolution when the call gives none. The CPU "
     "backend computes every float32 product in float32, which every choice allows."),
]

for _name, _default, _parse, _choices, _tracing, _help in _BEHAVIOUR_OPTIONS:
  if _name not in config._flags:
    config.define(_name, _default, "JAX_" + _name[4:].upper(), _parse, _help,
                  choices=_choices, affects_tracing=_tracing)

# (name, default) of the options that are stored only (see above).
_STORED_OPTIONS = [
    ("check_vma", False),
    ("eager_constant_folding", False),
    ("jax2tf_associative_scan_reductions", False),
    ("jax2tf_default_native_serialization", True),
    ("jax_allow_f16_reductions", True),
    ("jax_array_garbage_collection_guard", None),
    ("jax_auto_pcast", True),
    ("jax_backend_target", ""),
    ("jax_bcoo_cusparse_lowering", False),
    ("jax_captured_constants_report_frames", 0),
    ("jax_captured_constants_warn_bytes", 2000000000),
    ("jax_check_proxy_envs", True),
    ("jax_check_static_indices", False),
    ("jax_check_tracer_leaks", False),
    ("jax_compilation_cache_check_contents", False),
    ("jax_compilation_cache_expect_pgle", False),
    ("jax_compilation_cache_include_metadata_in_key", False),
    ("jax_compilation_cache_max_size", -1),
    ("jax_compiler_detailed_logging_min_ops", 10),
    ("jax_compiler_enable_remat_pass", True),
    ("jax_cpu_collectives_implementation", "gloo"),
    ("jax_cpu_enable_async_dispatch", True),
    ("jax_cpu_get_global_topology_timeout_minutes", 5),
    ("jax_cpu_get_local_topology_timeout_minutes", 2),
    ("jax_cross_host_transfer_socket_address", ""),
    ("jax_cross_host_transfer_timeout_seconds", None),
    ("jax_cross_host_transfer_transfer_size", None),
    ("jax_cross_host_transport_addresses", ""),
    ("jax_cuda_visible_devices", "all"),
    ("jax_custom_vjp3", False),
    ("jax_debug_key_reuse", False),
    ("jax_debug_leaked_clients_on_clear_backends", False),
    ("jax_debug_log_modules", ""),
    ("jax_default_prng_impl", "threefry2x32"),
    ("jax_disable_bwd_checks", False),
    ("jax_disable_most_optimizations", False),
    ("jax_disable_vmap_shmap_error", False),
    ("jax_disallow_mesh_context_manager", False),
    ("jax_distributed_debug", False),
    ("jax_dump_ir_modes", "stablehlo"),
    ("jax_dump_ir_to", ""),
    ("jax_embedded_constants_max_bytes", 32),
    ("jax_enable_custom_prng", False),
    ("jax_enable_pgle", False),
    ("jax_enable_preemption_service", True),
    ("jax_enable_recoverability", False),
    ("jax_error_checking_behavior_divide", "ignore"),
    ("jax_error_checking_behavior_nan", "ignore"),
    ("jax_error_checking_behavior_oob", "ignore"),
    ("jax_exec_time_optimization_effort", 0.0),
    ("jax_experimental_unsafe_xla_runtime_errors", False),
    ("jax_explain_cache_misses", False),
    ("jax_explicit_x64_dtypes", 1),
    ("jax_export_calling_convention_version", 10),
    ("jax_export_ignore_forward_compatibility", False),
    ("jax_force_dcn_cross_host_transfers", False),
    ("jax_high_dynamic_range_gumbel", False),
    ("jax_hlo_source_file_canonicalization_regex", None),
    ("jax_include_debug_info_in_dumps", True),
    ("jax_include_full_tracebacks_in_locations", True),
    ("jax_legacy_prng_key", "allow"),
    ("jax_log_checkpoint_residuals", False),
    ("jax_log_compiles", False),
    ("jax_logging_level", "NOTSET"),
    ("jax_memory_fitting_effort", 0.0),
    ("jax_memory_fitting_level", "O2"),
    ("jax_mock_gpu_topology", ""),
    ("jax_mosaic_allow_hlo", False),
    ("jax_mutable_array_checks", True),
    ("jax_no_execution", False),
    ("jax_no_tracing", False),
    ("jax_oneapi_visible_devices", "all"),
    ("jax_optimization_level", "UNKNOWN"),
    ("jax_pallas_enable_debug_checks", False),
    ("jax_pallas_poison_buffers", False),
    ("jax_pallas_use_mosaic_gpu", True),
    ("jax_pallas_verbose_errors", False),
    ("jax_persistent_cache_enable_xla_caches", "xla_gpu_per_fusion_autotune_cache_dir"),
    ("jax_pgle_aggregation_percentile", 90),
    ("jax_pgle_profiling_runs", 3),
    ("jax_pjrt_client_create_options", None),
    ("jax_platform_name", ""),
    ("jax_pprint_use_color", True),
    ("jax_ragged_dot_use_gpu_pallas_triton_lowering", False),
    ("jax_ragged_dot_use_ragged_dot_instruction", True),
    ("jax_raise_persistent_cache_errors", False),
    ("jax_random_seed_offset", 0),
    ("jax_refs_to_pins", False),
    ("jax_remat3", False),
    ("jax_remove_custom_partitioning_ptr_from_cache_key", False),
    ("jax_remove_size_one_mesh_axis_from_type", False),
    ("jax_rocm_visible_devices", "all"),
    ("jax_scan3", False),
    ("jax_send_traceback_to_runtime", "off"),
    ("jax_serialization_version", 0),
    ("jax_share_binary_between_hosts", False),
    ("jax_share_binary_between_hosts_timeout_ms", 1200000),
    ("jax_softmax_custom_jvp", False),
    ("jax_sort_devices_by_process_index", True),
    ("jax_source_url_schema", None),
    ("jax_thread_guard", False),
    ("jax_threefry_gpu_kernel_lowering", False),
    ("jax_traceback_filtering", "auto"),
    ("jax_traceback_in_locations_limit", 100),
    ("jax_tracer_error_num_traceback_frames", 5),
    ("jax_transfer_guard", None),
    ("jax_transfer_guard_device_to_device", None),
    ("jax_transfer_guard_device_to_host", None),
    ("jax_transfer_guard_host_to_device", None),
    ("jax_use_direct_linearize", True),
    ("jax_use_emit_pipeline_primitive", False),
    ("jax_use_magma", "auto"),
    ("jax_use_shardy_partitioner", True),
    ("jax_use_simplified_jaxpr_constants", False),
    ("jax_xla_backend", ""),
    ("jax_xla_profile_version", 0),
    ("mock_num_gpu_processes", 0),
]

_STORED_CHOICES = {
    "jax_transfer_guard": _TRANSFER_GUARD_LEVELS,
    "jax_transfer_guard_host_to_device": _TRANSFER_GUARD_LEVELS,
    "jax_transfer_guard_device_to_host": _TRANSFER_GUARD_LEVELS,
    "jax_transfer_guard_device_to_device": _TRANSFER_GUARD_LEVELS,
    "jax_default_prng_impl": ("threefry2x32", "rbg", "unsafe_rbg"),
    "jax_legacy_prng_key": ("allow", "warn", "error"),
    "jax_traceback_filtering": ("off", "tracebackhide", "remove_frames", "quiet_remove_frames",
                                "auto"),
}


def _parser_for(default) -> Callable[[str], Any]:
  if isinstance(default, bool):
    return _parse_bool
  if isinstance(default, (int, float)):
    return type(default)
  return _parse_optional_str if default is None else _parse_str


def _env_name(name: str) -> str:
  return "JAX_" + (name[4:] if name.startswith("jax_") else name).upper()


for _name, _default in _STORED_OPTIONS:
  if _name not in config._flags:
    config.define(_name, _default, _env_name(_name), _parser_for(_default),
                  "Stored for JAX programs that set it; this jax does not act on it.",
                  choices=_STORED_CHOICES.get(_name))


def enable_x64() -> bool:
  overrides = _thread_overrides()
  if overrides and "jax_enable_x64" in overrides:
    return overrides["jax_enable_x64"]
  return config._values["jax_enable_x64"]


def numpy_dtype_promotion_mode() -> str:
  """'standard' or 'strict' (read on every promotion, so kept cheap)."""
  overrides = _thread_overrides()
  if overrides and "jax_numpy_dtype_promotion" in overrides:
    return overrides["jax_numpy_dtype_promotion"]
  return config._values["jax_numpy_dtype_promotion"]


def debug_checks() -> tuple[bool, bool]:
  """(jax_debug_nans, jax_debug_infs), read after every eager operation."""
  overrides = _thread_overrides()
  if overrides:
    return (overrides.get("jax_debug_nans", config._values["jax_debug_nans"]),
            overrides.get("jax_debug_infs", config._values["jax_debug_infs"]))
  return config._values["jax_debug_nans"], config._values["jax_debug_infs"]


# ----------------------------------------------------------------------------- context managers


class _NoValue:
  def __repr__(self):
    return "<no value>"


_NO_VALUE = _NoValue()


def _context_manager(name: str, public: str, default_value=_NO_VALUE):
  """`public(new_val)`: a `with` block in which option `name` is `new_val` in this thread."""

  def manager(new_val=_NO_VALUE):
    if new_val is _NO_VALUE:
      if default_value is _NO_VALUE:
        raise TypeError(f"{public}() needs a value: use `with jax.{public}(value):`")
      new_val = default_value
    return config.override(name, new_val)

  manager.__name__ = manager.__qualname__ = public
  manager.__doc__ = (f"Context manager: the {name!r} option is `new_val` in this thread "
                     f"for the extent of the `with` block.")
  return manager


def _bool_manager(name: str) -> Callable:
  return _context_manager(name, name[4:] if name.startswith("jax_") else name, True)


enable_x64_context = _bool_manager("jax_enable_x64")
debug_nans = _bool_manager("jax_debug_nans")
debug_infs = _bool_manager("jax_debug_infs")
log_compiles = _bool_manager("jax_log_compiles")
enable_checks = _bool_manager("jax_enable_checks")
check_tracer_leaks = _bool_manager("jax_check_tracer_leaks")


def checking_leaks():
  """A context in which jax_check_tracer_leaks is on (`jax.checking_leaks()`)."""
  return check_tracer_leaks(True)


numpy_dtype_promotion = _context_manager("jax_numpy_dtype_promotion", "numpy_dtype_promotion")
numpy_rank_promotion = _context_manager("jax_numpy_rank_promotion", "numpy_rank_promotion")
default_matmul_precision = _context_manager("jax_default_matmul_precision",
                                            "default_matmul_precision")
default_device = _context_manager("jax_default_device", "default_device")
default_prng_impl = _context_manager("jax_default_prng_impl", "default_prng_impl")
transfer_guard_host_to_device = _context_manager("jax_transfer_guard_host_to_device",
                                                 "transfer_guard_host_to_device")
transfer_guard_device_to_host = _context_manager("jax_transfer_guard_device_to_host",
                                                 "transfer_guard_device_to_host")
transfer_guard_device_to_device = _context_manager("jax_transfer_guard_device_to_device",
                                                   "transfer_guard_device_to_device")


# Context managers over options that are stored only (see _STORED_OPTIONS).
allow_f16_reductions = _bool_manager("jax_allow_f16_reductions")
array_garbage_collection_guard = _context_manager("jax_array_garbage_collection_guard",
                                                  "array_garbage_collection_guard")
auto_pcast = _bool_manager("jax_auto_pcast")
debug_key_reuse = _bool_manager("jax_debug_key_reuse")
enable_custom_prng = _bool_manager("jax_enable_custom_prng")
explain_cache_misses = _bool_manager("jax_explain_cache_misses")
jax2tf_associative_scan_reductions = _bool_manager("jax2tf_associative_scan_reductions")
legacy_prng_key = _context_manager("jax_legacy_prng_key", "legacy_prng_key")
remove_size_one_mesh_axis_from_type = _bool_manager("jax_remove_size_one_mesh_axis_from_type")
softmax_custom_jvp = _bool_manager("jax_softmax_custom_jvp")
thread_guard = _bool_manager("jax_thread_guard")
threefry_partitionable = _bool_manager("jax_threefry_partitionable")
# These two act: jit and dispatch check them.
no_tracing = _bool_manager("jax_no_tracing")
no_execution = _bool_manager("jax_no_execution")


def disable_jit(disable: bool = True):
  """Context manager: jitted functions run op by op in this thread (for debugging)."""
  return config.override("jax_disable_jit", disable)


@contextmanager
def transfer_guard(new_val):
  """Context manager: all three transfer-guard levels are `new_val` in this thread."""
  with contextlib.ExitStack() as stack:
    stack.enter_context(config.override("jax_transfer_guard", new_val))
    for kind in ("host_to_device", "device_to_host", "device_to_device"):
      stack.enter_context(config.override(f"jax_transfer_guard_{kind}", new_val))
    yield


def disable_x64():
  """Context manager: 32-bit default types in this thread (jax.experimental.disable_x64)."""
  return config.override("jax_enable_x64", False)


# ----------------------------------------------------------------------------- user contexts
# A user context is a hidden option that changes tracing: jit keys its caches on its value,
# so a function runs its trace again when the value differs.

_user_context_lock = threading.Lock()


class UserConfig:
  """A value jit's caches depend on: `with ctx(v):` sets it in this thread."""

  def __init__(self, default_value=None):
    with _user_context_lock:
      self._name = f"jax_user_context_{len(config._flags)}"
      config.define(self._name, default_value, "", lambda text: text,
                    "a user context (jax.make_user_context)", affects_tracing=True)

  @property
  def value(self):
    return config.read(self._name)

  def get_global(self):
    return config._values[self._name]

  def set_global(self, new_value) -> None:
    hash(new_value)  # the value keys caches: refuse an unhashable one here, clearly
    config.update(self._name, new_value)

  def __call__(self, new_value):
    hash(new_value)
    return config.override(self._name, new_value)

  def __repr__(self):
    return f"UserConfig(value={self.value!r})"


def make_user_context(default_value=None) -> UserConfig:
  """A context jit's caches are sensitive to: when its value changes, jitted functions
  trace, lower and compile again (`with ctx(value): ...`, or `ctx.set_global(value)`)."""
  hash(default_value)
  return UserConfig(default_value)


class FlagHolder:
  """An option as a module attribute, `config.jax_platforms.value`, as JAX's
  holders read (plugins written for JAX read options this way)."""

  __slots__ = ("_name",)

  def __init__(self, name: str):
    self._name = name

  @property
  def value(self):
    return config.read(self._name)

  def __repr__(self):
    return f"FlagHolder({self._name}={self.value!r})"


def __getattr__(name: str) -> FlagHolder:
  if name.startswith("jax_") and name in config._flags:
    return FlagHolder(name)
  raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
