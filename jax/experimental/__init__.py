"""Experimental APIs (kept for code written against their original locations)."""
from jax._src.io_callback import io_callback as io_callback
