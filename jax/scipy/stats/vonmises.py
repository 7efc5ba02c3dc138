"""jax.scipy.stats.vonmises: the vonmises distribution (SciPy's conventions)."""

from jax._src.scipy.stats.continuous import vonmises_logpdf as logpdf
from jax._src.scipy.stats.continuous import vonmises_pdf as pdf
