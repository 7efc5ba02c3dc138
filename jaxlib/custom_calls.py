"""The registry of custom-call targets: native functions, by platform, that HLO
`custom-call`s name with custom_call_target="...".

Targets are PyCapsules holding a function pointer (api_version 0, XLA's untyped
convention) or a capsule / dict of capsules of typed-FFI handlers (api_version 1).
A platform's plugin (or a library that forwards targets to it) installs a handler
with `register_custom_call_handler`; the handler is called once for every target
of its platform, those registered before it included.

Plugins with the C API custom-call extension get a handler when they are loaded
(plugin_support.load_pjrt_plugin_dynamically) that hands each target to the
plugin, after which HLO custom-calls naming it call the function. The CPU plugin
runs untyped functions (api_version 0, `void f(void* out, const void** in)`);
typed-FFI targets are recorded but refused by it with a message.
"""

from __future__ import annotations

import threading
import types
import warnings
from typing import Any, Callable

_PLATFORMS = {"cpu": "cpu", "host": "cpu", "cuda": "cuda", "gpu": "cuda", "rocm": "rocm",
              "tpu": "tpu"}
_API_VERSIONS = (0, 1)
_FFI_STAGES = ("instantiate", "prepare", "initialize", "execute")

_lock = threading.Lock()
_targets: dict[str, dict[str, tuple[Any, int, int]]] = {}  # platform -> name -> entry
_handlers: dict[str, Callable] = {}


def _is_capsule(x: Any) -> bool:
  return isinstance(x, types.CapsuleType) if hasattr(types, "CapsuleType") else (
      type(x).__name__ == "PyCapsule")


def canonical_platform(platform: Any) -> str:
  """The registry's name for `platform` ("host" -> "cpu", "gpu" -> "cuda"); ValueError if unknown."""
  if not isinstance(platform, str):
    raise TypeError(f"platform must be a str, got {type(platform).__name__}")
  try:
    return _PLATFORMS[platform.lower()]
  except KeyError:
    raise ValueError(f"unknown platform {platform!r} for custom-call targets; known: "
                     f"{', '.join(sorted(_PLATFORMS))}") from None


def _check_target(fn: Any, api_version: int) -> None:
  if api_version == 1 and isinstance(fn, dict):
    for stage, capsule in fn.items():
      if stage not in _FFI_STAGES:
        raise ValueError(f"unknown typed-FFI stage {stage!r}; stages: {', '.join(_FFI_STAGES)}")
      if not _is_capsule(capsule):
        raise TypeError(f"the {stage!r} handler must be a PyCapsule, got "
                        f"{type(capsule).__name__}")
    if "execute" not in fn:
      raise ValueError("a typed-FFI target needs an 'execute' handler")
    return
  if not _is_capsule(fn):
    raise TypeError(f"a custom-call target must be a PyCapsule holding a function pointer, got "
                    f"{type(fn).__name__}")


def _same(a: Any, b: Any) -> bool:
  if isinstance(a, dict) and isinstance(b, dict):
    return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
  return a is b or (_is_capsule(a) and _is_capsule(b) and _pointer(a) == _pointer(b))


def _pointer(capsule: Any) -> int:
  import ctypes  # pylint: disable=import-outside-toplevel
  get_name = ctypes.pythonapi.PyCapsule_GetName
  get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
  get = ctypes.pythonapi.PyCapsule_GetPointer
  get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
  return get(capsule, get_name(capsule))


def register_custom_call_target(name: str, fn: Any, platform: str = "cpu",
                                api_version: int = 0, traits: int = 0) -> None:
  """Registers `fn` as custom-call target `name` of `platform`. Registering the same
  function again is a no-op; another function under a taken name is an error."""
  if isinstance(name, bytes):
    name = name.decode("utf-8")
  if not isinstance(name, str) or not name:
    raise TypeError(f"a custom-call target name must be a non-empty str, got {name!r}")
  if isinstance(api_version, bool) or api_version not in _API_VERSIONS:
    raise ValueError(f"api_version must be 0 (untyped) or 1 (typed FFI), got {api_version!r}")
  _check_target(fn, api_version)
  plat = canonical_platform(platform)
  with _lock:
    known = _targets.setdefault(plat, {})
    if name in known:
      if _same(known[name][0], fn) and known[name][1] == api_version:
        return
      raise ValueError(f"custom-call target {name!r} is already registered for {plat} with "
                       "another function")
    known[name] = (fn, api_version, int(traits))
    handler = _handlers.get(plat)
  if handler is not None:
    handler(name, fn, api_version, int(traits))


def register_custom_call_handler(platform: str, handler: Callable) -> None:
  """Installs `handler(name, fn, api_version, traits)` for `platform` and calls it for
  the targets registered so far. A platform has one handler."""
  if not callable(handler):
    raise TypeError(f"a custom-call handler must be callable, got {type(handler).__name__}")
  plat = canonical_platform(platform)
  with _lock:
    if plat in _handlers:
      raise ValueError(f"platform {plat} already has a custom-call handler")
    _handlers[plat] = handler
    pending = list(_targets.get(plat, {}).items())
  for name, (fn, api_version, traits) in pending:
    # Targets registered earlier are not the caller's doing: a refusal warns.
    try:
      handler(name, fn, api_version, traits)
    except Exception as e:  # pylint: disable=broad-except
      warnings.warn(f"custom-call target {name!r} could not be given to the {plat} plugin: {e}",
                    RuntimeWarning, stacklevel=2)


def custom_call_targets(platform: str) -> dict[str, Any]:
  """name -> function of the targets registered for `platform`."""
  plat = canonical_platform(platform)
  with _lock:
    return {name: entry[0] for name, entry in _targets.get(plat, {}).items()}


# name -> the partitioning callbacks of a custom call (see register_custom_call_partitioner)
_partitioners: dict[str, dict[str, Any]] = {}


def register_custom_call_partitioner(name: str, prop_user_sharding: Callable,
                                     partition: Callable,
                                     infer_sharding_from_operands: Callable,
                                     can_side_effecting_have_replicated_sharding: bool = False,
                                     c_api: Any = None) -> None:
  """Records how a custom call `name` is partitioned over devices: callbacks that
  propagate a user's sharding, partition the call, and infer the result sharding from
  the operands'. A name has one partitioner.

  The records are what a partitioner consults; the plugins of this release partition
  programs without consulting them (see custom_call_partitioners)."""
  if isinstance(name, bytes):
    name = name.decode("utf-8")
  if not isinstance(name, str) or not name:
    raise TypeError(f"a custom-call name must be a non-empty str, got {name!r}")
  for what, fn in (("prop_user_sharding", prop_user_sharding), ("partition", partition),
                   ("infer_sharding_from_operands", infer_sharding_from_operands)):
    if not callable(fn):
      raise TypeError(f"{what} must be callable, got {type(fn).__name__}")
  with _lock:
    if name in _partitioners:
      raise ValueError(f"a partitioner for custom call {name!r} is already registered")
    _partitioners[name] = {
        "prop_user_sharding": prop_user_sharding, "partition": partition,
        "infer_sharding_from_operands": infer_sharding_from_operands,
        "can_side_effecting_have_replicated_sharding":
            bool(can_side_effecting_have_replicated_sharding),
        "c_api": c_api,
    }


def custom_call_partitioners() -> dict[str, dict[str, Any]]:
  """The registered partitioners, by custom-call name (a copy)."""
  with _lock:
    return {k: dict(v) for k, v in _partitioners.items()}
