"""Sparse arrays (`jax.experimental.sparse`): BCOO, the batched-COO format."""

from jax._src.sparse import BCOO as BCOO
from jax._src.sparse import JAXSparse as JAXSparse
from jax._src.sparse import todense as todense
