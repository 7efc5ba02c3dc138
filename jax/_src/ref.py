"""Mutable array references (`jax.ref`, `jax.new_ref`).

A `Ref` holds an array value that `ref[idx] = v`, `set`, `swap` and `addupdate` replace
and `ref[idx]` / `get` read. Inside one traced function (jit, grad, vmap, scan
bodies) the reads and writes are ordinary traced operations, run in program order.
A Ref may be read by a deeper transformation than the one that created it, but it
can only be written at the level it was created at: writes from inside a nested
transformation (or after the creating trace has ended) are refused with an error.
"""

from __future__ import annotations

import contextlib
import operator
from typing import Any, NamedTuple

from jax._src import core
from jax._src import dtypes
from jax._src.lax import shape as lax_shape
from jax._src.lax import slicing
from jax._src.numpy import namespace as jnp


class AbstractRef:
  """The type of a Ref: the type of the array it holds (and where it lives)."""

  def __init__(self, inner_aval, memory_space=None, kind=None):
    self.inner_aval, self.memory_space, self.kind = inner_aval, memory_space, kind

  shape = property(lambda self: self.inner_aval.shape)
  dtype = property(lambda self: self.inner_aval.dtype)
  ndim = property(lambda self: len(self.inner_aval.shape))

  def __eq__(self, other):
    return (isinstance(other, AbstractRef) and self.inner_aval == other.inner_aval
            and self.memory_space == other.memory_space)

  def __hash__(self):
    return hash((AbstractRef, self.inner_aval, self.memory_space))

  def str_short(self, short_dtypes: bool = False, mesh_axis_types: bool = False) -> str:
    return f"Ref{{{self.inner_aval.str_short(short_dtypes=short_dtypes)}}}"

  def __repr__(self):
    return self.str_short()


class Slice(NamedTuple):
  """`size` elements from `start` (which may be traced), every `stride`-th."""
  start: Any
  size: int
  stride: int = 1


def ds(start, size=None, stride=None) -> Slice:
  """A dynamic slice index: ref[ds(i, n)] reads n elements starting at i."""
  if size is None:
    if isinstance(start, int):
      return Slice(0, start, 1)
    raise ValueError("ds(start) with a traced start needs a size")
  return Slice(start, operator.index(size), 1 if stride is None else operator.index(stride))


def _stack_ids():
  return [id(m) for m in core.current_trace_stack()]


class Ref:
  """A mutable reference to an array."""

  def __init__(self, aval, refs):
    self.aval = aval if isinstance(aval, AbstractRef) else AbstractRef(aval)
    self._value = refs
    self._stack = _stack_ids()
    self._freed = False

  shape = property(lambda self: self.aval.shape)
  dtype = property(lambda self: self.aval.dtype)
  ndim = property(lambda self: self.aval.ndim)

  def _check_live(self, what: str) -> None:
    if self._freed:
      raise ValueError(f"cannot {what} a Ref that was frozen or freed")
    if _stack_ids()[:len(self._stack)] != self._stack:
      raise ValueError(f"cannot {what} a Ref outside the transformation that created it "
                       "(the trace it was made in has ended)")

  def _check_writable(self, value) -> None:
    self._check_live("write to")
    if isinstance(value, core.Tracer) and core.trace_level(value) >= len(self._stack):
      raise NotImplementedError(
          "writing a value of an inner transformation (jit/grad/vmap/scan body) into a Ref "
          "created outside it is not supported; create the Ref inside, or return the value")

  @contextlib.contextmanager
  def bound_to(self, value):
    """While inside: this Ref holds `value` (a tracer of the transformation running now,
    which may write to it), as when jit takes the Ref as an argument."""
    saved = self._value, self._stack
    self._value, self._stack = value, _stack_ids()
    try:
      yield self
    finally:
      self._value, self._stack = saved

  def __getitem__(self, idx):
    return get(self, idx)

  def __setitem__(self, idx, value):
    set(self, idx, value)

  def __repr__(self):
    return f"Ref({self._value!r})" if not self._freed else "Ref(<freed>)"

  def __len__(self):
    if not self.shape:
      raise TypeError("len() of unsized Ref")
    return self.shape[0]


core.ref_types.add(Ref)


def _as_array(x, aval):
  x = jnp.asarray(x)
  return x if x.dtype == aval.dtype else x.astype(aval.dtype)


