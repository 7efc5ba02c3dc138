"""HloSharding: how XLA lays an array (or a tuple of them) over logical devices.

A sharding is one of
- replicated: every device holds the whole array;
- manual: the program handles partitioning itself (shard_map bodies);
- maximal: one device (by logical id) holds the whole array;
- tiled: a tile assignment, an n-d array of logical device ids. Its first
  dimensions split the array's dimensions; trailing "subgroup" dimensions
  (`last_tile_dims`) group devices that hold the same tile, either as replicas
  ("replicated") or for manual partitioning ("manual");
- a tuple of shardings, one per element of a tuple value.

Logical ids are positions in the device assignment of whatever uses the
sharding (a Sharding's device list, a compiled program's devices).

The text form is XLA's (`{replicated}`, `{maximal device=0}`,
`{devices=[2,1]0,1}`, `{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}`,
`{devices=[2,2]<=[4]}`, `{devices=[2,2]<=[2,2]T(1,0)}`, `{{replicated}, {manual}}`);
`from_string(s.to_string()) == s` for every sharding.
"""

from __future__ import annotations

import math
import re
from typing import Sequence

import numpy as np

REPLICATED = "replicated"
MANUAL = "manual"
_SUBGROUP_TYPES = (REPLICATED, MANUAL)


def _int_tuple(values, what: str) -> tuple[int, ...]:
  try:
    out = tuple(int(v) for v in values)
  except TypeError:
    raise TypeError(f"{what} must be a sequence of ints, got {values!r}") from None
  if any(isinstance(v, (float, bool)) for v in values):
    raise TypeError(f"{what} must be a sequence of ints, got {values!r}")
  return out


def _canonical_iota(reshape_dims: tuple[int, ...], perm: tuple[int, ...]):
  """The simplest (reshape_dims, perm) that lists the same devices: size-1 dims
  dropped and dims that stay adjacent after the transpose merged."""
  keep = [i for i, d in enumerate(reshape_dims) if d != 1]
  dims = [reshape_dims[i] for i in keep]
  order = [keep.index(p) for p in perm if p in keep]
  merged_dims, merged_order, groups = [], [], []
  for p in order:
    if groups and groups[-1][-1] + 1 == p:
      groups[-1].append(p)
    else:
      groups.append([p])
  # Merged groups are renumbered by their position in the original order.
  by_start = sorted(range(len(groups)), key=lambda g: groups[g][0])
  for g in by_start:
    merged_dims.append(math.prod(dims[p] for p in groups[g]))
  merged_order = [by_start.index(g) for g in range(len(groups))]
  if not merged_dims:
    return (1,), (0,)
  return tuple(merged_dims), tuple(merged_order)


