"""jax.lax.linalg: matrix decompositions and triangular solves."""

from jax._src.lax.linalg import cholesky as cholesky
from jax._src.lax.linalg import cholesky_p as cholesky_p
from jax._src.lax.linalg import eigh as eigh
from jax._src.lax.linalg import eigh_p as eigh_p
from jax._src.lax.linalg import lu as lu
from jax._src.lax.linalg import lu_p as lu_p
from jax._src.lax.linalg import lu_pivots_to_permutation as lu_pivots_to_permutation
from jax._src.lax.linalg import qr as qr
from jax._src.lax.linalg import qr_p as qr_p
from jax._src.lax.linalg import svd as svd
from jax._src.lax.linalg import svd_p as svd_p
from jax._src.lax.linalg import triangular_solve as triangular_solve
from jax._src.lax.linalg import triangular_solve_p as triangular_solve_p
