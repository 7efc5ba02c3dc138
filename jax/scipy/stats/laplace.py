"""jax.scipy.stats.laplace: the laplace distribution (SciPy's conventions)."""

from jax._src.scipy.stats.continuous import laplace_cdf as cdf
from jax._src.scipy.stats.continuous import laplace_logpdf as logpdf
from jax._src.scipy.stats.continuous import laplace_pdf as pdf
