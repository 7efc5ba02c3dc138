"""jax.scipy: SciPy-compatible functions on jax arrays."""

from jax.scipy import special as special
from jax.scipy import linalg as linalg
from jax.scipy import stats as stats
