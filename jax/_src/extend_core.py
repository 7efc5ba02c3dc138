"""JAX's names for the core's pieces (`jax.core`, `jax.extend.core`).

Libraries that define primitives or walk jaxprs use these names; each maps onto
our core (`jax._src.core`) so that what they build is what our transformations,
lowering and checkers see.
"""

from __future__ import annotations

import abc
import importlib
import pkgutil
from contextlib import contextmanager
from typing import Any, Callable, Sequence

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src import errors
from jax._src.core import (ClosedJaxpr, Jaxpr, JaxprEqn, JaxprTypeError, Literal, Primitive,
                           ShapedArray, Trace, Tracer, Var, check_jaxpr)
from jax._src.dtypes_public import float0
from jax._src.interpreters import ad, batching
from jax._src.lowering import hlo
from jax._src import lax as lax_pkg


class AbstractValue(abc.ABC):
  """The base of abstract values (`ShapedArray` is registered as one)."""


AbstractValue.register(ShapedArray)

Value = Any
Atom = core.Atom


class DropVar(Var):
  """A binder whose value is not used (`_` in printed jaxprs)."""

  __slots__ = ()

  def __repr__(self):
    return "_"


class TraceTag:
  """Identifies one trace (one transformation instance)."""

  def __init__(self, main: core.MainTrace | None = None):
    self.main = main

  def __eq__(self, other):
    return isinstance(other, TraceTag) and self.main is other.main

  def __hash__(self):
    return id(self.main)


class DebugInfo:
  """Where a traced function came from (its name and argument names)."""

  def __init__(self, traced_for: str, func_src_info: str | None, arg_names=None,
               result_paths=None):
    self.traced_for, self.func_src_info = traced_for, func_src_info
    self.arg_names, self.result_paths = arg_names, result_paths

  @property
  def func_name(self) -> str:
    return (self.func_src_info or "<unknown>").split(" ")[0]


class Effect:
  """The base of side effects; the core here tracks none, so jaxprs have `no_effects`."""


no_effects: frozenset = frozenset()


class AbstractToken:
  """The type of tokens, which order side effects."""

  shape, dtype = (), np.dtype(np.bool_)

  def str_short(self, short_dtypes: bool = False, mesh_axis_types: bool = False) -> str:
    return "Tok"


abstract_token = AbstractToken()


class Token:
  """A value of type `AbstractToken`; it carries no data."""

  aval = abstract_token

  def __init__(self, buf=None):
    self._buf = buf


class InconclusiveDimensionOperation(Exception):
  """A comparison of symbolic dimensions could not be decided."""


array_types: set = {np.ndarray} | set(np.sctypeDict.values())


def valid_jaxtype(x) -> bool:
  return core.is_valid_jaxval(x)


def eval_jaxpr(jaxpr: Jaxpr, consts: Sequence, *args, propagate_source_info: bool = True) -> list:
  """Interpret `jaxpr` on `args`, binding each equation's primitive on the current trace."""
  del propagate_source_info
  if len(args) != len(jaxpr.invars):
    raise TypeError(f"eval_jaxpr: the jaxpr takes {len(jaxpr.invars)} arguments, got {len(args)}")
  return core.eval_jaxpr(jaxpr, consts, args)


def jaxpr_as_fun(closed_jaxpr: ClosedJaxpr, *args):
  """`closed_jaxpr` as a function of its invars (JAX curries when no args are given)."""
  fun = lambda *xs: eval_jaxpr(closed_jaxpr.jaxpr, closed_jaxpr.consts, *xs)
  return fun(*args) if args else fun


def new_jaxpr_eqn(invars, outvars, primitive: Primitive, params: dict, effects=no_effects,
                  source_info=None, ctx=None) -> JaxprEqn:
  del effects, source_info, ctx  # the core tracks neither effects nor source locations
  return JaxprEqn(primitive, list(invars), dict(params), list(outvars))


