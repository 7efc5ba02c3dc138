"""Meshes, partition specs and shardings."""

from jax._src.sharding import AxisType as AxisType
from jax._src.sharding import Mesh as Mesh
from jax._src.sharding import NamedSharding as NamedSharding
from jax._src.sharding import PartitionSpec as PartitionSpec
from jax._src.sharding import Sharding as Sharding
from jax._src.sharding import SingleDeviceSharding as SingleDeviceSharding
from jax._src.sharding import get_mesh as get_mesh
from jax._src.sharding import make_single_device_sharding as make_single_device_sharding
from jax._src.sharding import AbstractDevice as AbstractDevice
from jax._src.sharding import AbstractMesh as AbstractMesh
from jax._src.mesh_context import ManualAxisType as ManualAxisType
from jax._src.array_constructors import auto_axes as auto_axes
from jax._src.array_constructors import explicit_axes as explicit_axes
from jax._src.mesh_context import get_abstract_mesh as get_abstract_mesh
from jax._src.mesh_context import set_mesh as set_mesh
from jax._src.mesh_context import use_abstract_mesh as use_abstract_mesh
from jax._src.array_constructors import reshard as reshard
