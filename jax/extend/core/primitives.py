"""Every lax primitive by its Python name (`add_p`, `dot_general_p`, ...)."""

from jax._src.extend_core import collect_primitives as _collect_primitives

globals().update(_collect_primitives())
