"""jax.scipy.stats.cauchy: the cauchy distribution (SciPy's conventions)."""

from jax._src.scipy.stats.continuous import cauchy_cdf as cdf
from jax._src.scipy.stats.continuous import cauchy_isf as isf
from jax._src.scipy.stats.continuous import cauchy_logcdf as logcdf
from jax._src.scipy.stats.continuous import cauchy_logpdf as logpdf
from jax._src.scipy.stats.continuous import cauchy_logsf as logsf
from jax._src.scipy.stats.continuous import cauchy_pdf as pdf
from jax._src.scipy.stats.continuous import cauchy_ppf as ppf
from jax._src.scipy.stats.continuous import cauchy_sf as sf
