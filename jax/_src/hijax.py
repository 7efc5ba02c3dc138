"""Higher-level types and primitives (`jax.experimental.hijax`), eagerly.

A "hi" primitive carries Python objects of a registered "hi" type (a box, a
variable holding a pytree) rather than arrays; its subclass says how to run it
(`impl`) and what it returns abstractly (`abstract_eval`). Here such primitives
run eagerly: `bind` on concrete values calls `impl`. Staging them into jaxprs
(under jit, grad or vmap) is not supported by this jax and raises
NotImplementedError naming the primitive. Libraries define their hi types at
import time (flax's optional hijax Variables), so the names are all here.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from jax._src import core
from jax._src.custom_derivatives_public import SymbolicZero as Zero  # noqa: F401
from jax._src.extend_core import AbstractValue as AbstractValue  # noqa: F401
from jax._src.interpreters.ad import is_undefined_primal as is_undefined_primal  # noqa: F401
from jax._src.interpreters_public import instantiate_zeros as instantiate_zeros  # noqa: F401


class EffectTypeSet:
  """A set of effect types (checked with isinstance, so subclasses count)."""

  def __init__(self):
    self._types: set[type] = set()

  def add_type(self, effect_type: type) -> None:
    self._types.add(effect_type)

  def contains(self, effect) -> bool:
    return any(isinstance(effect, t) for t in self._types)

  def filter_not_in(self, effects) -> list:
    return [e for e in effects if not self.contains(e)]


# Effects that may appear inside the bodies of control flow (cond, scan, while).
control_flow_allowed_effects = EffectTypeSet()


class HiType:
  """The abstract type of values of a hi type."""

  mutable = False

  def str_short(self, short_dtypes: bool = False, mesh_axis_types: bool = False) -> str:
    return type(self).__name__


class MutableHiType(HiType):
  """The abstract type of hi values whose contents can change (their "QDD")."""

  mutable = True


class AvalQDD:
  """An abstract value with its quasi-dynamic data (what a mutable value holds now)."""

  def __init__(self, aval, qdd):
    self.aval, self.qdd = aval, qdd

  def __repr__(self):
    return f"AvalQDD({self.aval!r}, {self.qdd!r})"


class AvalMutableQDD:
  """An abstract value with quasi-dynamic data that an abstract evaluation may update."""

  def __init__(self, aval, mutable_qdd):
    self.aval, self.mutable_qdd = aval, mutable_qdd


# Python type -> function giving the abstract type (a HiType) of one of its values.
hitype_registry: dict[type, Callable[[Any], HiType]] = {}


def register_hitype(cls: type, to_aval: Callable[[Any], HiType]) -> None:
  """Declares `cls` a hi type whose values have the abstract type `to_aval(value)`."""
  if not callable(to_aval):
    raise TypeError(f"register_hitype: to_aval must be callable, got {to_aval!r}")
  hitype_registry[cls] = to_aval


def typeof_hi(x) -> HiType:
  """The abstract type of a value of a registered hi type."""
  for cls in type(x).__mro__:
    if cls in hitype_registry:
      return hitype_registry[cls](x)
  raise TypeError(f"{type(x).__name__} is not a registered hi type")


class HiPrimitive(core.Primitive):
  """A primitive over hi values; subclasses define `impl` and `abstract_eval`."""

  def __init__(self, name: str):
    super().__init__(name, multiple_results=type(self).multiple_results)
    # The subclass's impl/abstract_eval methods are the rules, not per-instance slots.
    del self.impl, self.abstract_eval

  def is_high(self, *args, **params) -> bool:
    return True

  def impl(self, *args, **params):
    raise NotImplementedError(f"hi primitive '{self.name}' defines no impl")

  def abstract_eval(self, *avals, **params):
    raise NotImplementedError(f"hi primitive '{self.name}' defines no abstract_eval")

  def bind(self, *args, **params):
    if any(isinstance(a, core.Tracer) for a in args) or core.is_staging():
      raise NotImplementedError(
          f"hi primitive '{self.name}' was used under a transformation (jit, grad or vmap); "
          "this jax runs hi primitives eagerly only")
    return self.impl(*args, **params)


class aval_method:
  """A method of a hi value that its abstract type offers too: looked up on the
  abstract type, it is `fun` bound to that abstract value."""

  def __init__(self, fun: Callable):
    self.fun = fun
    functools.update_wrapper(self, fun)

  def __get__(self, obj, objtype=None):
    return self if obj is None else functools.partial(self.fun, obj)


class aval_property(property):
  """A property of a hi value that its abstract type offers too."""
