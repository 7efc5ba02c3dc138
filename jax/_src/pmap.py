"""`jax.pmap`: run one program on N devices, each on its own slice of the inputs.

The body is traced once per input structure and shard types, with the axis
name bound to N (`parallel.pmap_axis_env`), so collectives (`psum`, `all_gather`,
`ppermute`, `axis_index`...) are staged as equations. The jaxpr is lowered to ONE
HLO module whose collectives are cross-replica ops, compiled with
`num_replicas = N` for the first N devices, and run with `execute_sharded`:
argument i's shard for device d goes in `args[i][d]`, and output o comes back as
`outs[o][d]`. Results are Arrays holding the N per-device buffers (stacked along
the output axis when read).

pmap called on tracers (inside jit, grad or vmap) runs as a vmap with the same
axis name: the collectives then batch, which has the same meaning.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from jax._src import core
from jax._src import execution
from jax._src import tree_util
from jax._src.array import ArrayImpl
from jax._src.config import config
from jax._src.core import ShapedArray
from jax._src.interpreters import batching
from jax._src.interpreters import partial_eval as pe
from jax._src.interpreters import physical
from jax._src.lax import parallel
from jax._src.lowering import hlo


class _Compiled(NamedTuple):
  closed: core.ClosedJaxpr  # kept alive here: its executable is cached with it
  exe: Any                  # execution.Executable over the selected devices
  out_tree: Any

  out_avals = property(lambda self: self.exe.out_avals)  # per-device output avals


def _static_key(value):
  try:
    hash(value)
  except TypeError as e:
    raise ValueError(f"pmap: static_broadcasted_argnums arguments must be hashable ({e})") from None
  return value


def _drop_axis(aval: ShapedArray, axis: int | None) -> ShapedArray:
  if axis is None:
    return aval.strip_weak_type() if aval.weak_type and aval.shape else aval
  shape = list(aval.shape)
  del shape[axis]
  return aval.update(shape=tuple(shape))


def _insert_axis(aval: ShapedArray, axis: int | None, n: int) -> ShapedArray:
  if axis is None:
    return aval
  shape = list(aval.shape)
  shape.insert(axis, n)
  return aval.update(shape=tuple(shape))


class _Call(NamedTuple):
  """One call's arguments, flattened, and the devices it maps them over."""
  static: dict
  n_args: int
  leaves: list
  in_tree: Any
  axes: tuple
  n: int            # this process's slices (the mapped axis size of its arguments)
  devices: tuple    # every device of the program (every process's, in process order)
  local: tuple      # this process's among them
  avals: tuple      # per-device argument types


