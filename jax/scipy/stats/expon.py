"""jax.scipy.stats.expon: the expon distribution (SciPy's conventions)."""

from jax._src.scipy.stats.continuous import expon_cdf as cdf
from jax._src.scipy.stats.continuous import expon_logcdf as logcdf
from jax._src.scipy.stats.continuous import expon_logpdf as logpdf
from jax._src.scipy.stats.continuous import expon_logsf as logsf
from jax._src.scipy.stats.continuous import expon_pdf as pdf
from jax._src.scipy.stats.continuous import expon_ppf as ppf
from jax._src.scipy.stats.continuous import expon_sf as sf
