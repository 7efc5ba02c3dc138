"""`python -m jax.tools.env_info`: what is installed, what loaded, and why not.

Reads versions from the installed packages, discovers plugins the same way jax
does, tries to initialise every backend, and prints for each plugin where it was
found, its version and C API version, whether it loaded, and if not the reason
and the fix.
"""

from __future__ import annotations

import platform
import sys
import warnings


def environment_info() -> str:
  lines: list[str] = []
  add = lines.append
  import numpy
  from jax import version as jax_version  # with the jaxlib check below, at call time
  add(f"jax:          {jax_version.__version__}")
  try:
    from jax._src import lib  # jaxlib may fail to import: reported, not raised
    add(f"jaxlib:       {lib.version_str} (extension version {lib.jaxlib_extension_version}, "
        f"C API {lib._jax.pjrt_c_api_major}.{lib._jax.pjrt_c_api_minor})")
  except ImportError as e:
    add(f"jaxlib:       NOT USABLE: {e}")
    lib = None
  add(f"numpy:        {numpy.__version__}")
  add(f"python:       {sys.version.split()[0]} ({sys.executable})")
  add(f"platform:     {platform.platform()}")
  if lib is None:
    return "\n".join(lines)

  from jax._src import xla_bridge  # only when jaxlib is there: it finds the backends
  error = None
  with warnings.catch_warnings(record=True):
    warnings.simplefilter("always")
    try:
      xla_bridge.backends()
    except Exception as e:  # reported below, with the per-plugin reasons
      error = e
  report = xla_bridge.discovery_report()
  add("")
  add("plugins:")
  if not report["discovered"]:
    add("  none found (pip install jax installs the CPU plugin, jaxlib-cpu)")
  for entry in report["discovered"]:
    name = entry["module"].rsplit(".", 1)[-1].removeprefix("xla_")
    reg = report["registered"].get(name)
    add(f"  {entry['module']}  (found as {entry['source']})")
    if entry.get("file"):
      add(f"      file:        {entry['file']}")
    if entry.get("version"):
      add(f"      version:     {entry['version']}")
    if reg:
      add(f"      C API:       {reg['c_api_version'][0]}.{reg['c_api_version'][1]}")
      add(f"      platforms:   {', '.join(reg['platform_names'])}  (priority {reg['priority']})")
      add(f"      library:     {reg['library_path']}")
    if name in report["backends"]:
      add("      status:      loaded")
    elif name in report["errors"]:
      add(f"      status:      NOT loaded: {report['errors'][name]}")
    else:
      add(f"      status:      {entry.get('status', 'not loaded')}")
  add("")
  if error is not None:
    add(f"default backend: NONE: {error}")
  else:
    backend = xla_bridge.get_backend()
    add(f"default backend: {backend.platform} ({backend.platform_version})")
    add(f"devices:         {backend.devices()}")
  return "\n".join(lines)


def print_environment_info(return_string: bool = False):
  text = environment_info()
  if return_string:
    return text
  print(text)


if __name__ == "__main__":
  print_environment_info()
