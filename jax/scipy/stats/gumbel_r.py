"""jax.scipy.stats.gumbel_r: the gumbel_r distribution (SciPy's conventions)."""

from jax._src.scipy.stats.continuous import gumbel_r_cdf as cdf
from jax._src.scipy.stats.continuous import gumbel_r_logcdf as logcdf
from jax._src.scipy.stats.continuous import gumbel_r_logpdf as logpdf
from jax._src.scipy.stats.continuous import gumbel_r_logsf as logsf
from jax._src.scipy.stats.continuous import gumbel_r_pdf as pdf
from jax._src.scipy.stats.continuous import gumbel_r_ppf as ppf
from jax._src.scipy.stats.continuous import gumbel_r_sf as sf
