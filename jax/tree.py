"""The `jax.tree` namespace: short names for the pytree utilities of `jax.tree_util`."""

from jax._src.tree_util import tree_all as all
from jax._src.tree_util import tree_broadcast as broadcast
from jax._src.tree_util import tree_flatten as flatten
from jax._src.tree_util import tree_flatten_with_path as flatten_with_path
from jax._src.tree_util import tree_leaves as leaves
from jax._src.tree_util import tree_leaves_with_path as leaves_with_path
from jax._src.tree_util import tree_map as map
from jax._src.tree_util import tree_map_with_path as map_with_path
from jax._src.tree_util import tree_reduce as reduce
from jax._src.tree_util import tree_reduce_associative as reduce_associative
from jax._src.tree_util import tree_structure as structure
from jax._src.tree_util import tree_transpose as transpose
from jax._src.tree_util import tree_unflatten as unflatten
from jax._src.tree_util import static as static

__all__ = ["all", "broadcast", "flatten", "flatten_with_path", "leaves", "leaves_with_path",
           "map", "map_with_path", "reduce", "reduce_associative", "static", "structure",
           "transpose", "unflatten"]
