"""jax.scipy.integrate: numerical integration of sampled data."""

from jax._src.scipy.misc_modules import trapezoid as trapezoid
