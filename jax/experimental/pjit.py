"""`jax.experimental.pjit`: in JAX 0.10.2 it holds only `pjit`, a deprecated name of
`jax.jit` (reading it warns, as JAX's does)."""

from __future__ import annotations

import warnings
from typing import Any, Callable

from jax._src import api

_DEPRECATED = {
    "pjit": "jax.experimental.pjit.pjit has been deprecated. Please use `jax.jit` instead.",
}


def _pjit(fun: Callable, in_shardings: Any = None, out_shardings: Any = None,
          static_argnums=None, static_argnames=None, donate_argnums=None,
          donate_argnames=None, keep_unused: bool = False, device=None, backend=None,
          inline: bool = False, compiler_options=None):
  """`jax.jit` with pjit's signature: `fun` first, the rest as `jax.jit` takes them."""
  if not callable(fun):
    raise TypeError(f"pjit expects a callable as its first argument, got {fun!r}")
  return api.jit(fun, in_shardings=in_shardings, out_shardings=out_shardings,
                 static_argnums=() if static_argnums is None else static_argnums,
                 static_argnames=() if static_argnames is None else static_argnames,
                 donate_argnums=() if donate_argnums is None else donate_argnums,
                 donate_argnames=() if donate_argnames is None else donate_argnames,
                 keep_unused=keep_unused, device=device, backend=backend, inline=inline,
                 compiler_options=compiler_options)


_pjit.__name__ = _pjit.__qualname__ = "pjit"


def __getattr__(name):
  if name in _DEPRECATED:
    warnings.warn(_DEPRECATED[name], DeprecationWarning, stacklevel=2)
    return _pjit
  raise AttributeError(f"module 'jax.experimental.pjit' has no attribute {name!r}")
