"""Compressed-row (BCSR) sparse matrices."""

from jax._src.sparse.formats import BCSR as BCSR
from jax._src.sparse.formats import bcsr_broadcast_in_dim as bcsr_broadcast_in_dim
from jax._src.sparse.formats import bcsr_concatenate as bcsr_concatenate
from jax._src.sparse.formats import bcsr_dot_general as bcsr_dot_general
from jax._src.sparse.formats import bcsr_dot_general_p as bcsr_dot_general_p
from jax._src.sparse.formats import bcsr_extract as bcsr_extract
from jax._src.sparse.formats import bcsr_extract_p as bcsr_extract_p
from jax._src.sparse.formats import bcsr_fromdense as bcsr_fromdense
from jax._src.sparse.formats import bcsr_fromdense_p as bcsr_fromdense_p
from jax._src.sparse.formats import bcsr_sum_duplicates as bcsr_sum_duplicates
from jax._src.sparse.formats import bcsr_todense as bcsr_todense
from jax._src.sparse.formats import bcsr_todense_p as bcsr_todense_p

__all__ = ['BCSR', 'bcsr_broadcast_in_dim', 'bcsr_concatenate', 'bcsr_dot_general', 'bcsr_dot_general_p', 'bcsr_extract', 'bcsr_extract_p', 'bcsr_fromdense', 'bcsr_fromdense_p', 'bcsr_sum_duplicates', 'bcsr_todense', 'bcsr_todense_p']
