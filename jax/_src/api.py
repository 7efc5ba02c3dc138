"""The user-facing transformations: jit, grad, value_and_grad, jvp, vjp, vmap, make_jaxpr."""

from __future__ import annotations

import contextlib
import functools
import inspect
import types
import warnings
import weakref
from typing import Any, Callable, NamedTuple, Protocol, Sequence, runtime_checkable

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src import execution
from jax._src import prng
from jax._src import tree_util
from jax._src import xla_bridge
from jax._src.array import ArrayImpl
from jax._src.config import affects_tracing, config
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.interpreters import partial_eval as pe
from jax._src.interpreters import physical
from jax._src import donation
from jax._src import jit_primitive
from jax._src import shard_map_jit  # also registers how jit runs SPMD programs
from jax._src.cost_analysis import estimate_cost
from jax._src.jit_primitive import donation_params, jit_p
# Placement belongs to the execution layer (lax places results too); jax.device_put is it.
from jax._src.execution import abstractify_value, device_put as device_put
from jax._src.lib import _jax
from jax._src.lib import xla_client
from jax._src.tree_util import tree_flatten
from jax._src.util import ensure_index, ensure_index_tuple
from jax._src.lax import elementwise
from jax._src.lax import shape as lax_shape
from jax._src.lowering import hlo
from jax._src import sharding


def _fun_name(fun) -> str:
  return getattr(fun, "__name__", type(fun).__name__)


def _ensure_tuple(x) -> tuple:
  if x is None:
    return ()
  return (x,) if isinstance(x, (int, str)) else tuple(x)


_Store = tree_util.OutTreeStore
_flat_fun = tree_util.flatten_fun


# ----------------------------------------------------------------------------- jit


def _abstractify(x) -> core.ShapedArray:
  """The aval of an argument; `ShapeDtypeStruct` leaves stand for arrays of that type."""
  if isinstance(x, ShapeDtypeStruct):
    # Over Explicit mesh axes its sharding is part of the type, as for an Array.
    named = x.sharding if isinstance(x.sharding, sharding.NamedSharding) else None
    return core.ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype), x.weak_type,
                            sharding=named)
  if type(x) is core.ShapedArray:  # an abstract value stands for itself (flax's eval_shape)
    return x.update(dtype=dtypes.canonicalize_dtype(x.dtype))
  return core.get_aval(x)


def _shape_dtype_structs(avals) -> list:
  return [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type,
                           sharding=core.explicit_sharding(a)) for a in avals]


class ArgInfo:
  """What AOT stages record per argument: its abstract value and whether it is donated."""

  def __init__(self, _aval: core.ShapedArray, donated: bool = False):
    self._aval, self.donated = _aval, donated

  shape = property(lambda self: self._aval.shape)
  dtype = property(lambda self: self._aval.dtype)

  def __repr__(self):
    return f"ArgInfo(_aval={self._aval!r}, donated={self.donated})"


class _Stage:
  """What Traced, Lowered and Compiled share: the traced jaxpr and its trees."""

  # The public constructors take JAX's parameters; the jit path builds stages with _make.
  _no_kwargs = False
  # The one device the arguments are placed on (their shardings'), when they name one;
  # None: the default device. A compile-only device (jax.experimental.topologies)
  # makes its topology's compile-only client compile the program.
  _devices: tuple | None = None

  @classmethod
  def _make(cls, jit_fn: PjitFunction | None, closed: core.ClosedJaxpr | None, hoisted, in_tree,
            out_tree, in_leaf_avals, out_leaf_avals=None, name: str | None = None,
            donated: Sequence[bool] | None = None):
    stage = cls.__new__(cls)
    stage._init(jit_fn, closed, hoisted, in_tree, out_tree, in_leaf_avals, out_leaf_avals, name,
                donated)
    return stage

  def _init(self, jit_fn, closed, hoisted, in_tree, out_tree, in_leaf_avals, out_leaf_avals=None,
            name=None, donated=None):
    # A Compiled loaded from bytes (jax.experimental.serialize_executable) has
    # no function or jaxpr, only its avals and name.
    self._jit_fn, self._closed, self._hoisted = jit_fn, closed, tuple(hoisted)
    self.in_tree, self.out_tree = in_tree, out_tree
    self._in_leaf_avals = tuple(in_leaf_avals)
    self._out_leaf_avals = tuple(closed.out_avals if out_leaf_avals is None else out_leaf_avals)
    self._name = (jit_fn._name if jit_fn is not None else "jaxpr") if name is None else name
    self._donated = tuple(donated) if donated and any(donated) else ()

  def _init_from_args_info(self, closed, hoisted, args_info, out_tree, no_kwargs, in_types,
                           out_types, name=None):
    # JAX's stage constructors describe the arguments as a pytree of ArgInfo.
    infos, in_tree = tree_flatten(args_info, is_leaf=lambda x: isinstance(x, ArgInfo))
    if not all(isinstance(i, ArgInfo) for i in infos):
      raise TypeError("args_info must be a pytree of jax.stages.ArgInfo, got leaves of types "
                      f"{sorted({type(i).__name__ for i in infos})}")
    in_avals = [i._aval for i in infos] if in_types is None else list(in_types)
    if len(in_avals) != len(infos):
      raise ValueError(f"in_types has {len(in_avals)} types for {len(infos)} arguments")
    self._init(None, closed, hoisted, in_tree, out_tree, in_avals, out_types, name,
               [i.donated for i in infos])
    self._no_kwargs = bool(no_kwargs)

  fun_name = property(lambda self: self._name)

  @property
  def donate_argnums(self) -> tuple[int, ...]:
    """The flat arguments this computation donates."""
    return tuple(i for i, d in enumerate(self._donated) if d)

  def _donated_invars(self) -> tuple[bool, ...] | None:
    return (False,) * len(self._hoisted) + self._donated if self._donated else None

  @property
  def in_avals(self):
    return self.in_tree.unflatten(self._in_leaf_avals)

  @property
  def args_info(self):
    donated = self._donated or (False,) * len(self._in_leaf_avals)
    return self.in_tree.unflatten([ArgInfo(a, d) for a, d in zip(self._in_leaf_avals, donated)])

  @property
  def out_info(self):
    return self.out_tree.unflatten(_shape_dtype_structs(self._out_leaf_avals))

  @property
  def out_avals(self):
    return self.out_tree.unflatten(list(self._out_leaf_avals))

  def _same(self, cls):
    stage = cls._make(self._jit_fn, self._closed, self._hoisted, self.in_tree, self.out_tree,
                      self._in_leaf_avals, self._out_leaf_avals, self._name, self._donated)
    stage._no_kwargs = self._no_kwargs
    stage._devices = self._devices
    return stage


def _placement_device(leaves) -> tuple | None:
  """(device,) when the arguments that carry a sharding (arrays, ShapeDtypeStructs)
  all sit on that one device; None when none do, or when they span or disagree on
  devices (those programs place themselves)."""
  found = set()
  for x in leaves:
    devices = getattr(getattr(x, "sharding", None), "device_set", None)
    if devices is None:
      continue
    if len(devices) != 1:
      return None
    found |= devices
  return (found.pop(),) if len(found) == 1 else None


def _closed_jaxpr(value, what: str) -> core.ClosedJaxpr:
  if isinstance(value, core.ClosedJaxpr):
    return value
  raise TypeError(f"{what} must be a ClosedJaxpr (what this jax lowers and compiles), "
                  f"got {type(value).__name__}")


