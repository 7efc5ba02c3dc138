"""DLPack exchange: jax arrays export their host memory in place
(``ArrayImpl.__dlpack__``); ``from_dlpack`` imports any DLPack producer."""

from __future__ import annotations

import numpy as np
from jax._src import api
from jax._src.array import ArrayImpl

SUPPORTED_DTYPES = tuple(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128))


def is_supported_dtype(dtype) -> bool:
  return np.dtype(dtype) in SUPPORTED_DTYPES


def from_dlpack(external_array, device=None, copy=None):
  """A jax array with the contents of `external_array` (anything with
  ``__dlpack__``). The data is copied into a device buffer: the CPU backend's
  buffers own their memory, so an import never aliases the producer's."""
  if isinstance(external_array, ArrayImpl):
    return external_array if device is None else api.device_put(external_array, device)
  if not hasattr(external_array, "__dlpack__"):
    raise TypeError(f"from_dlpack expects an object with __dlpack__, got "
                    f"{type(external_array).__name__}")
  if copy is False:
    raise ValueError("from_dlpack(copy=False): this backend always copies an imported array")
  host = np.from_dlpack(external_array)
  if not is_supported_dtype(host.dtype):
    raise TypeError(f"from_dlpack: unsupported dtype {host.dtype}")
  return api.device_put(np.array(host, copy=True), device)
