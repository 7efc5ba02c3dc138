"""The execution layer: closed jaxpr -> loaded executable, its caches, and running it.

Every compile of the frontend (eager primitives, `jit`, SPMD `jit`, `pmap`,
`shard_map`) goes through `compile_jaxpr`, which lowers a closed jaxpr for a
list of devices and returns one `Executable`. There is one set of caches:

* executables and facts derived from a jaxpr (does it hold a callback, its SPMD
  plan...), keyed by the ClosedJaxpr object held weakly (`memo`);
* eager primitives, keyed by (primitive, avals, params, config);
* traces of user functions (`function_cache`), keyed by the function held weakly
  (strongly when it cannot be weakly referenced), so `jax.jit(f)` made anew for
  every call still traces and compiles `f` once.

`clear_caches` empties all of them. jaxlib is reached only through
`jax._src.xla_bridge`, imported when the first computation runs.
"""

from __future__ import annotations

import collections
import logging
import time
import weakref
from typing import Any, Callable, Sequence

import numpy as np

from jax._src import compilation_cache
from jax._src import core
from jax._src import distributed
from jax._src import donation
from jax._src import dtypes
from jax._src.array import ArrayImpl
from jax._src.config import config, debug_checks
from jax._src.core import ShapedArray
from jax._src.interpreters import physical
# Placement is defined below this module; its names stay reachable from here.
from jax._src.devices import buffer_from_numpy, default_device, get_backend  # noqa: F401
from jax._src.layout import Format, Layout
from jax._src.lowering import hlo
from jax._src import tree_util
from jax._src.sharding import (AbstractMesh, Mesh, NamedSharding, PartitionSpec, Sharding,
                                SingleDeviceSharding, get_mesh, known_mesh)
from jax._src.lib import xla_client


def fast_buffer(x):
  """The single buffer of `x` when it is a plain array on the default device, else None.

  "Plain": one device buffer (host-backed arrays are moved to the default device,
  as the general path would), no pmap stacking, and no sharding other than a
  single device, so it can be passed to a single-device executable as is.
  Anything else takes the general path.
  """
  bufs = fast_buffers((x,))
  return None if bufs is None else bufs[0]


def fast_buffers(xs) -> list | None:
  """`fast_buffer` of every element of `xs`, or None if one of them is not plain."""
  home = default_device()
  out = []
  for x in xs:
    if type(x) is not ArrayImpl or x.stack_axis is not None:
      return None
    sharding = x.explicit_sharding
    if sharding is not None and type(sharding) is not SingleDeviceSharding:
      return None
    bufs = x.resident_buffers
    if bufs is None:
      bufs = x.device_buffers()  # host-backed: placed on the default device
    if len(bufs) != 1:
      return None
    buf = bufs[0]
    dev = buf.device()
    if dev is not home and dev != home:
      return None
    out.append(buf)
  return out


# How a host value of a given exact type becomes a numpy value of its canonical
# dtype before it is copied to a device. Libraries register their array-like types
# here (JAX's `jax.interpreters.xla.canonicalize_dtype_handlers`); other types go
# through np.asarray.
canonicalize_dtype_handlers: dict[type, Callable[[Any], Any]] = {}


def _canonicalize_numpy(x):
  return np.asarray(x, dtype=dtypes.canonicalize_dtype(np.result_type(x)))


canonicalize_dtype_handlers[np.ndarray] = _canonicalize_numpy
canonicalize_dtype_handlers.update({t: _canonicalize_numpy for t in set(np.sctypeDict.values())
                                    if issubclass(t, np.generic)})


def _arg_buffer(x, aval: ShapedArray):
  if type(x) is ArrayImpl and x.stack_axis is None:
    buf = fast_buffer(x)
    if buf is not None:
      return buf
  if isinstance(x, ArrayImpl):
    return x.single_buffer()
  handler = canonicalize_dtype_handlers.get(type(x))
  if handler is not None:
    x = handler(x)
  return buffer_from_numpy(np.asarray(x, dtype=aval.dtype))


def _const_buffer(value, device):
  """A constant's buffer on `device`: a jax Array's own when it is already there."""
  if type(value) is ArrayImpl and value.stack_axis is None:
    bufs = value.resident_buffers or value.device_buffers()
    if len(bufs) == 1 and bufs[0].device() == device:
      return bufs[0]
  return buffer_from_numpy(np.asarray(value), device)


