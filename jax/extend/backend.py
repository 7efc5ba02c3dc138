"""Backend clients and devices for library authors (`jax.extend.backend`)."""

from jax._src.extend_backend import backend_xla_version as backend_xla_version
from jax._src.extend_backend import backends as backends
from jax._src.extend_backend import get_backend as get_backend
from jax._src.extend_backend import get_default_device as get_default_device
from jax._src.extend_backend import clear_backends as clear_backends
from jax._src.extend_backend import (
    clear_in_memory_compilation_cache as clear_in_memory_compilation_cache)
from jax._src.extend_backend import get_compile_options as get_compile_options
from jax._src.extend_backend import register_backend_cache as register_backend_cache
from jax._src.extend_backend import register_backend_factory as register_backend_factory
