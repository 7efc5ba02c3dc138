"""Compressed-row and -column (CSR, CSC) sparse matrices."""

from jax._src.sparse.formats import CSC as CSC
from jax._src.sparse.formats import CSR as CSR
from jax._src.sparse.formats import csr_fromdense as csr_fromdense
from jax._src.sparse.formats import csr_fromdense_p as csr_fromdense_p
from jax._src.sparse.formats import csr_matmat as csr_matmat
from jax._src.sparse.formats import csr_matmat_p as csr_matmat_p
from jax._src.sparse.formats import csr_matvec as csr_matvec
from jax._src.sparse.formats import csr_matvec_p as csr_matvec_p
from jax._src.sparse.formats import csr_todense as csr_todense
from jax._src.sparse.formats import csr_todense_p as csr_todense_p

__all__ = ['CSC', 'CSR', 'csr_fromdense', 'csr_fromdense_p', 'csr_matmat', 'csr_matmat_p', 'csr_matvec', 'csr_matvec_p', 'csr_todense', 'csr_todense_p']
