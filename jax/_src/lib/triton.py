"""Where a GPU plugin hands jax its Triton kernel compiler, by platform, as the
plugins written for JAX do at initialization (`register_compilation_handler`).

This jax lowers no Triton kernels yet; a plugin's handler is kept so that the
plugin initializes, and `get_compilation_handler` tells what was registered.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

_lock = threading.Lock()
_handlers: dict[str, Callable[..., Any]] = {}


def register_compilation_handler(platform: str, handler: Callable[..., Any]) -> None:
  """Records `handler` as `platform`'s Triton compiler ("CUDA", "ROCM")."""
  if not callable(handler):
    raise TypeError(f"register_compilation_handler: handler for {platform!r} must be callable, "
                    f"got {type(handler).__name__}")
  with _lock:
    _handlers[platform.upper()] = handler


def get_compilation_handler(platform: str) -> Callable[..., Any] | None:
  with _lock:
    return _handlers.get(platform.upper())
