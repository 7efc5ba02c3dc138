"""`jax.extend.backend` over the plugin registry in xla_bridge."""

from __future__ import annotations

from jax._src.xla_bridge import backends as backends
from jax._src.xla_bridge import get_backend as get_backend


def get_default_device():
  """The device computations go to when none is given: the first of the default backend."""
  return get_backend().devices()[0]


def backend_xla_version(platform=None) -> int | None:
  """The XLA version number a backend reports, or None if it reports none."""
  version = getattr(get_backend(platform), "xla_version", None)
  return version() if callable(version) else version
