"""jax.scipy.stats.nbinom: the nbinom distribution (SciPy's conventions)."""

from jax._src.scipy.stats.discrete import nbinom_logpmf as logpmf
from jax._src.scipy.stats.discrete import nbinom_pmf as pmf
