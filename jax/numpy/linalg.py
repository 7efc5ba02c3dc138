"""jax.numpy.linalg: linear algebra (NumPy's and the array API's)."""

from jax._src.numpy.linalg import cholesky as cholesky
from jax._src.numpy.linalg import cond as cond
from jax._src.numpy.linalg import cross as cross
from jax._src.numpy.linalg import det as det
from jax._src.numpy.linalg import diagonal as diagonal
from jax._src.numpy.linalg import eig as eig
from jax._src.numpy.linalg import eigh as eigh
from jax._src.numpy.linalg import eigvals as eigvals
from jax._src.numpy.linalg import eigvalsh as eigvalsh
from jax._src.numpy.linalg import inv as inv
from jax._src.numpy.linalg import lstsq as lstsq
from jax._src.numpy.linalg import matmul as matmul
from jax._src.numpy.linalg import matrix_norm as matrix_norm
from jax._src.numpy.linalg import matrix_power as matrix_power
from jax._src.numpy.linalg import matrix_rank as matrix_rank
from jax._src.numpy.linalg import matrix_transpose as matrix_transpose
from jax._src.numpy.linalg import multi_dot as multi_dot
from jax._src.numpy.linalg import norm as norm
from jax._src.numpy.linalg import outer as outer
from jax._src.numpy.linalg import pinv as pinv
from jax._src.numpy.linalg import qr as qr
from jax._src.numpy.linalg import slogdet as slogdet
from jax._src.numpy.linalg import solve as solve
from jax._src.numpy.linalg import svd as svd
from jax._src.numpy.linalg import svdvals as svdvals
from jax._src.numpy.linalg import tensordot as tensordot
from jax._src.numpy.linalg import tensorinv as tensorinv
from jax._src.numpy.linalg import tensorsolve as tensorsolve
from jax._src.numpy.linalg import trace as trace
from jax._src.numpy.linalg import vecdot as vecdot
from jax._src.numpy.linalg import vector_norm as vector_norm

from jax._src.numpy import arraylike_checks as _arraylike_checks  # noqa: E402
_arraylike_checks.install(globals())
del _arraylike_checks
