"""The core: abstract values, primitives, traces/tracers, jaxprs.

Tracing is dynamic, with an explicit trace stack: each transformation pushes a
`MainTrace` (its level is its position on the stack) and wraps values in its own
`Tracer` subclass. `Primitive.bind` finds the highest-level trace among its
arguments (or the current dynamic trace, used while staging out a jaxpr) and asks
it to process the primitive. The bottom of the stack is `EvalTrace`, which runs
the primitive's `impl`.

This module knows no transformation: rule tables live with each transformation
(`interpreters/ad.py`, `batching.py`, `partial_eval.py`, `lowering/hlo.py`).
"""

from __future__ import annotations

import itertools
import operator
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator, NamedTuple, Sequence

import numpy as np

from jax._src import dtypes
from jax._src import errors
from jax._src.lib import _jax

# ----------------------------------------------------------------------------- avals


class ShardingTypeError(Exception):
  """Operands whose explicit shardings (part of their types) do not combine."""


# Installed by the layers above core when they are imported (jax imports them all):
# sharding.py's `canonical_sharding(sharding, ndim)` (the part of a NamedSharding that is
# part of a type: an abstract mesh and only its Explicit axes; None when it has none) and
# `respec(sharding, dims)`; mesh_context's `default_sharding(ndim)` (what an aval without
# a sharding reports: unsplit, over the mesh in context); lax/sharding_rules'
# `propagate(prim, avals, params, out)` (the results' shardings) and `reshard(x, sharding)`.
sharding_hooks: dict[str, Callable] = {}


def _unsplit(sharding) -> bool:
  """Whether an aval's recorded sharding splits no dimension (None: none recorded)."""
  return sharding is None or all(p is None for p in sharding.spec)


class ShapedArray:
  """The abstract value of an array: shape, dtype, whether its type is weak and, over a
  mesh with Explicit axes, how those axes split it (its `sharding`)."""

  __slots__ = ("shape", "dtype", "weak_type", "_sharding", "_hash")
  array_abstraction_level = 1

  def __init__(self, shape, dtype, weak_type: bool = False, *, sharding=None,
               manual_axis_type=None, memory_space=None):
    # Varying axes and memory spaces are not tracked in avals; only "none given" is valid.
    if manual_axis_type is not None or memory_space is not None:
      raise NotImplementedError("ShapedArray with a manual_axis_type or memory_space is not "
                                "supported: avals carry shape, dtype, weak type and sharding")
    self.shape = tuple(int(d) for d in shape)
    self.dtype = dtype if isinstance(dtype, dtypes.ExtendedDType) else np.dtype(dtype)
    self.weak_type = bool(weak_type)
    self._sharding = (None if sharding is None
                      else sharding_hooks["canonical_sharding"](sharding, len(self.shape),
                                                                strict=True))
    self._hash = None  # avals are immutable; dispatch caches hash them on every call

  def __reduce__(self):
    return _shaped_array, (self.shape, self.dtype, self.weak_type, self._sharding)

  ndim = property(lambda self: len(self.shape))
  size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))

  @property
  def sharding(self):
    """A NamedSharding over an abstract mesh: how Explicit mesh axes split this value."""
    if self._sharding is not None:
      return self._sharding
    return sharding_hooks["default_sharding"](len(self.shape))

  def update(self, shape=None, dtype=None, weak_type=None, sharding=None) -> ShapedArray:
    """A copy with the given fields replaced. The sharding is kept while the shape is."""
    shape = self.shape if shape is None else tuple(int(d) for d in shape)
    if sharding is None and shape == self.shape:
      sharding = self._sharding
    return ShapedArray(shape, self.dtype if dtype is None else dtype,
                       self.weak_type if weak_type is None else weak_type, sharding=sharding)

  def strip_weak_type(self) -> ShapedArray:
    return self.update(weak_type=False) if self.weak_type else self

  def to_tangent_aval(self) -> ShapedArray:
    """The type of this value's tangents: float0 for integers and booleans."""
    if isinstance(self.dtype, dtypes.ExtendedDType):
      return self if dtypes.is_differentiable(self.dtype) else self.update(dtype=dtypes.float0)
    if dtypes.issubdtype(self.dtype, np.inexact):
      return self
    return ShapedArray(self.shape, dtypes.float0, self.weak_type)

  at_least_vspace = to_tangent_aval  # JAX's older name, still read by libraries
  to_ct_aval = to_tangent_aval  # cotangents have the tangents' type

  def update_weak_type(self, weak_type: bool) -> ShapedArray:
    return self.update(weak_type=weak_type)

  def normalize(self) -> ShapedArray:
    return self.strip_weak_type()

  def vspace_add(self, x, y):
    return x + y

  has_qdd = False  # no quasi-dynamic data: a plain array type
  is_high = False

  def __eq__(self, other):
    if not (type(other) is ShapedArray and self.shape == other.shape
            and self.dtype == other.dtype and self.weak_type == other.weak_type):
      return False
    if self._sharding == other._sharding:
      return True
    # Unsplit over the same mesh is one type whether it was recorded (a jitted result)
    # or left to the mesh in context (an eager one).
    return (_unsplit(self._sharding) and _unsplit(other._sharding)
            and self.sharding == other.sharding)

  def __hash__(self):
    h = self._hash
    if h is None:
      key = None if _unsplit(self._sharding) else self._sharding
      h = self._hash = hash((self.shape, self.dtype, self.weak_type, key))
    return h

  def str_short(self, short_dtypes: bool = False, mesh_axis_types: bool = False) -> str:
    """`float32[4@x,3]` (`f32[...]` with short_dtypes, as jaxprs print types)."""
    del mesh_axis_types  # the axis types are not part of the text here
    dims = [str(d) for d in self.shape]
    if self._sharding is not None:
      for i, names in enumerate(self._sharding.spec.axes_by_dim(len(dims))):
        if names:
          dims[i] += "@" + (names[0] if len(names) == 1 else "(" + ",".join(names) + ")")
    name = dtype_short_name(self.dtype) if short_dtypes else dtype_name(self.dtype)
    return f"{name}[{','.join(dims)}]"

  def __str__(self):
    return ("~" if self.weak_type else "") + self.str_short()

  def __repr__(self):
    weak = ", weak_type=True" if self.weak_type else ""
    return f"ShapedArray({self.str_short()}{weak})"