class Traced(_Stage):
  """The result of `jit(f).trace(*args)`: the jaxpr, lowerable.

  `Traced(meta_tys_flat, params, in_tree, out_tree, consts)` builds one from the flat
  input types, jit's parameters (`jaxpr`, a ClosedJaxpr, and optionally `name` and
  `donated_invars`) and the constants passed ahead of the arguments.
  """

  def __init__(self, meta_tys_flat, params, in_tree, out_tree, consts):
    params = dict(params)
    if "jaxpr" not in params:
      raise TypeError("Traced: params must hold the traced 'jaxpr' (a ClosedJaxpr)")
    closed = _closed_jaxpr(params["jaxpr"], "params['jaxpr']")
    consts = tuple(consts)
    donated = params.get("donated_invars")
    self._init(None, closed, consts, in_tree, out_tree, meta_tys_flat, None, params.get("name"),
               tuple(donated)[len(consts):] if donated else None)

  @property
  def jaxpr(self) -> core.ClosedJaxpr:
    return self._closed

  def lower(self) -> Lowered:
    if jit_primitive.has_shard_map(self._closed):
      shard_map_jit.plan(self._closed, self._name)  # raises now if it has no SPMD program
    return self._same(Lowered)


class HloComputation:
  """A lowered module in XLA HLO (what `Lowered.compiler_ir(dialect="hlo")` gives)."""

  def __init__(self, hlo_text: str):
    self._text = hlo_text

  def as_hlo_text(self) -> str:
    return self._text

  def __str__(self):
    return self._text


class Lowered(_Stage):
  """The result of `jit(f).lower(*args)`: HLO text, compilable.

  A function holding shard_map lowers to its per-device SPMD program (see
  jax/_src/shard_map_jit.py): the header says `replica_count=<mesh size>` and
  the collectives are cross-replica ops; one that cannot be a single SPMD
  program raises NotImplementedError saying which operation prevents it.

  `Lowered(lowering, args_info, out_tree, ...)` builds one from a ClosedJaxpr (what
  this jax lowers), the pytree of ArgInfo of its arguments and the output tree;
  `in_types`/`out_types` override the flat argument/result types, and `no_kwargs`
  says the argument tree holds positional arguments only.
  """

  def __init__(self, lowering, args_info, out_tree, no_kwargs=False, in_types=None,
               out_types=None):
    closed = _closed_jaxpr(lowering, "lowering")
    self._init_from_args_info(closed, (), args_info, out_tree, no_kwargs, in_types, out_types)

  def as_text(self, dialect: str | None = None, **_) -> str:
    if dialect not in (None, "hlo"):
      raise ValueError(f"this jax lowers to XLA HLO text only: as_text(dialect='hlo'); "
                       f"got dialect={dialect!r}")
    if jit_primitive.has_shard_map(self._closed):
      return shard_map_jit.hlo_text(shard_map_jit.plan(self._closed, self._name), self._name)
    plan = donation.plan(self._closed.in_avals, self._closed.out_avals, self._donated_invars())
    return hlo.lower_jaxpr_to_module(self._closed, self._name, donation_plan=plan)

  def jaxpr(self) -> core.ClosedJaxpr:
    return self._closed

  def compiler_ir(self, dialect: str | None = None) -> "HloComputation":
    """The lowered module as an object: `compiler_ir(dialect="hlo").as_hlo_text()`.
    This jax lowers to XLA HLO only; the StableHLO (MLIR) form JAX gives by default
    does not exist here."""
    if dialect != "hlo":
      raise ValueError(f"this jax lowers to XLA HLO only: use compiler_ir(dialect='hlo'); "
                       f"got dialect={dialect!r}")
    return HloComputation(self.as_text(dialect="hlo"))

  def cost_analysis(self) -> dict[str, float]:
    """Flops, transcendentals and bytes accessed, estimated from the jaxpr."""
    return estimate_cost(self._closed.jaxpr)

  def compile(self, compiler_options=None) -> Compiled:
    closed = physical.physicalize(self._closed)  # typed keys run as their data
    if jit_primitive.has_shard_map(closed):
      exe = shard_map_jit.compile_program(closed, self._name)
    else:
      exe = execution.compile_jaxpr(closed, self._name, devices=self._devices,
                                    donated=self._donated_invars())
    if closed is not self._closed:
      exe = physical.LogicalCallable(exe, self._closed.out_avals)
    compiled = self._same(Compiled)
    compiled._exe = exe
    return compiled


class Compiled(_Stage):
  """A compiled computation: call it with arguments of the types it was lowered for.

  `Compiled(executable, const_args, args_info, out_tree, ...)` wraps a compiled
  executable (called with `const_args` ahead of the flattened arguments); the other
  parameters are as for `Lowered`.
  """

  _exe: Any = None

  def __init__(self, executable, const_args, args_info, out_tree, no_kwargs=False,
               in_types=None, out_types=None):
    if not callable(executable):
      raise TypeError(f"Compiled: executable must be callable, got {type(executable).__name__}")
    if out_types is None:
      out_types = getattr(executable, "out_avals", None)
      if out_types is None:
        raise TypeError("Compiled: out_types is needed for an executable without out_avals")
    self._init_from_args_info(None, tuple(const_args), args_info, out_tree, no_kwargs, in_types,
                              out_types)
    self._exe = executable

  def as_text(self) -> str:
    loaded = getattr(self._exe, "loaded", None)
    optimized = getattr(loaded, "_optimized_hlo", None)
    if callable(optimized):
      try:
        return optimized()
      except Exception as e:
        if not str(e).startswith("UNIMPLEMENTED"):  # not merely a plugin without the query
          warnings.warn(f"the optimized program of {self._name} cannot be shown ({e}); "
                        "showing the program as lowered", RuntimeWarning, stacklevel=2)
    return self._exe.hlo_text

  # An SPMD program (a function holding shard_map) knows its per-device costs.
  def cost_analysis(self) -> dict[str, float]:
    analysis = getattr(self._exe, "cost_analysis", None)
    if analysis is not None:
      return analysis()
    return estimate_cost(self._closed.jaxpr) if self._closed is not None else {}

  def memory_analysis(self):
    return shard_map_jit.memory_stats(self.runtime_executable())

  def runtime_executable(self):
    return getattr(self._exe, "loaded", None)

  def _default_sharding(self):
    devices = getattr(self._exe, "devices", ())
    return sharding.SingleDeviceSharding(devices[0] if devices else execution.default_device())

  @property
  def input_shardings(self):
    spmd = getattr(self._exe, "input_shardings", None)
    if spmd is not None:
      return self.in_tree.unflatten(spmd[len(self._hoisted):])
    return self.in_tree.unflatten([self._default_sharding()] * self.in_tree.num_leaves)

  @property
  def output_shardings(self):
    spmd = getattr(self._exe, "output_shardings", None)
    if spmd is not None:
      return self.out_tree.unflatten(spmd)
    return self.out_tree.unflatten([self._default_sharding()] * self.out_tree.num_leaves)

  def _check_args(self, leaves, in_tree) -> None:
    if in_tree != self.in_tree:
      raise TypeError("Function compiled with input pytree does not match the input pytree it "
                      f"was called with: compiled for {self.in_tree}, called with {in_tree}")
    bad = [(i, a, core.get_aval(x)) for i, (a, x) in enumerate(zip(self._in_leaf_avals, leaves))
           if (a.shape, a.dtype) != (core.get_aval(x).shape, core.get_aval(x).dtype)]
    if bad:
      lines = "\n".join(f"Argument {i} compiled with {a.str_short(short_dtypes=True)} and called with "
                         f"{b.str_short(short_dtypes=True)}" for i, a, b in bad)
      raise TypeError("Argument types differ from the types for which this computation was "
                      f"compiled. The mismatches are:\n{lines}")

  def __call__(self, *args, **kwargs):
    # Like JAX: the compiled function takes only the non-static arguments.
    if self._no_kwargs and kwargs:
      raise TypeError(f"this compiled function takes positional arguments only, got keyword "
                      f"arguments {sorted(kwargs)}")
    leaves, in_tree = tree_flatten(args if self._no_kwargs else (args, kwargs))
    self._check_args(leaves, in_tree)
    outs = self._exe(*self._hoisted, *leaves)
    return self.out_tree.unflatten(outs)

  call = __call__


# What jax.experimental.serialize_executable stores of a Compiled besides its trees, and
# how it rebuilds one (a Compiled from bytes has no function or jaxpr).
class CompiledParts(NamedTuple):
  executable: Any
  in_leaf_avals: tuple
  hoisted: tuple
  donated_leaves: tuple


