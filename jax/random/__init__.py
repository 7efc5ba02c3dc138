"""jax.random: PRNG keys and samplers (threefry2x32, bit-identical to JAX)."""

from jax._src.random import PRNGKey as PRNGKey
from jax._src.random import key as key
from jax._src.random import key_data as key_data
from jax._src.random import wrap_key_data as wrap_key_data
from jax._src.random import split as split
from jax._src.random import fold_in as fold_in
from jax._src.random import bits as bits
from jax._src.random import uniform as uniform
from jax._src.random import normal as normal
from jax._src.random import truncated_normal as truncated_normal
from jax._src.random import bernoulli as bernoulli
from jax._src.random import rademacher as rademacher
from jax._src.random import randint as randint
from jax._src.random import exponential as exponential
from jax._src.random import gumbel as gumbel
from jax._src.random import laplace as laplace
from jax._src.random import logistic as logistic
from jax._src.random import cauchy as cauchy
from jax._src.random import categorical as categorical
from jax._src.prng import PRNGKeyArray as PRNGKeyArray
from jax._src.random import permutation as permutation
from jax._src.random import choice as choice
