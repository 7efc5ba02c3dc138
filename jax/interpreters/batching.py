"""Batching (vmap) rule tables (`jax.interpreters.batching`).

`primitive_batchers[p](batched_args, batch_dims, **params) -> (out, out_dim)`;
`fancy_primitive_batchers[p]` rules also get the axis data first.
"""

from jax._src.interpreters.batching import AxisData as AxisData
from jax._src.interpreters.batching import BatchTrace as BatchTrace
from jax._src.interpreters.batching import BatchTracer as BatchTracer
from jax._src.interpreters.batching import batch_rules as fancy_primitive_batchers
from jax._src.interpreters.batching import bdim_at_front as bdim_at_front
from jax._src.interpreters.batching import defbroadcasting as defbroadcasting
from jax._src.interpreters.batching import defvectorized as defvectorized
from jax._src.interpreters.batching import matchaxis as matchaxis
from jax._src.interpreters.batching import moveaxis as moveaxis
from jax._src.interpreters.batching import not_mapped as not_mapped
from jax._src.interpreters_public import axis_primitive_batchers as axis_primitive_batchers
from jax._src.interpreters_public import primitive_batchers as primitive_batchers