def compiled_parts(compiled: Compiled) -> CompiledParts:
  return CompiledParts(compiled._exe, compiled._in_leaf_avals, compiled._hoisted,
                       compiled._donated)


def compiled_from_parts(parts: CompiledParts, in_tree, out_tree, out_leaf_avals,
                        name: str) -> Compiled:
  compiled = Compiled._make(None, None, parts.hoisted, in_tree, out_tree, parts.in_leaf_avals,
                            out_leaf_avals=out_leaf_avals, name=name,
                            donated=parts.donated_leaves)
  compiled._exe = parts.executable
  return compiled


@runtime_checkable
class Wrapped(Protocol):
  """What `jax.jit` returns, as a type: callable, and traceable/lowerable ahead of time."""

  def __call__(self, *args, **kwargs): ...

  def trace(self, *args, **kwargs) -> Traced: ...

  def lower(self, *args, **kwargs) -> Lowered: ...


def _ref_arguments(leaves) -> list:
  """(position, Ref) of the leaves that are mutable references (each Ref at most once)."""
  refs = [(i, x) for i, x in enumerate(leaves) if type(x) in core.ref_types]
  if len({id(r) for _, r in refs}) != len(refs):
    raise ValueError("jit: the same Ref was passed as two arguments; pass it once")
  return refs


def _with_refs(flat: Callable, refs) -> Callable:
  """`flat` taking each Ref argument as its value: while it runs, the Ref holds the traced
  value, and the Ref's final value is an extra output after the function's own."""
  def traced(*leaves):
    leaves = list(leaves)
    with contextlib.ExitStack() as stack:
      for i, r in refs:
        stack.enter_context(r.bound_to(leaves[i]))
        leaves[i] = r
      outs = flat(*leaves)
      return [*outs, *(r[...] for _, r in refs)]
  return traced


def _write_back(refs, outs) -> list:
  """The function's own outputs; the trailing ones are stored into their Refs."""
  if not refs:
    return outs
  own = len(outs) - len(refs)
  for (_, r), value in zip(refs, outs[own:]):
    r[...] = value
  return outs[:own]


def _complete_static(signature, argnums: tuple, argnames: tuple) -> tuple[tuple, tuple]:
  """static_argnums and static_argnames as JAX completes them: when only one is given,
  the other names the same positional-or-keyword parameters; when both are given they
  are used as they are (flax's lifted jit passes both, for a signature that is not the
  one its arguments follow)."""
  if signature is None or (argnums and argnames):
    return argnums, argnames
  params = [(i, p.name) for i, p in enumerate(signature.parameters.values())
            if p.kind == p.POSITIONAL_OR_KEYWORD]
  if argnums:
    return argnums, tuple(name for i, name in params if i in argnums)
  return tuple(i for i, name in params if name in argnames), argnames


