"""jax.scipy.linalg: SciPy's linear algebra on jax arrays."""

from jax._src.scipy.linalg import cho_factor as cho_factor
from jax._src.scipy.linalg import cho_solve as cho_solve
from jax._src.scipy.linalg import cholesky as cholesky
from jax._src.scipy.linalg import det as det
from jax._src.scipy.linalg import eigh as eigh
from jax._src.scipy.linalg import inv as inv
from jax._src.scipy.linalg import lu as lu
from jax._src.scipy.linalg import lu_factor as lu_factor
from jax._src.scipy.linalg import lu_solve as lu_solve
from jax._src.scipy.linalg import qr as qr
from jax._src.scipy.linalg import solve as solve
from jax._src.scipy.linalg import solve_triangular as solve_triangular
from jax._src.scipy.linalg import svd as svd
