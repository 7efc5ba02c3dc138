"""Device meshes and shardings: where the pieces of an array live.

A `Mesh` is an n-d array of devices with a name per axis. A `PartitionSpec`
says, per array dimension, which mesh axes (none, one or several) split that
dimension. A `NamedSharding(mesh, spec)` turns this into a concrete layout: each
device of the mesh holds the block `devices_indices_map(shape)[device]` of the
array; devices along mesh axes the spec does not mention hold copies (replicas).
`SingleDeviceSharding` puts the whole array on one device, and `PmapSharding`
describes a `pmap` result: slice i of the mapped axis on device i.

A mesh axis is Auto (the computation decides how values are split over it) or
Explicit: then how a value is split over it is part of the value's type (its aval's
`sharding`, a NamedSharding over the mesh's AbstractMesh), propagated through every
operation by the sharding rules (lax/sharding_rules.py) and given to results.
"""

from __future__ import annotations

import collections
import dataclasses
import enum
import inspect
import math
import threading
import weakref
from typing import Sequence

import numpy as np

from jax._src import core
from jax._src.devices import get_backend
from jax._src.lib import xla_client as xc


# ----------------------------------------------------------------------------- mesh


class AxisType(enum.Enum):
  Auto = enum.auto()
  Explicit = enum.auto()
  Manual = enum.auto()

  def __repr__(self):
    return self.name


# Enum classes are called as AxisType(value); newer Pythons report that signature as
# (*values), which is what JAX's reference shows.
AxisType.__signature__ = inspect.Signature(
    [inspect.Parameter("values", inspect.Parameter.VAR_POSITIONAL)])


def _axis_types(axis_types, axis_names: tuple) -> tuple:
  """One AxisType per axis name; None means Auto (a Mesh's default)."""
  if axis_types is None:
    return (AxisType.Auto,) * len(axis_names)
  if isinstance(axis_types, AxisType):
    return (axis_types,) * len(axis_names)
  axis_types = tuple(axis_types)
  if not all(isinstance(t, AxisType) for t in axis_types):
    raise TypeError(f"axis_types must be jax.sharding.AxisType values, got {axis_types}")
  if len(axis_types) != len(axis_names):
    raise ValueError(f"Number of axis names should match the number of axis_types. Got "
                     f"axis_names={axis_names} and axis_types={axis_types}")
  return axis_types


def _device_id(d) -> int:
  return int(getattr(d, "id", -1))


class _AxisTypeQueries:
  """What concrete and abstract meshes answer about their axis types, as JAX's do: the
  names of each type's axes, and whether all (an empty mesh: none) or any axis has one."""

  def _names_of(self, *kinds) -> tuple:
    return tuple(n for n, t in zip(self.axis_names, self.axis_types) if t in kinds)

  def _all(self, *kinds) -> bool:
    return bool(self.axis_types) and all(t in kinds for t in self.axis_types)

  explicit_axes = property(lambda self: self._names_of(AxisType.Explicit))
  auto_axes = property(lambda self: self._names_of(AxisType.Auto))
  manual_axes = property(lambda self: self._names_of(AxisType.Manual))
  are_all_axes_explicit = property(lambda self: self._all(AxisType.Explicit))
  are_all_axes_auto = property(lambda self: self._all(AxisType.Auto))
  are_all_axes_manual = property(lambda self: self._all(AxisType.Manual))
  _are_all_axes_auto_or_manual = property(lambda self: self._all(AxisType.Auto, AxisType.Manual))
  _are_all_axes_explicit_or_manual = property(
      lambda self: self._all(AxisType.Explicit, AxisType.Manual))
  _any_axis_explicit = property(lambda self: bool(self.explicit_axes))
  _any_axis_auto = property(lambda self: bool(self.auto_axes))
  _any_axis_manual = property(lambda self: bool(self.manual_axes))
  _any_axis_auto_or_manual = property(lambda self: bool(self.auto_axes or self.manual_axes))


