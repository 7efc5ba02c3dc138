"""jax.scipy.optimize: unconstrained minimisation."""

from jax._src.scipy.optimize import OptimizeResults as OptimizeResults
from jax._src.scipy.optimize import minimize as minimize
