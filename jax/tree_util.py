"""Pytree utilities."""

from jax._src.tree_util import PyTreeDef as PyTreeDef
from jax._src.tree_util import Partial as Partial
from jax._src.tree_util import register_pytree_node as register_pytree_node
from jax._src.tree_util import register_pytree_node_class as register_pytree_node_class
from jax._src.tree_util import tree_flatten as tree_flatten
from jax._src.tree_util import tree_unflatten as tree_unflatten
from jax._src.tree_util import tree_leaves as tree_leaves
from jax._src.tree_util import tree_structure as tree_structure
from jax._src.tree_util import tree_map as tree_map
from jax._src.tree_util import tree_all as tree_all
from jax._src.tree_util import tree_reduce as tree_reduce
from jax._src.tree_util import tree_transpose as tree_transpose
from jax._src.tree_util import treedef_is_leaf as treedef_is_leaf
