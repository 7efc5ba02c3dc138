"""XLA-level helpers (`jax.interpreters.xla`)."""

from jax._src.execution import apply_primitive as apply_primitive
from jax._src.execution import canonicalize_dtype_handlers as canonicalize_dtype_handlers
