"""Higher-level types and primitives (`jax.experimental.hijax`); see jax._src.hijax."""

from jax._src.hijax import AbstractValue as AbstractValue
from jax._src.hijax import AvalMutableQDD as AvalMutableQDD
from jax._src.hijax import AvalQDD as AvalQDD
from jax._src.hijax import HiPrimitive as HiPrimitive
from jax._src.hijax import HiType as HiType
from jax._src.hijax import MutableHiType as MutableHiType
from jax._src.hijax import Zero as Zero
from jax._src.hijax import aval_method as aval_method
from jax._src.hijax import aval_property as aval_property
from jax._src.hijax import control_flow_allowed_effects as control_flow_allowed_effects
from jax._src.hijax import instantiate_zeros as instantiate_zeros
from jax._src.hijax import is_undefined_primal as is_undefined_primal
from jax._src.hijax import register_hitype as register_hitype
