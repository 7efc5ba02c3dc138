"""Taylor-mode automatic differentiation."""

from typing import Any as Any

from jax._src.jet import JetTrace as JetTrace
from jax._src.jet import JetTracer as JetTracer
from jax._src.jet import ZeroSeries as ZeroSeries
from jax._src.jet import ZeroTerm as ZeroTerm
from jax._src.jet import call_param_updaters as call_param_updaters
from jax._src.jet import def_comp as def_comp
from jax._src.jet import def_deriv as def_deriv
from jax._src.jet import deflinear as deflinear
from jax._src.jet import defzero as defzero
from jax._src.jet import deriv_prop as deriv_prop
from jax._src.jet import fact as fact
from jax._src.jet import jet as jet
from jax._src.jet import jet_rules as jet_rules
from jax._src.jet import linear_prop as linear_prop
from jax._src.jet import zero_prop as zero_prop
from jax._src.jet import zero_series as zero_series
from jax._src.jet import zero_term as zero_term
from jax._src.tree_util import register_pytree_node as register_pytree_node
from jax._src.tree_util import tree_flatten as tree_flatten
from jax._src.tree_util import tree_structure as tree_structure
from jax._src.tree_util import tree_unflatten as tree_unflatten
from jax._src.tree_util import treedef_is_leaf as treedef_is_leaf
from jax._src.util import safe_zip as safe_zip
from jax._src.util import unzip2 as unzip2
from jax._src.util import weakref_lru_cache as weakref_lru_cache
