"""jax.scipy.fft: SciPy's discrete cosine transforms on jax arrays."""

from jax._src.scipy.fft import dct as dct
from jax._src.scipy.fft import dctn as dctn
from jax._src.scipy.fft import idct as idct
from jax._src.scipy.fft import idctn as idctn
