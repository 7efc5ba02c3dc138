"""Differentiation with respect to sparse arguments."""

from jax._src.sparse.ad import grad as grad
from jax._src.sparse.ad import jacfwd as jacfwd
from jax._src.sparse.ad import jacobian as jacobian
from jax._src.sparse.ad import jacrev as jacrev
from jax._src.sparse.ad import value_and_grad as value_and_grad
