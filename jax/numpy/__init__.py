"""jax.numpy: the NumPy API on jax arrays."""

# The names live in the numpy layer, where jax's own libraries import them from.
from jax._src.numpy.namespace import *  # noqa: F401,F403
from jax.numpy import fft as fft
from jax.numpy import linalg as linalg
