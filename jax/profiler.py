"""Recording traces of host activity (`jax.profiler`)."""

from jax._src.profiler import StepTraceAnnotation as StepTraceAnnotation
from jax._src.profiler import TraceAnnotation as TraceAnnotation
from jax._src.profiler import annotate_function as annotate_function
from jax._src.profiler import device_memory_profile as device_memory_profile
from jax._src.profiler import save_device_memory_profile as save_device_memory_profile
from jax._src.profiler import start_server as start_server
from jax._src.profiler import start_trace as start_trace
from jax._src.profiler import stop_server as stop_server
from jax._src.profiler import stop_trace as stop_trace
from jax._src.profiler import trace as trace
from jax._src.profiler import ProfileData as ProfileData
from jax._src.profiler import ProfileEvent as ProfileEvent
from jax._src.profiler import ProfileOptions as ProfileOptions
from jax._src.profiler import ProfilePlane as ProfilePlane
from jax._src.profiler import register_subprocess as register_subprocess
