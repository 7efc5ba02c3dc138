"""Sparse constructors and conversions."""

from jax._src.sparse.api import empty as empty
from jax._src.sparse.api import eye as eye
from jax._src.sparse.api import todense as todense
from jax._src.sparse.api import todense_p as todense_p
