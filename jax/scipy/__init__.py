"""jax.scipy: SciPy-compatible functions on jax arrays."""

import typing as _typing

if _typing.TYPE_CHECKING:  # what type checkers and editors see
  from jax.scipy import cluster as cluster
  from jax.scipy import fft as fft
  from jax.scipy import integrate as integrate
  from jax.scipy import interpolate as interpolate
  from jax.scipy import linalg as linalg
  from jax.scipy import ndimage as ndimage
  from jax.scipy import optimize as optimize
  from jax.scipy import signal as signal
  from jax.scipy import sparse as sparse
  from jax.scipy import spatial as spatial
  from jax.scipy import special as special
  from jax.scipy import stats as stats
else:
  # Each submodule is imported on first use (`jax.scipy.special.gammaln` works after
  # `import jax`): the whole of jax.scipy costs about as much as jax.numpy to import.
  from jax._src import lazy_loader as _lazy_loader

  __getattr__, __dir__ = _lazy_loader.attach(__name__, [
      "cluster", "fft", "integrate", "interpolate", "linalg", "ndimage", "optimize", "signal",
      "sparse", "spatial", "special", "stats"])
  del _lazy_loader
del _typing
