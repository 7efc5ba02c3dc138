"""Finding, checking and loading plugin libraries.

A plugin wheel (jaxlib-cpu, jaxlib-cuda12, ...) installs a module under the
`jax_plugins` namespace. Its version must equal jaxlib's exactly; that is
checked here before its shared library is ever loaded.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from jaxlib import version as _jaxlib_version

_loaded: dict[str, Any] = {}      # plugin name -> _jax.Plugin
_library_paths: dict[str, str] = {}


class PluginVersionError(RuntimeError):
  """A plugin wheel's version differs from jaxlib's.

  Cause: the plugin and jaxlib wheels come from different releases. Fix: install
  both from the same release (the message names the pip command).
  """


def _distribution_for(plugin_name: str) -> str:
  return {"cpu": "jaxlib-cpu", "cuda": "jaxlib-cuda12", "cuda12": "jaxlib-cuda12",
          "rocm": "jaxlib-rocm6", "rocm6": "jaxlib-rocm6", "tpu": "jaxlib-tpu"}.get(
              plugin_name, f"jaxlib-{plugin_name}")


def check_plugin_version(plugin_name: str, plugin_version: str,
                         jaxlib_version: str | None = None) -> None:
  """Raises PluginVersionError unless the plugin's version equals jaxlib's."""
  jaxlib_version = jaxlib_version or _jaxlib_version.__version__
  if plugin_version != jaxlib_version:
    dist = _distribution_for(plugin_name)
    raise PluginVersionError(
        f"The {plugin_name} plugin ({dist} {plugin_version}) does not match the installed "
        f"jaxlib {jaxlib_version}; a plugin must come from the same release as jaxlib. "
        f"Fix: pip install \"{dist}=={jaxlib_version}\" (or reinstall jaxlib and the "
        f"plugin together from one release).")


def import_from_plugin(plugin_name: str, submodule_name: str, *, check_version: bool = True):
  """Imports `jax_plugins.xla_<plugin_name>.<submodule_name>`, or None if absent."""
  module_name = f"jax_plugins.xla_{plugin_name}"
  try:
    package = importlib.import_module(module_name)
  except ImportError:
    return None
  if check_version:
    check_plugin_version(plugin_name, getattr(package, "__version__", "unknown"))
  if not submodule_name:
    return package
  try:
    return importlib.import_module(f"{module_name}.{submodule_name}")
  except ImportError:
    return None


def pjrt_plugin_loaded(plugin_name: str) -> bool:
  return plugin_name in _loaded


def load_pjrt_plugin_dynamically(plugin_name: str, library_path: str):
  """Loads a plugin's shared library once; raises naming the file and the reason."""
  from jaxlib import _jax
  if plugin_name in _loaded:
    return _loaded[plugin_name]
  if not os.path.exists(library_path):
    raise _jax.PluginLoadError(
        f"plugin '{plugin_name}': library file {library_path} does not exist "
        f"(the {_distribution_for(plugin_name)} install is incomplete; reinstall it)")
  plugin = _jax.load_pjrt_plugin(library_path)
  _loaded[plugin_name] = plugin
  _library_paths[plugin_name] = library_path
  _forward_custom_call_targets(plugin_name, plugin)
  return plugin


def _forward_custom_call_targets(plugin_name: str, plugin) -> None:
  """Hands the plugin every custom-call target of its platform, now and later."""
  from jaxlib import _jax, custom_calls
  if not _jax._custom_calls_supported(plugin):
    return
  try:
    platform = custom_calls.canonical_platform(plugin_name)
  except ValueError:
    return  # a plugin of a platform custom calls have no name for

  def forward(name, fn, api_version, traits):
    del traits
    if isinstance(fn, dict):
      raise ValueError(f"custom-call target {name!r}: the {plugin_name} plugin runs untyped "
                       "functions (api_version 0), not typed-FFI handlers")
    _jax._register_custom_call_target(plugin, name, fn, api_version)

  try:
    custom_calls.register_custom_call_handler(platform, forward)
  except ValueError:
    pass  # the application installed its own handler for this platform first


def initialize_pjrt_plugin(plugin_name: str) -> None:
  """Plugins are initialised when loaded; kept for API compatibility of callers."""
  if plugin_name not in _loaded:
    raise RuntimeError(f"plugin '{plugin_name}' has not been loaded")


def loaded_plugin(plugin_name: str):
  return _loaded.get(plugin_name)


def cpu_plugin_library_path() -> str:
  """Where the jaxlib-cpu wheel put its library; raises with the fix if missing."""
  package = import_from_plugin("cpu", "")
  if package is None:
    raise ImportError(
        "jaxlib needs the CPU plugin (jaxlib-cpu), which is not installed. Fix: pip install "
        f"\"jaxlib-cpu=={_jaxlib_version.__version__}\"")
  return package.library_path()