class PmapWrapped:
  """What `jax.pmap(fun, ...)` returns."""

  def __init__(self, fun: Callable, axis_name, in_axes, out_axes, static_broadcasted_argnums,
               devices, axis_size):
    self._fun = fun
    self._name = getattr(fun, "__name__", type(fun).__name__)
    self._axis_name = axis_name
    self._in_axes = tuple(in_axes) if isinstance(in_axes, list) else in_axes
    self._out_axes = out_axes
    self._static = tuple(sorted({int(i) for i in (
        (static_broadcasted_argnums,) if isinstance(static_broadcasted_argnums, int)
        else static_broadcasted_argnums)}))
    self._devices = None if devices is None else list(devices)
    self._axis_size = axis_size
    functools.update_wrapper(self, fun, updated=())  # never merge the wrapped object's state

  # --------------------------------------------------------------- arguments

  def _split(self, args):
    static = {i % len(args): args[i] for i in self._static if -len(args) <= i < len(args)}
    dyn = tuple(a for i, a in enumerate(args) if i not in static)
    in_axes = self._in_axes
    if isinstance(in_axes, tuple) and len(in_axes) == len(args) and static:
      in_axes = tuple(a for i, a in enumerate(in_axes) if i not in static)
    return static, dyn, in_axes

  def _bind_static(self, static: dict, n_args: int) -> Callable:
    def call(*dyn, **kwargs):
      it = iter(dyn)
      full = [static[i] if i in static else next(it) for i in range(n_args)]
      return self._fun(*full, **kwargs)
    return call

  def _leaf_axes(self, in_axes, dyn, kwargs) -> list:
    if isinstance(in_axes, tuple):
      if len(in_axes) != len(dyn):
        raise ValueError(f"pmap in_axes must have one entry per positional argument: got "
                         f"{len(in_axes)} entries for {len(dyn)} arguments")
    else:
      in_axes = (in_axes,) * len(dyn)
    axes = tree_util.prefix_per_leaf(in_axes, dyn)
    return axes + [0] * len(tree_util.tree_leaves(kwargs))

  # --------------------------------------------------------------- call

  def __call__(self, *args, **kwargs):
    call = self._prepare(args, kwargs)
    if call is None:
      return self._as_vmap_call(args, kwargs)
    compiled = self._compiled(call)
    if compiled is None:  # closed over outer tracers, or side effects (see _compile)
      return self._as_vmap_call(args, kwargs)
    return self._run(compiled, call)

  def _as_vmap_call(self, args, kwargs):
    static, dyn, in_axes = self._split(args)
    return self._as_vmap(static, len(args), in_axes, dyn, kwargs)

  def _prepare(self, args, kwargs) -> _Call | None:
    """What one call maps, over which devices (None: traced arguments, run as vmap)."""
    static, dyn, in_axes = self._split(args)
    leaves, in_tree = tree_util.tree_flatten((dyn, kwargs))
    axes = self._leaf_axes(in_axes, dyn, kwargs)
    if any(isinstance(x, core.Tracer) for x in leaves):
      return None
    axes, n = self._check_axes(leaves, axes)
    devices = self._select_devices(n)
    # Across processes the program spans every process's devices, and this process
    # feeds and receives the slices of its own (n of them).
    here = execution.get_backend().process_index()
    local = [d for d in devices if d.process_index == here]
    avals = tuple(_drop_axis(core.get_aval(x), a) for x, a in zip(leaves, axes))
    return _Call(static, len(args), leaves, in_tree, tuple(axes), n, tuple(devices),
                 tuple(local), avals)

  def _compiled(self, call: _Call) -> _Compiled | None:
    key = ("pmap", self._axis_name, call.in_tree, call.avals, call.axes,
           tuple(sorted((i, _static_key(v)) for i, v in call.static.items())), call.devices,
           execution.config_key())
    cache = execution.function_cache(self._fun)
    compiled = cache.get(key)
    if compiled is None:
      compiled = self._compile(call)
      if compiled is not None:
        cache[key] = compiled
    return compiled

  def _run(self, compiled: _Compiled, call: _Call):
    # Typed keys go in and come out as their data (mapped axes are leading ones).
    arg_shards = [_shards(physical.to_physical(x), a, call.local)
                  for x, a in zip(call.leaves, call.axes)]
    outs = compiled.exe.execute_sharded(arg_shards)
    out_axes = self._out_leaf_axes(compiled.out_tree, call.n)
    out_axes = [None if ax is None else ax % (aval.ndim + 1)
                for aval, ax in zip(compiled.closed.out_avals, out_axes)]
    results = [physical.from_physical(
        ArrayImpl(_insert_axis(core.physical_aval(aval), ax, call.n), list(bufs), stack_axis=ax),
        _insert_axis(aval, ax, call.n))
        for aval, bufs, ax in zip(compiled.closed.out_avals, outs, out_axes)]
    return compiled.out_tree.unflatten(results)

  def _check_axes(self, leaves, axes):
    norm, sizes = [], set()
    for x, ax in zip(leaves, axes):
      if ax is None:
        norm.append(None)
        continue
      aval = core.get_aval(x)
      if not -aval.ndim <= ax < aval.ndim:
        raise ValueError(f"pmap in_axes={ax} is out of bounds for an argument of shape "
                         f"{aval.shape}")
      norm.append(ax % aval.ndim)
      sizes.add(aval.shape[ax % aval.ndim])
    if len(sizes) > 1:
      raise ValueError(f"pmap got inconsistent sizes for array axes to be mapped: {sorted(sizes)}")
    if not sizes:
      if self._axis_size is None:
        raise ValueError("pmap requires at least one argument with a mapped axis "
                         "(in_axes not None), or axis_size=")
      return norm, int(self._axis_size)
    return norm, sizes.pop()

  def _select_devices(self, n: int) -> list:
    backend = execution.get_backend()
    if self._devices is None and len({d.process_index for d in backend.devices()}) > 1:
      return _global_devices(backend, n, self._name)
    available = self._devices if self._devices is not None else list(backend.devices())
    if n > len(available):
      raise ValueError(
          f"pmap of '{self._name}' maps an axis of size {n}, which needs {n} devices, but only "
          f"{len(available)} device(s) are available. Fix: map an axis of size <= "
          f"{len(available)}, or start with more devices (e.g. JAX_NUM_CPU_DEVICES={n} for the "
          "CPU backend).")
    return available[:n]

  def _trace(self, call: _Call):
    """(closed jaxpr, output tree) of the program over all `call.devices` (the axis
    size every collective sees), or None when it cannot be one compiled program."""
    store = tree_util.OutTreeStore()
    fun = tree_util.flatten_fun(self._bind_static(call.static, call.n_args), call.in_tree, store)
    with parallel.pmap_axis_env(self._axis_name, len(call.devices)):
      jaxpr, consts = pe.trace_to_jaxpr_dynamic(fun, list(call.avals))
    if config.jax_check_jaxprs:
      core.check_jaxpr(jaxpr)
    closed, hoisted = pe.close_jaxpr(jaxpr, consts)
    if hoisted or _has_effects(jaxpr):
      # A compiled module keeps only what its outputs need, which would drop jax.debug
      # callbacks (and checkify's checks); mapped as vmap, they run for every instance.
      return None
    return closed, store.value

  def _lowering_options(self, call: _Call) -> dict:
    n = len(call.devices)
    return dict(kind="pmap", axis_env={self._axis_name: n}, num_replicas=n)

  def _compile(self, call: _Call) -> _Compiled | None:
    traced = self._trace(call)
    if traced is None:
      return None
    closed, out_tree = traced
    exe = execution.compile_jaxpr(physical.physicalize(closed), self._name,
                                  devices=call.devices, **self._lowering_options(call))
    return _Compiled(closed, exe, out_tree)

  def _out_leaf_axes(self, out_tree, n: int) -> list:
    out = out_tree.unflatten([0] * out_tree.num_leaves)
    return tree_util.prefix_per_leaf(self._out_axes, out)

  def _as_vmap(self, static, n_args, in_axes, dyn, kwargs):
    fun = self._bind_static(static, n_args)
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(dyn)
    return batching.vmap_fun(fun, axes, self._out_axes, self._axis_name,
                             self._axis_size)(*dyn, **kwargs)

  # --------------------------------------------------------------- AOT

  def lower(self, *args, **kwargs) -> PmapLowered:
    """The program one call with these arguments runs: across processes the global one,
    over every process's devices (as the call itself)."""
    call = self._prepare(args, kwargs)
    if call is None:
      raise TypeError(f"pmap of '{self._name}': lower() takes concrete arguments (or "
                      "jax.ShapeDtypeStruct), not traced values")
    return PmapLowered(self, call, self._trace(call))


