"""Device meshes shaped for a computation."""

from jax._src.mesh_utils import create_device_mesh as create_device_mesh
from jax._src.mesh_utils import create_hybrid_device_mesh as create_hybrid_device_mesh
from jax._src.mesh_utils import device_kind_handler_dict as device_kind_handler_dict
