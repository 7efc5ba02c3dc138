"""`jax.named_scope` / `jax.named_call`: names for the operations traced inside them.

The scopes form a stack per thread; `current_name_stack()` is the '/'-joined path
(e.g. "block/attention"). Names are metadata only: they never change results.
"""

from __future__ import annotations

import functools
import threading
from contextlib import contextmanager
from typing import Callable

_state = threading.local()


def _stack() -> list[str]:
  stack = getattr(_state, "stack", None)
  if stack is None:
    stack = _state.stack = []
  return stack


def current_name_stack() -> str:
  return "/".join(_stack())


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