def has_physical_form(dtype) -> bool:
  """Whether values of `dtype` are held as arrays of more dimensions (typed PRNG keys:
  each key is uint32[2]); those are rewritten to their physical form before lowering."""
  return (isinstance(dtype, dtypes.ExtendedDType)
          and bool(dtypes.physical_element_aval(dtype).shape))


def physical_aval(aval: ShapedArray) -> ShapedArray:
  """The aval that holds `aval` in memory: an element of an extended dtype adds its
  element's trailing dimensions (unsplit) and element type."""
  if not isinstance(aval.dtype, dtypes.ExtendedDType):
    return aval
  elt = dtypes.physical_element_aval(aval.dtype)
  sharding = aval._sharding
  if sharding is not None and elt.shape:
    dims = list(sharding.spec.axes_by_dim(aval.ndim)) + [()] * len(elt.shape)
    sharding = sharding_hooks["respec"](sharding, dims)
  return ShapedArray(aval.shape + elt.shape, elt.dtype, aval.weak_type, sharding=sharding)


def _shaped_array(shape, dtype, weak_type, sharding):
  return ShapedArray(shape, dtype, weak_type, sharding=sharding)


def remove_dim(aval: ShapedArray, d: int) -> ShapedArray:
  """`aval` without dimension `d` (the others keep their splits)."""
  shape = aval.shape[:d] + aval.shape[d + 1:]
  if aval._sharding is None:
    return aval.update(shape=shape)
  dims = list(aval._sharding.spec.axes_by_dim(aval.ndim))
  del dims[d]
  return ShapedArray(shape, aval.dtype, aval.weak_type,
                     sharding=sharding_hooks["respec"](aval._sharding, dims))


def insert_dim(aval: ShapedArray, d: int, size: int) -> ShapedArray:
  """`aval` with a new unsplit dimension of `size` at `d` (the others keep their splits)."""
  shape = aval.shape[:d] + (int(size),) + aval.shape[d:]
  if aval._sharding is None:
    return aval.update(shape=shape)
  dims = list(aval._sharding.spec.axes_by_dim(aval.ndim))
  dims.insert(d, ())
  return ShapedArray(shape, aval.dtype, aval.weak_type,
                     sharding=sharding_hooks["respec"](aval._sharding, dims))


def explicit_sharding(aval):
  """The sharding that is part of `aval`'s type, or None (also for non-array avals)."""
  return getattr(aval, "_sharding", None)


_SHORT_NAMES = {
    "bool": "bool", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "bfloat16": "bf16", "float16": "f16", "float32": "f32", "float64": "f64",
    "complex64": "c64", "complex128": "c128",
    **{dt.name: dt.name.replace("float", "f") for dt in dtypes.narrow_float_dtypes},
    **{dt.name: dt.name.replace("uint", "u").replace("int", "i")
       for dt in dtypes.narrow_int_dtypes},
}


