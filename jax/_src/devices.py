"""The backend and its devices: the client values are placed with, and the default device.

The lowest module of the execution layer: arrays, shardings and the compile-and-run
path all find devices here.
"""

from __future__ import annotations

import numpy as np

from jax._src import xla_bridge
from jax._src.config import config

def get_backend(platform=None):
  """The default backend's client, or that of `platform` (a name such as "gpu");
  backends are discovered and initialised at the first call."""
  return xla_bridge.get_backend(platform)


_home: list = [None, None]  # [client, its first device], refreshed when the client changes


def default_device():
  chosen = config.read("jax_default_device")
  if chosen is not None and not isinstance(chosen, str):
    return chosen
  client = get_backend()
  if client is not _home[0]:
    _home[:] = [client, client.local_devices()[0]]  # in a group: this process's first
  return _home[1]


def buffer_from_numpy(value: np.ndarray, device=None):
  device = device or default_device()
  # The device's own client: with several plugins loaded (ours and a vendor's,
  # say) only it may place a buffer there; a compile-only one refuses, saying why.
  # Copied: a jax Array must not change when the numpy array it came from does.
  return device.client.buffer_from_pyval(np.asarray(value), device, force_copy=True)
