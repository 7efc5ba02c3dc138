"""jax.scipy.stats.gennorm: the gennorm distribution (SciPy's conventions)."""

from jax._src.scipy.stats.continuous import gennorm_cdf as cdf
from jax._src.scipy.stats.continuous import gennorm_logpdf as logpdf
from jax._src.scipy.stats.continuous import gennorm_pdf as pdf
