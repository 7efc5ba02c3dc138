"""jaxlib as seen from jax: the client library, the backend bridge and jaxlib's version."""

from jax._src import xla_bridge as xla_bridge
from jax._src.lib import version as version
from jax._src.lib import version_str as version_str
from jax._src.lib import xla_client as xla_client
