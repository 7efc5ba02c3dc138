"""Meshes, partition specs and shardings."""

from jax._src.sharding import AxisType as AxisType
from jax._src.sharding import Mesh as Mesh
from jax._src.sharding import NamedSharding as NamedSharding
from jax._src.sharding import PartitionSpec as PartitionSpec
from jax._src.sharding import PmapSharding as PmapSharding
from jax._src.sharding import Sharding as Sharding
from jax._src.sharding import SingleDeviceSharding as SingleDeviceSharding
from jax._src.sharding import get_mesh as get_mesh
from jax._src.sharding import make_single_device_sharding as make_single_device_sharding
