"""jax.scipy.stats.betabinom: the betabinom distribution (SciPy's conventions)."""

from jax._src.scipy.stats.discrete import betabinom_logpmf as logpmf
from jax._src.scipy.stats.discrete import betabinom_pmf as pmf
