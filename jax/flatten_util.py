"""Flattening a pytree of arrays into one vector (`jax.flatten_util`)."""

from jax._src.flatten_util import ravel_pytree as ravel_pytree
