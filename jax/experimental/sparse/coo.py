"""Coordinate-format (COO) sparse matrices."""

from jax._src.sparse.formats import COO as COO
from jax._src.sparse.formats import coo_fromdense as coo_fromdense
from jax._src.sparse.formats import coo_fromdense_p as coo_fromdense_p
from jax._src.sparse.formats import coo_matmat as coo_matmat
from jax._src.sparse.formats import coo_matmat_p as coo_matmat_p
from jax._src.sparse.formats import coo_matvec as coo_matvec
from jax._src.sparse.formats import coo_matvec_p as coo_matvec_p
from jax._src.sparse.formats import coo_todense as coo_todense
from jax._src.sparse.formats import coo_todense_p as coo_todense_p

__all__ = ['COO', 'coo_fromdense', 'coo_fromdense_p', 'coo_matmat', 'coo_matmat_p', 'coo_matvec', 'coo_matvec_p', 'coo_todense', 'coo_todense_p']
