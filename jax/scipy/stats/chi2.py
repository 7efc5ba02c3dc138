"""jax.scipy.stats.chi2: the chi2 distribution (SciPy's conventions)."""

from jax._src.scipy.stats.continuous import chi2_cdf as cdf
from jax._src.scipy.stats.continuous import chi2_logcdf as logcdf
from jax._src.scipy.stats.continuous import chi2_logpdf as logpdf
from jax._src.scipy.stats.continuous import chi2_logsf as logsf
from jax._src.scipy.stats.continuous import chi2_pdf as pdf
from jax._src.scipy.stats.continuous import chi2_sf as sf
