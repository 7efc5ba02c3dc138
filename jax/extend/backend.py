"""Backend clients and devices for library authors (`jax.extend.backend`)."""

from jax._src.extend_backend import backend_xla_version as backend_xla_version
from jax._src.extend_backend import backends as backends
from jax._src.extend_backend import get_backend as get_backend
from jax._src.extend_backend import get_default_device as get_default_device
