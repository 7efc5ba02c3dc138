"""The core's public names (`jax.core`): abstract values, traces and jaxpr evaluation.

New code should prefer `jax.extend.core`; both name the same objects.
"""

from jax._src.core import ClosedJaxpr as ClosedJaxpr
from jax._src.core import Jaxpr as Jaxpr
from jax._src.core import JaxprEqn as JaxprEqn
from jax._src.core import Literal as Literal
from jax._src.core import Primitive as Primitive
from jax._src.core import ShapedArray as ShapedArray
from jax._src.core import Trace as Trace
from jax._src.core import Tracer as Tracer
from jax._src.core import Var as Var
from jax._src.core import find_top_trace as find_top_trace
from jax._src.core import get_aval as get_aval
from jax._src.core import pytype_aval_mappings as pytype_aval_mappings
from jax._src.extend_core import AbstractValue as AbstractValue
from jax._src.extend_core import Atom as Atom
from jax._src.extend_core import DropVar as DropVar
from jax._src.extend_core import TraceTag as TraceTag
from jax._src.extend_core import Value as Value
from jax._src.extend_core import ensure_compile_time_eval as ensure_compile_time_eval
from jax._src.extend_core import eval_context as eval_context
from jax._src.extend_core import eval_jaxpr as eval_jaxpr
from jax._src.extend_core import jaxpr_as_fun as jaxpr_as_fun
from jax._src.extend_core import jaxprs_in_params as jaxprs_in_params
from jax._src.extend_core import mapped_aval as mapped_aval
from jax._src.extend_core import max_dim as max_dim
from jax._src.extend_core import min_dim as min_dim
from jax._src.extend_core import new_jaxpr_eqn as new_jaxpr_eqn
from jax._src.extend_core import raise_to_shaped as raise_to_shaped
from jax._src.extend_core import set_current_trace as set_current_trace
from jax._src.extend_core import subjaxprs as subjaxprs
from jax._src.extend_core import take_current_trace as take_current_trace
from jax._src.extend_core import unmapped_aval as unmapped_aval
from jax._src.extend_core import valid_jaxtype as valid_jaxtype
