"""jax.scipy.stats.geom: the geom distribution (SciPy's conventions)."""

from jax._src.scipy.stats.discrete import geom_logpmf as logpmf
from jax._src.scipy.stats.discrete import geom_pmf as pmf
