"""jax.scipy.stats.gamma: the gamma distribution (SciPy's conventions)."""

from jax._src.scipy.stats.continuous import gamma_cdf as cdf
from jax._src.scipy.stats.continuous import gamma_logcdf as logcdf
from jax._src.scipy.stats.continuous import gamma_logpdf as logpdf
from jax._src.scipy.stats.continuous import gamma_logsf as logsf
from jax._src.scipy.stats.continuous import gamma_pdf as pdf
from jax._src.scipy.stats.continuous import gamma_sf as sf