# ----------------------------------------------------------------------------- placement


def _is_placement(x) -> bool:
  return (x is None or isinstance(x, (Sharding, PartitionSpec, Format))
          or hasattr(x, "platform"))


def _format_target(fmt: Format):
  """The sharding of a Format target; arrays here keep the default (row-major) layout,
  so a Format asking for another one is refused."""
  layout = fmt.layout
  if isinstance(layout, Layout) and layout.major_to_minor != tuple(
      range(len(layout.major_to_minor))):
    raise ValueError(f"device_put: arrays here are laid out row-major; cannot place with "
                     f"{layout}")
  return fmt.sharding


def _spec_target(spec: PartitionSpec) -> NamedSharding:
  mesh = get_mesh()
  if mesh is None:
    raise ValueError("Please set a mesh via `jax.set_mesh` if a PartitionSpec is passed to "
                     "device_put")
  return NamedSharding(mesh, spec)


# How a traced value takes a placement: the sharding rules (in lax, above this layer)
# install a function that retypes it when the target splits it over Explicit mesh axes.
traced_placement: dict[str, Callable] = {}


def _placements(x, device) -> list:
  """One target per leaf of `x`: `device` is one placement or a pytree prefix of them."""
  n = len(tree_util.tree_leaves(x))
  if _is_placement(device):
    return [device] * n
  return tree_util.prefix_per_leaf(device, x, is_leaf=_placement_or_error)


def _placement_or_error(p) -> bool:
  """`_is_placement`, raising for a leaf that is none (a string, a number): taken
  for a pytree prefix it would never match and the prefix walk would not end."""
  if _is_placement(p):
    return True
  if tree_util.treedef_is_leaf(tree_util.tree_structure(p)):
    raise TypeError("device_put: `device` must be a jax.Device, a Sharding, a PartitionSpec, "
                    f"None or a pytree prefix of them, got {p!r} of type {type(p).__name__}")
  return False


def device_put(x, device=None, *, src=None, donate: bool = False, may_alias=None):
  """Place each leaf of `x` on a device or with a Sharding (a pytree prefix of targets).

  A NamedSharding target splits the value into per-device blocks, one buffer per
  device of the mesh. Inside a traced function placement has no effect.
  """
  del src, donate, may_alias
  leaves, treedef = tree_util.tree_flatten(x)
  targets = _placements(x, device)
  return treedef.unflatten(_put(leaf, t) for leaf, t in zip(leaves, targets))


def place_result(x, out_sharding):
  """`x` placed as an op's `out_sharding=` asks. None leaves it where it is, and so does a
  sharding over an empty mesh: outside any mesh `jax.typeof(x).sharding` is one, and
  JAX's ops take it as "unspecified"."""
  if out_sharding is None or (isinstance(out_sharding, NamedSharding)
                              and out_sharding.mesh.empty):
    return x
  return device_put(x, out_sharding)


def _put(leaf, target):
  if isinstance(target, Format):
    target = _format_target(target)
  if isinstance(target, PartitionSpec):
    target = _spec_target(target)
  if isinstance(leaf, core.Tracer):
    retype = traced_placement.get("reshard")
    if retype is not None and isinstance(target, NamedSharding):
      return retype(leaf, target)
    return leaf
  data = physical.to_physical(leaf)
  if data is not leaf:  # a typed key array: its data goes, its trailing dimensions whole
    return physical.from_physical(_put(data, target), core.get_aval(leaf))
  if isinstance(target, NamedSharding) and isinstance(target.mesh, AbstractMesh):
    target = NamedSharding(concrete_mesh(target.mesh, [leaf]), target.spec)
  if isinstance(leaf, ArrayImpl):
    leaf.check_alive()
  if target is None:
    if isinstance(leaf, ArrayImpl):
      leaf.device_buffers()
      return leaf
    target = SingleDeviceSharding(default_device())
  elif not isinstance(target, Sharding):
    target = SingleDeviceSharding(target)
  aval = abstractify_value(leaf)
  if isinstance(leaf, ArrayImpl) and leaf.resident_buffers and leaf.sharding == target:
    return leaf
  value = np.asarray(leaf, dtype=aval.dtype)
  if isinstance(target, SingleDeviceSharding):
    (device,) = target.device_set
    return ArrayImpl(aval, [buffer_from_numpy(value, device)], sharding=target)
  if isinstance(target, NamedSharding):
    target.check_shape(aval.shape, "device_put args")
    # Across processes every process passes the same value and keeps its own blocks.
    blocks = target.addressable_devices_indices_map(aval.shape)
    bufs = xla_client.batched_device_put(aval, target, [value[idx] for idx in blocks.values()],
                                         list(blocks))
    return ArrayImpl(aval, bufs, sharding=target)
  raise TypeError(f"device_put: unsupported sharding {target!r}")


