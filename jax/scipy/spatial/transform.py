"""jax.scipy.spatial.transform: 3-D rotations and their interpolation."""

from jax._src.scipy.rotation import Rotation as Rotation
from jax._src.scipy.rotation import Slerp as Slerp
