"""`jax.named_scope` / `jax.named_call`: names for the operations traced inside them.

The scopes form a stack per thread; `current_name_stack()` is the '/'-joined path
(e.g. "block/attention"). Names are metadata only: they never change results.
"""

from __future__ import annotations

import functools
import threading
from contextlib import contextmanager
from typing import Any, Callable, NamedTuple

_state = threading.local()


def _stack() -> list[str]:
  stack = getattr(_state, "stack", None)
  if stack is None:
    stack = _state.stack = []
  return stack


class Transform(NamedTuple):
  """A transformation (jvp, transpose, vmap) on the name stack: it wraps the name of the
  scope after it, so operations of a gradient read `transpose(jvp(block))/dense`."""
  name: str


def _render(elements) -> str:
  parts, pending = [], []
  for e in elements:
    if isinstance(e, Transform):
      pending.append(e.name)
      continue
    for t in reversed(pending):
      e = f"{t}({e})"
    parts.append(e)
    pending = []
  if pending:
    name = ""
    for t in reversed(pending):
      name = f"{t}({name})"
    parts.append(name)
  return "/".join(parts)


def current_name_stack() -> str:
  return _render(_stack())


class NameStack(NamedTuple):
  """The scopes (and transformations) an equation was traced in; prints as JAX prints
  them, e.g. 'jvp(outer)/inner'."""
  names: tuple = ()

  def __str__(self) -> str:
    return _render(self.names)


@contextmanager
def transform_name_stack(name: str):
  """Operations traced inside are under the transformation `name`."""
  stack = _stack()
  stack.append(Transform(name))
  try:
    yield
  finally:
    stack.pop()


@contextmanager
def using_name_stack(elements):
  """Operations traced inside get the name stack `elements` instead of the current one
  (a new trace starts from an empty one; a transposed equation takes its own)."""
  saved = _stack()
  _state.stack = list(elements)
  try:
    yield
  finally:
    _state.stack = saved


class SourceInfo(NamedTuple):
  """Where an equation comes from (`eqn.source_info`): its name stack (the traceback is
  not recorded here)."""
  traceback: Any
  name_stack: NameStack


_source_infos: dict[tuple[str, ...], SourceInfo] = {}


def current_source_info() -> SourceInfo:
  """The SourceInfo of an equation traced now (one shared object per name stack)."""
  names = tuple(_stack())
  info = _source_infos.get(names)
  if info is None:
    info = _source_infos[names] = SourceInfo(None, NameStack(names))
  return info


@contextmanager
def named_scope(name: str):
  """Name the operations traced in the block `name` (nested scopes join with '/')."""
  if not isinstance(name, str):
    raise TypeError(f"named_scope name argument must be a string, got {name!r}")
  stack = _stack()
  stack.append(name)
  try:
    yield
  finally:
    stack.pop()


def named_call(fun: Callable, *, name: str | None = None) -> Callable:
  """`fun`, with every call traced inside a scope named `name` (default: its name)."""
  scope = name if name is not None else getattr(fun, "__name__", "named_call")

  @functools.wraps(fun)
  def wrapped(*args, **kwargs):
    with named_scope(scope):
      return fun(*args, **kwargs)

  return wrapped