class HloSharding:
  """An immutable XLA sharding; build one with the static constructors."""

  __slots__ = ("_kind", "_dims", "_devices", "_iota", "_subgroups", "_device", "_elements",
               "_hash")

  def __init__(self, *, _kind, _dims=(), _devices=(), _iota=None, _subgroups=(), _device=-1,
               _elements=()):
    self._kind = _kind
    self._dims = tuple(_dims)
    self._devices = tuple(_devices)
    self._iota = _iota
    self._subgroups = tuple(_subgroups)
    self._device = _device
    self._elements = tuple(_elements)
    self._hash = None

  # ------------------------------------------------------------------ constructors

  @staticmethod
  def replicate() -> HloSharding:
    return HloSharding(_kind=REPLICATED)

  @staticmethod
  def manual() -> HloSharding:
    return HloSharding(_kind=MANUAL)

  @staticmethod
  def maximal(device: int) -> HloSharding:
    if isinstance(device, bool) or not isinstance(device, (int, np.integer)) or device < 0:
      raise ValueError(f"HloSharding.maximal: the device must be a logical id >= 0, got {device!r}")
    return HloSharding(_kind="maximal", _device=int(device))

  @staticmethod
  def tiled(tile_assignment_dims: Sequence[int], tile_assignment_devices: Sequence[int], *,
            replicate_on_last_tile_dim: bool = False,
            last_tile_dims: Sequence[str] = ()) -> HloSharding:
    """A tile assignment given as its dimensions and its devices in row-major order."""
    dims = _int_tuple(tile_assignment_dims, "tile_assignment_dims")
    devices = _int_tuple(tile_assignment_devices, "tile_assignment_devices")
    if math.prod(dims) != len(devices):
      raise ValueError(f"HloSharding.tiled: a tile assignment of dims {list(dims)} holds "
                       f"{math.prod(dims)} devices, got {len(devices)}")
    if min(devices, default=0) < 0 or len(set(devices)) != len(devices):
      raise ValueError("HloSharding.tiled: the devices must be distinct logical ids >= 0, "
                       f"got {list(devices)}")
    return HloSharding._tiled(dims, devices, None,
                              _subgroups_of(dims, replicate_on_last_tile_dim, last_tile_dims))

  @staticmethod
  def iota_tile(dims: Sequence[int], reshape_dims: Sequence[int] = (),
                transpose_perm: Sequence[int] = (),
                subgroup_types: Sequence[str] = ()) -> HloSharding:
    """Devices arange(prod(dims)).reshape(reshape_dims).transpose(transpose_perm), reshaped
    to `dims` (XLA's compact form; printed `<=[reshape_dims]T(perm)`)."""
    dims = _int_tuple(dims, "dims")
    n = math.prod(dims)
    reshape = _int_tuple(reshape_dims, "reshape_dims") or (n,)
    perm = _int_tuple(transpose_perm, "transpose_perm") or tuple(range(len(reshape)))
    if math.prod(reshape) != n:
      raise ValueError(f"HloSharding.iota_tile: reshape_dims {list(reshape)} hold "
                       f"{math.prod(reshape)} devices but dims {list(dims)} need {n}")
    if sorted(perm) != list(range(len(reshape))):
      raise ValueError(f"HloSharding.iota_tile: transpose_perm {list(perm)} is not a "
                       f"permutation of the {len(reshape)} reshape dims")
    devices = tuple(int(d) for d in np.arange(n).reshape(reshape).transpose(perm).flat)
    subgroups = _subgroups_of(dims, False, subgroup_types)
    return HloSharding._tiled(dims, devices, _canonical_iota(reshape, perm), subgroups)

  @staticmethod
  def tuple_sharding(elements: Sequence[HloSharding]) -> HloSharding:
    elements = tuple(elements)
    for i, e in enumerate(elements):
      if not isinstance(e, HloSharding):
        raise TypeError(f"HloSharding.tuple_sharding: element {i} is a {type(e).__name__}, "
                        "not an HloSharding")
    return HloSharding(_kind="tuple", _elements=elements)

  @staticmethod
  def _tiled(dims, devices, iota, subgroups) -> HloSharding:
    # A subgroup of one device means nothing; XLA drops it, and so do we.
    while subgroups and dims[len(dims) - len(subgroups)] == 1 and len(dims) > 1:
      k = len(dims) - len(subgroups)
      dims = dims[:k] + dims[k + 1:]
      subgroups = subgroups[1:]
    data_rank = len(dims) - len(subgroups)
    if subgroups == (REPLICATED,) and math.prod(dims[:data_rank]) == 1:
      return HloSharding.replicate()
    if subgroups == (MANUAL,) and math.prod(dims[:data_rank]) == 1:
      return HloSharding.manual()
    return HloSharding(_kind="tiled", _dims=dims, _devices=devices, _iota=iota,
                       _subgroups=subgroups)

  @staticmethod
  def from_string(text: str) -> HloSharding:
    """Parses XLA's text form (what to_string() prints)."""
    if not isinstance(text, str):
      raise TypeError(f"HloSharding.from_string expects a str, got {type(text).__name__}")
    return _Parser(text).parse()

  # ------------------------------------------------------------------ queries

  def is_replicated(self) -> bool:
    """Whether every device holds the whole value."""
    if self._kind == "tuple":
      return all(e.is_replicated() for e in self._elements)
    return self._kind == REPLICATED

  def is_manual(self) -> bool:
    return self._kind == MANUAL

  def is_maximal(self) -> bool:
    return self._kind == "maximal"

  def is_tiled(self) -> bool:
    return self._kind == "tiled"

  def is_tuple(self) -> bool:
    return self._kind == "tuple"

  def tuple_elements(self) -> list[HloSharding]:
    return list(self._elements)

  def tile_assignment_dimensions(self) -> list[int]:
    """Tiled: the tile assignment's dims; otherwise [1] (XLA's one-element assignment)."""
    return list(self._dims) if self._kind == "tiled" else [1]

  def tile_assignment_devices(self) -> list[int]:
    """Tiled: the logical ids row-major; maximal: [device]; replicated/manual: [0]."""
    if self._kind == "tiled":
      return list(self._devices)
    return [max(self._device, 0)]

  def replicate_on_last_tile_dim(self) -> bool:
    return self._subgroups == (REPLICATED,)

  def subgroup_types(self) -> list[str]:
    return list(self._subgroups)

  @property
  def num_devices(self) -> int:
    """The number of logical devices the tile assignment names (1 unless tiled)."""
    return len(self._devices) if self._kind == "tiled" else 1

  @property
  def num_dimensions(self) -> int:
    return len(self._dims) if self._kind == "tiled" else 0

  def tiled_data_rank(self) -> int:
    """How many array dimensions a tiled sharding splits."""
    return len(self._dims) - len(self._subgroups)

  def tile_index_of(self) -> dict[int, tuple[int, ...]]:
    """Tiled: logical id -> the index of its tile along each data dimension."""
    if self._kind != "tiled":
      raise ValueError(f"tile_index_of needs a tiled sharding, got {self}")
    rank = self.tiled_data_rank()
    positions = np.arange(len(self._devices)).reshape(self._dims)
    out = {}
    for index in np.ndindex(*self._dims):
      out[self._devices[int(positions[index])]] = tuple(int(i) for i in index[:rank])
    return out

  # ------------------------------------------------------------------ text, equality

  def to_string(self) -> str:
    if self._kind == "tuple":
      return "{" + ", ".join(e.to_string() for e in self._elements) + "}"
    if self._kind in (REPLICATED, MANUAL):
      return "{" + self._kind + "}"
    if self._kind == "maximal":
      return f"{{maximal device={self._device}}}"
    out = "{devices=[" + ",".join(map(str, self._dims)) + "]"
    if self._iota is not None:
      reshape, perm = self._iota
      out += "<=[" + ",".join(map(str, reshape)) + "]"
      if perm != tuple(range(len(perm))):
        out += "T(" + ",".join(map(str, perm)) + ")"
    else:
      out += ",".join(map(str, self._devices))
    if self._subgroups == (REPLICATED,):
      out += " last_tile_dim_replicate"
    elif self._subgroups:
      out += " last_tile_dims={" + ", ".join(self._subgroups) + "}"
    return out + "}"

  __str__ = to_string

  def __repr__(self):
    return f"HloSharding({self.to_string()})"

  def _key(self):
    # The iota form is a spelling: equal device arrays are equal shardings.
    return (self._kind, self._dims, self._devices, self._subgroups, self._device,
            tuple(e._key() for e in self._elements))

  def __eq__(self, other):
    return isinstance(other, HloSharding) and self._key() == other._key()

  def __hash__(self):
    if self._hash is None:
      self._hash = hash(self._key())
    return self._hash

  def __reduce__(self):
    return (HloSharding.from_string, (self.to_string(),))