def dtype_name(dt) -> str:
  return dt.name if isinstance(dt, dtypes.ExtendedDType) else np.dtype(dt).name


def dtype_short_name(dt) -> str:
  if isinstance(dt, dtypes.ExtendedDType):
    return dt.name
  if np.dtype(dt) == dtypes.float0:
    return "float0"
  return _SHORT_NAMES.get(np.dtype(dt).name, np.dtype(dt).name)


# Abstract values of further Python types, by exact type: libraries register their
# array-like classes here (as with JAX's `jax.core.pytype_aval_mappings`).
pytype_aval_mappings: dict[type, Callable[[Any], ShapedArray]] = {}


# The types of mutable references (jax.Ref), registered by the module that defines
# them: jit takes such an argument by value and stores its final value back.
ref_types: set[type] = set()


def get_aval(x) -> ShapedArray:
  """The abstract value of a Tracer, a jax Array, a numpy value, a Python scalar or a
  value of a type registered in `pytype_aval_mappings`."""
  aval = getattr(x, "aval", None)
  if isinstance(aval, ShapedArray):
    return aval
  handler = pytype_aval_mappings.get(type(x))
  if handler is not None:
    return handler(x)
  if type(x) in dtypes.python_scalar_types:
    return ShapedArray((), dtypes.scalar_type_dtype(type(x)), type(x) is not bool)
  if isinstance(x, (np.ndarray, np.generic)):
    return ShapedArray(np.shape(x), dtypes.canonicalize_dtype(x.dtype), False)
  raise TypeError(f"Value {x!r} of type {type(x).__name__} is not a valid JAX type")


def _numpy_aval(x) -> ShapedArray:
  return ShapedArray(np.shape(x), dtypes.canonicalize_dtype(x.dtype), False)


def _python_scalar_aval(x) -> ShapedArray:
  return ShapedArray((), dtypes.scalar_type_dtype(type(x)), type(x) is not bool)


pytype_aval_mappings[np.ndarray] = _numpy_aval
pytype_aval_mappings.update({t: _numpy_aval for t in set(np.sctypeDict.values())
                             if issubclass(t, np.generic)})
pytype_aval_mappings.update({t: _python_scalar_aval for t in dtypes.python_scalar_types})


def is_valid_jaxval(x) -> bool:
  try:
    get_aval(x)
    return True
  except TypeError:
    return False


def concrete_value(x):
  """A numpy value for `x` if it is known now, else None (abstract tracer)."""
  if isinstance(x, Tracer):
    return x.to_concrete_value()
  if type(x) in dtypes.python_scalar_types:
    return x
  if isinstance(x, (np.ndarray, np.generic)):
    return x
  if hasattr(x, "__array__"):
    return np.asarray(x)
  return None


# ----------------------------------------------------------------------------- primitives


class Primitive:
  """A named operation. Behaviour lives in rule tables keyed by the primitive."""

  multiple_results = False
  # JAX's flags for primitives that call a jaxpr (call_p, closed_call_p) or map one
  # over an axis; interpreters written for JAX (tfp's) read them on every primitive.
  call_primitive = False
  map_primitive = False

  def __init__(self, name: str, multiple_results: bool = False):
    self.name = name
    self.multiple_results = multiple_results
    self.impl: Callable | None = None
    self.abstract_eval: Callable | None = None

  def __repr__(self):
    return self.name

  def def_impl(self, impl):
    self.impl = impl
    return impl

  def def_abstract_eval(self, rule):
    """rule(*avals, **params) -> aval (or a list of avals if multiple_results).

    When an operand's type carries an explicit sharding, the results' shardings come
    from the sharding rules (`sharding_hooks["propagate"]`), so that every rule sees
    them without each abstract eval knowing about meshes."""
    prim = self

    def abstract_eval(*avals, **params):
      out = rule(*avals, **params)
      for a in avals:
        if getattr(a, "_sharding", None) is not None:
          propagate = sharding_hooks.get("propagate")
          return out if propagate is None else propagate(prim, avals, params, out)
      return out
    abstract_eval.rule = rule
    self.abstract_eval = abstract_eval
    return rule

  def bind(self, *args, **params):
    if _trace_state.dynamic is _EVAL_MAIN and self.impl is not None:
      # Fast path: nothing is being staged and every argument is a concrete array of
      # a registered type, so the bottom (eval) trace would run `impl` unchanged.
      for a in args:
        if type(a) not in concrete_array_types:
          break
      else:
        out = self.impl(*args, **params)
        if self.multiple_results:
          return [full_lower(o) for o in out]
        return full_lower(out)
    trace = find_top_trace(args)
    tracers = [full_raise(trace, a) for a in args]
    out = trace.process_primitive(self, tracers, params)
    if self.multiple_results:
      return [full_lower(o) for o in out]
    return full_lower(out)

  def bind_with_trace(self, trace, args, *avals_and_params):
    """Bind on `trace` itself, whichever trace is current (JAX's signature, with or
    without the arguments' avals before `params`); binds inside its rule go to it."""
    params = avals_and_params[-1]
    with use_trace(trace):
      out = trace.process_primitive(self, [full_raise(trace, a) for a in args], params)
    if self.multiple_results:
      return [full_lower(o) for o in out]
    return full_lower(out)


