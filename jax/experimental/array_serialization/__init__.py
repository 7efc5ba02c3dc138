"""Saving and restoring jax.Arrays with TensorStore."""
