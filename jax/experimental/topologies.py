"""Compile-only topologies: devices described by a plugin, for ahead-of-time compiles."""

from jax._src.topologies import TopologyDescription as TopologyDescription
from jax._src.topologies import get_attached_topology as get_attached_topology
from jax._src.topologies import get_topology_desc as get_topology_desc
from jax._src.topologies import make_mesh as make_mesh