# ----------------------------------------------------------------------------- traces


class MainTrace(NamedTuple):
  level: int
  trace_type: type
  global_data: Any
  # Whether it captures binds of values that are not its tracers (eval, staging, and
  # library traces), as opposed to transforming only its own tracers (jvp, vmap).
  dynamic: bool = False


class _TraceState(threading.local):
  """The trace state of one thread: each thread traces independently, and a new
  thread starts with just the eval trace (eager), whatever other threads trace."""

  def __init__(self):
    self.stack: list[MainTrace] = [_EVAL_MAIN]
    # The main that captures binds of non-tracer arguments (the eval main: none).
    self.dynamic: MainTrace = _EVAL_MAIN
    # The trace last made current by `use_trace`, and the stack depth it was made
    # current at (a transformation begun since is innermost instead).
    self.chosen: tuple[Trace, int] | None = None


def current_trace_stack() -> list[MainTrace]:
  """This thread's mains, outermost (the eval main) first."""
  return _trace_state.stack


def is_staging() -> bool:
  """Whether this thread is staging a computation (binds of concrete values are
  captured rather than run)."""
  return _trace_state.dynamic is not _EVAL_MAIN


def trace_state_clean() -> bool:
  """Whether this thread is tracing nothing (only the eval trace is active); libraries
  ask this to tell an eager call from one inside jit, grad or vmap."""
  return len(_trace_state.stack) == 1 and _trace_state.dynamic is _EVAL_MAIN


def _set_dynamic(main: MainTrace) -> None:
  _trace_state.dynamic = main
  # The native jit fast path keeps its own per-thread copy of this bit.
  _jax.jit.set_thread_staging(main is not _EVAL_MAIN)


@contextmanager
def new_main(trace_type: type, global_data=None, dynamic: bool = False):
  stack = _trace_state.stack
  main = MainTrace(len(stack), trace_type, global_data, dynamic)
  stack.append(main)
  try:
    yield main
  finally:
    stack.pop()


@contextmanager
def new_dynamic_main(trace_type: type, global_data=None):
  """Push a main that also captures every bind whose arguments are not tracers."""
  prev = _trace_state.dynamic
  with new_main(trace_type, global_data, dynamic=True) as main:
    _set_dynamic(main)
    try:
      yield main
    finally:
      _set_dynamic(prev)


def current_dynamic_main() -> MainTrace:
  """The main that captures this thread's binds of non-tracer values (the eval main
  when nothing is being staged)."""
  return _trace_state.dynamic


@contextmanager
def use_dynamic_main(main: MainTrace):
  """Send this thread's binds of non-tracer values to `main` inside the block."""
  prev = _trace_state.dynamic
  _set_dynamic(main)
  try:
    yield
  finally:
    _set_dynamic(prev)


def ensure_no_dynamic_trace():
  """Run eagerly even inside a staging context (used by impls and constant folding)."""
  return use_trace(_EVAL_TRACE)


@contextmanager
def use_trace(trace: Trace):
  """Make `trace` (whose main is on this thread's stack) the current one inside the
  block: `current_trace` returns it, and binds of non-tracer values go to it if it
  captures them (a jvp or vmap trace leaves them to the staging trace below)."""
  state = _trace_state
  prev, prev_dynamic = state.chosen, state.dynamic
  state.chosen = (trace, len(state.stack))
  if trace.main.dynamic:
    _set_dynamic(trace.main)
  elif state.dynamic.level > trace.main.level:
    # Binds made by its rules go where they went when it began: the staging trace below.
    _set_dynamic(next(m for m in reversed(state.stack[:trace.main.level]) if m.dynamic))
  try:
    yield
  finally:
    state.chosen = prev
    if state.dynamic is not prev_dynamic:
      _set_dynamic(prev_dynamic)


