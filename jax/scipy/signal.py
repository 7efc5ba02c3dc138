"""jax.scipy.signal: convolution, correlation and detrending."""

from jax._src.scipy.signal import convolve as convolve
from jax._src.scipy.signal import convolve2d as convolve2d
from jax._src.scipy.signal import correlate as correlate
from jax._src.scipy.signal import correlate2d as correlate2d
from jax._src.scipy.signal import detrend as detrend
from jax._src.scipy.signal import fftconvolve as fftconvolve
from jax._src.scipy.spectral import csd as csd
from jax._src.scipy.spectral import stft as stft
from jax._src.scipy.spectral import welch as welch
from jax._src.scipy.spectral import istft as istft