def _subgroups_of(dims, replicate_on_last_tile_dim, last_tile_dims) -> tuple[str, ...]:
  subgroups = tuple(str(getattr(t, "name", t)).lower() for t in last_tile_dims)
  for t in subgroups:
    if t not in _SUBGROUP_TYPES:
      raise ValueError(f"last tile dim types must be 'replicated' or 'manual', got {t!r}")
  if replicate_on_last_tile_dim:
    if subgroups:
      raise ValueError("give replicate_on_last_tile_dim or last_tile_dims, not both")
    subgroups = (REPLICATED,)
  if len(subgroups) > len(dims):
    raise ValueError(f"{len(subgroups)} last tile dims do not fit in a tile assignment of "
                     f"rank {len(dims)}")
  if len(set(subgroups)) != len(subgroups):
    raise ValueError(f"last tile dim types must be distinct, got {list(subgroups)}")
  return subgroups


class _Parser:
  """A recursive-descent parser of the text form; errors name the column."""

  _TOKEN = re.compile(r"\s*(<=|[{}\[\](),=]|[A-Za-z_][A-Za-z_0-9]*|-?\d+)")

  def __init__(self, text: str):
    self.text = text
    self.pos = 0

  def error(self, what: str):
    return ValueError(f"cannot parse HloSharding {self.text!r} at column {self.pos + 1}: {what}")

  def peek(self) -> str | None:
    m = self._TOKEN.match(self.text, self.pos)
    return m.group(1) if m else None

  def next(self) -> str:
    m = self._TOKEN.match(self.text, self.pos)
    if not m:
      raise self.error("unexpected " + (repr(self.text[self.pos:].strip()[:10]) or "end"))
    self.pos = m.end()
    return m.group(1)

  def expect(self, token: str) -> None:
    start = self.pos
    got = self.next() if self.peek() is not None else None
    if got != token:
      self.pos = start
      raise self.error(f"expected {token!r}, got {got!r}")

  def integer(self) -> int:
    start = self.pos
    token = self.next() if self.peek() is not None else None
    if token is None or not re.fullmatch(r"\d+", token):
      self.pos = start
      raise self.error(f"expected a non-negative integer, got {token!r}")
    return int(token)

  def int_list(self, close: str) -> list[int]:
    values = [self.integer()]
    while self.peek() == ",":
      self.next()
      values.append(self.integer())
    self.expect(close)
    return values

  def parse(self) -> HloSharding:
    sharding = self.sharding()
    if self.text[self.pos:].strip():
      raise self.error("unexpected text after the sharding")
    return sharding

  def sharding(self) -> HloSharding:
    self.expect("{")
    if self.peek() == "{":
      elements = [self.sharding()]
      while self.peek() == ",":
        self.next()
        elements.append(self.sharding())
      self.expect("}")
      return HloSharding.tuple_sharding(elements)
    if self.peek() == "}":
      self.next()
      return HloSharding.tuple_sharding([])
    word = self.next()
    if word in (REPLICATED, MANUAL):
      self.expect("}")
      return HloSharding.replicate() if word == REPLICATED else HloSharding.manual()
    if word == "maximal":
      self.expect("device")
      self.expect("=")
      device = self.integer()
      self.expect("}")
      return HloSharding.maximal(device)
    if word == "devices":
      return self.tiled()
    self.pos -= len(word)
    raise self.error(f"unknown sharding kind {word!r}")

  def tiled(self) -> HloSharding:
    self.expect("=")
    self.expect("[")
    dims = self.int_list("]")
    iota = None
    devices: list[int] = []
    if self.peek() == "<=":
      self.next()
      self.expect("[")
      reshape = self.int_list("]")
      perm: list[int] = []
      if self.peek() == "T":
        self.next()
        self.expect("(")
        perm = self.int_list(")")
      iota = (reshape, perm)
    else:
      devices = self.int_list_until_word()
    subgroups: list[str] = []
    replicate_last = False
    while self.peek() not in ("}", None):
      word = self.next()
      if word == "last_tile_dim_replicate":
        replicate_last = True
      elif word == "last_tile_dims":
        self.expect("=")
        self.expect("{")
        subgroups.append(self.next())
        while self.peek() == ",":
          self.next()
          subgroups.append(self.next())
        self.expect("}")
      else:
        self.pos -= len(word)
        raise self.error(f"unknown tiled-sharding attribute {word!r}")
    self.expect("}")
    try:
      if iota is not None:
        if replicate_last:
          subgroups = [REPLICATED]
        return HloSharding.iota_tile(dims, iota[0], iota[1], subgroups)
      return HloSharding.tiled(dims, devices, replicate_on_last_tile_dim=replicate_last,
                               last_tile_dims=subgroups)
    except (ValueError, TypeError) as e:
      raise self.error(str(e)) from None

  def int_list_until_word(self) -> list[int]:
    values = [self.integer()]
    while self.peek() == ",":
      self.next()
      values.append(self.integer())
    return values