class PjitFunction(_jax.jit.JitFunction):
  """What `jax.jit(fun)` returns (named as JAX names it: libraries recognise jitted
  functions by this type name).

  Calls go to the native base class first: a cached call on plain arrays runs its
  executable there (see `_call_fast`); every other call comes back to
  `_call_python`.
  """

  def __repr__(self):
    return f"<PjitFunction of {getattr(self, '__wrapped__', None)!r}>"

  def __init__(self, fun: Callable, static_argnums=(), static_argnames=(), in_shardings=None,
               out_shardings=None, donate_argnums=(), donate_argnames=(), inline=False):
    static_argnums = _ensure_tuple(static_argnums)
    static_argnames = _ensure_tuple(static_argnames)
    signature = None
    if static_argnums or static_argnames or donate_argnums or donate_argnames:
      try:  # only these need parameter names; the lookup costs ~25 us per jit
        signature = inspect.signature(fun)
      except (TypeError, ValueError):
        pass
    self._donate_argnums, self._donate_argnames = donation.resolve_argnums(
        signature, static_argnums, static_argnames, _ensure_tuple(donate_argnums),
        _ensure_tuple(donate_argnames))
    # Only plain calls are eligible for the fast path: positional arguments, no static
    # arguments, no shardings requested.
    fast_ok = not (static_argnums or static_argnames
                   or in_shardings is not None or out_shardings is not None)
    super().__init__(tree_util.default_registry, fast_ok)
    self._fun = fun
    self._name = _fun_name(fun)
    self._static_argnums, self._static_argnames = _complete_static(
        signature, static_argnums, static_argnames)
    self._in_shardings = in_shardings
    self._out_shardings = out_shardings
    self._fast_ok = fast_ok
    self._inline = inline
    self._options = (static_argnums, static_argnames, self._donate_argnums,
                     self._donate_argnames, in_shardings, out_shardings, inline)
    try:
      hash(self._options)
      self._own_cache = None
      self._cache_options = self._options
    except TypeError:
      # Unhashable shardings (a dict of them, as flax passes): this wrapper keeps its
      # traces to itself, so its cache keys need not name the options.
      self._own_cache = {}
      self._cache_options = None
    _track(self)
    functools.update_wrapper(self, fun, updated=())
    # As functools.wraps does, the wrapped function's attributes show through (haiku
    # marks its functions so), but never over this wrapper's own state (jit of jit).
    for name, value in getattr(fun, "__dict__", {}).items():
      self.__dict__.setdefault(name, value)

  @property
  def __signature__(self) -> inspect.Signature:
    # The native base class hides the wrapped function's parameters from inspect
    # (even with follow_wrapped=False, as chex's fake_pmap asks), so say them here;
    # a subclass may set its own (jnp.ufunc).
    given = self.__dict__.get("_given_signature")
    return given if given is not None else inspect.signature(self._fun)

  @__signature__.setter
  def __signature__(self, signature: inspect.Signature) -> None:
    self.__dict__["_given_signature"] = signature

  def __get__(self, obj, objtype=None):
    # A jitted function stored on a class is a method, as a plain function would be.
    return self if obj is None else types.MethodType(self, obj)

  def _split_static(self, args, kwargs):
    # Negative positions count from the end; positions past the arguments given are unused.
    nums = {i + len(args) if i < 0 else i for i in self._static_argnums}
    names = set(self._static_argnames)
    static = tuple((i, args[i]) for i in sorted(nums) if 0 <= i < len(args))
    static += tuple(sorted((k, v) for k, v in kwargs.items() if k in names))
    dyn_args = tuple(a for i, a in enumerate(args) if i not in nums)
    dyn_kwargs = {k: v for k, v in kwargs.items() if k not in names}
    return dyn_args, dyn_kwargs, static

  def _donated_invars(self, args, kwargs, num_hoisted: int) -> tuple[bool, ...] | None:
    """One donation flag per parameter of the traced computation (hoisted constants first)."""
    if not (self._donate_argnums or self._donate_argnames):
      return None
    dyn_args, dyn_kwargs, static = self._split_static(args, kwargs)
    static_pos = {i for i, _ in static if isinstance(i, int)}
    positions = [i for i in range(len(args)) if i not in static_pos]
    return (False,) * num_hoisted + donation.donated_leaves(
        dyn_args, positions, dyn_kwargs, self._donate_argnums, self._donate_argnames)

  def _trace(self, args, kwargs):
    """(closed jaxpr, hoisted consts, in_tree, out_tree, argument leaves, static, refs).

    `refs` are the (position, Ref) of the arguments that are mutable references: their
    leaves are their values, and the jaxpr has their final values as extra outputs after
    the function's own (`_write_back` stores them)."""
    dyn_args, dyn_kwargs, static = self._split_static(args, kwargs)
    leaves, in_tree = tree_flatten((dyn_args, dyn_kwargs))
    refs = _ref_arguments(leaves)
    if refs:
      leaves = list(leaves)
      for i, r in refs:
        leaves[i] = r[...]
    avals = tuple(_abstractify(x) for x in leaves)
    try:
      key = (self._cache_options, in_tree, avals, static, config.trace_context(),
             execution.config_key(), tuple(i for i, _ in refs))
      hash(key)
    except TypeError as e:
      raise ValueError(f"jit: static arguments must be hashable ({e})") from None
    cache = self._trace_cache()
    hit = cache.get(key)
    if hit is not None:
      return (*hit, leaves, static, refs)
    if config.jax_no_tracing:
      raise RuntimeError(f"re-tracing function {self._name} for `jit`, but 'no_tracing' is set")
    static_pos = dict(i for i in static if isinstance(i[0], int))
    static_kw = {k: v for k, v in static if isinstance(k, str)}

    def call(*dargs, **dkwargs):
      it = iter(dargs)
      full = [static_pos[i] if i in static_pos else next(it)
              for i in range(len(dargs) + len(static_pos))]
      return self._fun(*full, **dkwargs, **static_kw)

    store = _Store()
    flat = _flat_fun(call, in_tree, store)
    jaxpr, consts = pe.trace_to_jaxpr_dynamic(_with_refs(flat, refs) if refs else flat, avals)
    if config.jax_check_jaxprs or config.jax_enable_checks:
      core.check_jaxpr(jaxpr)
    closed, hoisted = pe.close_jaxpr(jaxpr, consts)
    result = (closed, hoisted, in_tree, store.value)
    if not hoisted:  # jaxprs that captured outer tracers are not reusable
      cache[key] = result
    return (*result, leaves, static, refs)

  def _trace_cache(self) -> dict:
    """Traces of this function with these jit options, shared by every wrapper of it."""
    if self._own_cache is not None:
      return self._own_cache
    return execution.function_cache(self._fun)

  def _place_inputs(self, args, kwargs):
    """`args` with the dynamic ones placed by in_shardings, which (as in JAX) is a
    pytree prefix of the positional arguments that are not static."""
    if self._in_shardings is None or any(isinstance(x, core.Tracer)
                                         for x in tree_util.tree_leaves(args)):
      return args
    dyn_args, _, static = self._split_static(args, kwargs)
    placed = iter(device_put(dyn_args, self._in_shardings))
    static_pos = {i for i, _ in static if isinstance(i, int)}
    return tuple(a if i in static_pos else next(placed) for i, a in enumerate(args))

  def _place_outputs(self, out):
    if self._out_shardings is None or any(isinstance(x, core.Tracer)
                                          for x in tree_util.tree_leaves(out)):
      return out
    return device_put(out, self._out_shardings)

  @property
  def _fast_cache(self) -> list:
    """The fast path's cached signatures: (treedef, ((dtype, shape, weak_type), ...), x64)."""
    return self._fast_entries()

  def _call_python(self, args, kwargs):
    if config.jax_disable_jit:
      return self._fun(*args, **kwargs)
    eager = not core.is_staging()
    if self._inline and not (eager and not kwargs and _all_plain(args)):
      # Inlined: staged into the caller's computation as if `fun` were called, and
      # run op by op on values the fast path cannot take (numbers, numpy arrays).
      return self._fun(*args, **kwargs)
    if self._fast_ok and not kwargs and eager:
      return self._call_fast(args)
    return self._call_slow(args, kwargs)

  def _call_slow(self, args, kwargs):
    args = self._place_inputs(args, kwargs)
    closed, hoisted, _, out_tree, leaves, _, refs = self._trace(args, kwargs)
    donated = self._donated_invars(args, kwargs, len(hoisted))
    outs = jit_p.bind(*hoisted, *leaves, jaxpr=closed, name=self._name,
                      **donation_params(donated))
    return self._place_outputs(out_tree.unflatten(_write_back(refs, outs)))

  def _call_fast(self, args):
    """A plain call the native fast path could not make: compile, run, then cache.

    Reached on a cache miss, or when a leaf is not a single-buffer, unsharded jax
    Array on the default device (tracers, numpy values, Python scalars, sharded or
    pmap-stacked arrays, another device), which takes the general path. After a
    miss the executable is handed to the native cache when the computation turned
    out to be a plain single-device executable; the native side keys it on the
    argument structure, each leaf's dtype, shape and weak type, and the x64 flag.
    """
    leaves, _ = tree_flatten(args)
    if not _fast_leaves(leaves):
      return self._call_slow(args, {})
    closed, hoisted, _, out_tree, leaves, _, _ = self._trace(args, {})
    donated = self._donated_invars(args, {}, len(hoisted))
    if not hoisted and _plain_single_device(closed) and _fast_path_allowed():
      # Cached before running: a donating run deletes the arguments it looks at.
      _configure_fast_path()
      exe = execution.compile_jaxpr(closed, self._name, donated=donated)
      self._fast_insert(args, exe.loaded, exe.out_avals, out_tree, list(exe.donated),
                        exe.const_buffers(exe.devices[0]))
    outs = jit_p.bind(*hoisted, *leaves, jaxpr=closed, name=self._name,
                      **donation_params(donated))
    return out_tree.unflatten(outs)

  def trace(self, *args, **kwargs) -> Traced:
    closed, hoisted, in_tree, out_tree, leaves, _, refs = self._trace(args, kwargs)
    if refs:
      raise NotImplementedError("jit(f).trace/lower with jax.Ref arguments is not supported "
                                "here; call the jitted function, or pass the Ref's value")
    donated = self._donated_invars(args, kwargs, len(hoisted))
    traced = Traced._make(self, closed, hoisted, in_tree, out_tree,
                          [_abstractify(x) for x in leaves],
                          donated=donated[len(hoisted):] if donated else None)
    traced._devices = _placement_device(leaves)
    return traced

  def lower(self, *args, **kwargs) -> Lowered:
    return self.trace(*args, **kwargs).lower()

  def eval_shape(self, *args, **kwargs):
    closed, _, _, out_tree, _, _, refs = self._trace(args, kwargs)
    out_avals = closed.out_avals[:len(closed.out_avals) - len(refs)]
    return out_tree.unflatten(_shape_dtype_structs(out_avals))

  def clear_cache(self) -> None:
    """Forget this function's traces and executables for these jit options."""
    cache = self._trace_cache()
    for key in [k for k in cache if k[0] == self._cache_options]:
      del cache[key]
    self._fast_clear()


# Every live wrapper, so `clear_caches` can empty their native fast-path entries too.
# Keyed by id, not a WeakSet: subclasses (numpy ufuncs) hash by value.
_live_wrappers: dict[int, weakref.ref] = {}


def _track(wrapper: PjitFunction) -> None:
  key = id(wrapper)
  _live_wrappers[key] = weakref.ref(wrapper, lambda _, key=key: _live_wrappers.pop(key, None))


def _clear_fast_paths() -> None:
  for ref in list(_live_wrappers.values()):
    wrapper = ref()
    if wrapper is not None:
      wrapper._fast_clear()


execution.on_clear_caches(_clear_fast_paths)


def clear_caches() -> None:
  """Empty every cache of traces and compiled executables in this process; the next calls
  compile again. The persistent compilation cache on disk is kept (turn
  jax_enable_compilation_cache off for that)."""
  execution.clear_caches()


def _drop_fast_caches(name: str, value) -> None:
  if affects_tracing(name):
    _clear_fast_paths()


config.add_watcher(_drop_fast_caches)
config.add_override_watcher(_drop_fast_caches)


def _fast_path_allowed() -> bool:
  """The native path runs cached executables without Python: not while an option
  it cannot see is overridden in some thread, nor while runs must be checked."""
  return not (config.tracing_overridden() or config.jax_debug_nans or config.jax_debug_infs
              or config.jax_no_execution)


def _all_plain(args) -> bool:
  leaves, _ = tree_flatten(args)
  return _fast_leaves(leaves)


def _fast_leaves(leaves) -> bool:
  """Whether the native fast path can take every leaf: jax arrays it passes as they
  are, and Python scalars it transfers as weakly typed scalars (bool: strongly)."""
  arrays = [x for x in leaves if type(x) not in dtypes.python_scalar_types]
  return execution.fast_buffers(arrays) is not None


