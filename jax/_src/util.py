"""Small helpers over sequences and caches that several modules (and libraries that import
them from JAX's modules) share."""

from __future__ import annotations

import functools
import operator
import weakref
from typing import Any, Callable, Sequence


def ensure_index(x) -> int | tuple[int, ...]:
  """An axis or argument number as an int, or a sequence of them as a tuple of ints.
  Anything with `__index__` counts as one (numpy integers included), as in JAX."""
  try:
    return operator.index(x)
  except TypeError:
    return tuple(map(operator.index, x))


def ensure_index_tuple(x) -> tuple[int, ...]:
  """ensure_index, with a single number as a 1-tuple."""
  x = ensure_index(x)
  return x if isinstance(x, tuple) else (x,)


def safe_zip(*args):
  """zip that refuses sequences of different lengths (a silent truncation hides bugs)."""
  if not args:
    return []
  n = len(args[0])
  for i, a in enumerate(args[1:], 1):
    if len(a) != n:
      raise ValueError(f"safe_zip: argument 0 has length {n} but argument {i} has length "
                       f"{len(a)}")
  return list(zip(*args))


def safe_map(f: Callable, *args):
  """map (as a list) that refuses sequences of different lengths."""
  args = [list(a) for a in args]
  if args:
    n = len(args[0])
    for i, a in enumerate(args[1:], 1):
      if len(a) != n:
        raise ValueError(f"safe_map: argument 0 has length {n} but argument {i} has length "
                         f"{len(a)}")
  return list(map(f, *args))


def unzip2(xys) -> tuple[tuple, tuple]:
  """[(a0, b0), (a1, b1), ...] -> ((a0, a1, ...), (b0, b1, ...))."""
  xs, ys = [], []
  for x, y in xys:
    xs.append(x)
    ys.append(y)
  return tuple(xs), tuple(ys)


def split_list(xs: Sequence, sizes: Sequence[int]) -> list[list]:
  """xs cut into consecutive pieces of the given sizes, plus the remainder."""
  xs = list(xs)
  out = []
  for n in sizes:
    out.append(xs[:n])
    xs = xs[n:]
  out.append(xs)
  return out


def weakref_lru_cache(f: Callable, maxsize: int | None = 2048,
                      trace_context_in_key: bool = True, explain=None) -> Callable:
  """An LRU cache of `f(obj, *args)` keyed weakly on `obj`: entries go when `obj` dies.

  The first argument is often a function or jaxpr that should not be kept alive by the
  cache; the remaining arguments must be hashable. With trace_context_in_key the
  configuration that affects tracing (x64) is part of the key. `explain`, if given, is
  called with the arguments of each miss.
  """
  fun = f
  per_object: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

  def cached(obj, *args, **kwargs):
    try:
      table = per_object.get(obj)
    except TypeError:  # not weakly referenceable: compute without caching
      return fun(obj, *args, **kwargs)
    if table is None:
      def miss(ref, *a, _trace_context=None, **k):
        if explain is not None:
          explain(ref(), *a, **k)
        return fun(ref(), *a, **k)
      inner = functools.lru_cache(maxsize=maxsize)(miss)
      table = per_object[obj] = (weakref.ref(obj), inner)
    ref, inner = table
    if trace_context_in_key:
      kwargs = dict(kwargs, _trace_context=_trace_context())
    return inner(ref, *args, **kwargs)

  def cache_clear():
    per_object.clear()

  cached.cache_clear = cache_clear
  functools.update_wrapper(cached, fun)
  return cached


def _trace_context():
  from jax._src.config import config  # the flags that change what tracing produces
  return bool(config.read("jax_enable_x64"))


class LateOps:
  """Functions a module needs from a module of its own layer that builds on it: the
  defining module registers them by name and the user looks them up when called, so
  the modules of a layer import one another in one direction only."""

  def __init__(self, owner: str):
    self._owner = owner
    self._ops: dict[str, Callable] = {}

  def register(self, **ops: Callable) -> None:
    self._ops.update(ops)

  def get(self, name: str) -> Callable:
    op = self._ops.get(name)
    if op is None:
      raise RuntimeError(f"{self._owner}'s {name} is used before the module defining it "
                         "was imported")
    return op
