"""Every jax flag, in one place.

A flag has a name (``jax_enable_x64``), a default, an environment variable that
overrides the default at import time (``JAX_ENABLE_X64``), and a parser for values
read from the environment. Read a flag as ``config.jax_enable_x64`` or
``config.read("jax_enable_x64")``; change it with ``config.update(name, value)``.
"""

from __future__ import annotations

import os
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
  __slots__ = ("name", "default", "env_var", "parse", "help")

  def __init__(self, name, default, env_var, parse, help):
    self.name, self.default, self.env_var, self.parse, self.help = (
        name, default, env_var, parse, help)


class Config:
  """Holds the current value of every flag; see the module docstring."""

  def __init__(self):
    self._flags: dict[str, _Flag] = {}
    self._values: dict[str, Any] = {}
    self._watchers: list[Callable[[str, Any], None]] = []

  def define(self, name: str, default: Any, env_var: str, parse, help: str):
    flag = _Flag(name, default, env_var, parse, help)
    self._flags[name] = flag
    value = default
    if env_var in os.environ:
      try:
        value = parse(os.environ[env_var])
      except ValueError as e:
        raise ValueError(f"environment variable {env_var}: {e}") from None
    self._values[name] = value

  def update(self, name: str, value: Any) -> None:
    if name not in self._flags:
      raise AttributeError(
          f"unknown jax config option {name!r}; known options: {sorted(self._flags)}")
    self._values[name] = value
    for watcher in self._watchers:
      watcher(name, value)

  def read(self, name: str) -> Any:
    try:
      return self._values[name]
    except KeyError:
      raise AttributeError(f"unknown jax config option {name!r}") from None

  def add_watcher(self, fn: Callable[[str, Any], None]) -> None:
    """`fn(name, value)` runs after every update (used to drop caches)."""
    self._watchers.append(fn)

  def __getattr__(self, name: str) -> Any:
    if name.startswith("_"):
      raise AttributeError(name)
    return self.read(name)

  def flag_names(self) -> list[str]:
    return sorted(self._flags)


config = Config()

config.define(
    "jax_enable_x64", False, "JAX_ENABLE_X64", _parse_bool,
    "Use 64-bit types by default (float64/int64) instead of float32/int32.")
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


def enable_x64() -> bool:
  return config._values["jax_enable_x64"]