def _configure_fast_path() -> None:
  """Tells the native fast path jax's array class and the x64 flag, once per process.

  The fast path reads only public attributes of ArrayImpl (`aval` and
  `single_device_buffer`); whether a thread is staging comes from core, which
  calls `_jax.jit.set_thread_staging` whenever a thread's dynamic trace changes.
  """
  if not _jax.jit.is_configured():
    scalars = {t: tuple((d, int(xla_client.dtype_to_etype(d))) for d in pair)
               for t, pair in dtypes.python_scalar_dtypes.items()}
    config.add_watcher(_push_x64)
    _jax.jit.set_x64(bool(config.jax_enable_x64))
    _jax.jit.configure(ArrayImpl, core.ShapedArray, scalars)


def _push_x64(name: str, value) -> None:
  if name == "jax_enable_x64":
    _jax.jit.set_x64(bool(value))


def _plain_single_device(closed: core.ClosedJaxpr) -> bool:
  """Whether the eager jit of `closed` on unsharded arrays is one single-device executable."""
  return not (jit_primitive.has_shard_map(closed) or jit_primitive.needs_host_callbacks(closed)
              or jit_primitive.has_effects(closed))


def jit(fun: Callable | None = None, *, static_argnums=(), static_argnames=(),
        donate_argnums=(), donate_argnames=(), keep_unused: bool = True, in_shardings=None,
        out_shardings=None, device=None, backend=None, inline: bool = False,
        compiler_options=None, abstracted_axes=None):
  """Compile `fun` with XLA; traced once per input structure/avals/static values.

  `in_shardings`/`out_shardings` place the arguments/results with `device_put`
  (a pytree prefix of shardings); `device` is shorthand for both on one device.
  `inline=True`: inside another computation `fun` is traced in place rather than
  staged as a nested call, and eager calls on anything but jax arrays run `fun`
  op by op; eager calls on jax arrays compile and cache like any jit.
  """
  del keep_unused, backend, compiler_options, abstracted_axes  # every argument is kept
  if device is not None:
    in_shardings = out_shardings = device
  make = lambda f: PjitFunction(f, static_argnums, static_argnames, in_shardings, out_shardings,
                              donate_argnums, donate_argnames, inline)
  return make if fun is None else make(fun)


class ShapeDtypeStruct:
  """The type of an array (shape, dtype, optional sharding and weak type), without data."""

  __slots__ = ("shape", "dtype", "sharding", "weak_type", "manual_axis_type", "is_ref")

  def __init__(self, shape, dtype, *, sharding=None, weak_type: bool = False,
               manual_axis_type=None, is_ref: bool = False):
    self.shape = tuple(int(d) for d in shape)
    self.dtype = dtype if isinstance(dtype, dtypes.ExtendedDType) else np.dtype(dtype)
    self.sharding, self.weak_type = sharding, bool(weak_type)
    # The varying/unreduced mesh axes of a value inside shard_map, and whether this is the
    # type of a jax.Ref rather than of an array (see jax.empty_ref).
    self.manual_axis_type, self.is_ref = manual_axis_type, bool(is_ref)

  ndim = property(lambda self: len(self.shape))
  size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))

  @classmethod
  def like(cls, x) -> ShapeDtypeStruct:
    """The type of `x` (an array, a tracer, a Python or numpy scalar, or a ShapeDtypeStruct)."""
    if isinstance(x, ShapeDtypeStruct):
      return cls(x.shape, x.dtype, sharding=x.sharding, weak_type=x.weak_type)
    aval = abstractify_value(x) if not isinstance(x, core.Tracer) else x.aval
    return cls(aval.shape, aval.dtype, weak_type=aval.weak_type)

  def __len__(self):
    if not self.shape:
      raise TypeError("len() of unsized object")
    return self.shape[0]

  def __repr__(self):
    extra = f", sharding={self.sharding!r}" if self.sharding is not None else ""
    extra += ", weak_type=True" if self.weak_type else ""
    return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{extra})"

  def __eq__(self, other):
    return (isinstance(other, ShapeDtypeStruct)
            and (self.shape, self.dtype, self.sharding, self.weak_type)
            == (other.shape, other.dtype, other.sharding, other.weak_type))

  def __hash__(self):
    return hash((self.shape, self.dtype, self.sharding, self.weak_type))


# A ShapeDtypeStruct stands for an array of its type wherever an abstract value is read.
# A NamedSharding over Explicit mesh axes is part of its type, as for arrays.
core.pytype_aval_mappings[ShapeDtypeStruct] = lambda s: core.ShapedArray(
    s.shape, s.dtype, s.weak_type,
    sharding=core.sharding_hooks["canonical_sharding"](s.sharding, len(s.shape)))


def eval_shape(fun: Callable, *args, **kwargs):
  """The output types of `fun(*args)` as ShapeDtypeStructs; nothing is computed."""
  return PjitFunction(fun).eval_shape(*args, **kwargs)


def make_jaxpr(fun: Callable, static_argnums=(), axis_env=None, return_shape: bool = False):
  """`make_jaxpr(f)(*args)` -> the ClosedJaxpr that `f` stages for these arguments.

  `return_shape=True`: `(jaxpr, out)` with `out` the output tree of ShapeDtypeStructs.
  `axis_env` (named axes bound outside `f`, for collectives) is not supported here.
  """
  if axis_env:
    raise NotImplementedError("make_jaxpr(axis_env=...): trace collectives inside vmap or "
                              "shard_map with their axis name instead")
  static_argnums = _ensure_tuple(static_argnums)

  def make(*args, **kwargs):
    static = {i: args[i] for i in static_argnums}
    dyn = [a for i, a in enumerate(args) if i not in static]
    leaves, in_tree = tree_flatten((tuple(dyn), kwargs))

    def call(*dargs, **dkwargs):
      it = iter(dargs)
      return fun(*[static[i] if i in static else next(it) for i in range(len(args))], **dkwargs)

    store = _Store()
    jaxpr, consts = pe.trace_to_jaxpr_dynamic(_flat_fun(call, in_tree, store),
                                              [core.get_aval(x) for x in leaves])
    closed, hoisted = pe.close_jaxpr(jaxpr, consts)
    if hoisted:
      closed = core.ClosedJaxpr(jaxpr, consts)
    if return_shape:
      return closed, store.value.unflatten(_shape_dtype_structs(jaxpr.out_avals))
    return closed

  return make


# ----------------------------------------------------------------------------- autodiff


def _check_input_dtype(x, what: str, holomorphic: bool, allow_int: bool) -> None:
  dt = core.get_aval(x).dtype
  if holomorphic:
    if not dtypes.is_complex(dt):
      raise TypeError(f"{what} with holomorphic=True requires inputs with complex dtype, "
                      f"but got {dt.name}.")
  elif not (dtypes.is_inexact(dt) or (allow_int and _is_int_like(dt))):
    raise TypeError(f"{what} requires real- or complex-valued inputs (input dtype that is a "
                    f"sub-dtype of np.inexact), but got {dt.name}. If you want to use "
                    "Boolean- or integer-valued inputs, use vjp or set allow_int to True.")


def _check_differentiable(leaves, what: str, holomorphic: bool = False,
                          allow_int: bool = False) -> None:
  for x in leaves:
    _check_input_dtype(x, what, holomorphic, allow_int)


def _is_int_like(dt) -> bool:
  """Whether values of `dt` have float0 tangents (integers, booleans, typed keys)."""
  if isinstance(dt, dtypes.ExtendedDType):
    return not dtypes.is_differentiable(dt)
  return dtypes.is_integer(dt) or np.dtype(dt) == np.bool_


