"""Serialize a compiled function to bytes and load it back without compiling."""

from jax._src.serialize_executable import deserialize_and_load, serialize

__all__ = ["serialize", "deserialize_and_load"]