def concrete_mesh(abstract_mesh, args=()):
  """The Mesh (with devices) behind `abstract_mesh`: the mesh in context, else the mesh of
  an argument's NamedSharding, else the last Mesh made with that abstract mesh."""
  candidates = [get_mesh()] + [getattr(a.explicit_sharding, "mesh", None)
                               for a in args if isinstance(a, ArrayImpl)]
  candidates.append(known_mesh(abstract_mesh))
  for mesh in candidates:
    if isinstance(mesh, Mesh) and mesh.abstract_mesh == abstract_mesh:
      return mesh
  raise ValueError(f"A value is typed as sharded over {abstract_mesh}, but no mesh with those "
                   "devices is known here: set one with `jax.set_mesh(mesh)`")


def place_by_type(outs: list, out_avals, args=()) -> list:
  """Each result whose type says how Explicit mesh axes split it, placed that way."""
  placed = list(outs)
  for i, (o, aval) in enumerate(zip(outs, out_avals)):
    s = core.explicit_sharding(aval)
    if s is None or not isinstance(o, ArrayImpl):
      continue
    target = NamedSharding(concrete_mesh(s.mesh, args), s.spec)
    if o.explicit_sharding != target:
      placed[i] = _put(o, target)
  return placed


def abstractify_value(leaf) -> core.ShapedArray:
  aval = core.get_aval(leaf)
  return aval if isinstance(leaf, ArrayImpl) else aval.update(
      dtype=dtypes.canonicalize_dtype(aval.dtype), weak_type=dtypes.is_weakly_typed(leaf))


# ----------------------------------------------------------------------------- config


def config_key() -> tuple:
  """The config values that change what a trace or a lowering produces (x64, the
  default device, the PRNG's counter scheme, ...)."""
  return config.trace_context()


# ----------------------------------------------------------------------------- executables

# Named as in JAX so that logging filters written for JAX's compile log apply here.
_compile_log = logging.getLogger("jax._src.dispatch")


class _CompileOptions:
  """Stand-in for jaxlib's CompileOptions: the two fields a multi-device compile sets."""

  def __init__(self, num_replicas: int):
    self.num_replicas = num_replicas
    self.num_partitions = 1


def compile_options(num_replicas: int):
  try:
    from jax._src.lib import xla_client  # a dev jaxlib may lack it
  except ImportError:  # a dev client over another jaxlib (tests/jax/tools) reads the fields
    return _CompileOptions(num_replicas)
  opts = xla_client.CompileOptions()
  opts.num_replicas = num_replicas
  return opts