class PmapLowered:
  """What `pmap(f).lower(*args)` gives: the HLO of the program over all the devices
  the call maps (every process's, in a multi-process program), and `compile()`."""

  def __init__(self, wrapped: PmapWrapped, call: _Call, traced):
    self._wrapped, self._call, self._traced = wrapped, call, traced

  @property
  def in_tree(self):
    return self._call.in_tree

  def as_text(self, dialect: str | None = None, **_) -> str:
    if dialect not in (None, "hlo"):
      raise ValueError(f"this jax lowers to XLA HLO text only: as_text(dialect='hlo'); "
                       f"got dialect={dialect!r}")
    if self._traced is None:
      raise self._no_program()
    return hlo.lower_jaxpr_to_module(self._traced[0], self._wrapped._name,
                                     **self._wrapped._lowering_options(self._call))

  def _no_program(self) -> NotImplementedError:
    return NotImplementedError(
        f"pmap of '{self._wrapped._name}' has side effects (debug callbacks, checkify) or "
        "closes over traced values: it runs as a vmap per call, with no compiled program "
        "to lower")

  def compile(self, compiler_options=None) -> PmapCompiled:
    del compiler_options  # the CPU plugin takes none
    compiled = self._wrapped._compiled(self._call)
    if compiled is None:
      raise self._no_program()
    return PmapCompiled(self._wrapped, self._call, compiled)