class Mesh(_AxisTypeQueries):
  """An n-d array of devices whose axes have names."""

  def __init__(self, devices, axis_names, axis_types=None):
    devices = np.asarray(devices, dtype=object)
    if isinstance(axis_names, str):
      axis_names = (axis_names,)
    axis_names = tuple(axis_names)
    if devices.ndim != len(axis_names):
      raise ValueError(f"Mesh requires the ndim of its first argument (`devices`) to equal the "
                       f"length of its second argument (`axis_names`), but got devices.ndim == "
                       f"{devices.ndim} and len(axis_names) == {len(axis_names)}.")
    if len(set(axis_names)) != len(axis_names):
      raise ValueError(f"Mesh axis names must be unique, got {axis_names}")
    ids = [_device_id(d) for d in devices.flat]
    if len(set(ids)) != len(ids):
      raise ValueError(f"Mesh devices must be distinct, got device ids {ids}")
    axis_types = _axis_types(axis_types, axis_names)
    self.devices = devices
    self.axis_names = axis_names
    self.axis_types = tuple(axis_types)
    self._hash = hash((tuple(ids), devices.shape, axis_names, self.axis_types))
    if AxisType.Explicit in self.axis_types:
      _explicit_meshes[self.abstract_mesh] = self

  @property
  def shape(self) -> collections.OrderedDict:
    return collections.OrderedDict(zip(self.axis_names, self.devices.shape))

  @property
  def axis_sizes(self) -> tuple[int, ...]:
    return tuple(self.devices.shape)

  @property
  def shape_tuple(self) -> tuple:
    return tuple(zip(self.axis_names, self.devices.shape))

  @property
  def size(self) -> int:
    return int(self.devices.size)

  @property
  def empty(self) -> bool:
    return self.devices.size == 0

  @property
  def device_ids(self) -> np.ndarray:
    return np.vectorize(_device_id, otypes=[np.int64])(self.devices)

  @property
  def abstract_mesh(self) -> AbstractMesh:
    am = self.__dict__.get("_abstract")
    if am is None:
      devices = list(self.devices.flat)
      device = None
      if devices:
        d = devices[0]
        device = AbstractDevice(getattr(d, "device_kind", d.platform), None, d.platform)
      am = self.__dict__["_abstract"] = AbstractMesh(self.axis_sizes, self.axis_names,
                                                     self.axis_types, abstract_device=device)
    return am

  @property
  def local_devices(self) -> list:
    return list(self.devices.flat)

  def __eq__(self, other):
    return (isinstance(other, Mesh) and self._hash == other._hash
            and self.axis_names == other.axis_names and self.axis_types == other.axis_types
            and self.devices.shape == other.devices.shape
            and all(a == b for a, b in zip(self.devices.flat, other.devices.flat)))

  def __hash__(self):
    return self._hash

  def _short_repr(self) -> str:
    sizes = ", ".join(f"{n!r}: {s}" for n, s in self.shape.items())
    return f"Mesh({sizes}, axis_types={self.axis_types!r})"

  def __repr__(self):
    return (f"Mesh(axis_sizes={self.axis_sizes}, axis_names={self.axis_names}, "
            f"axis_types={self.axis_types!r})")

  # `with mesh:` makes it the mesh that shard_map uses when none is given.
  def __enter__(self):
    _mesh_stack.meshes.append(self)
    return self

  def __exit__(self, *exc):
    _mesh_stack.meshes.pop()
    return False


@dataclasses.dataclass(frozen=True)
class AbstractDevice:
  """What an abstract mesh knows of its devices: their kind, cores and platform."""
  device_kind: str
  num_cores: int | None
  platform: str


