"""Experimental APIs (JAX 0.10.2 moved enable_x64 to jax.enable_x64)."""

from jax._src.io_callback import io_callback as io_callback
from jax.experimental import compilation_cache as compilation_cache
