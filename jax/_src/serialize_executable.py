"""Compiled functions to bytes and back (jax.experimental.serialize_executable).

The payload holds the plugin's serialized executable plus what the frontend
needs to call it again: the argument and result avals, the constants the
jaxpr hoisted into arguments, the large constants the module takes as its first
parameters, and the function name. The trees travel
separately, as in JAX: ``serialize`` returns ``(payload, in_tree, out_tree)``.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np

from jax._src import core, execution, xla_bridge
from jax._src.api import Compiled, CompiledParts, compiled_from_parts, compiled_parts
from jax._src.array import ArrayImpl

_FORMAT = "jax-serialized-executable/3"


def serialize(compiled) -> tuple[bytes, Any, Any]:
  if not isinstance(compiled, Compiled):
    raise TypeError(f"serialize expects the result of jax.jit(f).lower(...).compile(), got "
                    f"{type(compiled).__name__}")
  parts = compiled_parts(compiled)
  exe = parts.executable
  if getattr(exe, "plan", None) is not None:
    raise NotImplementedError(
        f"serialize: '{compiled.fun_name}' compiled to a multi-device SPMD program (it holds "
        f"shard_map); only single-device executables can be serialized")
  client = exe.loaded.client
  payload = {
      "format": _FORMAT,
      "platform": client.platform,
      "name": compiled.fun_name,
      "executable": exe.loaded.serialize(),
      "hlo_text": exe.hlo_text,
      "in_avals": list(exe.in_avals),
      "out_avals": list(exe.out_avals),
      "in_leaf_avals": list(parts.in_leaf_avals),
      "hoisted": [np.asarray(h) for h in parts.hoisted],
      "donated": list(exe.donated),
      "consts": [np.asarray(c) for c in exe.consts],
      "donated_leaves": list(parts.donated_leaves),
  }
  return pickle.dumps(payload), compiled.in_tree, compiled.out_tree


def deserialize_and_load(serialized: bytes, in_tree, out_tree, backend: str | None = None,
                         execution_devices=None):
  """Loads what `serialize` returned into a callable Compiled, without compiling."""
  payload = _read(serialized)
  client = xla_bridge.get_backend(backend)
  if payload["platform"] != client.platform:
    raise ValueError(f"the executable was compiled for platform {payload['platform']!r} but "
                     f"the backend is {client.platform!r}")
  devices = list(execution_devices) if execution_devices is not None else client.devices()[:1]
  loaded = client.deserialize_executable(payload["executable"], devices)
  exe = execution.Executable(payload["hlo_text"], payload["in_avals"], payload["out_avals"],
                             loaded, devices, donated=payload["donated"],
                             consts=payload["consts"])
  hoisted = [ArrayImpl(core.get_aval(h), [client.buffer_from_pyval(h, devices[0])])
             for h in payload["hoisted"]]
  parts = CompiledParts(exe, tuple(payload["in_leaf_avals"]), tuple(hoisted),
                        tuple(payload["donated_leaves"]))
  compiled = compiled_from_parts(parts, in_tree, out_tree, payload["out_avals"], payload["name"])
  return compiled


def _read(serialized: bytes) -> dict:
  if not isinstance(serialized, (bytes, bytearray)):
    raise TypeError(f"deserialize_and_load expects bytes, got {type(serialized).__name__}")
  try:
    payload = pickle.loads(serialized)
  except Exception as e:
    raise ValueError(f"not a serialized jax executable ({type(e).__name__}: {e})") from None
  if not isinstance(payload, dict) or payload.get("format") != _FORMAT:
    found = payload.get("format") if isinstance(payload, dict) else type(payload).__name__
    raise ValueError(f"not a serialized jax executable of format {_FORMAT!r} (found {found!r})")
  return payload
