"""jax.scipy.stats.gumbel_l: the gumbel_l distribution (SciPy's conventions)."""

from jax._src.scipy.stats.continuous import gumbel_l_cdf as cdf
from jax._src.scipy.stats.continuous import gumbel_l_logcdf as logcdf
from jax._src.scipy.stats.continuous import gumbel_l_logpdf as logpdf
from jax._src.scipy.stats.continuous import gumbel_l_logsf as logsf
from jax._src.scipy.stats.continuous import gumbel_l_pdf as pdf
from jax._src.scipy.stats.continuous import gumbel_l_ppf as ppf
from jax._src.scipy.stats.continuous import gumbel_l_sf as sf