class Executable:
  """A compiled module: its HLO text, the avals of its inputs and outputs, its devices.

  Called with arguments on one device (`__call__`), or with one buffer per device
  for each argument (`execute_sharded`) when compiled for several devices. The
  module's parameters are `consts` (large constants of the computation, copied to
  each device once) followed by the arguments.
  """

  def __init__(self, hlo_text: str, in_avals: Sequence[ShapedArray],
               out_avals: Sequence[ShapedArray], loaded, devices: Sequence = (),
               donated: Sequence[int] = (), consts: Sequence = ()):
    """`donated`: the arguments the module declares as donors; their arrays are
    deleted by every call."""
    self.hlo_text = hlo_text
    self.in_avals = list(in_avals)
    self.out_avals = list(out_avals)
    self.devices = tuple(devices)
    self.donated = tuple(donated)
    self.consts = tuple(consts)
    self.loaded = loaded
    self._param_donated = tuple(i + len(self.consts) for i in self.donated)
    self._const_buffers: dict[Any, list] = {}

  def const_buffers(self, device) -> list:
    """The buffers of `consts` on `device`, made on first use; equal values share one."""
    bufs = self._const_buffers.get(device)
    if bufs is None:
      made: dict[Any, Any] = {}
      bufs = []
      for c in self.consts:
        key = id(c) if type(c) is ArrayImpl else hlo.constant_key(c)
        if key not in made:
          made[key] = _const_buffer(c, device)
        bufs.append(made[key])
      self._const_buffers[device] = bufs
    return bufs

  def __call__(self, *args) -> list[ArrayImpl]:
    if len(args) != len(self.in_avals):
      raise TypeError(f"executable takes {len(self.in_avals)} arguments, got {len(args)}")
    buffers = [_arg_buffer(x, a) for x, a in zip(args, self.in_avals)]
    outs = self.call_buffers(buffers)
    for i in self.donated:
      if isinstance(args[i], ArrayImpl):
        args[i].delete()
    return outs

  def call_buffers(self, buffers: list) -> list[ArrayImpl]:
    """Run on argument buffers already checked to match `in_avals`."""
    if config.jax_no_execution:
      module = self.hlo_text.split(None, 2)[1].rstrip(",") if self.hlo_text else "?"
      raise RuntimeError(f"JAX tried to execute function {module}, but the no_execution "
                         "config option is set")
    if self.consts:
      buffers = self.const_buffers(self.devices[0] if self.devices else default_device()) + buffers
    outs = self.loaded.execute(buffers, self._param_donated)
    return [ArrayImpl(a, [b]) for a, b in zip(self.out_avals, outs)]

  def execute_sharded(self, arg_blocks: list) -> list:
    """Per argument one buffer per device in; per result one buffer per device out."""
    if self.consts:
      per_device = [self.const_buffers(d) for d in self.devices]
      arg_blocks = [list(blocks) for blocks in zip(*per_device)] + list(arg_blocks)
    try:
      return self.loaded.execute_sharded(arg_blocks)
    except Exception as e:
      _raise_if_process_lost(e)
      raise


def _raise_if_process_lost(error: Exception) -> None:
  """A run over several processes that failed because one of them died: say which."""
  if distributed.client() is None:
    return
  lost = distributed.lost_process_error(wait=True)
  if lost is not None:
    raise RuntimeError(f"{lost} (the computation failed: {error})") from error


def compile_hlo(hlo_text: str, name: str, in_avals, out_avals, devices: Sequence | None = None,
                donated: Sequence[int] = (), consts: Sequence = ()) -> Executable:
  """Compile HLO text for `devices` (default: the default device), logging the compile.
  The module's first `len(consts)` parameters take `consts` (see `Executable`).

  The devices' own client compiles: the default backend's, another backend's, or
  the compile-only client of a topology's devices (jax.experimental.topologies),
  whose executables compile and report but refuse to run."""
  devices = list(devices) if devices is not None else [default_device()]
  client = devices[0].client
  if config.jax_dump_hlo:
    print(hlo_text)
  log = config.jax_log_compiles
  if log:
    _compile_log.warning("Compiling %s with global shapes and types %s. Argument mapping: %s.",
                         name, list(in_avals), devices)
    start = time.perf_counter()
  options = compile_options(len(devices)) if len(devices) > 1 else None
  loaded = compilation_cache.compile_or_get_cached(client, hlo_text, devices, options)
  if log:
    _compile_log.warning("Finished XLA compilation of %s in %.6f sec", name,
                         time.perf_counter() - start)
  return Executable(hlo_text, in_avals, out_avals, loaded, devices, donated, consts)


def compile_jaxpr(closed: core.ClosedJaxpr, name: str, *, devices: Sequence | None = None,
                  kind: str = "jit", axis_env: dict | None = None, num_replicas: int = 1,
                  arg_names: Sequence[str] | None = None,
                  donated: Sequence[bool] | None = None) -> Executable:
  """The executable of `closed` on `devices`, compiled once per jaxpr and these options.

  `kind`, `axis_env` and `num_replicas` are passed to the lowering (see
  `hlo.lower_jaxpr_to_module`); `donated` flags the parameters whose arguments
  the caller gives up (see donation.py).
  """
  donated = tuple(donated) if donated and any(donated) else ()
  devices = tuple(devices) if devices is not None else None
  key = ("executable", name, devices, kind, tuple(sorted((axis_env or {}).items())),
         num_replicas, tuple(arg_names) if arg_names else None, donated, config_key())
  return memo(closed, key, lambda: _compile_jaxpr(closed, name, devices, kind, axis_env,
                                                  num_replicas, arg_names, donated))


