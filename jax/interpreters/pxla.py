"""`jax.interpreters.pxla`: in JAX 0.10.2 only deprecated and removed names of the old
pmap/pjit runtime remain here. Reading one raises AttributeError with JAX's own note
on it: the removed ones are gone from JAX too, and the deprecated ones are internals
of XLA's runtime (result handlers, compiled mesh computations, HLO sharding protos)
that this jax does not have; their replacements are in jax.sharding and jax.shard_map.
"""

_DEPRECATED_0_8_2 = (
    "Index", "MeshAxisName", "MeshComputation", "MeshExecutable",
    "global_aval_to_result_handler", "global_avals_to_results_handler",
    "global_result_handlers", "are_hlo_shardings_equal", "is_hlo_sharding_replicated",
    "op_sharding_to_indices", "ArrayMapping", "_UNSPECIFIED",
    "array_mapping_to_axis_resources",
)
_NOTES = {name: f"jax.interpreters.pxla.{name} is deprecated as of JAX v0.8.2."
          for name in _DEPRECATED_0_8_2}
_NOTES["MeshAxisName"] = ("jax.interpreters.pxla.MeshAxisName is deprecated as of JAX v0.8.2. "
                          "Use jax.sharding.Mesh axis names directly.")
_NOTES["thread_resources"] = (
    "jax.interpreters.pxla.thread_resources is deprecated as of JAX v0.8.2. Please switch "
    "to using `with jax.set_mesh(mesh)` instead of `with mesh:` and then use "
    "`jax.sharding.get_abstract_mesh()` to get the current mesh.")
for _name in ("MapTracer", "PmapExecutable", "parallel_callable", "shard_args"):
  _NOTES[_name] = f"jax.interpreters.pxla.{_name} was removed in JAX v0.10.0."
for _name in ("Chunked", "NoSharding", "Replicated", "ShardedAxis", "ShardingSpec",
              "Unstacked", "spec_to_indices"):
  _NOTES[_name] = (f"jax.interpreters.pxla.{_name} was removed in JAX v0.10.0. Please use "
                   "`jax.shard_map` instead of `jax.pmap`.")
del _name


def __getattr__(name):
  if name in _NOTES:
    raise AttributeError(f"{_NOTES[name]} This jax does not provide it.")
  raise AttributeError(f"module 'jax.interpreters.pxla' has no attribute {name!r}")
