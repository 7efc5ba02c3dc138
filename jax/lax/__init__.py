"""jax.lax: the primitive operations."""

# The names live in the lax layer, where jax's own libraries import them from.
from jax._src.lax.namespace import *  # noqa: F401,F403
from jax.lax import linalg as linalg

# Every lax primitive under its `<name>_p` name, as libraries that register rules expect.
from jax._src.extend_core import collect_primitives as _collect_primitives  # noqa: E402

globals().update({k: v for k, v in _collect_primitives().items() if k not in globals()})
del _collect_primitives
