"""Automatic differentiation rule tables (`jax.interpreters.ad`).

`primitive_jvps[p](primals, tangents, **params) -> (primal_out, tangent_out)` and
`primitive_transposes[p](cts, *args, **params) -> cts_in` are the tables our
transformations use. `deflinear`'s transpose rule takes `(cotangent, **params)`, as
in JAX.
"""

from jax._src.interpreters.ad import JVPTrace as JVPTrace
from jax._src.interpreters.ad import JVPTracer as JVPTracer
from jax._src.interpreters.ad import UndefinedPrimal as UndefinedPrimal
from jax._src.interpreters.ad import add_any_p as add_jaxvals_p
from jax._src.interpreters.ad import add_tangents as add_tangents
from jax._src.interpreters.ad import backward_pass as backward_pass
from jax._src.interpreters.ad import defjvp as defjvp
from jax._src.interpreters.ad import defjvp2 as defjvp2
from jax._src.interpreters.ad import defjvp_zero as defjvp_zero
from jax._src.interpreters_public import deflinear as deflinear
from jax._src.interpreters.ad import deflinear2 as deflinear2
from jax._src.custom_derivatives_public import SymbolicZero as Zero
from jax._src.interpreters_public import instantiate_zeros as instantiate_zeros
from jax._src.interpreters.ad import is_undefined_primal as is_undefined_primal
from jax._src.interpreters.ad import jvp_rules as primitive_jvps
from jax._src.interpreters.ad import transpose_rules as primitive_transposes
from jax._src.interpreters.ad import zeros_like_aval as zeros_like_aval
from jax._src.interpreters.ad import zeros_like as zeros_like_jaxval
