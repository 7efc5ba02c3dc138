"""jax.scipy.sparse.linalg: Krylov solvers for matrices or linear functions."""

from jax._src.scipy.sparse_linalg import bicgstab as bicgstab
from jax._src.scipy.sparse_linalg import cg as cg
from jax._src.scipy.sparse_linalg import gmres as gmres