def gensym(suffix: str = "") -> Callable[[ShapedArray], Var]:
  """A factory of fresh variables (names are given when a jaxpr is printed)."""
  del suffix
  return Var


def mapped_aval(size: int, axis: int | None, aval: ShapedArray) -> ShapedArray:
  """The aval of one slice of `aval` along `axis` (of length `size`)."""
  if axis is None:
    return aval
  if aval.shape[axis] != size:
    raise ValueError(f"axis {axis} of {aval.str_short(short_dtypes=True)} has size {aval.shape[axis]}, not {size}")
  return core.remove_dim(aval, axis)


def unmapped_aval(size: int, axis: int | None, aval: ShapedArray, explicit_mesh_axis=None
                  ) -> ShapedArray:
  """`aval` with a new axis of length `size` inserted at `axis`."""
  if axis is None:
    return aval
  out = core.insert_dim(aval, axis, size)
  if explicit_mesh_axis is not None:
    # The new axis is split over these Explicit mesh axes (vmap's spmd_axis_name).
    names = ((explicit_mesh_axis,) if isinstance(explicit_mesh_axis, str)
             else tuple(explicit_mesh_axis))
    dims = list(out.sharding.spec.axes_by_dim(out.ndim))
    dims[axis] = names
    out = out.update(sharding=core.sharding_hooks["respec"](out.sharding, dims))
  return out


def raise_to_shaped(aval, weak_type=None):
  """The ShapedArray of `aval` (every abstract value here already is one)."""
  if not isinstance(aval, ShapedArray):
    raise TypeError(f"raise_to_shaped expects an abstract value, got {aval!r}")
  return aval if weak_type is None else aval.update(weak_type=weak_type)


def primal_dtype_to_tangent_dtype(primal_dtype) -> np.dtype:
  """Integer and boolean values have tangents of dtype float0."""
  dt = np.dtype(primal_dtype)
  return dt if dtypes.is_inexact(dt) else float0


def concrete_or_error(force: Callable | None, val, context: str = ""):
  """`force(val)` if `val`'s value is known now, else ConcretizationTypeError."""
  force = force or (lambda x: x)
  if isinstance(val, Tracer):
    value = val.to_concrete_value()
    if value is None:
      raise errors.ConcretizationTypeError(val, context)
    return force(np.asarray(value))
  return force(val)


def jaxprs_in_params(params: dict) -> list[Jaxpr]:
  out = []
  for p in params.values():
    for x in (p if isinstance(p, (list, tuple)) else [p]):
      if isinstance(x, ClosedJaxpr):
        out.append(x.jaxpr)
      elif isinstance(x, Jaxpr):
        out.append(x)
  return out


def subjaxprs(jaxpr: Jaxpr):
  """The jaxprs carried by the equations of `jaxpr` (one level deep)."""
  for eqn in jaxpr.eqns:
    yield from jaxprs_in_params(eqn.params)


class CallPrimitive(Primitive):
  """A primitive whose `call_jaxpr` parameter is run, transformed, as a nested call."""

  multiple_results = True

  def __init__(self, name: str):
    super().__init__(name, multiple_results=True)
    self.def_impl(call_impl)
    self.def_abstract_eval(lambda *avals, call_jaxpr, **_: list(_closed(call_jaxpr).out_avals))
    _register_call_rules(self)


def _closed(jaxpr) -> ClosedJaxpr:
  return jaxpr if isinstance(jaxpr, ClosedJaxpr) else ClosedJaxpr(jaxpr, [])


def call_impl(*args, call_jaxpr, **_):
  closed = _closed(call_jaxpr)
  return core.eval_jaxpr(closed.jaxpr, closed.consts, args)


