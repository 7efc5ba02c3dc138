"""Adaptive ODE integration (`jax.experimental.ode.odeint`) and its step helpers."""

from jax._src.ode import abs2 as abs2
from jax._src.ode import fit_4th_order_polynomial as fit_4th_order_polynomial
from jax._src.ode import initial_step_size as initial_step_size
from jax._src.ode import interp_fit_dopri as interp_fit_dopri
from jax._src.ode import map as map  # noqa: A004
from jax._src.ode import mean_error_ratio as mean_error_ratio
from jax._src.ode import odeint as odeint
from jax._src.ode import optimal_step_size as optimal_step_size
from jax._src.ode import ravel_first_arg as ravel_first_arg
from jax._src.ode import runge_kutta_step as runge_kutta_step
from jax._src.ode import zip as zip  # noqa: A004
from jax._src.flatten_util import ravel_pytree as ravel_pytree
from jax._src.numpy.util import promote_dtypes_inexact as promote_dtypes_inexact
from jax._src.tree_util import tree_leaves as tree_leaves
from jax._src.tree_util import tree_map as tree_map
from jax._src.util import safe_map as safe_map
from jax._src.util import safe_zip as safe_zip
