"""jax.scipy.stats.pareto: the pareto distribution (SciPy's conventions)."""

from jax._src.scipy.stats.continuous import pareto_cdf as cdf
from jax._src.scipy.stats.continuous import pareto_logcdf as logcdf
from jax._src.scipy.stats.continuous import pareto_logpdf as logpdf
from jax._src.scipy.stats.continuous import pareto_logsf as logsf
from jax._src.scipy.stats.continuous import pareto_pdf as pdf
from jax._src.scipy.stats.continuous import pareto_ppf as ppf
from jax._src.scipy.stats.continuous import pareto_sf as sf
