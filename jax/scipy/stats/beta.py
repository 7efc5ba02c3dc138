"""jax.scipy.stats.beta: the beta distribution (SciPy's conventions)."""

from jax._src.scipy.stats.continuous import beta_cdf as cdf
from jax._src.scipy.stats.continuous import beta_logcdf as logcdf
from jax._src.scipy.stats.continuous import beta_logpdf as logpdf
from jax._src.scipy.stats.continuous import beta_logsf as logsf
from jax._src.scipy.stats.continuous import beta_pdf as pdf
from jax._src.scipy.stats.continuous import beta_sf as sf
