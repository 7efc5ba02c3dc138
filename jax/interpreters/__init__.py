"""Transformation interpreters and their rule tables."""

# Loaded with the package, as in JAX: libraries reach them as attributes
# (`jax.interpreters.xla.canonicalize_dtype_handlers`) after a bare `import jax`.
from jax.interpreters import ad as ad
from jax.interpreters import batching as batching
from jax.interpreters import mlir as mlir
from jax.interpreters import partial_eval as partial_eval
from jax.interpreters import xla as xla
