"""jax.scipy.stats.poisson: the poisson distribution (SciPy's conventions)."""

from jax._src.scipy.stats.discrete import poisson_cdf as cdf
from jax._src.scipy.stats.discrete import poisson_entropy as entropy
from jax._src.scipy.stats.discrete import poisson_logpmf as logpmf
from jax._src.scipy.stats.discrete import poisson_pmf as pmf
