"""jax.scipy.stats.binom: the binom distribution (SciPy's conventions)."""

from jax._src.scipy.stats.discrete import binom_logpmf as logpmf
from jax._src.scipy.stats.discrete import binom_pmf as pmf
