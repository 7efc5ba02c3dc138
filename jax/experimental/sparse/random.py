"""Random sparse arrays."""

from jax._src.sparse.api import random_bcoo as random_bcoo
