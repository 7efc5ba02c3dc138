"""jax.scipy.stats.dirichlet: the dirichlet distribution (SciPy's conventions)."""

from jax._src.scipy.stats.discrete import dirichlet_logpdf as logpdf
from jax._src.scipy.stats.discrete import dirichlet_pdf as pdf
