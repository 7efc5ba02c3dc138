"""jax.scipy.stats.multivariate_normal: the multivariate_normal distribution (SciPy's conventions)."""

from jax._src.scipy.stats.discrete import multivariate_normal_logpdf as logpdf
from jax._src.scipy.stats.discrete import multivariate_normal_pdf as pdf
