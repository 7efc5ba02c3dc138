"""Colocated Python: Python code run on the host CPU devices next to the accelerators."""

from jax._src.colocated_python import colocated_cpu_devices as colocated_cpu_devices
from jax._src.colocated_python import colocated_python as colocated_python
from jax._src.colocated_python import colocated_python_class as colocated_python_class
