"""Experimental APIs (kept for code written against their original locations)."""

from jax._src.config import enable_x64_context as enable_x64
from jax._src.config import disable_x64 as disable_x64
from jax._src.io_callback import io_callback as io_callback
from jax.experimental import compilation_cache as compilation_cache
