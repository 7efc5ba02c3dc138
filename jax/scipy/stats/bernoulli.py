"""jax.scipy.stats.bernoulli: the bernoulli distribution (SciPy's conventions)."""

from jax._src.scipy.stats.discrete import bernoulli_cdf as cdf
from jax._src.scipy.stats.discrete import bernoulli_logpmf as logpmf
from jax._src.scipy.stats.discrete import bernoulli_pmf as pmf
from jax._src.scipy.stats.discrete import bernoulli_ppf as ppf
