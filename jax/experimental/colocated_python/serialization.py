"""Serialization of colocated Python functions and their arguments
(`jax.experimental.colocated_python.serialization`)."""

from jax._src import xla_bridge as xb  # noqa: F401 (JAX's module exposes it here)
from jax._src.colocated_python_serialization import DeviceList as DeviceList
from jax._src.colocated_python_serialization import deserialize as _deserialize
from jax._src.colocated_python_serialization import get_cpu_device_map as _get_cpu_device_map
from jax._src.colocated_python_serialization import reduce_device_list as _reduce_device_list
from jax._src.colocated_python_serialization import reduce_mesh as _reduce_mesh
from jax._src.colocated_python_serialization import (
    reduce_single_device_sharding as _reduce_single_device_sharding)
from jax._src.colocated_python_serialization import serialize as _serialize