class PmapCompiled:
  """A compiled pmap: call it with arguments of the shapes it was lowered for (this
  process's slices, as for the pmap itself)."""

  def __init__(self, wrapped: PmapWrapped, call: _Call, compiled: _Compiled):
    self._wrapped, self._call, self._compiled = wrapped, call, compiled

  def as_text(self) -> str:
    return self._compiled.exe.hlo_text

  def cost_analysis(self):
    return None  # not estimated by this backend (JAX allows None)

  def __call__(self, *args, **kwargs):
    # As JAX's compiled functions: the static arguments were fixed when lowering.
    lowered = self._call
    expected = lowered.n_args - len(lowered.static)
    if len(args) != expected:
      raise TypeError(f"pmap of '{self._wrapped._name}' was compiled for {expected} "
                      f"positional arguments, got {len(args)}")
    dynamic = iter(args)
    args = tuple(lowered.static[i] if i in lowered.static else next(dynamic)
                 for i in range(lowered.n_args))
    call = self._wrapped._prepare(args, kwargs)
    if call is None:
      raise TypeError("a compiled pmap takes concrete arguments, not traced values")
    if (call.in_tree, call.avals, call.axes, call.devices) != (
        lowered.in_tree, lowered.avals, lowered.axes, lowered.devices):
      raise TypeError(f"pmap of '{self._wrapped._name}' was compiled for arguments "
                      f"{lowered.in_tree} of per-device types "
                      f"{[a.str_short(short_dtypes=True) for a in lowered.avals]}, called with {call.in_tree} "
                      f"of {[a.str_short(short_dtypes=True) for a in call.avals]}")
    return self._wrapped._run(self._compiled, call)


def _global_devices(backend, n: int, name: str) -> list:
  """In a multi-process program: the first `n` devices of every process, in process
  order (each process maps an axis of its local size n; the program's is n * processes)."""
  by_process: dict[int, list] = {}
  for d in backend.devices():
    by_process.setdefault(d.process_index, []).append(d)
  local = by_process[backend.process_index()]
  if n > len(local):
    raise ValueError(
        f"pmap of '{name}' maps an axis of size {n}, but this process has {len(local)} local "
        f"devices; in a multi-process program each process maps an axis of at most its "
        f"local device count ({len(local)})")
  return [d for p in sorted(by_process) for d in by_process[p][:n]]


def _has_effects(jaxpr: core.Jaxpr) -> bool:
  return core.any_eqn(jaxpr, lambda eqn: eqn.primitive in pe.effectful_primitives)


def _shards(x, axis: int | None, devices: Sequence) -> list:
  """One buffer per device: x's slice `axis`=d for device d, or x itself on each."""
  if (isinstance(x, ArrayImpl) and x.is_sharded and x.stack_axis == axis
      and len(x.device_buffers()) == len(devices)
      and all(_device_of(b) == d for b, d in zip(x.device_buffers(), devices))):
    return list(x.device_buffers())  # already laid out as this pmap wants it
  value = np.asarray(x, dtype=core.get_aval(x).dtype)
  if axis is None:
    return [execution.buffer_from_numpy(value, d) for d in devices]
  return [execution.buffer_from_numpy(np.take(value, i, axis=axis), d)
          for i, d in enumerate(devices)]


def _device_of(buf):
  dev = getattr(buf, "device", None)
  return dev() if callable(dev) else dev


def pmap(fun: Callable | None = None, axis_name=None, *, in_axes=0, out_axes=0,
         static_broadcasted_argnums=(), devices=None, backend=None, axis_size=None,
         donate_argnums=(), global_arg_shapes=None):
  """Map `fun` over the leading (or `in_axes`) axis of its arguments, one slice per device."""
  del backend, donate_argnums, global_arg_shapes  # one backend; no donation yet
  if fun is None:
    return lambda f: PmapWrapped(f, axis_name, in_axes, out_axes, static_broadcasted_argnums,
                                 devices, axis_size)
  return PmapWrapped(fun, axis_name, in_axes, out_axes, static_broadcasted_argnums, devices,
                     axis_size)
