"""jax.scipy.stats.norm: the norm distribution (SciPy's conventions)."""

from jax._src.scipy.stats.continuous import norm_cdf as cdf
from jax._src.scipy.stats.continuous import norm_isf as isf
from jax._src.scipy.stats.continuous import norm_logcdf as logcdf
from jax._src.scipy.stats.continuous import norm_logpdf as logpdf
from jax._src.scipy.stats.continuous import norm_logsf as logsf
from jax._src.scipy.stats.continuous import norm_pdf as pdf
from jax._src.scipy.stats.continuous import norm_ppf as ppf
from jax._src.scipy.stats.continuous import norm_sf as sf