def current_trace() -> Trace:
  """The trace that a bind made now would go to, as JAX's `take_current_trace` gives it:
  the one `use_trace` chose if no transformation has begun since, else the innermost."""
  state = _trace_state
  chosen = state.chosen
  if chosen is not None and chosen[1] == len(state.stack):
    return chosen[0]
  top = state.stack[-1]
  return top.trace_type(top)


class Trace:
  """One level of the stack; subclasses implement pure/lift/process_primitive.

  A trace that a library defines as JAX's are defined (constructed without a main,
  given values that are not its tracers as they are) gets its main when
  `jax.extend.core.set_current_trace` first makes it current."""

  def __init__(self, main: MainTrace | None = None):
    self.main = main

  def pure(self, val):
    return val

  def lift(self, val):
    return val

  def process_primitive(self, primitive, tracers, params):
    raise NotImplementedError


class EvalTrace(Trace):
  """The bottom trace: runs primitives on concrete values."""

  def pure(self, x):
    return x

  lift = pure

  def process_primitive(self, primitive, values, params):
    if primitive.impl is None:
      raise NotImplementedError(f"primitive {primitive.name} has no eager implementation")
    return primitive.impl(*values, **params)


# The bottom of every thread's stack; immutable, so threads share it.
_EVAL_MAIN = MainTrace(0, EvalTrace, None, dynamic=True)
_EVAL_TRACE = EvalTrace(_EVAL_MAIN)  # stateless, so one serves every thread
_trace_state = _TraceState()

# Types of concrete (non-tracer) array values that `Primitive.bind` may hand straight
# to a primitive's eager impl; jax arrays register themselves (see array.py).
concrete_array_types: set = set()


class Tracer:
  """A value being traced by `self._trace`. Array operators are installed by jax.numpy."""

  __array_priority__ = 1000
  # Weak references let libraries key caches on traced values, as with JAX's tracers.
  __slots__ = ("_trace", "_aval", "__weakref__")

  def __init__(self, trace, aval=None):
    # Our subclasses compute the aval from their own fields; a library's tracer
    # (JAX's convention) passes it here.
    self._trace = trace
    if aval is not None:
      self._aval = aval

  @property
  def aval(self) -> ShapedArray:
    try:
      return self._aval
    except AttributeError:
      raise NotImplementedError(f"{type(self).__name__} defines no aval") from None

  def full_lower(self):
    return self

  def to_concrete_value(self):
    """The value if this trace knows it (e.g. the primal of a JVP), else None."""
    return None

  shape = property(lambda self: self.aval.shape)
  dtype = property(lambda self: self.aval.dtype)
  ndim = property(lambda self: self.aval.ndim)
  size = property(lambda self: self.aval.size)
  weak_type = property(lambda self: self.aval.weak_type)

  def __len__(self):
    if not self.shape:
      raise TypeError("len() of unsized object")
    return self.shape[0]

  def _concrete(self, error_cls):
    value = self.to_concrete_value()
    if value is None:
      raise error_cls(self)
    return np.asarray(value)

  def __bool__(self):
    return bool(self._concrete(errors.TracerBoolConversionError))

  def __int__(self):
    return int(self._concrete(errors.TracerIntegerConversionError))

  def __index__(self):
    return operator.index(self._concrete(errors.TracerIntegerConversionError).item())

  def __float__(self):
    return float(self._concrete(errors.ConcretizationTypeError))

  def __complex__(self):
    return complex(self._concrete(errors.ConcretizationTypeError))

  def __array__(self, dtype=None, copy=None):
    value = self.to_concrete_value()
    if value is None:
      raise errors.TracerArrayConversionError(self)
    return np.asarray(value, dtype=dtype)

  def item(self):
    return self._concrete(errors.ConcretizationTypeError).item()

  def __hash__(self):
    raise TypeError(f"unhashable type: {type(self).__name__} (jax arrays are unhashable)")

  def __repr__(self):
    return f"Traced<{self.aval.str_short(short_dtypes=True)}>with<{type(self._trace).__name__}>"


def find_top_trace(_) -> Trace:
  # JAX names the parameter `_`: the values whose innermost trace is wanted.
  xs = _
  top = max((x._trace.main for x in xs if isinstance(x, Tracer)),
            default=_EVAL_MAIN, key=operator.attrgetter("level"))
  dynamic = _trace_state.dynamic
  if dynamic.level > top.level:
    top = dynamic
  return top.trace_type(top)