def _register_call_rules(prim: Primitive) -> None:
  # Transformations run through the call: it is inlined, so every rule of its body applies.

  def jvp(primals, tangents, *, call_jaxpr, **params):
    closed = _closed(call_jaxpr)
    return ad.jvp_flat(lambda *xs: core.eval_jaxpr(closed.jaxpr, closed.consts, xs),
                       primals, tangents)

  def batch(axis, vals, dims, *, call_jaxpr, **params):
    closed = _closed(call_jaxpr)
    outs = batching.vmap_flat(lambda *xs: core.eval_jaxpr(closed.jaxpr, closed.consts, xs),
                              axis, dims, None, vals)
    return outs, [0] * len(outs)

  def lower(ctx, *args, call_jaxpr, **params):
    closed = _closed(call_jaxpr)
    return hlo.lower_jaxpr_into(ctx.comp, closed.jaxpr, closed.consts, args)

  ad.jvp_rules[prim] = jvp
  batching.batch_rules[prim] = batch
  hlo.lowering_rules[prim] = lower


# ----------------------------------------------------------------------------- trace state


class OpaqueTraceState:
  """Compares equal to another state taken under the same stack of transformations."""

  def __init__(self):
    self._stack = tuple(core.current_trace_stack())
    self._dynamic = core.current_dynamic_main()

  def __eq__(self, other):
    return (isinstance(other, OpaqueTraceState) and self._dynamic is other._dynamic
            and len(self._stack) == len(other._stack)
            and all(a is b for a, b in zip(self._stack, other._stack)))

  def __hash__(self):
    return hash((id(self._dynamic), len(self._stack)))


def get_opaque_trace_state(convention=None) -> OpaqueTraceState:
  """A token of the current transformation context (e.g. to detect leaked state)."""
  del convention
  return OpaqueTraceState()


@contextmanager
def take_current_trace():
  """The trace that a primitive bound now would go to (the innermost transformation)."""
  yield core.current_trace()


@contextmanager
def set_current_trace(trace: Trace, check_leaks: bool = False):
  """Bind primitives on `trace` while inside this block. A library's trace that has
  no main yet gets one above every active transformation, for this block."""
  del check_leaks
  if any(trace.main is m for m in core.current_trace_stack()):
    with core.use_trace(trace):
      yield
    return

  def this_trace(main):
    return trace
  this_trace.__name__ = type(trace).__name__
  with core.new_dynamic_main(this_trace) as main:
    # Kept after the block, so that a tracer that escapes it is reported as one.
    trace.main = main
    yield


@contextmanager
def ensure_compile_time_eval():
  """Compute eagerly, with concrete values, even inside jit (for constants)."""
  with core.ensure_no_dynamic_trace():
    yield


eval_context = ensure_compile_time_eval


def _main_types() -> list[type]:
  return [m.trace_type.__name__ for m in core.current_trace_stack()[1:]]


def unsafe_am_i_under_a_jit_DO_NOT_USE() -> bool:
  return "DynamicJaxprTrace" in _main_types()


def unsafe_am_i_under_a_vmap_DO_NOT_USE() -> bool:
  return "BatchTrace" in _main_types()


def unsafe_get_axis_names_DO_NOT_USE() -> list:
  return [m.global_data.name for m in core.current_trace_stack()[1:]
          if m.trace_type.__name__ == "BatchTrace" and m.global_data.name is not None]


def nonempty_axis_env_DO_NOT_USE() -> bool:
  return bool(unsafe_get_axis_names_DO_NOT_USE())


def max_dim(d1, d2):
  return max(int(d1), int(d2))


def min_dim(d1, d2):
  return min(int(d1), int(d2))


def collect_primitives() -> dict[str, Primitive]:
  # The lax primitives are defined above the core; gather them when first asked for.
  found: dict[str, Primitive] = {}
  for info in pkgutil.iter_modules(lax_pkg.__path__):
    mod = importlib.import_module(f"{lax_pkg.__name__}.{info.name}")
    for name, val in vars(mod).items():
      if name.endswith("_p") and isinstance(val, Primitive):
        found.setdefault(name, val)
  return found


