"""jax.scipy.interpolate: interpolation on regular grids."""

from jax._src.scipy.interpolate import RegularGridInterpolator as RegularGridInterpolator