def trace_level(tracer: Tracer) -> int:
  """The nesting level of the transformation `tracer` belongs to (outermost lowest)."""
  return tracer._trace.main.level


def traced_by(tracer: Tracer, trace: Trace) -> bool:
  """Whether `tracer` is a value of `trace`'s transformation (not of an outer one)."""
  return tracer._trace.main is trace.main


def full_raise(trace: Trace, val):
  if not isinstance(val, Tracer):
    if not is_valid_jaxval(val):
      raise TypeError(f"Value {val!r} of type {type(val).__name__} is not a valid JAX type")
    return trace.pure(val)
  level = trace.main.level
  if val._trace.main is trace.main:
    return val
  if val._trace.main.level < level:
    return trace.lift(val)
  if val._trace.main.level > level:
    raise errors.UnexpectedTracerError(
        f"Encountered a tracer of a transformation that has already finished ({val}). "
        "A traced value escaped its transformation, for example through a global.")
  raise errors.UnexpectedTracerError(f"Different traces at the same level: {val._trace}, {trace}.")


def full_lower(val):
  return val.full_lower() if isinstance(val, Tracer) else val


# ----------------------------------------------------------------------------- jaxprs


class Var:
  """A variable of a jaxpr; identity matters, names are given when printing."""

  __slots__ = ("aval", "initial_qdd", "final_qdd")

  # The quasi-dynamic data of a mutable value before and after the jaxpr runs (JAX's
  # `initial_qdd`/`final_qdd`); None for the immutable values this core traces.
  def __init__(self, aval: ShapedArray, initial_qdd=None, final_qdd=None):
    self.aval = aval
    self.initial_qdd, self.final_qdd = initial_qdd, final_qdd


class Literal:
  """A scalar constant written inline in a jaxpr equation."""

  __slots__ = ("val", "aval")

  def __init__(self, val, aval: ShapedArray):
    self.val = val
    self.aval = aval


Atom = Var | Literal


class _JaxprEqnFields(NamedTuple):
  primitive: Primitive
  inputs: list  # list[Atom]
  params: dict
  out_binders: list  # list[Var]


class JaxprEqn(_JaxprEqnFields):
  """One equation: `out_binders = primitive[params] inputs`.

  Built as `JaxprEqn(primitive, inputs, params, out_binders)` by this core, or with
  JAX's order and names `JaxprEqn(invars, outvars, primitive, params, effs,
  source_info, ctx)` (told apart by where the Primitive is).
  """

  effects: frozenset = frozenset()
  source_info = None
  ctx = None

  def __new__(cls, invars, outvars=None, primitive=None, params=None, effs=frozenset(),
              source_info=None, ctx=None):
    if isinstance(invars, Primitive):  # this core's order
      eqn = super().__new__(cls, invars, list(outvars), dict(primitive), list(params))
    else:
      if not isinstance(primitive, Primitive):
        raise TypeError(f"JaxprEqn: primitive must be a Primitive, got {type(primitive).__name__}")
      eqn = super().__new__(cls, primitive, list(invars), dict(params or {}), list(outvars))
    if effs:
      eqn.effects = frozenset(effs)
    if source_info is not None:
      eqn.source_info = source_info
    if ctx is not None:
      eqn.ctx = ctx
    return eqn


def _is_eqn_list(xs) -> bool:
  return any(isinstance(x, _JaxprEqnFields) for x in xs)


class Jaxpr:
  """`{ lambda constvars ; invars . let eqns in outs }`.

  Built as `Jaxpr(constvars, invars, eqns, outs)` by this core, or with JAX's order
  `Jaxpr(constvars, invars, outvars, eqns, effects, debug_info, is_high)`: equations
  and atoms are different types, so the order is read from the lists.
  """

  def __init__(self, constvars, invars, outvars, eqns, effects=frozenset(), debug_info=None,
               is_high=False):
    outvars, eqns = list(outvars), list(eqns)
    if _is_eqn_list(outvars) or (eqns and not _is_eqn_list(eqns)):
      outvars, eqns = eqns, outvars  # this core's (eqns, outs) order
    self.constvars: list[Var] = list(constvars)
    self.invars: list[Var] = list(invars)
    self.eqns: list[JaxprEqn] = eqns
    self.outs: list[Atom] = outvars
    self.effects = frozenset(effects)
    self.debug_info, self.is_high = debug_info, bool(is_high)

  @property
  def in_avals(self):
    return [v.aval for v in self.invars]

  @property
  def out_avals(self):
    return [v.aval for v in self.outs]

  def __repr__(self):
    return pp_jaxpr(self)


