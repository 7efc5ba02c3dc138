"""Listeners for events and durations jax reports (`jax.monitoring`)."""

from jax._src.monitoring import clear_event_listeners as clear_event_listeners
from jax._src.monitoring import record_event as record_event
from jax._src.monitoring import record_event_duration_secs as record_event_duration_secs
from jax._src.monitoring import record_event_time_span as record_event_time_span
from jax._src.monitoring import record_scalar as record_scalar
from jax._src.monitoring import register_event_duration_secs_listener as register_event_duration_secs_listener
from jax._src.monitoring import register_event_listener as register_event_listener
from jax._src.monitoring import register_event_time_span_listener as register_event_time_span_listener
from jax._src.monitoring import register_scalar_listener as register_scalar_listener
from jax._src.monitoring import unregister_event_duration_listener as unregister_event_duration_listener
from jax._src.monitoring import unregister_event_listener as unregister_event_listener
from jax._src.monitoring import unregister_event_time_span_listener as unregister_event_time_span_listener
from jax._src.monitoring import unregister_scalar_listener as unregister_scalar_listener
