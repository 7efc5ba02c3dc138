"""User-defined derivatives (`jax.custom_derivatives`)."""

from jax._src.api import closure_convert as closure_convert
from jax._src.custom_derivatives import custom_jvp as custom_jvp
from jax._src.custom_derivatives import custom_jvp_call_p as custom_jvp_call_p
from jax._src.custom_derivatives import custom_vjp as custom_vjp
from jax._src.custom_derivatives import custom_vjp_call_p as custom_vjp_call_p
from jax._src.custom_derivatives_public import CustomVJPPrimal as CustomVJPPrimal
from jax._src.custom_derivatives_public import SymbolicZero as SymbolicZero
from jax._src.custom_derivatives_public import zero_from_primal as zero_from_primal
from jax._src.custom_derivatives import custom_gradient as custom_gradient
from jax._src.custom_derivatives_public import (
    custom_vjp_primal_tree_values as custom_vjp_primal_tree_values)
from jax._src.custom_derivatives_public import linear_call as linear_call
