"""jaxlib's version, stamped from jax/version.py when the wheel is built."""

__version__ = "@VERSION@"
_version = __version__
