"""Every lax primitive by its Python name (`add_p`, `dot_general_p`, ...)."""

from jax._src.extend_core import collect_primitives as _collect_primitives

globals().update(_collect_primitives())

# The call primitives, which live with jit's rather than in lax.
from jax._src.jit_primitive import call_p as call_p  # noqa: E402
from jax._src.jit_primitive import closed_call_p as closed_call_p  # noqa: E402
from jax._src.jit_primitive import jit_p as jit_p  # noqa: E402
