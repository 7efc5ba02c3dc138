"""Mutable state, under the package name JAX keeps it in (libraries import
`jax._src.state.types.AbstractRef`); references themselves live in jax._src.ref."""
