"""jax.scipy: SciPy-compatible functions on jax arrays."""

# Each submodule is imported on first use (`jax.scipy.special.gammaln` works after
# `import jax`), as the whole of jax.scipy costs about as much as jax.numpy to import.
from jax._src import lazy_loader as _lazy_loader

__getattr__, __dir__ = _lazy_loader.attach(__name__, [
    "cluster", "fft", "integrate", "interpolate", "linalg", "ndimage", "optimize", "signal",
    "sparse", "spatial", "special", "stats"])
del _lazy_loader
