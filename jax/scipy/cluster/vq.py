"""jax.scipy.cluster.vq: assign observations to the nearest code."""

from jax._src.scipy.misc_modules import vq as vq
