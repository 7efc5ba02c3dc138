"""IFRT program descriptions for runtimes that compile them (e.g. Pathways)."""

from jax._src.ifrt_programs import ifrt_programs as ifrt_programs

__all__ = ["ifrt_programs"]
