"""The persistent compilation cache (see ``compilation_cache.set_cache_dir``)."""
