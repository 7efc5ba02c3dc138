"""XLA-level helpers (`jax.interpreters.xla`)."""

from jax._src.dispatch import apply_primitive as apply_primitive
