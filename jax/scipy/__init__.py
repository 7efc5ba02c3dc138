"""jax.scipy: SciPy-compatible functions on jax arrays."""

import typing as _typing

if _typing.TYPE_CHECKING:  # what type checkers and editors see
  # For type checkers only; at run time the __getattr__ below imports each on first use.
  from jax.scipy import (  # noqa: F401
      cluster as cluster,
      fft as fft,
      integrate as integrate,
      interpolate as interpolate,
      linalg as linalg,
      ndimage as ndimage,
      optimize as optimize,
      signal as signal,
      sparse as sparse,
      spatial as spatial,
      special as special,
      stats as stats,
  )
else:
  # Each submodule is imported on first use (`jax.scipy.special.gammaln` works after
  # `import jax`): the whole of jax.scipy costs about as much as jax.numpy to import.
  from jax._src import lazy_loader as _lazy_loader  # only needed in this branch

  __getattr__, __dir__ = _lazy_loader.attach(__name__, [
      "cluster", "fft", "integrate", "interpolate", "linalg", "ndimage", "optimize", "signal",
      "sparse", "spatial", "special", "stats"])
  del _lazy_loader
del _typing
