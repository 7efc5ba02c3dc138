"""jax.scipy.stats.uniform: the uniform distribution (SciPy's conventions)."""

from jax._src.scipy.stats.continuous import uniform_cdf as cdf
from jax._src.scipy.stats.continuous import uniform_logpdf as logpdf
from jax._src.scipy.stats.continuous import uniform_pdf as pdf
from jax._src.scipy.stats.continuous import uniform_ppf as ppf
