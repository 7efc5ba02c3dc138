"""Type annotations for JAX-accepting functions (`jax.typing`).

`ArrayLike` is what jax.numpy functions accept as an array argument: a jax Array,
a numpy array or scalar, or a Python scalar (not a list or tuple: those need an
explicit `jnp.asarray`). `DTypeLike` is what they accept for `dtype=`.
"""

from jax._src.typing import ArrayLike as ArrayLike
from jax._src.typing import DTypeLike as DTypeLike
