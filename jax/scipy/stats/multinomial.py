"""jax.scipy.stats.multinomial: the multinomial distribution (SciPy's conventions)."""

from jax._src.scipy.stats.discrete import multinomial_logpmf as logpmf
from jax._src.scipy.stats.discrete import multinomial_pmf as pmf
