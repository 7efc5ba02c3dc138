"""The call that hands a lowered module to a backend for compilation.

Kept under JAX's module and function name because libraries wrap it to watch or
refuse compiles (chex's `restrict_backends` replaces `backend_compile_and_load` on
this module for the duration of a `with` block). Every compile of the frontend
looks the function up on this module at call time, so such a replacement applies.
"""

from __future__ import annotations

from typing import Any, Sequence


def backend_compile_and_load(backend, module: str, devices: Sequence, options: Any = None):
  """Compiles `module` (HLO text) with `backend` and loads it onto `devices`."""
  if options is None:
    return backend.compile_and_load(module, devices)
  return backend.compile_and_load(module, devices, options)