def _check_output_dtype(aval, what: str, holomorphic: bool) -> None:
  if holomorphic:
    if not dtypes.is_complex(aval.dtype):
      raise TypeError(f"{what} with holomorphic=True requires outputs with complex dtype, "
                      f"but got {aval.dtype.name}.")
  elif dtypes.is_complex(aval.dtype):
    raise TypeError(f"{what} requires real-valued outputs (output dtype that is a sub-dtype of "
                    f"np.floating), but got {aval.dtype.name}. For holomorphic "
                    "differentiation, pass holomorphic=True.")
  elif not dtypes.is_inexact(aval.dtype):
    raise TypeError(f"{what} requires real-valued outputs (output dtype that is a sub-dtype of "
                    f"np.floating), but got {aval.dtype.name}.")


def _split_argnums(args, argnums):
  nums = ensure_index_tuple(argnums)
  for i in nums:
    if not -len(args) <= i < len(args):
      raise TypeError(f"differentiating with respect to argnums={argnums} requires at least "
                      f"{i + 1} positional arguments to be passed by the caller, but got only "
                      f"{len(args)} positional arguments.")
  nums = tuple(i % len(args) for i in nums)
  return nums, tuple(args[i] for i in nums)


def _flatten_with_aux(fun: Callable, in_tree, has_aux: bool):
  """`fun` over flat leaves; the output tree (and aux tree) land in the stores.

  Aux leaves ride along after the outputs as primal values, never differentiated.
  """
  store, aux_store = _Store(), _Store()

  def flat(*xs):
    out = fun(*in_tree.unflatten(xs))
    aux_leaves = []
    if has_aux:
      if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError("a function differentiated with has_aux=True must return a pair "
                        f"(output, auxiliary data), got {type(out).__name__}")
      out, aux = out
      aux_leaves, aux_tree = tree_flatten(aux)
      aux_store.value = _AuxTree(aux_tree, aux_leaves)
      aux_leaves = aux_store.value.traced
    leaves, store.value = tree_flatten(out)
    return leaves + aux_leaves

  return flat, store, aux_store


class _AuxTree:
  """How to rebuild the auxiliary data: its jax values ride through the trace as extra
  outputs, and anything else (any Python object, as JAX allows) is kept as it is."""

  def __init__(self, treedef, leaves):
    self._treedef = treedef
    self._kept = {i: x for i, x in enumerate(leaves)
                  if not isinstance(x, core.Tracer) and not core.is_valid_jaxval(x)}
    self.traced = [x for i, x in enumerate(leaves) if i not in self._kept]

  def unflatten(self, traced_leaves):
    it = iter(traced_leaves)
    return self._treedef.unflatten(
        [self._kept[i] if i in self._kept else next(it) for i in range(self._treedef.num_leaves)])


class _VjpPullback:
  """The backward pass of one `vjp` call; its residuals are the leaves of the
  `tree_util.Partial` that `vjp` returns, so that pullback can cross `jit`."""

  def __init__(self, jaxpr: core.Jaxpr, in_tree, out_tree, out_avals, num_aux: int):
    self._jaxpr, self._in_tree, self._out_tree = jaxpr, in_tree, out_tree
    self._out_avals, self._num_aux = tuple(out_avals), num_aux

  def __call__(self, residuals, ct):
    ct_leaves, ct_tree = tree_flatten(ct)
    if ct_tree != self._out_tree:
      raise ValueError(f"unexpected tree structure of argument to vjp function: got {ct_tree}, "
                       f"but expected to match {self._out_tree}")
    for c, a in zip(ct_leaves, self._out_avals):
      got = core.get_aval(c)
      if got.shape != a.shape:
        raise ValueError(f"unexpected JAX type (e.g. shape/dtype) for argument to vjp function: "
                         f"got {got.str_short(short_dtypes=True)}, but expected {a.str_short(short_dtypes=True)} because the "
                         "corresponding output of the function had that type.")
    undefined = [ad.UndefinedPrimal(v.aval) for v in self._jaxpr.invars]
    cts = ad.backward_pass(self._jaxpr, residuals, undefined,
                           [*ct_leaves, *[None] * self._num_aux])
    return self._in_tree.unflatten([_input_cotangent(c, u.aval) for c, u in zip(cts, undefined)])


def _input_cotangent(ct, aval: core.ShapedArray):
  """The cotangent returned for an input: float0 zeros for integer and boolean inputs."""
  if _is_int_like(aval.dtype):
    return np.zeros(aval.shape, dtype=dtypes.float0)
  return ad.zeros_like_aval(aval) if ct is None else _as_jax_value(ct, aval)


def _as_jax_value(x, aval: core.ShapedArray):
  """`x` as a jax array of type `aval` (a rule may return a Python or numpy number)."""
  if isinstance(x, (core.Tracer, ArrayImpl)):
    return x
  return elementwise.convert_element_type(x, aval.dtype, aval.weak_type)


def vjp(fun: Callable, *primals, has_aux: bool = False, reduce_axes=()):
  """`(fun(*primals), pullback)`: `pullback(cotangent)` is the tuple of input cotangents.

  The pullback is a `jax.tree_util.Partial` holding the residuals as leaves, so it
  can be passed into and returned from jitted functions.
  """
  del reduce_axes  # accepted for signature compatibility; JAX ignores it too
  leaves, in_tree = tree_flatten(primals)
  flat, store, aux_store = _flatten_with_aux(fun, in_tree, has_aux)
  outs, jaxpr, residuals = ad.linearize_flat(flat, leaves)
  out_tree = store.value
  n_out = out_tree.num_leaves
  pullback = _VjpPullback(jaxpr, in_tree, out_tree, [core.get_aval(o) for o in outs[:n_out]],
                          len(outs) - n_out)
  f_vjp = tree_util.Partial(pullback, list(residuals))
  out = out_tree.unflatten(outs[:n_out])
  if has_aux:
    return out, f_vjp, aux_store.value.unflatten(outs[n_out:])
  return out, f_vjp


def _lower_aux(aux):
  return tree_util.tree_map(core.full_lower, aux)


def _float0_zeros(x):
  return np.zeros(core.get_aval(x).shape, dtype=dtypes.float0)


def value_and_grad(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False,
                   allow_int: bool = False, reduce_axes=()):
  """Returns a function computing `(fun(*args), grad of fun w.r.t. args[argnums])`.

  `holomorphic=True`: `fun` is complex-differentiable with complex inputs and output,
  and the result is its complex derivative. `allow_int=True`: integer and boolean
  inputs are allowed; their gradients are zeros of dtype `jax.dtypes.float0`.
  """
  del reduce_axes
  argnums = ensure_index(argnums)

  def vg(*args, **kwargs):
    nums, diff_args = _split_argnums(args, argnums)
    d_leaves, d_tree = tree_flatten(diff_args)
    _check_differentiable(d_leaves, "grad", holomorphic, allow_int)
    # Integer inputs (allow_int) are held constant: their gradient is float0 zeros.
    is_int = [_is_int_like(core.get_aval(x).dtype) for x in d_leaves]
    float_leaves = [x for x, i in zip(d_leaves, is_int) if not i]

    def partial_fun(*f_leaves):
      it = iter(f_leaves)
      full = list(args)
      new = d_tree.unflatten([x if i else next(it) for x, i in zip(d_leaves, is_int)])
      for i, a in zip(nums, new):
        full[i] = a
      return fun(*full, **kwargs)

    res = vjp(partial_fun, *float_leaves, has_aux=has_aux)
    out, f_vjp = res[0], res[1]
    out_aval = core.get_aval(out) if core.is_valid_jaxval(out) else None
    if out_aval is None or out_aval.shape != ():
      shape = out_aval.shape if out_aval is not None else type(out).__name__
      raise TypeError(f"Gradient only defined for scalar-output functions. Output had shape: "
                      f"{shape}.")
    _check_output_dtype(out_aval, "grad", holomorphic)
    float_grads = iter(f_vjp(lax_shape.full_like(out, 1)))
    grads = d_tree.unflatten([_float0_zeros(x) if i else next(float_grads)
                              for x, i in zip(d_leaves, is_int)])
    grads = grads[0] if isinstance(argnums, int) else tuple(grads)
    return ((out, res[2]), grads) if has_aux else (out, grads)

  functools.update_wrapper(vg, fun, updated=())
  return vg


