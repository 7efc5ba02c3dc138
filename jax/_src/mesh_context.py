"""The mesh in context (`jax.set_mesh`, `jax.sharding.use_abstract_mesh`) and abstract
meshes: a mesh's axis names, sizes and types without its devices, which is all that
tracing needs (the classes live in sharding.py).
"""

from __future__ import annotations

import dataclasses
import threading

from jax._src import core
from jax._src import sharding as sh
from jax._src.sharding import AbstractMesh


@dataclasses.dataclass(frozen=True)
class ManualAxisType:
  """Which mesh axes a value inside shard_map varies over, or holds unreduced/reduced."""
  varying: frozenset = frozenset()
  unreduced: frozenset = frozenset()
  reduced: frozenset = frozenset()

  def __init__(self, *, varying=frozenset(), unreduced=frozenset(), reduced=frozenset()):
    object.__setattr__(self, "varying", frozenset(varying))
    object.__setattr__(self, "unreduced", frozenset(unreduced))
    object.__setattr__(self, "reduced", frozenset(reduced))


def abstract_mesh_of(mesh: sh.Mesh) -> AbstractMesh:
  return mesh.abstract_mesh


class _AbstractStack(threading.local):
  def __init__(self):
    self.meshes: list[AbstractMesh] = []


_abstract_stack = _AbstractStack()
_EMPTY = AbstractMesh((), ())


def get_abstract_mesh() -> AbstractMesh:
  """The abstract mesh in context: from use_abstract_mesh, else of the mesh set with
  set_mesh (or `with mesh:`), else an empty one."""
  if _abstract_stack.meshes:
    return _abstract_stack.meshes[-1]
  mesh = sh.get_mesh()
  return _EMPTY if mesh is None else abstract_mesh_of(mesh)


class set_mesh:  # noqa: N801 (JAX's name; a class so that it is also a context manager)
  """Make `mesh` the mesh in context: `jax.set_mesh(mesh)` sets it for this thread, and
  `with jax.set_mesh(mesh):` sets it for the block only."""

  def __init__(self, mesh):
    if mesh is not None and not isinstance(mesh, sh.Mesh):
      raise TypeError(f"set_mesh expects a jax.sharding.Mesh or None, got "
                      f"{type(mesh).__name__}")
    self.mesh = mesh
    self._prev = list(sh.mesh_stack())
    # None clears the mesh in context (until the block ends, as a context manager).
    if mesh is None:
      sh.mesh_stack().clear()
    else:
      sh.mesh_stack().append(mesh)

  def __enter__(self):
    return self.mesh

  def __exit__(self, *exc):
    sh.mesh_stack()[:] = self._prev
    return False


class use_abstract_mesh:  # noqa: N801 (JAX's name)
  """`with use_abstract_mesh(m):` makes `m` the abstract mesh that tracing sees."""

  def __init__(self, mesh):
    if not isinstance(mesh, AbstractMesh):
      raise TypeError(f"use_abstract_mesh expects an AbstractMesh, got {type(mesh).__name__}")
    self.mesh = mesh

  def __enter__(self):
    _abstract_stack.meshes.append(self.mesh)
    return self.mesh

  def __exit__(self, *exc):
    _abstract_stack.meshes.pop()
    return False


def _default_sharding(ndim: int):
  """An aval without an explicit sharding is unsplit over the mesh in context."""
  return sh.NamedSharding(get_abstract_mesh(), sh.PartitionSpec(*([None] * ndim)))


core.sharding_hooks["default_sharding"] = _default_sharding
