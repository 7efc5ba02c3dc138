"""jax.scipy.cluster: vector quantisation."""

from jax.scipy.cluster import vq as vq
