"""PRNG implementation pieces (`jax.extend.random`)."""

from jax._src.prng import threefry2x32 as threefry_2x32
from jax._src.prng import threefry2x32_p as threefry2x32_p
