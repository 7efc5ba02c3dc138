"""`jax.extend.backend` over the plugin registry in xla_bridge."""

from __future__ import annotations

import numpy as np

from jax._src import execution
from jax._src import xla_bridge
from jax._src.lib import xla_client
from jax._src.xla_bridge import backends as backends
from jax._src.xla_bridge import get_backend as get_backend


def get_default_device():
  """The device computations go to when none is given: the first of this process's on the default backend."""
  return get_backend().local_devices()[0]


def backend_xla_version(platform=None) -> int | None:
  """The XLA version number a backend reports, or None if it reports none."""
  version = getattr(get_backend(platform), "xla_version", None)
  return version() if callable(version) else version


# Caches holding values tied to backends (clients, devices): cleared with the backends.
_backend_caches: list = []


def register_backend_cache(cache, for_what: str) -> None:
  """`cache` (anything with cache_clear()) is emptied whenever the backends are cleared."""
  if not hasattr(cache, "cache_clear"):
    raise TypeError(f"register_backend_cache expects an object with cache_clear(), got "
                    f"{type(cache).__name__} (for {for_what})")
  _backend_caches.append(cache)


def clear_in_memory_compilation_cache() -> None:
  """Drop every compiled executable and trace held in memory (the disk cache stays)."""
  execution.clear_caches()


def clear_backends(_crash=None) -> None:
  """Forget every backend client (they are created again on next use), with the
  executables compiled for them and the caches registered with register_backend_cache."""
  clear_in_memory_compilation_cache()
  for cache in _backend_caches:
    cache.cache_clear()
  xla_bridge.forget_backends()


def register_backend_factory(name: str, factory, *, priority: int = 400,
                             fail_quietly: bool = False, experimental: bool = False,
                             make_topology=None, c_api=None) -> None:
  """Register a backend made by `factory()` (returning a client) under `name`: it is
  created with the other backends and chosen by priority or by JAX_PLATFORMS. A factory
  that fails is skipped with its reason recorded, as a plugin that fails to load is."""
  del fail_quietly, experimental, make_topology, c_api
  if not callable(factory):
    raise TypeError(f"register_backend_factory: factory must be callable, got {factory!r}")
  xla_bridge.add_registration(xla_bridge.PluginRegistration(
      name, int(priority), "", (name,), "", (0, 0), factory=factory))


def get_compile_options(num_replicas: int, num_partitions: int, device_assignment=None,
                        env_options_overrides=None, fdo_profile=None,
                        detailed_logging: bool = True, backend=None):
  """CompileOptions for `num_replicas` x `num_partitions` devices (device_assignment: an
  array of that shape of devices or device ids)."""
  del env_options_overrides, fdo_profile, detailed_logging, backend
  options = xla_client.CompileOptions()
  options.num_replicas, options.num_partitions = int(num_replicas), int(num_partitions)
  if device_assignment is not None:
    assignment = np.asarray(_device_ids(device_assignment), dtype=np.int64)
    if assignment.ndim == 1:
      assignment = assignment.reshape(-1, 1)
    if assignment.shape != (options.num_replicas, options.num_partitions):
      raise ValueError(f"device_assignment has shape {assignment.shape}; expected "
                       f"(num_replicas, num_partitions) = ({num_replicas}, {num_partitions})")
    options.device_assignment = assignment
  return options


def _device_ids(x):
  if isinstance(x, (list, tuple, np.ndarray)):
    return [_device_ids(v) for v in x]
  return int(getattr(x, "id", x))
