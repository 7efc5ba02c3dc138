"""Saving and restoring jax.Arrays with TensorStore: each process writes and reads the
blocks its devices hold."""

from jax._src.array_serialization import (
    GlobalAsyncCheckpointManager as GlobalAsyncCheckpointManager,
    async_deserialize as async_deserialize,
    async_serialize as async_serialize,
    get_tensorstore_spec as get_tensorstore_spec,
    is_remote_storage as is_remote_storage,
    run_deserialization as run_deserialization,
    run_serialization as run_serialization,
)

__all__ = ["GlobalAsyncCheckpointManager", "async_deserialize", "async_serialize",
           "get_tensorstore_spec", "is_remote_storage", "run_deserialization",
           "run_serialization"]