def grad(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False,
         allow_int: bool = False, reduce_axes=()):
  """The gradient of scalar-valued `fun` w.r.t. `args[argnums]` (see value_and_grad)."""
  vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int, reduce_axes)

  def g(*args, **kwargs):
    (value, grads) = vg(*args, **kwargs)
    return (grads, value[1]) if has_aux else grads

  functools.update_wrapper(g, fun, updated=())
  return g


def _output_tangent(primal, tangent):
  """The tangent `jvp` returns: float0 zeros for integer and boolean outputs, as in JAX."""
  aval = core.get_aval(primal)
  if _is_int_like(aval.dtype):
    return np.zeros(aval.shape, dtype=dtypes.float0)
  return tangent


def jvp(fun: Callable, primals, tangents, has_aux: bool = False):
  """`(fun(*primals), the directional derivative of fun at primals along tangents)`."""
  if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
    raise TypeError("primal and tangent arguments to jax.jvp must be tuples or lists; found "
                    f"{type(primals).__name__} and {type(tangents).__name__}.")
  p_leaves, in_tree = tree_flatten(tuple(primals))
  t_leaves, t_tree = tree_flatten(tuple(tangents))
  if t_tree != in_tree:
    raise TypeError("primal and tangent arguments to jax.jvp must have the same tree "
                    f"structure; primals have tree structure {in_tree} whereas tangents have "
                    f"tree structure {t_tree}.")
  for p, t in zip(p_leaves, t_leaves):
    pa, ta = core.get_aval(p), core.get_aval(t)
    if pa.shape != ta.shape:
      raise ValueError("jvp called with different primal and tangent shapes; got primal "
                       f"shape {pa.shape} and tangent shape {ta.shape}")
  flat, store, aux_store = _flatten_with_aux(fun, in_tree, has_aux)
  # float0 tangents (of integer inputs) are zeros, kept symbolic.
  t_leaves = [ad.Zero(core.get_aval(p)) if core.get_aval(t).dtype == dtypes.float0 else t
              for p, t in zip(p_leaves, t_leaves)]
  outs, t_outs = ad.jvp_flat(flat, p_leaves, t_leaves)
  n = store.value.num_leaves
  t_outs = [_output_tangent(o, t) for o, t in zip(outs[:n], t_outs[:n])]
  res = (store.value.unflatten(outs[:n]), store.value.unflatten(t_outs))
  return (*res, aux_store.value.unflatten(outs[n:])) if has_aux else res


def linearize(fun: Callable, *primals, has_aux: bool = False):
  """`(fun(*primals), f_jvp)`, with `f_jvp(*tangents)` the JVP evaluated from a linear jaxpr."""
  leaves, in_tree = tree_flatten(primals)
  flat, store, aux_store = _flatten_with_aux(fun, in_tree, has_aux)
  outs, jaxpr, consts = ad.linearize_flat(flat, leaves)
  n = store.value.num_leaves

  def f_jvp(*tangents):
    t_leaves = in_tree.flatten_up_to(tangents)
    return store.value.unflatten(core.eval_jaxpr(jaxpr, consts, t_leaves)[:n])

  out = store.value.unflatten(outs[:n])
  return (out, f_jvp, aux_store.value.unflatten(outs[n:])) if has_aux else (out, f_jvp)


# ----------------------------------------------------------------------------- vmap


_broadcast_prefix = tree_util.prefix_per_leaf


def vmap(fun: Callable, in_axes=0, out_axes=0, axis_name=None, axis_size=None,
         spmd_axis_name=None, sum_match: bool = False):
  """Vectorize `fun` over the axes `in_axes` of its arguments.

  `spmd_axis_name` names mesh axes the batch dimension is sharded over when the
  vmapped function is partitioned; on this single-program backend it changes no
  value, so it is checked for type only. `sum_match` is accepted likewise.
  """
  if spmd_axis_name is not None and not isinstance(spmd_axis_name, (str, tuple)):
    raise TypeError(f"vmap: spmd_axis_name must be a mesh axis name or a tuple of them, got "
                    f"{spmd_axis_name!r}")
  del sum_match
  if isinstance(in_axes, list):
    in_axes = tuple(in_axes)
  return batching.vmap_fun(fun, in_axes, out_axes, axis_name, axis_size)


# ----------------------------------------------------------------------------- devices


def devices(backend=None) -> list:
  """The devices of `backend` (a platform name or client; default: the default
  backend). A platform with no backend here raises RuntimeError, as in JAX."""
  return list(execution.get_backend(backend).devices())


def device_count(backend=None) -> int:
  return len(devices(backend))


def local_devices(process_index: int | None = None, backend=None, host_id: int | None = None):
  """The devices of process `process_index` (default: this process's)."""
  index = host_id if process_index is None else process_index
  if index is not None and index not in range(xla_bridge.process_count(backend)):
    raise ValueError(f"process_index {index} is not a process of this program (there are "
                     f"{xla_bridge.process_count(backend)})")
  return xla_bridge.local_devices(index, backend)


def local_device_count(backend=None) -> int:
  return len(local_devices(backend=backend))


def default_backend() -> str:
  return devices()[0].platform


def device_get(x):
  """The leaves of `x` as numpy arrays on the host (non-array leaves are returned as is)."""
  def get(leaf):
    if isinstance(leaf, core.Tracer):
      raise TypeError(f"device_get got a traced value {leaf}; it can only fetch concrete "
                      "arrays (call it outside jit/grad/vmap).")
    if isinstance(leaf, ArrayImpl):
      return np.asarray(leaf)
    return leaf
  return tree_util.tree_map(get, x)


def block_until_ready(x):
  """Waits until every array leaf of `x` is computed; returns `x` itself."""
  for leaf in tree_util.tree_leaves(x):
    block = getattr(leaf, "block_until_ready", None)
    if block is not None:
      block()
  return x


# ----------------------------------------------------------------------------- linear functions


def linear_transpose(fun: Callable, *primals, reduce_axes=()):
  """The transpose of the linear function `fun`, for arguments typed like `primals`.

  Returns `f_t(cotangent) -> tuple of cotangents`, one per primal. `fun` is traced
  once (only the types of `primals` matter) and must be linear in its arguments.
  """
  del reduce_axes
  leaves, in_tree = tree_flatten((primals, {}))
  in_avals = [_abstractify(x) for x in leaves]
  for a in in_avals:
    if not dtypes.is_inexact(a.dtype):
      raise TypeError(f"linear_transpose only supports [float or complex] -> [float or complex],"
                      f" got an input of dtype {a.dtype.name}")
  store = _Store()
  jaxpr, consts = pe.trace_to_jaxpr_dynamic(_flat_fun(fun, in_tree, store), in_avals)
  out_tree = store.value
  out_avals = [v.aval for v in jaxpr.outs]

  def transposed(out_cotangent):
    ct_leaves, ct_tree = tree_flatten(out_cotangent)
    if ct_tree != out_tree:
      raise TypeError(f"cotangent tree does not match function output, expected {out_tree} "
                      f"but got {ct_tree}")
    got = [core.get_aval(c) for c in ct_leaves]
    if any((a.shape, a.dtype) != (b.shape, b.dtype) for a, b in zip(out_avals, got)):
      raise TypeError(f"cotangent type does not match function output, expected "
                      f"{tuple(out_avals)} but got {ct_leaves}")
    undefined = [ad.UndefinedPrimal(a) for a in in_avals]
    cts = ad.backward_pass(jaxpr, consts, undefined, ct_leaves)
    return in_tree.unflatten([ad.instantiate_zeros(c, a) for c, a in zip(cts, in_avals)])[0]

  return transposed


