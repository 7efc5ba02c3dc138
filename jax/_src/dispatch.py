"""Running things: compile HLO text with the backend, move data, execute.

Eager execution of a primitive is the jit of a one-equation function, compiled
once per (primitive, params, input avals). jaxlib is reached only through
`jax._src.xla_bridge`, imported when the first computation runs.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jax._src import compilation_cache
from jax._src import core
from jax._src import dtypes
from jax._src.array import ArrayImpl
from jax._src.config import config, debug_checks, enable_x64
from jax._src.core import ShapedArray


_xla_bridge = None


def get_backend():
  global _xla_bridge
  if _xla_bridge is None:
    from jax._src import xla_bridge  # lazy: importing jax must not load a backend
    _xla_bridge = xla_bridge
  return _xla_bridge.get_backend()


_home: list = [None, None]  # [client, its first device], refreshed when the client changes


def default_device():
  chosen = config.read("jax_default_device")
  if chosen is not None and not isinstance(chosen, str):
    return chosen
  client = get_backend()
  if client is not _home[0]:
    _home[:] = [client, client.devices()[0]]
  return _home[1]


def fast_buffer(x):
  """The single buffer of `x` when it is a plain array on the default device, else None.

  "Plain": one device buffer (host-backed arrays are moved to the default device,
  as the general path would), no pmap stacking, and no sharding other than a
  single device, so it can be passed to a single-device executable as is.
  Anything else takes the general path.
  """
  bufs = fast_buffers((x,))
  return None if bufs is None else bufs[0]


def buffer_from_numpy(value: np.ndarray, device=None):
  client = get_backend()
  # Copied: a jax Array must not change when the numpy array it came from does.
  return client.buffer_from_pyval(np.asarray(value), device or default_device(),
                                  force_copy=True)


_SingleDeviceSharding = None


def _single_device_sharding():
  global _SingleDeviceSharding
  if _SingleDeviceSharding is None:
    from jax._src.sharding import SingleDeviceSharding
    _SingleDeviceSharding = SingleDeviceSharding
  return _SingleDeviceSharding


def fast_buffers(xs) -> list | None:
  """`fast_buffer` of every element of `xs`, or None if one of them is not plain."""
  home = default_device()
  out = []
  for x in xs:
    if (type(x) is not ArrayImpl or x._stack_axis is not None
        or (x._sharding is not None and type(x._sharding) is not _single_device_sharding())):
      return None
    bufs = x._buffers
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


def _arg_buffer(x, aval: ShapedArray):
  if type(x) is ArrayImpl and x._stack_axis is None:
    buf = fast_buffer(x)
    if buf is not None:
      return buf
  if isinstance(x, ArrayImpl):
    return x.single_buffer()
  return buffer_from_numpy(np.asarray(x, dtype=aval.dtype))


class Executable:
  """A compiled HLO module plus the avals of its inputs and outputs."""

  def __init__(self, hlo_text: str, in_avals: Sequence[ShapedArray],
               out_avals: Sequence[ShapedArray], loaded=None, donated: Sequence[int] = ()):
    """Compiles `hlo_text` for the default device, unless `loaded` is given.

    `donated`: the parameters the module declares as donors; their argument
    arrays are deleted by every call.
    """
    self.hlo_text = hlo_text
    self.in_avals = list(in_avals)
    self.out_avals = list(out_avals)
    self.donated = tuple(donated)
    if loaded is None:
      if config.jax_dump_hlo:
        print(hlo_text)
      client = get_backend()
      loaded = compilation_cache.compile_or_get_cached(client, hlo_text, [default_device()])
    self._loaded = loaded

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
    outs = self._loaded.execute(buffers, self.donated)
    return [ArrayImpl(a, [b]) for a, b in zip(self.out_avals, outs)]


def compile_closed_jaxpr(closed: core.ClosedJaxpr, name: str,
                         arg_names: Sequence[str] | None = None,
                         donated: Sequence[bool] | None = None) -> Executable:
  """Compile (once per ClosedJaxpr object, name and donation) and return the executable.

  `donated` flags the parameters whose arguments the caller gives up (see donation.py).
  """
  cache = closed.__dict__.setdefault("_executables", {})
  donated = tuple(donated) if donated and any(donated) else ()
  key = (name, config.jax_enable_x64, donated, config.read("jax_default_device"))
  exe = cache.get(key)
  if exe is None:
    from jax._src import donation
    from jax._src.lowering import hlo
    if config.jax_dump_jaxpr:
      print(closed)
    plan = donation.plan(closed.in_avals, closed.out_avals, donated)
    text = hlo.lower_jaxpr_to_module(closed, name, arg_names, donation_plan=plan)
    exe = cache[key] = Executable(text, closed.in_avals, closed.out_avals, donated=plan.params)
  return exe


_primitive_cache: dict[Any, Executable] = {}


def _primitive_jaxpr(prim: core.Primitive, avals: Sequence[ShapedArray], params) -> core.ClosedJaxpr:
  invars = [core.Var(a) for a in avals]
  out = prim.abstract_eval(*avals, **params)
  outs = [core.Var(a) for a in (out if prim.multiple_results else [out])]
  jaxpr = core.Jaxpr([], invars, [core.JaxprEqn(prim, invars, params, outs)], outs)
  return core.ClosedJaxpr(jaxpr, [])


def apply_primitive(prim: core.Primitive, *args, **params):
  """Eager execution: compile `prim` alone for these input types and run it."""
  avals = tuple(a.aval if type(a) is ArrayImpl else core.get_aval(a) for a in args)
  key = (prim, avals, tuple(sorted(params.items())) if params else (), enable_x64(),
         config.read("jax_default_device"))
  try:
    exe = _primitive_cache.get(key)
  except TypeError:  # unhashable params: compile without caching
    key = exe = None
  if exe is None:
    closed = _primitive_jaxpr(prim, avals, params)
    exe = compile_closed_jaxpr(closed, prim.name)
    if key is not None:
      _primitive_cache[key] = exe
  buffers = fast_buffers(args)
  outs = exe(*args) if buffers is None else exe.call_buffers(buffers)
  check_special_values(prim.name, outs)
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


def clear_caches() -> None:
  _primitive_cache.clear()


config.add_watcher(lambda name, value: clear_caches() if name == "jax_enable_x64" else None)
