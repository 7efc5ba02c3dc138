"""jax.scipy.spatial: spatial transformations."""

from jax.scipy.spatial import transform as transform
