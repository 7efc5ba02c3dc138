"""Helpers that transformations share for their arguments (`jax.api_util`)."""

from jax._src.api_util import debug_info as debug_info
from jax._src.api_util import flatten_fun as flatten_fun
