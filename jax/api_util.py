"""Helpers that transformations share for their arguments."""

from jax._src.api_util import argnums_partial as argnums_partial
from jax._src.api_util import debug_info as debug_info
from jax._src.api_util import donation_vector as donation_vector
from jax._src.api_util import flatten_axes as flatten_axes
from jax._src.api_util import flatten_fun as flatten_fun
from jax._src.api_util import flatten_fun_nokwargs as flatten_fun_nokwargs
from jax._src.api_util import rebase_donate_argnums as rebase_donate_argnums
from jax._src.api_util import safe_map as safe_map
from jax._src.api_util import shaped_abstractify as shaped_abstractify
