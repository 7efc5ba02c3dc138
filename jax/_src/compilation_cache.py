"""The persistent compilation cache: serialized executables in a folder.

Every compile of the jax frontend (jit, eager primitives, pmap, shard_map)
goes through `compile_or_get_cached`. With ``jax_compilation_cache_dir`` set,
an executable that took at least ``jax_persistent_cache_min_compile_time_secs``
to compile is serialized by its plugin and written under a key that covers
everything the machine code depends on: the HLO text, the compile options, the
number of devices, the plugin's platform and version, and the jax and jaxlib
versions. A later process (or a later compile in this one) loads it instead of
compiling. An entry the plugin refuses to load (corrupted, or written for
another CPU) is recompiled and replaced, with a warning.
"""

from __future__ import annotations

import os
import time
import warnings
from typing import Any, Sequence

from jax import version
from jax._src import compiler
from jax._src.config import config


def _debug(message: str, *args) -> None:
  # logging is imported only when the cache is in use, to keep `import jax` fast.
  import logging
  logging.getLogger(__name__).debug(message, *args)


def set_cache_dir(path: str | os.PathLike) -> None:
  """Sets the cache folder (like ``jax_compilation_cache_dir``)."""
  config.update("jax_compilation_cache_dir", os.fspath(path))


def reset_cache() -> None:
  """Forgets the cache folder; compiles are not cached until one is set again."""
  config.update("jax_compilation_cache_dir", None)


def is_cache_used() -> bool:
  return bool(config.jax_enable_compilation_cache and config.jax_compilation_cache_dir)


def _options_key(options: Any) -> str:
  return (f"replicas={getattr(options, 'num_replicas', 1)},"
          f"partitions={getattr(options, 'num_partitions', 1)}")


def cache_key(client, hlo_text: str, num_devices: int, options: Any = None) -> str:
  """The file name of an executable's cache entry."""
  import hashlib
  import jaxlib
  h = hashlib.sha256()
  for part in (hlo_text, _options_key(options), str(num_devices), client.platform,
               client.platform_version, version.__version__, jaxlib.__version__):
    h.update(part.encode())
    h.update(b"\0")
  return h.hexdigest()


def _module_name(hlo_text: str) -> str:
  first = hlo_text.split(None, 2)
  return first[1].rstrip(",") if len(first) > 1 and first[0] == "HloModule" else "module"


def compile_or_get_cached(client, hlo_text: str, devices: Sequence, options: Any = None):
  """`client.compile_and_load(hlo_text, devices[, options])`, through the cache."""
  def compile():
    # Looked up at call time: a library may have replaced it (see compiler.py).
    return compiler.backend_compile_and_load(client, hlo_text, devices, options)

  # Host callbacks are numbered per process in the HLO text: never reuse those.
  # A compile-only client (a topology's) cannot load what the cache holds.
  if (not is_cache_used() or _uses_host_callbacks(hlo_text)
      or getattr(client, "is_compile_only", False)):
    return compile()
  folder = config.jax_compilation_cache_dir
  name = _module_name(hlo_text)
  path = os.path.join(folder, f"{name}-{cache_key(client, hlo_text, len(devices), options)}")
  loaded = _load(client, path, devices, name)
  if loaded is not None:
    return loaded
  start = time.perf_counter()
  loaded = compile()
  elapsed = time.perf_counter() - start
  if elapsed >= config.jax_persistent_cache_min_compile_time_secs:
    _store(loaded, path, name)
  else:
    _debug("not caching %s: compiled in %.3fs, below "
                 "jax_persistent_cache_min_compile_time_secs", name, elapsed)
  return loaded


# Custom-call targets whose programs must never be cached (host callbacks are numbered
# per process); the modules defining them, in layers above, register them here.
_uncacheable_targets: set[str] = set()


def register_uncacheable_target(target: str) -> None:
  _uncacheable_targets.add(target)


def _uses_host_callbacks(hlo_text: str) -> bool:
  return any(t in hlo_text for t in _uncacheable_targets)


def _load(client, path: str, devices, name: str):
  try:
    with open(path, "rb") as f:
      data = f.read()
  except FileNotFoundError:
    _debug("persistent compilation cache miss for %s", name)
    return None
  except OSError as e:
    warnings.warn(f"cannot read the compilation cache entry {path}: {e}", stacklevel=3)
    return None
  try:
    loaded = client.deserialize_executable(data, list(devices))
  except Exception as e:  # the plugin refused the bytes: recompile and replace them
    warnings.warn(f"the compilation cache entry {path} cannot be loaded ({e}); "
                  "recompiling and replacing it", stacklevel=3)
    return None
  _debug("persistent compilation cache hit for %s", name)
  return loaded


def _store(loaded, path: str, name: str) -> None:
  try:
    data = loaded.serialize()
  except Exception as e:  # a backend that cannot serialize: nothing to cache
    _debug("not caching %s: %s", name, e)
    return
  if len(data) < config.jax_persistent_cache_min_entry_size_bytes:
    _debug("not caching %s: %d bytes, below jax_persistent_cache_min_entry_size_bytes",
                 name, len(data))
    return
  import tempfile
  folder = os.path.dirname(path)
  try:
    os.makedirs(folder, exist_ok=True)
    # Written beside the entry and renamed over it, so readers never see half a file.
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
    with os.fdopen(fd, "wb") as f:
      f.write(data)
    os.replace(tmp, path)
  except OSError as e:
    warnings.warn(f"cannot write the compilation cache entry {path}: {e}", stacklevel=3)
    return
  _debug("wrote %s to the persistent compilation cache (%d bytes)", name, len(data))