class AbstractMesh(_AxisTypeQueries):
  """A mesh's axis sizes, names and types, without devices: all that tracing needs."""

  def __init__(self, axis_sizes, axis_names, axis_types=None, *, abstract_device=None):
    axis_sizes, axis_names = tuple(int(s) for s in axis_sizes), tuple(axis_names)
    if len(axis_sizes) != len(axis_names):
      raise ValueError(f"AbstractMesh: {len(axis_sizes)} axis sizes for {len(axis_names)} "
                       "axis names")
    if len(set(axis_names)) != len(axis_names):
      raise ValueError(f"Mesh axis names must be unique, got {axis_names}")
    self.axis_sizes, self.axis_names = axis_sizes, axis_names
    self.axis_types = _axis_types(axis_types, axis_names)
    self.abstract_device = abstract_device
    self._hash = hash((self.axis_sizes, self.axis_names, self.axis_types, abstract_device))

  @property
  def shape(self) -> collections.OrderedDict:
    return collections.OrderedDict(zip(self.axis_names, self.axis_sizes))

  @property
  def shape_tuple(self) -> tuple:
    return tuple(zip(self.axis_names, self.axis_sizes))

  @property
  def size(self) -> int:
    return math.prod(self.axis_sizes)

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
    return self._hash

  def __repr__(self):
    if not self.axis_names:
      return "AbstractMesh((), axis_types=())"
    sizes = ", ".join(f"{n!r}: {s}" for n, s in self.shape.items())
    d = self.abstract_device
    device = ("" if d is None else f", device_kind={d.device_kind}, num_cores={d.num_cores}, "
              f"platform={d.platform}")
    return f"AbstractMesh({sizes}, axis_types={self.axis_types!r}{device})"


# The latest Mesh made for each abstract mesh with Explicit axes: where values typed over
# that abstract mesh are placed when neither the mesh in context nor an operand names one.
_explicit_meshes: "weakref.WeakValueDictionary[AbstractMesh, Mesh]" = (
    weakref.WeakValueDictionary())


def known_mesh(abstract_mesh) -> Mesh | None:
  return _explicit_meshes.get(abstract_mesh)


class _MeshStack(threading.local):
  """The meshes entered with `with mesh:` in one thread (each thread has its own)."""

  def __init__(self):
    self.meshes: list[Mesh] = []


_mesh_stack = _MeshStack()



def mesh_stack() -> list:
  """This thread's stack of meshes in context (set_mesh and `with mesh:` push on it)."""
  return _mesh_stack.meshes


def get_mesh() -> Mesh | None:
  meshes = _mesh_stack.meshes
  return meshes[-1] if meshes else None


def make_mesh(axis_shapes: Sequence[int], axis_names: Sequence[str], axis_types=None, *,
              devices=None) -> Mesh:
  """A mesh of the first prod(axis_shapes) devices, in device order, row-major. Its axes
  are Explicit unless `axis_types` says otherwise (as in JAX 0.10.2)."""
  axis_shapes = tuple(int(s) for s in axis_shapes)
  if isinstance(axis_names, str):
    axis_names = (axis_names,)
  if len(axis_shapes) != len(axis_names):
    raise ValueError(f"Length of axis_shapes {axis_shapes} and axis_names {tuple(axis_names)} "
                     "must be equal.")
  if axis_types is None:
    axis_types = (AxisType.Explicit,) * len(axis_shapes)
  devices = list(get_backend().devices() if devices is None else devices)
  n = math.prod(axis_shapes)
  if n > len(devices):
    raise ValueError(f"Number of devices {len(devices)} must be >= the product of mesh_shape "
                     f"{axis_shapes} (= {n}). Start with more devices (e.g. JAX_NUM_CPU_DEVICES="
                     f"{n} for the CPU backend).")
  arr = np.empty(n, dtype=object)
  arr[:] = devices[:n]
  return Mesh(arr.reshape(axis_shapes), tuple(axis_names), axis_types)


# ----------------------------------------------------------------------------- PartitionSpec


class _Unconstrained:
  def __repr__(self):
    return "UNCONSTRAINED"


