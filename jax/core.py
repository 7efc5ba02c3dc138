"""The core's public names (`jax.core`): abstract values, traces and jaxpr evaluation.

JAX 0.10.2 keeps only these here; jaxprs, primitives and the other core pieces are in
`jax.extend.core`.
"""

from jax._src.core import ShapedArray as ShapedArray
from jax._src.core import Trace as Trace
from jax._src.core import Tracer as Tracer
from jax._src.extend_core import AbstractValue as AbstractValue
from jax._src.extend_core import Atom as Atom
from jax._src.extend_core import Value as Value
from jax._src.extend_core import ensure_compile_time_eval as ensure_compile_time_eval
from jax._src.extend_core import eval_context as eval_context
from jax._src.extend_core import eval_jaxpr as eval_jaxpr
from jax._src.extend_core import max_dim as max_dim
from jax._src.extend_core import min_dim as min_dim


# Names JAX 0.10.2 still answers for with a DeprecationWarning (libraries such as
# TensorFlow Probability read them), pointing at where they live now.
_DEPRECATED = {
    "find_top_trace": "jax.core.find_top_trace is deprecated. Use jax.extend.core.find_top_trace.",
    "pytype_aval_mappings": "jax.core.pytype_aval_mappings is deprecated.",
}


def __getattr__(name):
  if name in _DEPRECATED:
    import warnings  # only on the deprecated path
    from jax._src import core as _core  # the same objects jax.extend.core exposes
    warnings.warn(_DEPRECATED[name], DeprecationWarning, stacklevel=2)
    return getattr(_core, name)
  raise AttributeError(f"module 'jax.core' has no attribute {name!r}")
