"""Batched-coordinate (BCOO) sparse arrays."""

from jax._src.sparse.bcoo import BCOO as BCOO
from jax._src.sparse.bcoo import bcoo_broadcast_in_dim as bcoo_broadcast_in_dim
from jax._src.sparse.bcoo import bcoo_concatenate as bcoo_concatenate
from jax._src.sparse.bcoo import bcoo_conv_general_dilated as bcoo_conv_general_dilated
from jax._src.sparse.bcoo import bcoo_dot_general as bcoo_dot_general
from jax._src.sparse.bcoo import bcoo_dot_general_p as bcoo_dot_general_p
from jax._src.sparse.bcoo import bcoo_dot_general_sampled as bcoo_dot_general_sampled
from jax._src.sparse.bcoo import bcoo_dot_general_sampled_p as bcoo_dot_general_sampled_p
from jax._src.sparse.bcoo import bcoo_dynamic_slice as bcoo_dynamic_slice
from jax._src.sparse.bcoo import bcoo_extract as bcoo_extract
from jax._src.sparse.bcoo import bcoo_extract_p as bcoo_extract_p
from jax._src.sparse.bcoo import bcoo_fromdense as bcoo_fromdense
from jax._src.sparse.bcoo import bcoo_fromdense_p as bcoo_fromdense_p
from jax._src.sparse.bcoo import bcoo_gather as bcoo_gather
from jax._src.sparse.bcoo import bcoo_multiply_dense as bcoo_multiply_dense
from jax._src.sparse.bcoo import bcoo_multiply_sparse as bcoo_multiply_sparse
from jax._src.sparse.bcoo import bcoo_reduce_sum as bcoo_reduce_sum
from jax._src.sparse.bcoo import bcoo_reshape as bcoo_reshape
from jax._src.sparse.bcoo import bcoo_rev as bcoo_rev
from jax._src.sparse.bcoo import bcoo_slice as bcoo_slice
from jax._src.sparse.bcoo import bcoo_sort_indices as bcoo_sort_indices
from jax._src.sparse.bcoo import bcoo_sort_indices_p as bcoo_sort_indices_p
from jax._src.sparse.bcoo import bcoo_spdot_general_p as bcoo_spdot_general_p
from jax._src.sparse.bcoo import bcoo_squeeze as bcoo_squeeze
from jax._src.sparse.bcoo import bcoo_sum_duplicates as bcoo_sum_duplicates
from jax._src.sparse.bcoo import bcoo_sum_duplicates_p as bcoo_sum_duplicates_p
from jax._src.sparse.bcoo import bcoo_todense as bcoo_todense
from jax._src.sparse.bcoo import bcoo_todense_p as bcoo_todense_p
from jax._src.sparse.bcoo import bcoo_transpose as bcoo_transpose
from jax._src.sparse.bcoo import bcoo_transpose_p as bcoo_transpose_p
from jax._src.sparse.bcoo import bcoo_update_layout as bcoo_update_layout

__all__ = ['BCOO', 'bcoo_broadcast_in_dim', 'bcoo_concatenate', 'bcoo_conv_general_dilated', 'bcoo_dot_general', 'bcoo_dot_general_p', 'bcoo_dot_general_sampled', 'bcoo_dot_general_sampled_p', 'bcoo_dynamic_slice', 'bcoo_extract', 'bcoo_extract_p', 'bcoo_fromdense', 'bcoo_fromdense_p', 'bcoo_gather', 'bcoo_multiply_dense', 'bcoo_multiply_sparse', 'bcoo_reduce_sum', 'bcoo_reshape', 'bcoo_rev', 'bcoo_slice', 'bcoo_sort_indices', 'bcoo_sort_indices_p', 'bcoo_spdot_general_p', 'bcoo_squeeze', 'bcoo_sum_duplicates', 'bcoo_sum_duplicates_p', 'bcoo_todense', 'bcoo_todense_p', 'bcoo_transpose', 'bcoo_transpose_p', 'bcoo_update_layout']
