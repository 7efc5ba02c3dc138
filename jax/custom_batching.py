"""Functions with user-defined vmap behaviour (`jax.custom_batching`)."""

from jax._src.custom_batching import custom_vmap as custom_vmap
from jax._src.custom_batching import sequential_vmap as sequential_vmap
