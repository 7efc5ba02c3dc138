"""Compile-only devices: a plugin's description of a topology (for example the TPU
slice "v5e:2x2") whose devices need not be attached, for compiling ahead of time.

The devices of a topology belong to a compile-only client (jaxlib): `jax.jit(f)
.lower(...)` with arguments placed on them compiles through the plugin on the one
compile path every backend uses; the compiled function reports its optimized
program and memory, and serializes, but running it (or putting data on those
devices) raises an error saying the devices are compile-only.
"""

from __future__ import annotations

from typing import Sequence

from jax._src import lib
from jax._src import mesh_utils
from jax._src import sharding
from jax._src import xla_bridge


class TopologyDescription:
  """The devices of a topology, as `get_topology_desc` or `get_attached_topology` make it."""

  def __init__(self, devices: list):
    self.devices = list(devices)

  def __repr__(self):
    return f"TopologyDescription(devices={self.devices!r})"


def get_topology_desc(topology_name: str = "", platform: str | None = None,
                      **kwargs) -> TopologyDescription:
  """The compile-only devices of `topology_name` on `platform` (default "tpu"), as
  its plugin describes them: `get_topology_desc("v5e:2x2", "tpu")` gives the four
  chips of a v5e 2x2 slice with no TPU present. `kwargs` are the plugin's topology
  options. A plugin that cannot describe topologies raises NotImplementedError."""
  topology = xla_bridge.make_pjrt_topology(platform or "tpu", topology_name, **kwargs)
  return TopologyDescription(lib.xla_client.make_compile_only_client(topology).devices())


def get_attached_topology(platform: str | None = None) -> TopologyDescription:
  """The devices attached to this process's backend for `platform` (default: the
  default backend), as a TopologyDescription."""
  return TopologyDescription(xla_bridge.devices(platform))


def make_mesh(topo: TopologyDescription, mesh_shape: Sequence[int],
              axis_names: tuple[str, ...], *, contiguous_submeshes: bool = False):
  """A Mesh of `mesh_shape` over the topology's devices, named by `axis_names`."""
  devices = mesh_utils.create_device_mesh(mesh_shape, topo.devices,
                                          contiguous_submeshes=contiguous_submeshes)
  return sharding.Mesh(devices, axis_names)
