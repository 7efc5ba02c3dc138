"""jax.numpy.fft: discrete Fourier transforms (NumPy's API)."""

from jax._src.numpy.fft import fft as fft
from jax._src.numpy.fft import ifft as ifft
from jax._src.numpy.fft import rfft as rfft
from jax._src.numpy.fft import irfft as irfft
from jax._src.numpy.fft import hfft as hfft
from jax._src.numpy.fft import ihfft as ihfft
from jax._src.numpy.fft import fft2 as fft2
from jax._src.numpy.fft import ifft2 as ifft2
from jax._src.numpy.fft import rfft2 as rfft2
from jax._src.numpy.fft import irfft2 as irfft2
from jax._src.numpy.fft import fftn as fftn
from jax._src.numpy.fft import ifftn as ifftn
from jax._src.numpy.fft import rfftn as rfftn
from jax._src.numpy.fft import irfftn as irfftn
from jax._src.numpy.fft import fftfreq as fftfreq
from jax._src.numpy.fft import rfftfreq as rfftfreq
from jax._src.numpy.fft import fftshift as fftshift
from jax._src.numpy.fft import ifftshift as ifftshift

from jax._src.numpy import arraylike_checks as _arraylike_checks  # noqa: E402
_arraylike_checks.install(globals())
del _arraylike_checks
