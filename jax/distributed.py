"""Multi-process programs: `jax.distributed.initialize()`."""

from jax._src.distributed import initialize as initialize
from jax._src.distributed import is_initialized as is_initialized
from jax._src.distributed import shutdown as shutdown
