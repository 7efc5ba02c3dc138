"""`jax.experimental.shard_map.shard_map`: the original spelling of `jax.shard_map`."""

from jax._src.shard_map import shard_map as _shard_map


def shard_map(f, mesh=None, in_specs=None, out_specs=None, check_rep: bool = True,
              auto=frozenset(), *, check_vma: bool | None = None):
  """Like `jax.shard_map`, with `mesh`, `in_specs` and `out_specs` also positional."""
  if out_specs is None:
    raise TypeError("shard_map requires out_specs")
  return _shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                    check_vma=check_rep if check_vma is None else check_vma)


__all__ = ["shard_map"]
