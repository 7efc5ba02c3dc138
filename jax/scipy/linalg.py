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

from jax._src.scipy.special_matrices import block_diag as block_diag
from jax._src.scipy.special_matrices import circulant as circulant
from jax._src.scipy.special_matrices import companion as companion
from jax._src.scipy.special_matrices import convolution_matrix as convolution_matrix
from jax._src.scipy.special_matrices import dft as dft
from jax._src.scipy.special_matrices import fiedler as fiedler
from jax._src.scipy.special_matrices import fiedler_companion as fiedler_companion
from jax._src.scipy.special_matrices import hadamard as hadamard
from jax._src.scipy.special_matrices import hankel as hankel
from jax._src.scipy.special_matrices import helmert as helmert
from jax._src.scipy.special_matrices import hilbert as hilbert
from jax._src.scipy.special_matrices import invhilbert as invhilbert
from jax._src.scipy.special_matrices import invpascal as invpascal
from jax._src.scipy.special_matrices import leslie as leslie
from jax._src.scipy.special_matrices import pascal as pascal
from jax._src.scipy.special_matrices import toeplitz as toeplitz
from jax._src.scipy.matfuncs import eigh_tridiagonal as eigh_tridiagonal
from jax._src.scipy.matfuncs import expm as expm
from jax._src.scipy.matfuncs import expm_frechet as expm_frechet
from jax._src.scipy.matfuncs import polar as polar
from jax._src.scipy.matfuncs import qr_multiply as qr_multiply
from jax._src.scipy.matfuncs import solve_sylvester as solve_sylvester
