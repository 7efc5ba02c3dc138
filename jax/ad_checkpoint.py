"""Rematerialization (`jax.ad_checkpoint`): checkpoint, named values and save policies."""

from jax._src.ad_checkpoint import Offloadable as Offloadable
from jax._src.ad_checkpoint import Recompute as Recompute
from jax._src.ad_checkpoint import Saveable as Saveable
from jax._src.ad_checkpoint import checkpoint_name as checkpoint_name
from jax._src.ad_checkpoint import checkpoint_policies as checkpoint_policies
from jax._src.remat import checkpoint as checkpoint
from jax._src.remat import remat as remat
from jax._src.ad_checkpoint import print_saved_residuals as print_saved_residuals