class ClosedJaxpr:
  """A jaxpr with concrete values for its constvars. Hashes by identity."""

  def __init__(self, jaxpr: Jaxpr, consts: Sequence):
    assert len(jaxpr.constvars) == len(consts), (len(jaxpr.constvars), len(consts))
    self.jaxpr = jaxpr
    self.consts = list(consts)

  in_avals = property(lambda self: self.jaxpr.in_avals)
  out_avals = property(lambda self: self.jaxpr.out_avals)
  eqns = property(lambda self: self.jaxpr.eqns)
  # As JAX's ClosedJaxpr, the jaxpr's own parts read through (libraries walk either).
  constvars = property(lambda self: self.jaxpr.constvars)
  invars = property(lambda self: self.jaxpr.invars)
  outvars = property(lambda self: self.jaxpr.outs)
  effects = property(lambda self: self.jaxpr.effects)
  debug_info = property(lambda self: self.jaxpr.debug_info)

  def map_jaxpr(self, f) -> "ClosedJaxpr":
    return ClosedJaxpr(f(self.jaxpr), self.consts)

  def replace(self, *, jaxpr=None, consts=None) -> "ClosedJaxpr":
    return ClosedJaxpr(self.jaxpr if jaxpr is None else jaxpr,
                       self.consts if consts is None else consts)

  def __repr__(self):
    return pp_jaxpr(self.jaxpr)


def literal_value(lit: Literal):
  """The value to bind when re-evaluating: weak default-typed numpy literals become
  Python scalars again (jax arrays are kept as they are)."""
  val = lit.val
  if (isinstance(val, np.generic) and lit.aval.weak_type
      and lit.aval.dtype == dtypes.dtype(type(val.item()))):
    return val.item()
  return val


def subjaxprs(eqn: JaxprEqn) -> Iterator[Jaxpr]:
  """Every jaxpr an equation's params hold (cond branches, while cond/body, scan and
  call bodies...), as open Jaxprs; walkers recurse through this, not param names."""
  for value in eqn.params.values():
    yield from _jaxprs_in(value)


def _jaxprs_in(value) -> Iterator[Jaxpr]:
  if isinstance(value, ClosedJaxpr):
    yield value.jaxpr
  elif isinstance(value, Jaxpr):
    yield value
  elif isinstance(value, (tuple, list)):
    for v in value:
      yield from _jaxprs_in(v)


def all_eqns(jaxpr: Jaxpr) -> Iterator[JaxprEqn]:
  """The equations of `jaxpr` and, depth first, of every jaxpr nested in it."""
  for eqn in jaxpr.eqns:
    yield eqn
    for sub in subjaxprs(eqn):
      yield from all_eqns(sub)


def any_eqn(jaxpr: Jaxpr, pred: Callable[[JaxprEqn], bool]) -> bool:
  """Whether `pred` holds for an equation of `jaxpr` or of any jaxpr nested in it."""
  return any(pred(eqn) for eqn in all_eqns(jaxpr))


def eval_jaxpr(jaxpr: Jaxpr, consts: Sequence, args: Sequence) -> list:
  """Interpret `jaxpr` by binding each equation's primitive on the current trace."""
  env: dict[Var, Any] = {}

  def read(x):
    return literal_value(x) if isinstance(x, Literal) else env[x]

  for v, val in zip(jaxpr.constvars, consts):
    env[v] = val
  for v, val in zip(jaxpr.invars, args):
    env[v] = val
  for eqn in jaxpr.eqns:
    outs = eqn.primitive.bind(*map(read, eqn.inputs), **eqn.params)
    outs = outs if eqn.primitive.multiple_results else [outs]
    for v, val in zip(eqn.out_binders, outs):
      env[v] = val
  return [read(x) for x in jaxpr.outs]


def jaxpr_as_fun(closed: ClosedJaxpr) -> Callable:
  return lambda *args: eval_jaxpr(closed.jaxpr, closed.consts, args)


# ----------------------------------------------------------------------------- checking


class JaxprTypeError(TypeError):
  """A jaxpr is ill-formed (an internal error: please report it with the jaxpr)."""


def _same_type(a: ShapedArray, b: ShapedArray) -> bool:
  return a.shape == b.shape and a.dtype == b.dtype


