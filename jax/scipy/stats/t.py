"""jax.scipy.stats.t: the t distribution (SciPy's conventions)."""

from jax._src.scipy.stats.continuous import t_logpdf as logpdf
from jax._src.scipy.stats.continuous import t_pdf as pdf
