"""Running dense code on sparse arrays (sparsify)."""

from jax._src.sparse.transform import SparseTracer as SparseTracer
from jax._src.sparse.transform import sparsify as sparsify
from jax._src.sparse.transform import sparse_rules as sparse_rules