def closure_convert(fun: Callable, *example_args):
  """`(converted, consts)`: `converted(*args, *consts) == fun(*args)` with the values `fun`
  closes over (traced values and floating-point arrays) passed explicitly as `consts`."""
  leaves, in_tree = tree_flatten((example_args, {}))
  store = _Store()
  jaxpr, consts = pe.trace_to_jaxpr_dynamic(_flat_fun(fun, in_tree, store),
                                            [_abstractify(x) for x in leaves])
  out_tree = store.value

  def hoist(c) -> bool:
    aval = core.get_aval(c)
    return isinstance(c, core.Tracer) or (dtypes.is_inexact(aval.dtype) and aval.ndim > 0)

  which = [hoist(c) for c in consts]
  hoisted = [c for c, h in zip(consts, which) if h]

  def converted(*args):
    args, given = args[:len(args) - len(hoisted)], args[len(args) - len(hoisted):]
    it = iter(given)
    all_consts = [next(it) if h else c for c, h in zip(consts, which)]
    flat = in_tree.flatten_up_to((tuple(args), {}))
    return out_tree.unflatten(core.eval_jaxpr(jaxpr, all_consts, flat))

  return converted, hoisted


# ----------------------------------------------------------------------------- jacobians


def _std_basis(leaves):
  """One identity row per scalar input: per leaf an array (N, *leaf.shape)."""
  sizes = [int(np.prod(core.get_aval(x).shape, dtype=np.int64)) for x in leaves]
  total = sum(sizes)
  out, start = [], 0
  for x, n in zip(leaves, sizes):
    aval = core.get_aval(x)
    eye = np.eye(total, dtype=aval.dtype)[:, start:start + n].reshape((total, *aval.shape))
    out.append(elementwise.convert_element_type(eye, aval.dtype, aval.weak_type))
    start += n
  return out, sizes


def _jac_blocks(batched, out_leaf_shape, in_shapes, sizes, batch_first: bool):
  """Split a batched result (N, *S) into blocks shaped S_out + S_in."""
  blocks, start = [], 0
  for shape, n in zip(in_shapes, sizes):
    part = lax_shape.slice(batched, (start,) + (0,) * len(out_leaf_shape),
                           (start + n,) + tuple(out_leaf_shape))
    start += n
    if batch_first:  # part: (n_in, *S_out) -> (*S_out, *S_in)
      nd = len(out_leaf_shape)
      part = lax_shape.transpose(part, tuple(range(1, nd + 1)) + (0,))
      blocks.append(lax_shape.reshape(part, tuple(out_leaf_shape) + tuple(shape)))
    else:
      blocks.append(lax_shape.reshape(part, tuple(shape) + tuple(out_leaf_shape)))
  return blocks


def _check_jac_dtype(aval, what: str, side: str, holomorphic: bool) -> None:
  if holomorphic:
    if not dtypes.is_complex(aval.dtype):
      raise TypeError(f"{what} with holomorphic=True requires {side}s with complex dtype, "
                      f"but got {aval.dtype.name}.")
  elif not dtypes.is_float(aval.dtype):
    raise TypeError(f"{what} requires real-valued {side}s ({side} dtype that is a sub-dtype of "
                    f"np.floating), but got {aval.dtype.name}. For holomorphic "
                    "differentiation, pass holomorphic=True. For differentiation of "
                    "non-holomorphic functions involving complex outputs, or "
                    "integer-valued outputs, use jax.vjp directly.")


def jacfwd(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False):
  """The Jacobian of `fun` by forward mode (vmap of jvp over the input basis)."""
  argnums = ensure_index(argnums)

  def jacfun(*args, **kwargs):
    nums, dargs = _split_argnums(args, argnums)
    leaves, in_tree = tree_flatten(dargs)
    for x in leaves:
      _check_jac_dtype(core.get_aval(x), "jacfwd", "input", holomorphic)
    basis, sizes = _std_basis(leaves)

    def partial_fun(*d):
      full = list(args)
      for i, a in zip(nums, d):
        full[i] = a
      return fun(*full, **kwargs)

    def push(*t_leaves):
      res = jvp(partial_fun, dargs, in_tree.unflatten(t_leaves), has_aux=has_aux)
      return (res[1], res[2]) if has_aux else (res[1], None)

    out_t, aux = vmap(push, in_axes=0, out_axes=(0, None))(*basis)
    in_shapes = [core.get_aval(x).shape for x in leaves]

    def per_out(t):
      blocks = _jac_blocks(t, core.get_aval(t).shape[1:], in_shapes, sizes, batch_first=True)
      tree = in_tree.unflatten(blocks)
      return tree[0] if isinstance(argnums, int) else tree

    jac = tree_util.tree_map(per_out, out_t)
    return (jac, aux) if has_aux else jac

  return jacfun


def jacrev(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False,
           allow_int: bool = False):
  """The Jacobian of `fun` by reverse mode (vmap of vjp over the output basis)."""
  argnums = ensure_index(argnums)

  def jacfun(*args, **kwargs):
    nums, dargs = _split_argnums(args, argnums)
    leaves, in_tree = tree_flatten(dargs)

    def partial_fun(*d):
      full = list(args)
      for i, a in zip(nums, d):
        full[i] = a
      return fun(*full, **kwargs)

    _check_differentiable(leaves, "jacrev", holomorphic, allow_int)
    res = vjp(partial_fun, *dargs, has_aux=has_aux)
    out, f_vjp = res[0], res[1]
    out_leaves, out_tree = tree_flatten(out)
    for y in out_leaves:
      _check_jac_dtype(core.get_aval(y), "jacrev", "output", holomorphic)
    basis, sizes = _std_basis(out_leaves)
    cts = vmap(lambda *b: tree_flatten(f_vjp(out_tree.unflatten(b)))[0])(*basis)
    in_shapes = [core.get_aval(x).shape for x in leaves]
    per_out = []
    for y, n, start in zip(out_leaves, sizes, np.cumsum([0] + sizes[:-1])):
      yshape = core.get_aval(y).shape
      blocks = []
      for ct, shape in zip(cts, in_shapes):
        part = lax_shape.slice(ct, (int(start),) + (0,) * len(shape),
                               (int(start) + n,) + tuple(shape))
        blocks.append(lax_shape.reshape(part, tuple(yshape) + tuple(shape)))
      tree = in_tree.unflatten(blocks)
      per_out.append(tree[0] if isinstance(argnums, int) else tree)
    jac = out_tree.unflatten(per_out)
    return (jac, res[2]) if has_aux else jac

  return jacfun


jacobian = jacrev


def fwd_and_bwd(fun: Callable, argnums=0, has_aux: bool = False, jitted: bool = True):
  """`(fwd, bwd)`: `fwd(*args) -> (out, residuals[, aux])` and
  `bwd(residuals, ct) -> cotangents of args[argnums]`, the two halves of `vjp`.

  The residuals are a pytree (the pullback of `vjp`), so a jitted `bwd` compiles once
  and is reused by every later `fwd` result of the same types.
  """
  argnums = ensure_index(argnums)

  def fwd(*args):
    nums, dargs = _split_argnums(args, argnums)

    def partial_fun(*d):
      full = list(args)
      for i, a in zip(nums, d):
        full[i] = a
      return fun(*full)

    return vjp(partial_fun, *dargs, has_aux=has_aux)

  def bwd(residuals, ct):
    cts = residuals(ct)
    return cts[0] if isinstance(argnums, int) else cts

  return (jit(fwd), jit(bwd)) if jitted else (fwd, bwd)


def hessian(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False):
  """The matrix of second derivatives of `fun` (forward over reverse mode)."""
  return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)


# ----------------------------------------------------------------------------- names and eval


@contextlib.contextmanager
def ensure_compile_time_eval():
  """Inside this block operations on known values run now, even under `jit`.

  Values that are only known when the compiled function runs (its traced
  arguments) are still staged.
  """
  with core.ensure_no_dynamic_trace():
    yield


def typeof(x) -> core.ShapedArray:
  """The abstract type (shape, dtype, weak type) of an array, tracer or scalar."""
  if isinstance(x, prng.PRNGKeyArray):
    return x.aval
  if type(x) in core.ref_types:
    return x.aval  # an AbstractRef: Ref{float32[3]}
  return core.get_aval(x) if isinstance(x, core.Tracer) else abstractify_value(x)
