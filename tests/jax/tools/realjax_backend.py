"""OPTIONAL dev check: execute our HLO text with real jaxlib 0.10.2 (not a dependency).

Real jaxlib cannot compile HLO text directly; like shared/conformance/run_hlo.py we
convert HLO text -> HloModule proto -> MLIR and compile that. Install it in a venv:

    python3 -m venv .venv-realjax && .venv-realjax/bin/pip install jax==0.10.2 jaxlib==0.10.2

(at the repository root, or anywhere with REALJAX_VENV pointing at it).

`install()` replaces `jax._src.xla_bridge.get_backend` with an adapter client offering
the calls our dispatch makes (devices, compile_and_load, buffer_from_pyval, execute).
Returns False (and changes nothing) when real jaxlib is not found.
"""

from __future__ import annotations

import os
import sys
import types

import numpy as np

def _default_site() -> str:
  import glob
  repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
  venv = os.environ.get("REALJAX_VENV") or os.path.join(repo, ".venv-realjax")
  found = sorted(glob.glob(os.path.join(venv, "lib", "python3.*", "site-packages")))
  return found[-1] if found else os.path.join(venv, "lib", "site-packages")


REALJAX_SITE = os.environ.get("REALJAX_SITE") or _default_site()


def _import_real_xla_client():
  if not os.path.isdir(os.path.join(REALJAX_SITE, "jaxlib")):
    return None
  saved_path = sys.path[:]
  saved_mods = {k: v for k, v in sys.modules.items() if k == "jaxlib" or k.startswith("jaxlib.")}
  for k in saved_mods:
    del sys.modules[k]
  sys.path.insert(0, REALJAX_SITE)
  try:
    from jaxlib import xla_client  # the real one
    real = {k: v for k, v in sys.modules.items() if k == "jaxlib" or k.startswith("jaxlib.")}
    return xla_client, real
  except Exception:
    return None
  finally:
    sys.path[:] = saved_path
    for k in [k for k in sys.modules if k == "jaxlib" or k.startswith("jaxlib.")]:
      del sys.modules[k]
    sys.modules.update(saved_mods)


class _Aval:
  def __init__(self, shape, dtype):
    self.shape, self.dtype, self.weak_type = tuple(shape), np.dtype(dtype), False
    self.ndim = len(self.shape)


class _Executable:
  def __init__(self, client, loaded, devices):
    self._client, self._loaded, self._devices = client, loaded, list(devices)

  def execute(self, buffers):
    return self._loaded.execute(buffers)

  def execute_sharded(self, arguments):
    """arguments[i][d] -> outputs[o][d], like our jaxlib (replicated compile, pmap)."""
    arrays = [self._client.sharded_array(shards, self._devices) for shards in arguments]
    results = self._loaded.execute_sharded(arrays)
    return [list(per_dev) for per_dev in results.disassemble_into_single_device_arrays()]


class AdapterClient:
  def __init__(self, xc):
    self._xc = xc
    n = os.environ.get("JAX_NUM_CPU_DEVICES")
    self._client = xc.make_cpu_client(num_devices=int(n)) if n else xc.make_cpu_client()
    self._sharding_cls = None

  def devices(self):
    return self._client.devices()

  def compile_and_load(self, text, devices, compile_options=None):
    xc = self._xc
    module = xc._xla.hlo_module_from_text(text) if hasattr(xc._xla, "hlo_module_from_text") \
        else xc.hlo.hlo_module_from_text(text)
    comp = xc.hlo.XlaComputation(module.as_serialized_hlo_module_proto())
    mlir = xc._xla.mlir.xla_computation_to_mlir_module(comp)
    options = xc.CompileOptions()
    replicas = int(getattr(compile_options, "num_replicas", 1))
    if replicas != 1:
      options.num_replicas = replicas
      options.device_assignment = xc.DeviceAssignment.create(
          np.array([[d.id] for d in devices[:replicas]]))
    return _Executable(self, self._client.compile_and_load(mlir, devices, options), devices)

  def sharded_array(self, shards, devices):
    """One real-jaxlib Array whose per-device buffers are `shards` (one per device).

    The replicated sharding only carries the device list; each device's buffer is
    its own argument, as a replicated (pmap-style) executable expects.
    """
    xla = self._xc._xla
    singles = [s if type(s).__name__ == "ArrayImpl" else self.buffer_from_pyval(s, d)
               for s, d in zip(shards, devices)]
    first = np.asarray(singles[0])
    sharding = xla.GSPMDSharding(list(devices), self._xc.HloSharding.replicate())
    return xla.ArrayImpl(_Aval(first.shape, first.dtype), sharding, singles, True, True)

  def buffer_from_pyval(self, value, device):
    xla = self._xc._xla
    arr = np.asarray(value)
    if self._sharding_cls is None:
      xc = self._xc

      class Sharding(xla.SingleDeviceSharding):
        memory_kind = None
        is_fully_replicated = True
        is_fully_addressable = True

        def _to_xla_hlo_sharding(self, ndim):
          return xc.HloSharding.replicate()

        @property
        def _device_assignment(self):
          return (self._device,)

        @property
        def device_set(self):
          return {self._device}

      self._sharding_cls = Sharding
    sharding = self._sharding_cls(device)
    return xla.batched_device_put(_Aval(arr.shape, arr.dtype), sharding,
                                  [arr], [device], True, True, enable_x64=True)


def install() -> bool:
  found = _import_real_xla_client()
  if found is None:
    return False
  xc, _ = found
  client = AdapterClient(xc)
  from jax._src import xla_bridge
  xla_bridge.get_backend = lambda platform=None: client
  return True
