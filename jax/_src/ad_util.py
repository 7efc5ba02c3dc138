"""Differentiation helpers under the module name JAX keeps them in.

Libraries import these from `jax._src.ad_util` (lineax registers a transpose rule
for `stop_gradient_p`); the objects themselves live with the rest of autodiff.
"""

from jax._src.custom_derivatives import stop_gradient_p as stop_gradient_p
from jax._src.custom_derivatives_public import SymbolicZero as SymbolicZero
from jax._src.custom_derivatives_public import SymbolicZero as Zero
from jax._src.interpreters.ad import add_any_p as add_jaxvals_p
from jax._src.interpreters.ad import zeros_like_aval as zeros_like_aval
