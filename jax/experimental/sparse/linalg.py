"""Linear algebra on sparse matrices."""

from jax._src.sparse.api import spsolve as spsolve
