"""The mesh in context (`jax.set_mesh`, `jax.sharding.use_abstract_mesh`) and abstract
meshes: a mesh's axis names, sizes and types without its devices, which is all that
tracing needs.

Meshes here have Auto axes (the computation decides layouts), so `auto_axes` and
`explicit_axes` only apply the shardings they are given to results or arguments.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import threading
from typing import Callable

from jax._src import sharding as sh


@dataclasses.dataclass(frozen=True)
class AbstractDevice:
  """What an abstract mesh knows of its devices: their kind, cores and platform."""
  device_kind: str
  num_cores: int | None
  platform: str


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


class AbstractMesh:
  """A mesh's axis sizes, names and types, without devices."""

  def __init__(self, axis_sizes, axis_names, axis_types=None, *, abstract_device=None):
    axis_sizes, axis_names = tuple(int(s) for s in axis_sizes), tuple(axis_names)
    if len(axis_sizes) != len(axis_names):
      raise ValueError(f"AbstractMesh: {len(axis_sizes)} axis sizes for {len(axis_names)} "
                       "axis names")
    if len(set(axis_names)) != len(axis_names):
      raise ValueError(f"Mesh axis names must be unique, got {axis_names}")
    if axis_types is None:
      axis_types = (sh.AxisType.Auto,) * len(axis_names)
    elif isinstance(axis_types, sh.AxisType):
      axis_types = (axis_types,) * len(axis_names)
    if len(tuple(axis_types)) != len(axis_names):
      raise ValueError(f"AbstractMesh: {len(tuple(axis_types))} axis types for "
                       f"{len(axis_names)} axes")
    self.axis_sizes, self.axis_names = axis_sizes, axis_names
    self.axis_types = tuple(axis_types)
    self.abstract_device = abstract_device

  @property
  def shape(self) -> collections.OrderedDict:
    return collections.OrderedDict(zip(self.axis_names, self.axis_sizes))

  @property
  def shape_tuple(self) -> tuple:
    return tuple(zip(self.axis_names, self.axis_sizes))

  @property
  def size(self) -> int:
    out = 1
    for s in self.axis_sizes:
      out *= s
    return out

  @property
  def empty(self) -> bool:
    return not self.axis_names

  @property
  def abstract_mesh(self) -> AbstractMesh:
    return self

  def update(self, axis_sizes=None, axis_names=None, axis_types=None) -> AbstractMesh:
    return AbstractMesh(self.axis_sizes if axis_sizes is None else axis_sizes,
                        self.axis_names if axis_names is None else axis_names,
                        self.axis_types if axis_types is None else axis_types,
                        abstract_device=self.abstract_device)

  def _key(self):
    return (self.axis_sizes, self.axis_names, self.axis_types, self.abstract_device)

  def __eq__(self, other):
    return isinstance(other, AbstractMesh) and self._key() == other._key()

  def __hash__(self):
    return hash(self._key())

  def __repr__(self):
    sizes = ", ".join(f"{n!r}: {s}" for n, s in self.shape.items())
    return f"AbstractMesh({sizes}, axis_types={self.axis_types!r})"


def abstract_mesh_of(mesh: sh.Mesh) -> AbstractMesh:
  devices = list(mesh.devices.flat)
  device = None
  if devices:
    d = devices[0]
    device = AbstractDevice(getattr(d, "device_kind", d.platform), None, d.platform)
  return AbstractMesh(mesh.axis_sizes, mesh.axis_names, mesh.axis_types,
                      abstract_device=device)


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
    if not isinstance(mesh, sh.Mesh):
      raise TypeError(f"set_mesh expects a jax.sharding.Mesh, got {type(mesh).__name__}")
    self.mesh = mesh
    self._prev = list(sh._mesh_stack.meshes)
    sh._mesh_stack.meshes.append(mesh)

  def __enter__(self):
    return self.mesh

  def __exit__(self, *exc):
    sh._mesh_stack.meshes[:] = self._prev
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


def _reshard(x, shardings):
  from jax._src import array_constructors  # placement lives in the api layer above
  return x if shardings is None else array_constructors.reshard(x, shardings)


def auto_axes(f: Callable | None = None, /, *, axes=None, out_sharding=None):
  """Run `f` with `axes` of the mesh in Auto mode; its results are laid out as
  `out_sharding` says (a Sharding, a PartitionSpec of the mesh in context, or a prefix)."""
  del axes  # every axis is Auto here already

  def wrap(fun):
    @functools.wraps(fun)
    def wrapped(*args, **kwargs):
      return _reshard(fun(*args, **kwargs), out_sharding)
    return wrapped
  return wrap if f is None else wrap(f)


def explicit_axes(f: Callable | None = None, /, *, axes=None, in_sharding=None):
  """Run `f` with `axes` of the mesh in Explicit mode, its arguments first laid out as
  `in_sharding` says."""
  del axes

  def wrap(fun):
    @functools.wraps(fun)
    def wrapped(*args, **kwargs):
      return fun(*_reshard(args, in_sharding), **kwargs)
    return wrapped
  return wrap if f is None else wrap(f)
