"""Registering lowerings (`jax.interpreters.mlir`).

Lowering rules build HLO through our `LoweringContext`; `lower_fun` turns a
function written with jax operations into such a rule, which is how library
primitives are usually lowered.
"""

from jax._src.lowering.hlo import LoweringContext as LoweringRuleContext
from jax._src.lowering.hlo import lowering_rules as _lowerings
from jax._src.interpreters_public import lower_fun as lower_fun
from jax._src.interpreters_public import register_lowering as register_lowering
