"""jax.scipy: SciPy-compatible functions on jax arrays."""

from jax.scipy import special as special
from jax.scipy import linalg as linalg
from jax.scipy import stats as stats
from jax.scipy import cluster as cluster
from jax.scipy import fft as fft
from jax.scipy import integrate as integrate
from jax.scipy import optimize as optimize
from jax.scipy import signal as signal
from jax.scipy import sparse as sparse
from jax.scipy import ndimage as ndimage
from jax.scipy import interpolate as interpolate
from jax.scipy import spatial as spatial