def check_jaxpr(jaxpr: Jaxpr) -> None:
  """Check scoping (defined before use, bound once) and every equation's types."""
  env: set[Var] = set()

  def bind_var(v):
    if not isinstance(v, Var):
      raise JaxprTypeError(f"binder {v} is not a Var")
    if v in env:
      raise JaxprTypeError(f"variable bound twice in\n{pp_jaxpr(jaxpr)}")
    env.add(v)

  def check_atom(x) -> ShapedArray:
    if isinstance(x, Literal):
      if np.shape(x.val) != x.aval.shape:
        raise JaxprTypeError(f"literal {x.val!r} does not have shape {x.aval.shape}")
      return x.aval
    if x not in env:
      raise JaxprTypeError(f"unbound variable of type {x.aval.str_short(short_dtypes=True)}")
    return x.aval

  for v in jaxpr.constvars + jaxpr.invars:
    bind_var(v)
  for eqn in jaxpr.eqns:
    in_avals = [check_atom(x) for x in eqn.inputs]
    rule = eqn.primitive.abstract_eval
    if rule is None:
      raise JaxprTypeError(f"primitive {eqn.primitive} has no abstract evaluation rule")
    outs = rule(*in_avals, **eqn.params)
    outs = outs if eqn.primitive.multiple_results else [outs]
    if len(outs) != len(eqn.out_binders):
      raise JaxprTypeError(f"{eqn.primitive}: {len(outs)} results, {len(eqn.out_binders)} binders")
    for out, v in zip(outs, eqn.out_binders):
      if not _same_type(out, v.aval):
        raise JaxprTypeError(
            f"{eqn.primitive}: binder has type {v.aval.str_short(short_dtypes=True)} but the rule "
            f"gives {out.str_short(short_dtypes=True)}")
      bind_var(v)
    for sub in subjaxprs(eqn):  # closed over nothing of this scope: checked on its own
      check_jaxpr(sub)
  for x in jaxpr.outs:
    check_atom(x)


# ----------------------------------------------------------------------------- printing


def _var_names():
  letters = "abcdefghijklmnopqrstuvwxyz"
  for n in itertools.count(1):
    for combo in itertools.product(letters, repeat=n):
      yield "".join(combo)


def _pp_param(value, names, indent) -> str:
  if isinstance(value, ClosedJaxpr):
    value = value.jaxpr
  if isinstance(value, Jaxpr):
    return "\n" + _pp_jaxpr(value, names, indent + 4)
  if isinstance(value, np.dtype):
    return value.name
  return repr(value) if isinstance(value, str) else str(value)


def pp_jaxpr(jaxpr: Jaxpr) -> str:
  """Print like jax: `{ lambda consts ; a:f32[3]. let b:f32[3] = sin a in (b,) }`."""
  names = _var_names()
  return _pp_jaxpr(jaxpr, _Namer(names), 0)


class _Namer:
  def __init__(self, names):
    self._names = names
    self._map: dict[Var, str] = {}

  def __call__(self, v) -> str:
    if isinstance(v, Literal):
      val = np.asarray(v.val)
      text = str(val.item()) if val.shape == () else str(val.tolist())
      return f"{text}:{v.aval.str_short(short_dtypes=True)}"
    if v not in self._map:
      self._map[v] = next(self._names)
    return self._map[v]


def _pp_jaxpr(jaxpr: Jaxpr, name: _Namer, indent: int) -> str:
  pad = " " * indent
  binders = lambda vs: " ".join(f"{name(v)}:{v.aval.str_short(short_dtypes=True)}" for v in vs)
  lines = [f"{pad}{{ lambda {binders(jaxpr.constvars)} ; {binders(jaxpr.invars)}. let"]
  for eqn in jaxpr.eqns:
    params = " ".join(f"{k}={_pp_param(v, name, indent)}" for k, v in sorted(eqn.params.items()))
    params = f"[{params}]" if params else ""
    outs = binders(eqn.out_binders)
    ins = " ".join(name(x) for x in eqn.inputs)
    lines.append(f"{pad}    {outs} = {eqn.primitive.name}{params} {ins}".rstrip())
  outs = ", ".join(name(x) for x in jaxpr.outs)
  lines.append(f"{pad}  in ({outs}{',' if len(jaxpr.outs) == 1 else ''}) }}")
  return "\n".join(lines)


# ----------------------------------------------------------------------------- JAX attribute names
# Libraries written against JAX read jaxpr pieces by JAX's attribute names; ours are shorter.

JaxprEqn.invars = property(lambda self: self.inputs)
JaxprEqn.outvars = property(lambda self: self.out_binders)
Jaxpr.outvars = property(lambda self: self.outs)
ClosedJaxpr.effects = property(lambda self: self.jaxpr.effects)
ClosedJaxpr.literals = property(lambda self: self.consts)
ShapedArray.vma = property(lambda self: frozenset())
