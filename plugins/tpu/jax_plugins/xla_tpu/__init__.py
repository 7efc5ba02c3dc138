"""The jaxlib-tpu plugin: Google's TPU compiler and runtime (the `libtpu` package).

This package ships no native code. It finds the user's libtpu (the `libtpu`
package's `libtpu.so`, or the file TPU_LIBRARY_PATH names), sets the TPU_*
variables libtpu reads for a single host, and registers libtpu with jax as the
PJRT plugin "tpu". libtpu is Google's, under Google's terms: it is loaded from
the user's installation, never shipped here.

Without TPU chips, creating the TPU client fails with libtpu's own reason and
jax falls back to the next backend with a warning; compile-only topologies
(`jax.experimental.topologies.get_topology_desc("v5e:2x2", "tpu")`) still work.
"""

import importlib.util as _importlib_util
import os as _os

__version__ = "@VERSION@"

PLUGIN_NAME = "tpu"
PRIORITY = 400
DISTRIBUTION = "jaxlib-tpu"

# What libtpu reads to place this process in a slice. Set (unless the user set
# any of them, or TPU_SKIP_MDS_QUERY) for one host, so that libtpu never asks a
# cloud metadata server, which outside a Cloud TPU VM costs minutes of retries.
SINGLE_HOST_ENVIRONMENT = {
    "TPU_SKIP_MDS_QUERY": "1",
    "TPU_WORKER_ID": "0",
    "TPU_WORKER_HOSTNAMES": "localhost",
    "TPU_HOST_BOUNDS": "1,1,1",
}


class LibtpuNotFoundError(RuntimeError):
  """libtpu is not installed (or TPU_LIBRARY_PATH names no file). Fix: pip install
  libtpu (Python 3.11 or newer), or set TPU_LIBRARY_PATH to a libtpu.so."""


def library_path() -> str:
  """The libtpu.so to load: TPU_LIBRARY_PATH, else the installed `libtpu` package's.
  Raises LibtpuNotFoundError saying what to install."""
  path = _os.environ.get("TPU_LIBRARY_PATH")
  if path:
    if not _os.path.isfile(path):
      raise LibtpuNotFoundError(f"TPU_LIBRARY_PATH={path} names no file. Fix: point it at a "
                                "libtpu.so, or unset it to use the libtpu package")
    return path
  # Found without importing the package: its __init__ is not needed to load it.
  spec = _importlib_util.find_spec("libtpu")
  for folder in (spec.submodule_search_locations or []) if spec is not None else []:
    candidate = _os.path.join(folder, "libtpu.so")
    if _os.path.isfile(candidate):
      return candidate
  raise LibtpuNotFoundError(
      "libtpu is not installed: the TPU plugin runs Google's libtpu, which jaxlib-tpu does "
      "not ship. Fix: pip install libtpu (Python 3.11 or newer), or set TPU_LIBRARY_PATH "
      "to a libtpu.so")


def configure_environment(environ=_os.environ) -> dict:
  """Sets SINGLE_HOST_ENVIRONMENT in `environ` unless the user configured libtpu's
  slice (any of those variables set); returns what it set."""
  if any(name in environ for name in SINGLE_HOST_ENVIRONMENT):
    return {}
  environ.update(SINGLE_HOST_ENVIRONMENT)
  return dict(SINGLE_HOST_ENVIRONMENT)


def initialize() -> None:
  """Finds libtpu and registers it with jax (which loads it and checks its PJRT
  C API version now; the TPU client is made when the backend is first used)."""
  # jax imports this module while it discovers plugins: importing jax at this
  # module's top would be circular, and importing it must load nothing native.
  from jax._src import lib
  lib.plugin_support.check_plugin_version(PLUGIN_NAME, __version__, lib.version_str)
  path = library_path()
  configure_environment()
  from jax._src import xla_bridge  # (late for the same reason)
  xla_bridge.register_plugin(PLUGIN_NAME, priority=PRIORITY, library_path=path)