UNCONSTRAINED = _Unconstrained()


def _canonical_entry(e):
  if e is None or e is UNCONSTRAINED or isinstance(e, str):
    return e
  if isinstance(e, (tuple, list)):
    if not all(isinstance(n, str) for n in e):
      raise TypeError(f"PartitionSpec entries must be None, a mesh axis name or a tuple of "
                      f"names, got {e!r}")
    return tuple(e)
  raise TypeError(f"PartitionSpec entries must be None, a mesh axis name or a tuple of names, "
                  f"got {e!r}")


class PartitionSpec(tuple):
  """Per array dimension: None (not split), a mesh axis name, or a tuple of names."""

  UNCONSTRAINED = UNCONSTRAINED


  def axes_by_dim(self, ndim: int) -> tuple:
    """One tuple of mesh axis names per dimension of a rank-`ndim` value (empty = not split)."""
    entries = list(self) + [None] * (ndim - len(self))
    return tuple(() if e is None or e is UNCONSTRAINED else (e,) if isinstance(e, str)
                 else tuple(e) for e in entries)
  def __new__(cls, *partitions, unreduced=frozenset(), reduced=frozenset()):
    self = super().__new__(cls, tuple(_canonical_entry(p) for p in partitions))
    # Mesh axes over which the value holds partial sums not yet reduced (unreduced), or
    # whose reduction was done (reduced); neither may also split a dimension.
    self.unreduced, self.reduced = frozenset(unreduced), frozenset(reduced)
    used = {n for e in self if isinstance(e, tuple) for n in e} | {
        e for e in self if isinstance(e, str)}
    both = (self.unreduced | self.reduced) & used
    if both:
      raise ValueError(f"mesh axes {sorted(both)} cannot both split a dimension and be "
                       "unreduced/reduced in one PartitionSpec")
    if self.unreduced & self.reduced:
      raise ValueError(f"mesh axes {sorted(self.unreduced & self.reduced)} cannot be both "
                       "unreduced and reduced")
    return self

  def __repr__(self):
    parts = [repr(p) for p in self]
    if self.unreduced:
      parts.append(f"unreduced={set(self.unreduced)!r}")
    if self.reduced:
      parts.append(f"reduced={set(self.reduced)!r}")
    if not parts:
      return "P()"
    return "P(" + ", ".join(parts) + ("," if len(self) == 1 and len(parts) == 1 else "") + ")"

  def __reduce__(self):
    return (_make_spec, (tuple(self), self.unreduced, self.reduced))

  def __eq__(self, other):
    return (isinstance(other, PartitionSpec) and tuple(self) == tuple(other)
            and self.unreduced == other.unreduced and self.reduced == other.reduced)

  def __ne__(self, other):
    return not self == other

  def __hash__(self):
    return hash((PartitionSpec, tuple(self), self.unreduced, self.reduced))

def spec_axes(spec: PartitionSpec, ndim: int) -> tuple:
  """One tuple of mesh axis names per dimension of a rank-`ndim` value (empty = not split)."""
  return spec.axes_by_dim(ndim)


def _make_spec(partitions, unreduced, reduced):
  return PartitionSpec(*partitions, unreduced=unreduced, reduced=reduced)


def spec_from_axes(per_dim: Sequence[tuple]) -> PartitionSpec:
  """The PartitionSpec of normalized per-dimension names, trailing unsplit dims dropped."""
  entries = [None if not names else names[0] if len(names) == 1 else tuple(names)
             for names in per_dim]
  while entries and entries[-1] is None:
    entries.pop()
  return PartitionSpec(*entries)


# ----------------------------------------------------------------------------- shardings


# The classes build on jaxlib's: it holds the device lists and the HloSharding
# behind each layout (so devices_indices_map is computed in one place); jax adds
# its Mesh and PartitionSpec checks, error messages and reprs.
Sharding = xc.Sharding


