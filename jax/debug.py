"""Printing and host callbacks from inside transformed code (`jax.debug`)."""

from jax._src.debugging import DebugEffect as DebugEffect
from jax._src.debugging import OrderedDebugEffect as OrderedDebugEffect
from jax._src.debugging import breakpoint as breakpoint
from jax._src.debugging import debug_callback as callback
from jax._src.debugging import debug_log as log
from jax._src.debugging import debug_print as print
from jax._src.debugging import inspect_array_sharding as inspect_array_sharding
from jax._src.debugging import visualize_array_sharding as visualize_array_sharding
from jax._src.debugging import visualize_sharding as visualize_sharding
