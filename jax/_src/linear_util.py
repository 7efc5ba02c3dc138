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


class EqualStore(Store):
  """A Store that may be filled again with an equal value (a re-traced function's aux)."""

  __slots__ = ()

  def store(self, val) -> None:
    if self._val is not _EMPTY:
      try:
        same = bool(self._val == val)
      except Exception:  # arrays and other values without a plain truth value
        same = False
      if not same:
        raise StoreException("Store occupied with a different value")
      return
    self._val = val


class WrappedFun:
  """`f` with transformations (outermost last) and keyword parameters.

  The constructor takes JAX's fields: `f_transformed` is the fully composed callable
  (None: composed from `f` and `transforms` when called), `stores` one output store
  (or None) per transformation, `in_type` the input types the function was annotated
  with (None: unannotated).
  """

  def __init__(self, f: Callable, f_transformed: Callable | None = None, transforms: tuple = (),
               stores: tuple | None = None, params: tuple = (), in_type=None, debug_info=None):
    transforms = tuple(transforms)
    if stores is not None:
      stores = tuple(stores)
      if len(stores) != len(transforms):
        raise ValueError(f"WrappedFun: {len(stores)} stores for {len(transforms)} transformations")
      transforms = tuple(t[:3] + (s,) for t, s in zip(transforms, stores))
    self.f, self.f_transformed, self.transforms = f, f_transformed, transforms
    self.params, self.in_type, self.debug_info = tuple(params), in_type, debug_info

  __name__ = property(lambda self: getattr(self.f, "__name__", "<unnamed>"))

  @property
  def stores(self) -> tuple:
    return tuple(t[3] for t in self.transforms)

  def wrap(self, kind: str, gen: Callable, gen_static_args: tuple, out_store) -> WrappedFun:
    return WrappedFun(self.f, transforms=self.transforms + ((kind, gen, gen_static_args, out_store),),
                      params=self.params, in_type=self.in_type, debug_info=self.debug_info)

  def with_unknown_names(self) -> WrappedFun:
    """The same function with its debug info's result paths forgotten (JAX's `unk_names`)."""
    info = self.debug_info
    if info is not None and hasattr(info, "_replace") and hasattr(info, "result_paths"):
      info = info._replace(result_paths=None)
    return WrappedFun(self.f, self.f_transformed, self.transforms, None, self.params,
                      self.in_type, info)

  def call_wrapped(self, *args, **kwargs):
    if self.f_transformed is not None:
      return self.f_transformed(*args, **kwargs)
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
  return WrappedFun(f, params=params, debug_info=debug_info)


def curry(kind: Callable) -> Callable:
  # JAX's transformations are curried: `transformation(gen)` (the decorator use) returns
  # `gen` made applicable as `gen(fun, *static)`; with `fun` given they apply at once.
  @functools.wraps(kind)
  def curried(gen, *args, **kwargs):
    if args or "fun" in kwargs:
      return kind(gen, *args, **kwargs)
    return functools.wraps(gen)(functools.partial(kind, gen, **kwargs))

  return curried


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


def transformation_with_aux2(gen: Callable, fun: WrappedFun, *gen_static_args,
                             use_eq_store: bool = False, unk_names: bool = False):
  """`gen(inner_fun, store, *static, *args)`: it stores its aux output in `store`.

  `use_eq_store` lets the store be filled again with an equal value; `unk_names` forgets
  the result names of the debug info.
  """
  store = EqualStore() if use_eq_store else Store()
  fun_store = _FunStore(store)

  def with_store(inner, *args, **kwargs):  # JAX's order: gen(inner_fun, store, *static, *args)
    return gen(inner, fun_store, *args, **kwargs)

  wrapped = fun.wrap("fun", with_store, gen_static_args, None)
  return (wrapped.with_unknown_names() if unk_names else wrapped), lambda: store.val


class _FunStore:
  def __init__(self, store: Store):
    self._store = store

  def store(self, val) -> None:
    self._store.store(val)


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