class SingleDeviceSharding(xc.SingleDeviceSharding):

  def __repr__(self):
    return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self.memory_kind})"


def _check_spec(mesh: Mesh, spec: PartitionSpec) -> None:
  used: list[str] = []
  for names in spec_axes(spec, len(spec)):
    for n in names:
      if n not in mesh.shape:
        raise ValueError(f"Resource axis: {n} of {spec} is not found in mesh: "
                         f"{tuple(mesh.axis_names)}.")
      if n in used:
        raise ValueError(f"A single NamedSharding spec specification can map every mesh axis "
                         f"to at most one positional dimension, but {spec} has duplicate "
                         f"entries for `{n}`")
      used.append(n)


class NamedSharding(xc.NamedSharding):
  """A layout over a mesh: dimension i is split over the mesh axes named by spec[i]."""

  def __init__(self, mesh: Mesh | AbstractMesh, spec: PartitionSpec = PartitionSpec(), *,
               memory_kind=None):
    if not isinstance(mesh, (Mesh, AbstractMesh)):
      raise TypeError(f"NamedSharding expects a Mesh or an AbstractMesh, got "
                      f"{type(mesh).__name__}")
    if not isinstance(spec, PartitionSpec):
      if spec is None:
        spec = PartitionSpec()
      elif isinstance(spec, (tuple, list)):
        spec = PartitionSpec(*spec)
      else:
        raise TypeError(f"NamedSharding expects a PartitionSpec, got {spec!r}")
    _check_spec(mesh, spec)
    if isinstance(mesh, AbstractMesh):
      # A layout in a type: it names mesh axes but no devices (jaxlib's base needs them).
      self.mesh, self.spec, self._memory_kind = mesh, spec, memory_kind
      self._device_list, self._hlo_cache = None, {}
    else:
      super().__init__(mesh, spec, memory_kind=memory_kind)

  @property
  def _internal_device_list(self):
    if isinstance(self.mesh, AbstractMesh):
      raise ValueError(f"{self!r} is over an AbstractMesh, which has no devices; use a "
                       "NamedSharding over a concrete jax.sharding.Mesh")
    return super()._internal_device_list

  def partition_counts(self, ndim: int) -> tuple[int, ...]:
    return tuple(math.prod(self.mesh.shape[n] for n in names)
                 for names in spec_axes(self.spec, ndim))

  def check_shape(self, global_shape, what: str = "array") -> None:
    if len(self.spec) > len(global_shape):
      raise ValueError(f"One of {what} was given the sharding of {self}, which implies that it "
                       f"has a rank of at least {len(self.spec)}, but it is "
                       f"{len(global_shape)}")
    for axis, (k, d) in enumerate(zip(self.partition_counts(len(global_shape)), global_shape)):
      if d % k:
        raise ValueError(f"Sharding spec {tuple(self.spec)} implies that array axis {axis} is "
                         f"partitioned {k} times, but does not evenly divide the dimension "
                         f"size {d}. Got shape: {tuple(global_shape)} and sharding {self}")

  def devices_indices_map(self, global_shape) -> dict:
    global_shape = tuple(global_shape)
    self.check_shape(global_shape)
    return super().devices_indices_map(global_shape)

  def shard_shape(self, global_shape) -> tuple[int, ...]:
    """Each block's shape: every dimension divided by the sizes of the mesh axes that
    split it (needs no devices, so a sharding over an AbstractMesh has one too)."""
    global_shape = tuple(global_shape)
    self.check_shape(global_shape)
    return tuple(d // k for d, k in zip(global_shape, self.partition_counts(len(global_shape))))

  def replica_ids(self, global_shape) -> list[int]:
    """Per device (mesh order): how many devices before it hold the same block."""
    seen: dict = {}
    ids = []
    for idx in self.devices_indices_map(global_shape).values():
      key = tuple((s.start, s.stop) for s in idx)
      ids.append(seen.get(key, 0))
      seen[key] = ids[-1] + 1
    return ids

  def __repr__(self):
    if isinstance(self.mesh, AbstractMesh):
      kind = "" if self._memory_kind is None else f", memory_kind={self._memory_kind}"
      return f"NamedSharding(mesh={self.mesh!r}, spec={self.spec!r}{kind})"
    return (f"NamedSharding(mesh={self.mesh._short_repr()}, spec={self.spec!r}, "
            f"memory_kind={self.memory_kind})")

  @property
  def memory_kind(self):
    if isinstance(self.mesh, AbstractMesh):
      return self._memory_kind
    return super().memory_kind

  def update(self, **kwargs) -> "NamedSharding":
    """This sharding with `mesh`, `spec` or `memory_kind` replaced, as JAX's has."""
    unknown = set(kwargs) - {"mesh", "spec", "memory_kind"}
    if unknown:
      raise TypeError(f"NamedSharding.update() got unexpected keyword arguments "
                      f"{sorted(unknown)}; it takes mesh, spec and memory_kind")
    return NamedSharding(kwargs.get("mesh", self.mesh), kwargs.get("spec", self.spec),
                         memory_kind=kwargs.get("memory_kind", self.memory_kind))


class PmapSharding(Sharding):
  """A pmap result: slice i of axis `stack_axis` on device i (or copies if axis is None)."""

  def __init__(self, devices: Sequence, stack_axis: int | None):
    self._devices = tuple(devices)
    self.stack_axis = stack_axis
    self._device_list = None

  @property
  def _internal_device_list(self):
    if self._device_list is None:
      self._device_list = xc.DeviceList(self._devices)
    return self._device_list

  is_fully_replicated = property(lambda self: self.stack_axis is None)

  def devices_indices_map(self, global_shape) -> dict:
    out = {}
    for i, d in enumerate(self._devices):
      index = [slice(None)] * len(global_shape)
      if self.stack_axis is not None:
        index[self.stack_axis] = i
      out[d] = tuple(index)
    return out

  def shard_shape(self, global_shape) -> tuple:
    if self.stack_axis is None:
      return tuple(global_shape)
    return tuple(d for i, d in enumerate(global_shape) if i != self.stack_axis)

  def __eq__(self, other):
    return (isinstance(other, PmapSharding) and self._devices == other._devices
            and self.stack_axis == other.stack_axis)

  def __hash__(self):
    return hash((PmapSharding, tuple(map(_device_id, self._devices)), self.stack_axis))

  def __repr__(self):
    return f"PmapSharding(devices={list(self._devices)!r}, stack_axis={self.stack_axis})"


class Shard:
  """One addressable piece of an Array: its device, the sharding and global shape it comes
  from (which give its index and replica id), and its data."""

  def __init__(self, device, sharding, global_shape, data=None):
    self.device, self.sharding, self.global_shape = device, sharding, tuple(global_shape)
    self.data = data

  @property
  def index(self) -> tuple:
    return self.sharding.devices_indices_map(self.global_shape)[self.device]

  @property
  def replica_id(self) -> int:
    mapping = self.sharding.devices_indices_map(self.global_shape)
    if isinstance(self.sharding, NamedSharding):
      return self.sharding.replica_ids(self.global_shape)[list(mapping).index(self.device)]
    if isinstance(self.sharding, PmapSharding) and self.sharding.stack_axis is not None:
      return 0
    return list(mapping).index(self.device)

  def __repr__(self):
    return (f"Shard(device={self.device!r}, index={self.index}, replica_id={self.replica_id}, "
            f"data={self.data!r})")


def make_single_device_sharding(device, *, memory_kind=None) -> SingleDeviceSharding:
  return SingleDeviceSharding(device, memory_kind=memory_kind)


# ----------------------------------------------------------------------------- shardings in types


def explicit_spec(mesh, spec: PartitionSpec, ndim: int) -> PartitionSpec:
  """`spec` padded to `ndim` entries, with only the Explicit axes of `mesh` kept: the part
  of a layout that is part of a type (Auto axes are left to the compiler)."""
  explicit = set(mesh.abstract_mesh.explicit_axes)
  entries = []
  for names in spec.axes_by_dim(ndim):
    kept = tuple(n for n in names if n in explicit)
    entries.append(None if not kept else kept[0] if len(kept) == 1 else kept)
  return PartitionSpec(*entries, unreduced=spec.unreduced & explicit,
                       reduced=spec.reduced & explicit)


def canonical_sharding(sharding, ndim: int, *, strict: bool = False):
  """The sharding an aval of rank `ndim` records for `sharding`: over the abstract mesh,
  Explicit axes only; None when no axis of its mesh is Explicit (or, unless `strict`, when
  it is not a NamedSharding: an Array on one device, say)."""
  if not isinstance(sharding, NamedSharding):
    if strict:
      raise TypeError(f"The sharding of a ShapedArray must be a NamedSharding, got {sharding!r}")
    return None
  mesh = sharding.mesh.abstract_mesh
  if not mesh.explicit_axes:
    return None
  if len(sharding.spec) > ndim:
    raise ValueError(f"sharding {sharding.spec} has more entries than the rank {ndim} of "
                     "the value it describes")
  spec = explicit_spec(mesh, sharding.spec, ndim)
  if isinstance(sharding.mesh, AbstractMesh) and spec == sharding.spec:
    return sharding
  return NamedSharding(mesh, spec)


def reshape_split(old: tuple, dims, new: tuple, axis_sizes) -> list | None:
  """How a reshape from shape `old` (dimension i split over the mesh axes `dims[i]`) to
  `new` splits its result, or None when the split dimensions have no counterpart.

  Size-1 dimensions carry no split; the others are matched in groups of equal product.
  A one-to-one group keeps its split. A group merged into one dimension keeps the splits
  of its dimensions, in order, when the split ones lead the group. A dimension split into
  several puts its split on the first when that one is divisible by it."""
  if any(dims[i] for i, s in enumerate(old) if s == 1):
    return None
  keep_old = [i for i, s in enumerate(old) if s != 1]
  keep_new = [j for j, s in enumerate(new) if s != 1]
  o, od, n = [old[i] for i in keep_old], [dims[i] for i in keep_old], [new[j] for j in keep_new]
  if 0 in o or 0 in n:
    return None if any(od) else [()] * len(new)
  matched: list = []
  i = j = 0
  while i < len(o):
    gi, gj, po, pn = [i], [j], o[i], n[j]
    while po != pn:
      if po < pn:
        i += 1
        gi.append(i)
        po *= o[i]
      else:
        j += 1
        gj.append(j)
        pn *= n[j]
    i, j = i + 1, j + 1
    split = [od[k] for k in gi]
    if not any(split):
      matched += [()] * len(gj)
    elif len(gi) == 1 and len(gj) == 1:
      matched.append(split[0])
    elif len(gj) == 1:
      lead = len([d for d in split if d])
      if any(not d for d in split[:lead]):
        return None
      matched.append(tuple(a for d in split for a in d))
    elif len(gi) == 1:
      if n[gj[0]] % math.prod(axis_sizes[a] for a in split[0]):
        return None
      matched += [split[0]] + [()] * (len(gj) - 1)
    else:
      return None
  out: list = [()] * len(new)
  for j, d in zip(keep_new, matched):
    out[j] = d
  return out


def respec(sharding: NamedSharding, dims) -> NamedSharding:
  """`sharding`'s mesh with dimension i split over the mesh axes `dims[i]`."""
  return NamedSharding(sharding.mesh, PartitionSpec(
      *(None if not d else d[0] if len(d) == 1 else tuple(d) for d in dims)))


core.sharding_hooks["canonical_sharding"] = canonical_sharding
core.sharding_hooks["respec"] = respec
