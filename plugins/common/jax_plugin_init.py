"""The @DIST@ plugin: @DESCRIPTION@.

Found by jax through the `jax_plugins` namespace package and the `jax_plugins`
entry point group. Importing this module loads nothing native; initialize()
registers the library with jax, which loads it when the backend is first used.
"""

import os as _os

__version__ = "@VERSION@"

# The manifest: what jax needs to decide about this plugin without loading it.
PLUGIN_NAME = "@PLUGIN@"
PLATFORM_NAMES = tuple("@PLATFORMS@".split(","))
C_API_VERSION = (@C_API_MAJOR@, @C_API_MINOR@)
PRIORITY = @PRIORITY@
DISTRIBUTION = "@DIST@"

_LIBRARY = "@LIBRARY@"


def library_path() -> str:
  return _os.path.join(_os.path.dirname(__file__), _LIBRARY)


def build_facts() -> dict:
  """Version facts compiled into the plugin's stable-ABI extension."""
  from . import _plugin_ext
  return {"plugin_version": _plugin_ext.plugin_version(),
          "c_api_version": tuple(_plugin_ext.c_api_version())}


def initialize() -> None:
  """Registers this plugin's library with jax (it is loaded on first use)."""
  facts = build_facts()
  if facts["plugin_version"] != __version__ or facts["c_api_version"] != C_API_VERSION:
    raise RuntimeError(
        f"{DISTRIBUTION} is inconsistently installed: its package says version "
        f"{__version__} / C API {C_API_VERSION}, its compiled extension says "
        f"{facts['plugin_version']} / C API {facts['c_api_version']}. Fix: "
        f"pip install --force-reinstall \"{DISTRIBUTION}=={__version__}\"")
  from jax._src import xla_bridge
  xla_bridge.register_plugin(PLUGIN_NAME, priority=PRIORITY, library_path=library_path(),
                             platform_names=PLATFORM_NAMES, version=__version__,
                             c_api_version=C_API_VERSION)