def _compile_jaxpr(closed, name, devices, kind, axis_env, num_replicas, arg_names,
                   donated) -> Executable:
  if config.jax_dump_jaxpr:
    print(closed)
  module, consts = _hoist_large_consts(closed)
  k = len(consts)
  plan = donation.plan(module.in_avals, module.out_avals,
                       (False,) * k + tuple(donated) if donated else None)
  names = [f"constant_{i}" for i in range(k)] + list(arg_names or [""] * len(closed.in_avals))
  text = hlo.lower_jaxpr_to_module(module, name, names if k else arg_names, kind=kind,
                                   axis_env=axis_env, donation_plan=plan,
                                   num_replicas=num_replicas)
  return compile_hlo(text, f"{kind}({name})", closed.in_avals, closed.out_avals, devices,
                     tuple(p - k for p in plan.params), consts)


# Constants of at least this many bytes are passed to the executable as arguments, as JAX
# passes closed-over arrays, instead of being printed into the HLO text: printing and
# parsing a float takes microseconds, so a 16 MB weight took seconds to compile.
HOIST_MIN_BYTES = 4096


def _hoist_large_consts(closed: core.ClosedJaxpr) -> tuple[core.ClosedJaxpr, list]:
  """`closed` with its large array consts moved to leading parameters, and their values."""
  jaxpr = closed.jaxpr
  pairs = list(zip(jaxpr.constvars, closed.consts))
  moved = [_is_large_array(v.aval, c) for v, c in pairs]
  if not any(moved):
    return closed, []
  kept = [(v, c) for (v, c), m in zip(pairs, moved) if not m]
  hoisted = [(v, c) for (v, c), m in zip(pairs, moved) if m]
  module = core.Jaxpr([v for v, _ in kept], [v for v, _ in hoisted] + jaxpr.invars,
                      jaxpr.eqns, jaxpr.outs, jaxpr.effects, jaxpr.debug_info)
  values = [c if type(c) is ArrayImpl and c.dtype == v.aval.dtype else np.asarray(c, v.aval.dtype)
            for v, c in hoisted]
  return core.ClosedJaxpr(module, [c for _, c in kept]), values


def _is_large_array(aval, value) -> bool:
  return (isinstance(value, (np.ndarray, ArrayImpl)) and isinstance(aval, ShapedArray)
          and isinstance(aval.dtype, np.dtype) and aval.dtype != dtypes.float0
          and aval.size * aval.dtype.itemsize >= HOIST_MIN_BYTES)


# ----------------------------------------------------------------------------- caches

# Per ClosedJaxpr (held weakly): key -> value, for executables and derived facts.
_per_jaxpr: "weakref.WeakKeyDictionary[core.ClosedJaxpr, dict]" = weakref.WeakKeyDictionary()


def memo(closed: core.ClosedJaxpr, key, compute: Callable[[], Any]):
  """`compute()` once per (jaxpr object, key); forgotten with the jaxpr or `clear_caches`."""
  entries = _per_jaxpr.get(closed)
  if entries is None:
    entries = _per_jaxpr[closed] = {}
  try:
    return entries[key]
  except KeyError:
    value = entries[key] = compute()
    return value


class _FunctionCaches:
  """Per user function: a dict of traces. The function is held weakly, so its entries
  go when it does; a callable that cannot be weakly referenced (or hashed) is held
  strongly by identity."""

  def __init__(self):
    self._weak: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
    self._strong: dict[int, tuple[Any, dict]] = {}

  def get(self, fun) -> dict:
    try:
      entries = self._weak.get(fun)
      if entries is None:
        entries = self._weak[fun] = {}
      return entries
    except TypeError:  # not weakly referenceable, or unhashable
      hit = self._strong.get(id(fun))
      if hit is None or hit[0] is not fun:
        hit = self._strong[id(fun)] = (fun, {})
      return hit[1]

  def __contains__(self, fun) -> bool:
    try:
      return fun in self._weak
    except TypeError:
      return id(fun) in self._strong

  def clear(self) -> None:
    self._weak.clear()
    self._strong.clear()


_function_caches = _FunctionCaches()