def new_ref(init_val, *, memory_space=None, kind=None) -> Ref:
  """A Ref holding `init_val` (an array)."""
  value = jnp.asarray(init_val)
  aval = core.get_aval(value)
  return Ref(AbstractRef(aval.update(weak_type=False), memory_space, kind), value)


def empty_ref(ty, memory_space=None) -> Ref:
  """A Ref of type `ty` (a ShapeDtypeStruct or an array type) holding zeros."""
  shape, dtype = tuple(ty.shape), dtypes.canonicalize_dtype(ty.dtype)
  return new_ref(lax_shape.full(shape, 0, dtype), memory_space=memory_space)


def freeze(ref: Ref):
  """The value held by `ref`; the Ref cannot be used afterwards."""
  value = get(ref)
  ref._freed = True
  return value


def free_ref(ref: Ref) -> None:
  """Release `ref` (it cannot be used afterwards)."""
  ref._check_live("free")
  ref._freed, ref._value = True, None


def _split_index(idx, ndim: int):
  """(per-axis dynamic Slices, the remaining static/array index)."""
  if idx is None or idx is Ellipsis or (type(idx) is tuple and not idx):
    return {}, ()
  if type(idx) is not tuple:
    idx = (idx,)
  if not any(isinstance(i, Slice) for i in idx):
    return {}, idx
  if any(i is Ellipsis for i in idx):
    k = idx.index(Ellipsis)
    idx = idx[:k] + (slice(None),) * (ndim - len(idx) + 1) + idx[k + 1:]
  dynamic, rest = {}, []
  for axis, i in enumerate(idx):
    if isinstance(i, Slice):
      dynamic[axis] = i
      rest.append(slice(None))
    else:
      rest.append(i)
  return dynamic, tuple(rest)


def _read(value, idx):
  dynamic, rest = _split_index(idx, core.get_aval(value).ndim)
  for axis, s in dynamic.items():
    span = (s.size - 1) * s.stride + 1 if s.size else 0
    value = slicing.dynamic_slice_in_dim(value, s.start, span, axis)
    if s.stride != 1:
      value = lax_shape.slice(value, [0] * value.ndim, list(value.shape),
                              [s.stride if a == axis else 1 for a in range(value.ndim)])
  return value[rest] if rest else value


def _write(value, idx, update, combine):
  dynamic, rest = _split_index(idx, core.get_aval(value).ndim)
  if not dynamic:
    if not rest:
      return combine(value, jnp.broadcast_to(update, value.shape).astype(value.dtype))
    return value.at[rest].set(combine(value[rest], update))
  if any(s.stride != 1 for s in dynamic.values()) or any(r != slice(None) for r in rest):
    raise NotImplementedError("Ref writes with strided ds() or ds() mixed with other "
                              "indices are not supported")
  starts = [dynamic[a].start if a in dynamic else 0 for a in range(value.ndim)]
  sizes = [dynamic[a].size if a in dynamic else value.shape[a] for a in range(value.ndim)]
  old = slicing.dynamic_slice(value, starts, sizes)
  new = combine(old, jnp.broadcast_to(update, tuple(sizes)).astype(value.dtype))
  return slicing.dynamic_update_slice(value, new, starts)


def get(ref: Ref, idx=()):
  """ref[idx]: the held value, or the part of it `idx` selects."""
  if not isinstance(ref, Ref):
    raise TypeError(f"get expects a Ref, got {type(ref).__name__}")
  ref._check_live("read")
  return _read(ref._value, idx)


def swap(ref: Ref, idx, value, _function_name: str = "swap"):
  """Store `value` at ref[idx] and return what was there."""
  if not isinstance(ref, Ref):
    raise TypeError(f"{_function_name} expects a Ref, got {type(ref).__name__}")
  ref._check_writable(value)
  old = _read(ref._value, idx)
  ref._value = _write(ref._value, idx, value, lambda _, new: new)
  return old


def set(ref: Ref, idx, value) -> None:  # noqa: A001 (JAX's name)
  """ref[idx] = value."""
  swap(ref, idx, value, "set")


def addupdate(ref: Ref, idx, x) -> None:
  """ref[idx] += x."""
  if not isinstance(ref, Ref):
    raise TypeError(f"addupdate expects a Ref, got {type(ref).__name__}")
  ref._check_writable(x)
  ref._value = _write(ref._value, idx, x, lambda old, new: old + new)

