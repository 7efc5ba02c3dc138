"""jax.scipy.sparse: iterative solvers."""

from jax.scipy.sparse import linalg as linalg
