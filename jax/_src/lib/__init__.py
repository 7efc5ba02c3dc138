"""The only importer of jaxlib: checks the version rules, then exposes it.

Rules (checked when jax is imported, before anything native loads):
  minimum_jaxlib <= jaxlib <= jax; jaxlib._jax._version is the extension version
  that jax may test for finer-grained features.
"""

from __future__ import annotations

from jax import version as _jax_version


class JaxlibVersionError(ImportError):
  """The installed jaxlib does not satisfy jax's version rule.

  Cause: jax and jaxlib come from different releases. Fix: the message names the
  pip command that installs a matching jaxlib.
  """


def _parse(version: str) -> tuple[int, ...]:
  return _jax_version._version_as_tuple(version)


def check_jaxlib_version(jax_version: str, jaxlib_version: str, minimum_jaxlib_version: str) -> None:
  """Raises JaxlibVersionError unless minimum_jaxlib <= jaxlib <= jax."""
  jaxlib_t = _parse(jaxlib_version)
  if jaxlib_t < _parse(minimum_jaxlib_version):
    raise JaxlibVersionError(
        f"jax {jax_version} needs jaxlib >= {minimum_jaxlib_version}, but jaxlib "
        f"{jaxlib_version} is installed. Fix: pip install \"jaxlib=={jax_version}\"")
  if jaxlib_t > _parse(jax_version):
    raise JaxlibVersionError(
        f"jaxlib {jaxlib_version} is newer than jax {jax_version}; jax supports jaxlib from "
        f"{minimum_jaxlib_version} to {jax_version}. Fix: pip install \"jax=={jaxlib_version}\" "
        f"(or pip install \"jaxlib=={jax_version}\")")


try:
  import jaxlib as jaxlib  # noqa: E402
  from jaxlib import version as _jaxlib_version_module
except ImportError as e:
  raise JaxlibVersionError(
      f"jax requires jaxlib, which is not installed ({e}). Fix: pip install "
      f"\"jaxlib=={_jax_version._version}\"") from e

version_str: str = _jaxlib_version_module.__version__
check_jaxlib_version(_jax_version._version, version_str, _jax_version._minimum_jaxlib_version)
version: tuple[int, ...] = _parse(version_str)

from jaxlib import _jax as _jax  # noqa: E402
from jaxlib import plugin_support as plugin_support  # noqa: E402
from jaxlib import xla_client as xla_client  # noqa: E402

# The integer extension version of jaxlib._jax, for feature gates in jax.
jaxlib_extension_version: int = _jax._version

# The oldest extension this jax runs on: 5 brought the per-thread staging flag
# and x64 flag of the jit fast path (jit.set_thread_staging, jit.set_x64); 6
# compile-only topologies (make_topology, make_compile_only_client).
_minimum_extension_version = 6
if jaxlib_extension_version < _minimum_extension_version:
  raise JaxlibVersionError(
      f"jax {_jax_version._version} needs the jaxlib extension version "
      f">= {_minimum_extension_version}, but the installed jaxlib {version_str} has "
      f"{jaxlib_extension_version}. Fix: pip install --force-reinstall \"jaxlib=={_jax_version._version}\"")
