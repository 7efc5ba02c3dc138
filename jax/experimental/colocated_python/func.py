"""Colocated functions (`jax.experimental.colocated_python.func`)."""

from jax._src.colocated_python import ColocatedFunction as ColocatedFunction
