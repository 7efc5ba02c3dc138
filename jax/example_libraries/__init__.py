"""Small reference libraries built on jax: optimizers and stax (neural-network layers)."""