def function_cache(fun) -> dict:
  """The trace cache of `fun` (a dict the caller keys on options, avals, static args)."""
  return _function_caches.get(fun)


def has_function_cache(fun) -> bool:
  return fun in _function_caches


# Eager executables, least recently used first. Bounded as JAX bounds its own (4,096
# entries): a long program with many shapes would otherwise keep every executable.
_PRIMITIVE_CACHE_SIZE = 4096
_primitive_cache: "collections.OrderedDict[Any, Executable]" = collections.OrderedDict()
_clear_hooks: list[Callable[[], None]] = []


def on_clear_caches(hook: Callable[[], None]) -> None:
  """`hook()` runs on every `clear_caches` (for caches kept above this layer)."""
  _clear_hooks.append(hook)


def clear_caches() -> None:
  """Forget every trace, executable and derived fact, so the next call compiles again."""
  _primitive_cache.clear()
  _physical_primitive_jaxprs.clear()
  _per_jaxpr.clear()
  _function_caches.clear()
  for hook in _clear_hooks:
    hook()


config.add_watcher(lambda name, value: clear_caches() if name == "jax_enable_x64" else None)


# ----------------------------------------------------------------------------- eager primitives


def _primitive_jaxpr(prim: core.Primitive, avals: Sequence[ShapedArray],
                     params) -> core.ClosedJaxpr:
  invars = [core.Var(a) for a in avals]
  out = prim.abstract_eval(*avals, **params)
  outs = [core.Var(a) for a in (out if prim.multiple_results else [out])]
  jaxpr = core.Jaxpr([], invars, [core.JaxprEqn(prim, invars, params, outs)], outs)
  return core.ClosedJaxpr(jaxpr, [])


def apply_primitive(prim: core.Primitive, *args, **params):
  """Eager execution: compile `prim` alone for these input types and run it."""
  avals = tuple(a.aval if type(a) is ArrayImpl else core.get_aval(a) for a in args)
  key = (prim, avals, tuple(sorted(params.items())) if params else (), config_key())
  if any(core.has_physical_form(a.dtype) for a in avals):
    return _apply_physical(prim, avals, key, args, params)
  try:
    exe = _primitive_cache.get(key)
  except TypeError:  # unhashable params: compile without caching
    key = exe = None
  if exe is not None:
    _primitive_cache.move_to_end(key)
  else:
    closed = _primitive_jaxpr(prim, avals, params)
    exe = compile_jaxpr(closed, prim.name)
    if key is not None:
      _primitive_cache[key] = exe
      while len(_primitive_cache) > _PRIMITIVE_CACHE_SIZE:
        _primitive_cache.popitem(last=False)
  buffers = fast_buffers(args)
  outs = exe(*args) if buffers is None else exe.call_buffers(buffers)
  if buffers is None:
    outs = place_by_type(outs, exe.out_avals, args)
  check_special_values(prim.name, outs)
  return outs if prim.multiple_results else outs[0]


_physical_primitive_jaxprs: dict[Any, core.ClosedJaxpr] = {}


def _apply_physical(prim: core.Primitive, avals, key, args, params):
  """An eager primitive on values of extended dtypes (typed keys): run on their data."""
  try:
    closed = _physical_primitive_jaxprs.get(key)
  except TypeError:  # unhashable params
    key = closed = None
  if closed is None:
    closed = _primitive_jaxpr(prim, avals, params)
    if key is not None:
      _physical_primitive_jaxprs[key] = closed
  outs = physical.run(closed, args, lambda pj, pargs: place_by_type(
      compile_jaxpr(pj, prim.name)(*pargs), pj.out_avals, pargs), memo)
  return outs if prim.multiple_results else outs[0]


def check_special_values(name: str, outs) -> None:
  """Raise FloatingPointError if jax_debug_nans/jax_debug_infs is on and an output of
  the operation `name` holds a NaN/an infinity (this waits for the results)."""
  nans, infs = debug_checks()
  if not (nans or infs):
    return
  for out in outs:
    if isinstance(out, core.Tracer) or not dtypes.is_inexact(core.get_aval(out).dtype):
      continue
    value = np.asarray(out)
    if nans and np.isnan(value).any():
      raise FloatingPointError(f"invalid value (nan) encountered in {name}")
    if infs and np.isinf(value).any():
      raise FloatingPointError(f"invalid value (inf) encountered in {name}")
