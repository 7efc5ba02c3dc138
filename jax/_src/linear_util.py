"""Wrapped functions with composable transformations (`jax.extend.linear_util`).

A `WrappedFun` is a function plus a stack of transformations applied when it is
called. Generator transformations (`transformation`, `transformation_with_aux`)
receive the arguments, yield them (possibly changed) to the inner function,
receive its result and yield the final result (and, with aux, a side output kept
in a `Store`). `transformation2` takes the inner function as an ordinary argument.
"""

from __future__ import annotations

import functools
from typing import Any, Callable


class StoreException(Exception):
  """A Store was read before being filled, or filled twice."""


_EMPTY = object()


class Store:
  """A write-once box for an auxiliary output, filled when the wrapped function runs."""

  __slots__ = ("_val",)

  def __init__(self):
    self._val = _EMPTY

  def store(self, val) -> None:
    if self._val is not _EMPTY:
      raise StoreException("Store occupied")
    self._val = val

  def reset(self) -> None:
    self._val = _EMPTY

  @property
  def val(self):
    if self._val is _EMPTY:
      raise StoreException("Store empty: the wrapped function has not run yet")
    return self._val

  def __bool__(self):
    return self._val is not _EMPTY


class WrappedFun:
  """`f` with transformations (outermost last) and keyword parameters."""

  def __init__(self, f: Callable, transforms: tuple, params: tuple, debug_info=None):
    self.f, self.transforms, self.params, self.debug_info = f, transforms, params, debug_info

  __name__ = property(lambda self: getattr(self.f, "__name__", "<unnamed>"))

  def wrap(self, kind: str, gen: Callable, gen_static_args: tuple, out_store) -> WrappedFun:
    return WrappedFun(self.f, self.transforms + ((kind, gen, gen_static_args, out_store),),
                      self.params, self.debug_info)

  def call_wrapped(self, *args, **kwargs):
    return self._call(len(self.transforms), args, kwargs)

  def _call(self, depth: int, args, kwargs):
    if depth == 0:
      return self.f(*args, **dict(self.params), **kwargs)
    kind, gen, static, store = self.transforms[depth - 1]
    if kind == "fun":
      inner = lambda *a, **k: self._call(depth - 1, a, k)
      out = gen(inner, *static, *args, **kwargs)
      if store is not None:
        out, aux = out
        store.store(aux)
      return out
    g = gen(*static, *args, **kwargs)
    inner_args, inner_kwargs = next(g)
    ans = self._call(depth - 1, tuple(inner_args), dict(inner_kwargs))
    out = g.send(ans)
    if store is not None:
      out, aux = out
      store.store(aux)
    g.close()
    return out

  def __repr__(self):
    names = [getattr(t[1], "__name__", str(t[1])) for t in self.transforms]
    return f"Wrapped function:\n  {self.__name__} with transforms {names}"

  def __eq__(self, other):
    return (isinstance(other, WrappedFun) and self.f is other.f
            and self.params == other.params
            and [t[:3] for t in self.transforms] == [t[:3] for t in other.transforms])

  def __hash__(self):
    return hash((id(self.f), self.params, tuple(t[:3] for t in self.transforms)))


def wrap_init(f: Callable, params=None, *, debug_info=None) -> WrappedFun:
  """Wrap `f` (called with `params` as extra keyword arguments)."""
  params = () if params is None else tuple(sorted(dict(params).items()))
  return WrappedFun(f, (), params, debug_info)


def transformation(gen: Callable, fun: WrappedFun, *gen_static_args) -> WrappedFun:
  """Apply the generator transformation `gen` to `fun`."""
  return fun.wrap("gen", gen, gen_static_args, None)


def transformation_with_aux(gen: Callable, fun: WrappedFun, *gen_static_args):
  """Like `transformation`; `gen` finally yields (out, aux). Returns (fun, aux thunk)."""
  store = Store()
  return fun.wrap("gen", gen, gen_static_args, store), lambda: store.val


def transformation2(gen: Callable, fun: WrappedFun, *gen_static_args) -> WrappedFun:
  """Apply `gen(inner_fun, *static, *args)`, a plain function taking the inner function."""
  return fun.wrap("fun", gen, gen_static_args, None)


def transformation_with_aux2(gen: Callable, fun: WrappedFun, *gen_static_args):
  """`gen(inner_fun, store, *static, *args)`: it stores its aux output in `store`."""
  store = Store()
  with_store = functools.partial(gen, _FunStore(store))
  return fun.wrap("fun", with_store, gen_static_args, None), lambda: store.val


class _FunStore:
  def __init__(self, store: Store):
    self._store = store

  def store(self, val) -> None:
    self._store.store(val)


def as_decorator(kind: Callable) -> Callable:
  # `@transformation` on a generator makes it applicable as `gen(fun, *static)`.
  def decorate(gen):
    return functools.wraps(gen)(functools.partial(kind, gen))

  return decorate


def merge_linear_aux(aux1: Callable, aux2: Callable):
  """The aux of whichever of two alternative transformations ran: (True, a1) or (False, a2)."""
  try:
    out1 = aux1()
  except StoreException:
    try:
      out2 = aux2()
    except StoreException:
      raise StoreException("neither store was filled") from None
    return False, out2
  return True, out1


def cache(call: Callable, *, explain=None) -> Callable:
  """Memoize `call(fun, *args)` on the WrappedFun's identity and the (hashable) args."""
  del explain
  memo: dict[Any, Any] = {}

  @functools.wraps(call)
  def cached(fun: WrappedFun, *args):
    key = (fun, args)
    if key not in memo:
      memo[key] = call(fun, *args)
    return memo[key]

  cached.cache_clear = memo.clear
  return cached
