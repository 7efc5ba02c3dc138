"""jax.scipy.stats.logistic: the logistic distribution (SciPy's conventions)."""

from jax._src.scipy.stats.continuous import logistic_cdf as cdf
from jax._src.scipy.stats.continuous import logistic_isf as isf
from jax._src.scipy.stats.continuous import logistic_logpdf as logpdf
from jax._src.scipy.stats.continuous import logistic_pdf as pdf
from jax._src.scipy.stats.continuous import logistic_ppf as ppf
from jax._src.scipy.stats.continuous import logistic_sf as sf
