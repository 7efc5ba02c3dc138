"""jax.scipy.stats.truncnorm: the truncnorm distribution (SciPy's conventions)."""

from jax._src.scipy.stats.continuous import truncnorm_cdf as cdf
from jax._src.scipy.stats.continuous import truncnorm_logcdf as logcdf
from jax._src.scipy.stats.continuous import truncnorm_logpdf as logpdf
from jax._src.scipy.stats.continuous import truncnorm_logsf as logsf
from jax._src.scipy.stats.continuous import truncnorm_pdf as pdf
from jax._src.scipy.stats.continuous import truncnorm_sf as sf
