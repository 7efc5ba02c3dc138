"""PRNG implementation pieces (`jax.extend.random`)."""

from jax._src.prng import threefry2x32_p as threefry2x32_p
from jax._src.prng_impls import PRNGImpl as PRNGImpl
from jax._src.prng_impls import define_prng_impl as define_prng_impl
from jax._src.prng_impls import random_seed as random_seed
from jax._src.prng_impls import rbg_prng_impl as rbg_prng_impl
from jax._src.prng_impls import seed_with_impl as seed_with_impl
from jax._src.prng_impls import threefry_2x32 as threefry_2x32
from jax._src.prng_impls import threefry_prng_impl as threefry_prng_impl
from jax._src.prng_impls import unsafe_rbg_prng_impl as unsafe_rbg_prng_impl
