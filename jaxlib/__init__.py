"""jaxlib: the native core of jax.

It loads hardware plugins (the jaxlib-cpu, jaxlib-cuda12, ... wheels) by path
and drives them only through their C API. It contains no compiler.
"""

from jaxlib.version import __version__ as __version__
from jaxlib.version import _version as _version
