"""Backends: plugin discovery, registration, selection and client creation.

Discovery is lazy: nothing here runs at `import jax`; the first call that needs
a backend discovers plugins (the `jax_plugins` namespace package and the
`jax_plugins` entry point group), registers them and initialises them in
priority order. A plugin that fails is skipped with one warning saying which
plugin, which file and why, unless the user asked for it by name, in which case
that reason is raised. The CPU plugin goes through exactly the same path.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import logging
import os
import pkgutil
import threading
import warnings
from typing import Any

from jax._src import config
from jax._src import distributed

logger = logging.getLogger(__name__)

# Aliases the user may name in JAX_PLATFORMS.
_ALIASES = {"gpu": ("cuda", "rocm")}

# Which GPUs a GPU plugin may use ("all", or a comma-separated list of ids).
CUDA_VISIBLE_DEVICES = config.FlagHolder("jax_cuda_visible_devices")


def expand_platform_alias(platform: str) -> list[str]:
  """The platforms a JAX_PLATFORMS entry names: "gpu" is "cuda" and "rocm"."""
  return list(_ALIASES.get(platform, (platform,)))


@dataclasses.dataclass
class PluginRegistration:
  name: str                      # "cpu", "cuda", ...
  priority: int
  library_path: str
  platform_names: tuple[str, ...]
  version: str
  c_api_version: tuple[int, int]
  options: dict[str, Any] | None = None
  source: str = ""               # "namespace" or "entry point"
  module: str = ""
  factory: Any = None            # a callable making the client (jax.extend.backend)
  # Not one of this project's plugins (a vendor's, libtpu, OpenXLA's): it has no
  # release version of ours, and jaxlib checks its PJRT C API version range.
  foreign: bool = False


class BackendError(RuntimeError):
  """A backend the user asked for could not be initialised; says why and how to fix it."""


_lock = threading.RLock()
_registrations: dict[str, PluginRegistration] = {}
_backends: dict[str, Any] = {}
_backend_errors: dict[str, str] = {}
_discovered: list[dict[str, str]] = []    # every plugin module found, with its source
_discovery_done = False
_default_backend: Any = None


def forget_backends() -> None:
  """Drop every backend client and the errors of those that failed (made again on next use)."""
  global _default_backend
  with _lock:
    _backends.clear()
    _backend_errors.clear()
    _default_backend = None


def add_registration(registration: PluginRegistration) -> None:
  """Register a backend (replacing one of the same name) for the next initialisation."""
  with _lock:
    _registrations[registration.name] = registration


def register_plugin(plugin_name: str, *, priority: int = 400, library_path: str | None = None,
                    options: dict[str, Any] | None = None, c_api: Any = None,
                    platform_names: tuple[str, ...] = (), version: str | None = None,
                    c_api_version: tuple[int, int] | None = None) -> Any:
  """Registers a PJRT plugin library as backend `plugin_name`, as JAX's does.

  Any PJRT plugin (a vendor's, Google's libtpu, OpenXLA's own) is registered
  with its library path (or a `name:path` entry of PJRT_NAMES_AND_LIBRARY_PATHS)
  and create `options`; its library is loaded now, and its PJRT C API version
  must be in the range jaxlib drives. The loaded plugin is returned.

  This project's own plugins also pass their manifest (`version`,
  `c_api_version`, `platform_names`): their release must equal jaxlib's, which
  is checked before their library is ever loaded, so they load on first use.
  """
  del c_api  # a pre-loaded C API table: jaxlib loads plugins by path
  if library_path is None:
    library_path = _library_paths_from_env().get(plugin_name)
    if library_path is None:
      raise ValueError(f"register_plugin('{plugin_name}') needs library_path (or a "
                       f"'{plugin_name}:<path>' entry in PJRT_NAMES_AND_LIBRARY_PATHS)")
  foreign = version is None
  with _lock:
    if plugin_name in _registrations:
      existing = _registrations[plugin_name]
      if existing.library_path != library_path:
        warnings.warn(f"Plugin '{plugin_name}' is registered twice: keeping "
                      f"{existing.library_path}, ignoring {library_path}", RuntimeWarning,
                      stacklevel=2)
      return None  # the same plugin found twice (namespace and entry point)
    _registrations[plugin_name] = PluginRegistration(
        plugin_name, priority, library_path, tuple(platform_names) or (plugin_name,),
        version or "", tuple(c_api_version or (0, 0)), options, foreign=foreign)
  if not foreign:
    return None
  from jax._src import lib  # loading a library needs jaxlib; importing jax does not
  try:
    return lib.plugin_support.load_pjrt_plugin_dynamically(plugin_name, library_path)
  except Exception:
    with _lock:
      del _registrations[plugin_name]
    raise


def _library_paths_from_env() -> dict[str, str]:
  """PJRT_NAMES_AND_LIBRARY_PATHS: 'name:path,name:path', as JAX reads it."""
  out = {}
  for entry in os.environ.get("PJRT_NAMES_AND_LIBRARY_PATHS", "").split(","):
    name, sep, path = entry.strip().partition(":")
    if name and sep and path:
      out[name] = path
  return out


def _requested_platforms() -> list[str] | None:
  value = config.config.read("jax_platforms")
  if not value:
    return None
  out: list[str] = []
  for item in value.split(","):
    item = item.strip().lower()
    if item:
      out.append(item)
  return out


def _wanted(module_name: str, requested: list[str] | None) -> bool:
  """Skips importing plugins for platforms JAX_PLATFORMS excludes."""
  if requested is None:
    return True
  plugin = module_name.rsplit(".", 1)[-1].removeprefix("xla_")
  names = set(requested)
  for r in requested:
    names.update(_ALIASES.get(r, ()))
  base = plugin.rstrip("0123456789")
  return plugin in names or base in names


def _warn_about_shadowed_copies(namespace_path) -> None:
  """One plugin module in two jax_plugins folders: Python imports the first copy
  and silently ignores the other, which is how stale installs cause confusing
  version errors. Say so once, naming both folders."""
  folders: dict[str, list[str]] = {}
  seen: set[str] = set()
  for folder in namespace_path:
    # One folder reached twice (sys.path naming it twice, or through a symlink) is one copy.
    real = os.path.realpath(folder)
    if real in seen:
      continue
    seen.add(real)
    for info in pkgutil.iter_modules([folder]):
      folders.setdefault(info.name, []).append(folder)
  for name, where in sorted(folders.items()):
    if len(where) > 1:
      warnings.warn(f"Plugin jax_plugins.{name} is installed more than once: using the copy in "
                    f"{where[0]}, ignoring {', '.join(where[1:])}. Uninstall the copy you do "
                    f"not want.", RuntimeWarning, stacklevel=4)


def _iter_plugin_modules():
  """Yields (module name, source) for every plugin, namespace package first."""
  seen = set()
  try:
    import jax_plugins  # namespace package
    namespace_path = list(jax_plugins.__path__)
    _warn_about_shadowed_copies(namespace_path)
    for info in pkgutil.iter_modules(namespace_path, "jax_plugins."):
      seen.add(info.name)
      yield info.name, "namespace", None
  except ImportError:
    pass
  # importlib.metadata (with email, zipfile, pathlib) costs a tenth of `import jax`;
  # only finding the plugins needs it.
  import importlib.metadata
  for ep in importlib.metadata.entry_points(group="jax_plugins"):
    name = ep.value.split(":")[0]
    if name in seen:
      continue  # the same module, installed once, announced both ways
    seen.add(name)
    yield name, "entry point", ep


def _module_file(module_name: str) -> str:
  """Where a plugin module lives, found without importing it (so that a module
  that fails to import can still be named by its file)."""
  try:
    spec = importlib.util.find_spec(module_name)
  except (ImportError, ValueError):
    return ""
  return (spec.origin or "") if spec is not None else ""


def discover_plugins() -> None:
  """Imports and initialises every plugin (once)."""
  global _discovery_done
  with _lock:
    if _discovery_done:
      return
    _discovery_done = True
    requested = _requested_platforms()
    for module_name, source, ep in _iter_plugin_modules():
      entry = {"module": module_name, "source": source}
      if not _wanted(module_name, requested):
        entry["status"] = "skipped (excluded by JAX_PLATFORMS)"
        _discovered.append(entry)
        continue
      entry["file"] = _module_file(module_name)
      try:
        module = ep.load() if ep is not None else importlib.import_module(module_name)
        entry["version"] = getattr(module, "__version__", "")
        before = set(_registrations)
        if hasattr(module, "initialize"):
          module.initialize()
        for name in set(_registrations) - before:
          _registrations[name].source = source
          _registrations[name].module = module_name
        entry["status"] = "registered"
      except Exception as e:  # a broken plugin must not break the others
        reason = f"{type(e).__name__}: {e}" if str(e) else _describe_bare_exception(e)
        entry["status"] = f"failed: {reason}"
        warnings.warn(f"Plugin {module_name} (found as {source}"
                      f"{', file ' + entry.get('file', '') if entry.get('file') else ''}) "
                      f"failed to initialize and is skipped: {reason}", RuntimeWarning,
                      stacklevel=3)
      _discovered.append(entry)
    for name, path in _library_paths_from_env().items():
      if name in _registrations or not _wanted(name, requested):
        continue
      entry = {"module": name, "source": "PJRT_NAMES_AND_LIBRARY_PATHS", "file": path}
      try:
        register_plugin(name, library_path=path)
        _registrations[name].source = entry["source"]
        entry["status"] = "registered"
      except Exception as e:  # as for plugin modules: skip it, say why
        entry["status"] = f"failed: {type(e).__name__}: {e}"
        warnings.warn(f"PJRT plugin '{name}' ({path}, from PJRT_NAMES_AND_LIBRARY_PATHS) "
                      f"failed to load and is skipped: {e}", RuntimeWarning, stacklevel=3)
      _discovered.append(entry)


def _describe_bare_exception(e: BaseException) -> str:
  """An exception without a message (a plugin's failed assert) named by where
  it was raised, so the warning still says something."""
  import traceback
  frames = traceback.extract_tb(e.__traceback__)
  where = f" at {frames[-1].filename}:{frames[-1].lineno} ({frames[-1].line})" if frames else ""
  return f"{type(e).__name__}{where}"


def _check_plugin_version(reg: PluginRegistration) -> None:
  """Our plugins: the same release as jaxlib, and its C API major. Another
  project's plugin has no release of ours; jaxlib checks its PJRT version
  range when it loads the library."""
  if reg.foreign:
    return
  from jax._src import lib  # jaxlib is read only when a plugin is loaded
  lib.plugin_support.check_plugin_version(reg.name, reg.version, lib.version_str)
  major = lib._jax.pjrt_c_api_major
  if reg.c_api_version[0] != major:
    raise BackendError(
        f"The {reg.name} plugin implements C API {reg.c_api_version[0]}.{reg.c_api_version[1]}, "
        f"jaxlib {lib.version_str} needs major version {major}. Fix: pip install "
        f"\"{lib.plugin_support._distribution_for(reg.name)}=={lib.version_str}\"")


def _make_client(reg: PluginRegistration):
  from jax._src import lib  # as above
  if reg.factory is not None:
    return reg.factory()
  _check_plugin_version(reg)
  lib.plugin_support.load_pjrt_plugin_dynamically(reg.name, reg.library_path)
  options = dict(reg.options or {})
  if reg.name == "cpu":
    n = _num_cpu_devices()
    if n is not None:
      options["num_devices"] = n
    if distributed.is_initialized() and distributed.global_state.num_processes > 1:
      # Devices of every process, collectives through the engine, which meets its peers
      # through the coordinator's key-value store.
      options.update(distributed.collectives_options())
      return lib.xla_client.make_c_api_client(reg.name, options,
                                              distributed_client=distributed.client())
  return lib.xla_client.make_c_api_client(reg.name, options)


def _num_cpu_devices() -> int | None:
  """The CPU device count asked for: `jax_num_cpu_devices` (JAX_NUM_CPU_DEVICES), else
  `--xla_force_host_platform_device_count=N` in XLA_FLAGS; None for the plugin's default."""
  n = config.config.read("jax_num_cpu_devices")
  if n is not None and int(n) > 0:
    return int(n)
  return _forced_host_device_count(os.environ.get("XLA_FLAGS", ""))


def _forced_host_device_count(xla_flags: str) -> int | None:
  count = None
  for flag in xla_flags.split():  # as in XLA, the last occurrence wins
    name, sep, value = flag.partition("=")
    if name.lstrip("-") != "xla_force_host_platform_device_count" or not sep:
      continue
    try:
      count = int(value)
    except ValueError:
      raise BackendError(f"XLA_FLAGS: --xla_force_host_platform_device_count needs a positive "
                         f"integer, got {value!r}") from None
    if count < 1:
      raise BackendError(f"XLA_FLAGS: --xla_force_host_platform_device_count needs a positive "
                         f"integer, got {value!r}")
  return count


def _platform_matches(reg: PluginRegistration, platform: str) -> bool:
  names = {platform, *_ALIASES.get(platform, ())}
  return reg.name in names or bool(names & set(reg.platform_names))


def _initialize_backends() -> None:
  """Creates clients for the selected plugins; records why others failed."""
  global _default_backend
  discover_plugins()
  requested = _requested_platforms()
  regs = sorted(_registrations.values(), key=lambda r: -r.priority)
  if requested is not None:
    ordered = []
    for platform in requested:
      matches = [r for r in regs if _platform_matches(r, platform)]
      if not matches:
        _raise_if_plugin_failed_to_register(platform)
        known = sorted({n for r in regs for n in (r.name, *r.platform_names)})
        raise BackendError(
            f"JAX_PLATFORMS asks for '{platform}', but no installed plugin provides it "
            f"(installed: {', '.join(known) or 'none'}). Fix: pip install \"jax[{_extra_for(platform)}]\"")
      ordered.extend(m for m in matches if m not in ordered)
    regs = ordered
  for reg in regs:
    if reg.name in _backends or reg.name in _backend_errors:
      continue
    try:
      _backends[reg.name] = _make_client(reg)
    except Exception as e:
      reason = f"{type(e).__name__}: {e}"
      _backend_errors[reg.name] = reason
      if requested is not None and any(_platform_matches(reg, p) for p in requested):
        raise BackendError(
            f"Unable to initialize backend '{reg.name}' (plugin library {reg.library_path}): "
            f"{e}") from e
      warnings.warn(f"Platform '{reg.name}' is skipped: its plugin ({reg.library_path}) "
                    f"could not be initialized: {str(e).rstrip('.')}. Falling back to the next backend.",
                    RuntimeWarning, stacklevel=4)
  for reg in regs:
    if reg.name in _backends:
      _default_backend = _backends[reg.name]
      return
  raise BackendError(
      "No backend could be initialized. " +
      ("; ".join(f"{k}: {v}" for k, v in _backend_errors.items()) or
       "No plugin is installed. Fix: pip install jax (which installs the CPU plugin)"))


def _raise_if_plugin_failed_to_register(platform: str) -> None:
  """The user asked for a platform whose plugin module was found but whose
  initialize() failed: that failure, not "not installed", is the reason."""
  names = {platform, *_ALIASES.get(platform, ())}
  for entry in _discovered:
    if entry.get("status", "").startswith("failed") and _wanted(entry["module"], sorted(names)):
      raise BackendError(
          f"Unable to initialize backend '{platform}': plugin {entry['module']} "
          f"({entry.get('file') or entry['source']}) {entry['status']}")


def make_pjrt_topology(platform: str, topology_name: str = "", **options):
  """The compile-only topology `topology_name` of the plugin providing `platform`
  (jaxlib's TopologyDescription), made through the plugin's C API without a client:
  no device need be present. A plugin that JAX_PLATFORMS excludes from running is
  still used here, since describing devices does not initialise them."""
  from jax._src import lib  # as in _make_client
  with _lock:
    discover_plugins()
    reg = _registration_for(platform)
    if reg is None:
      _register_excluded_plugins(platform)
      reg = _registration_for(platform)
    if reg is None:
      _raise_if_plugin_failed_to_register(platform)
      raise BackendError(f"No installed plugin provides platform '{platform}' for a "
                         f"compile-only topology. Fix: pip install \"jax[{_extra_for(platform)}]\"")
  _check_plugin_version(reg)
  lib.plugin_support.load_pjrt_plugin_dynamically(reg.name, reg.library_path)
  try:
    return lib.xla_client.make_c_api_device_topology(reg.name, topology_name, **options)
  except lib.xla_client.XlaRuntimeError as e:
    if str(e).startswith("UNIMPLEMENTED"):
      raise NotImplementedError(f"The {reg.name} plugin ({reg.library_path}) cannot describe "
                                f"compile-only topologies: {e}") from e
    raise


def _registration_for(platform: str) -> PluginRegistration | None:
  matches = [r for r in _registrations.values() if _platform_matches(r, platform.lower())]
  return max(matches, key=lambda r: r.priority) if matches else None


def _register_excluded_plugins(platform: str) -> None:
  """Initialises the plugin modules of `platform` that discovery skipped because
  JAX_PLATFORMS left them out (they register; no client is made)."""
  for module_name, source, ep in _iter_plugin_modules():
    if not _wanted(module_name, [platform.lower()]):
      continue
    module = ep.load() if ep is not None else importlib.import_module(module_name)
    before = set(_registrations)
    if hasattr(module, "initialize"):
      module.initialize()
    for name in set(_registrations) - before:
      _registrations[name].source = source
      _registrations[name].module = module_name


def _extra_for(platform: str) -> str:
  return {"cuda": "cuda12", "gpu": "cuda12", "rocm": "rocm6"}.get(platform, platform)


def backends() -> dict[str, Any]:
  with _lock:
    if _default_backend is None:
      _initialize_backends()
    return dict(_backends)


def get_backend(platform: str | Any | None = None):
  """The client for `platform` (a name), or the default backend."""
  if platform is None and _default_backend is not None:
    return _default_backend  # every eager op asks: no lock, no copy
  with _lock:
    if platform is not None and not isinstance(platform, str):
      return platform  # already a client
    all_backends = backends()
    if platform is None:
      return _default_backend
    platform = platform.lower()
    for name in (platform, *_ALIASES.get(platform, ())):
      if name in all_backends:
        return all_backends[name]
    for reg in _registrations.values():
      if _platform_matches(reg, platform):
        if reg.name in _backend_errors:
          raise BackendError(f"Unable to initialize backend '{platform}': "
                             f"{_backend_errors[reg.name]}")
        _backends[reg.name] = _make_client(reg)
        return _backends[reg.name]
    raise BackendError(f"Unknown backend '{platform}'. Available: {', '.join(all_backends)}")


def default_backend() -> str:
  return get_backend().platform


def devices(backend=None) -> list:
  return get_backend(backend).devices()


def local_devices(process_index: int | None = None, backend=None) -> list:
  client = get_backend(backend)
  if process_index is None or process_index == client.process_index():
    return client.local_devices()
  return [d for d in client.devices() if d.process_index == process_index]


def device_count(backend=None) -> int:
  return len(devices(backend))


def local_device_count(backend=None) -> int:
  return len(local_devices(backend=backend))


def process_index(backend=None) -> int:
  return get_backend(backend).process_index()


def process_count(backend=None) -> int:
  return len({d.process_index for d in devices(backend)})


def backends_are_initialized() -> bool:
  """Whether a client exists already (jax.distributed must come before one)."""
  return bool(_backends)


distributed.set_backend_probe(backends_are_initialized)


def discovery_report() -> dict[str, Any]:
  """What was found, registered, loaded or refused, for env_info."""
  with _lock:
    return {
        "discovered": list(_discovered),
        "registered": {k: dataclasses.asdict(v) for k, v in _registrations.items()},
        "backends": {k: v.platform for k, v in _backends.items()},
        "errors": dict(_backend_errors),
        "default": None if _default_backend is None else _default_backend.platform,
    }


def _reset_for_tests() -> None:
  global _discovery_done
  forget_backends()
  with _lock:
    _registrations.clear()
    _discovered.clear()
    _discovery_done = False
