"""The colocated Python entry points (`jax.experimental.colocated_python.api`)."""

from jax._src.colocated_python import colocated_cpu_devices as colocated_cpu_devices
from jax._src.colocated_python import colocated_python as colocated_python
from jax._src.colocated_python import colocated_python_class as colocated_python_class
