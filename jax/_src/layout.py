"""Array layouts (`jax.experimental.layout`): the order of an array's dimensions in
memory, and a `Format` pairing a layout with a sharding.

Our CPU backend stores every array in the default row-major order, so a Layout is
a description compilers and libraries can pass around and compare; it does not
change how an array is stored.
"""

from __future__ import annotations

from typing import Any


class AutoLayout:
  """Lets the compiler choose the layout (`Layout.AUTO`)."""

  def __repr__(self):
    return "AUTO"


class Layout:
  """The order of an array's dimensions in memory, from major to minor."""

  AUTO = AutoLayout()

  def __init__(self, major_to_minor: tuple[int, ...], tiling: tuple[tuple[int, ...], ...] = (),
               sub_byte_element_size_in_bits: int = 0):
    dims = tuple(int(d) for d in major_to_minor)
    if sorted(dims) != list(range(len(dims))):
      raise ValueError(f"major_to_minor must be a permutation of 0..{len(dims) - 1}, got {dims}")
    self.major_to_minor = dims
    self.tiling = tuple(tuple(t) for t in tiling)
    self.sub_byte_element_size_in_bits = int(sub_byte_element_size_in_bits)

  @classmethod
  def row_major(cls, ndim: int) -> "Layout":
    return cls(tuple(range(ndim)))

  def _key(self):
    return (self.major_to_minor, self.tiling, self.sub_byte_element_size_in_bits)

  def __eq__(self, other):
    return isinstance(other, Layout) and self._key() == other._key()

  def __hash__(self):
    return hash(self._key())

  def __repr__(self):
    return (f"Layout(major_to_minor={self.major_to_minor}, tiling={self.tiling}, "
            f"sub_byte_element_size_in_bits={self.sub_byte_element_size_in_bits})")


class Format:
  """A layout and a sharding, as accepted where JAX takes a sharding."""

  def __init__(self, layout: Layout | AutoLayout | None = None, sharding: Any = None):
    if not isinstance(layout, (Layout, AutoLayout, type(None))):
      raise TypeError(f"Format's layout must be a Layout, Layout.AUTO or None, got {layout!r}")
    self.layout = layout
    self.sharding = sharding

  def __eq__(self, other):
    return (isinstance(other, Format) and self.layout == other.layout
            and self.sharding == other.sharding)

  def __hash__(self):
    return hash((self.layout, self.sharding))

  def __repr__(self):
    return f"Format({self.layout!r}, {self.sharding!r})"
