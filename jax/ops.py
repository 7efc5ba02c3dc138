"""jax.ops: segment reductions."""

from jax._src.ops import segment_max as segment_max
from jax._src.ops import segment_min as segment_min
from jax._src.ops import segment_prod as segment_prod
from jax._src.ops import segment_sum as segment_sum
