"""Submodules of a package imported on first attribute access (PEP 562).

`import jax` stays fast because the libraries most programs never touch (jax.scipy,
jax.nn, jax.experimental, ...) load only when first named: `jax.scipy.special.gammaln`,
`from jax import nn` and `import jax.scipy` all work as if they were imported eagerly.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable


def attach(package: str, submodules: Iterable[str]
           ) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
  """The module-level `__getattr__` and `__dir__` of `package` for lazy `submodules`.

  Usage, in the package's __init__.py:
      __getattr__, __dir__ = lazy_loader.attach(__name__, ["fft", "linalg"])
  """
  lazy = frozenset(submodules)

  def __getattr__(name: str) -> object:
    if name in lazy:
      # The import binds the submodule as an attribute of the package, so this hook
      # runs once per submodule.
      return importlib.import_module(f"{package}.{name}")
    raise AttributeError(f"module {package!r} has no attribute {name!r}")

  def __dir__() -> list[str]:
    return sorted(set(vars(sys.modules[package])) | lazy)

  return __getattr__, __dir__
