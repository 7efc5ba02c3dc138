"""jax.scipy.ndimage: interpolation at arbitrary coordinates."""

from jax._src.scipy.ndimage import map_coordinates as map_coordinates
