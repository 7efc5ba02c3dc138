"""The persistent compilation cache: ``set_cache_dir(path)`` turns it on."""

from jax._src.compilation_cache import is_cache_used, reset_cache, set_cache_dir

__all__ = ["set_cache_dir", "reset_cache", "is_cache_used"]
