"""jax.scipy.stats.wrapcauchy: the wrapcauchy distribution (SciPy's conventions)."""

from jax._src.scipy.stats.continuous import wrapcauchy_logpdf as logpdf
from jax._src.scipy.stats.continuous import wrapcauchy_pdf as pdf
