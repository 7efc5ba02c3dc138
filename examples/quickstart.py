"""Quickstart: jit, grad, vmap and pmap on the CPU plugin."""

import numpy as np

import jax
import jax.numpy as jnp


def loss(w, x, y):
  pred = jnp.tanh(x @ w)
  return jnp.mean((pred - y) ** 2)


def main():
  print("jax", jax.__version__, "on", jax.default_backend(), jax.devices())
  print("jnp.add(1, 1) =", jnp.add(1, 1))

  rng = np.random.default_rng(0)
  x = jnp.asarray(rng.normal(size=(32, 4)).astype(np.float32))
  w_true = jnp.asarray(np.array([0.5, -1.0, 0.25, 2.0], np.float32))
  y = jnp.tanh(x @ w_true)

  # jit + grad: a few steps of gradient descent.
  step = jax.jit(lambda w: w - 0.5 * jax.grad(loss)(w, x, y))
  w = jnp.zeros(4, jnp.float32)
  for _ in range(200):
    w = step(w)
  print("loss after 200 steps:", float(loss(w, x, y)))

  # vmap: per-example losses without a Python loop.
  per_example = jax.vmap(lambda xi, yi: (jnp.tanh(xi @ w) - yi) ** 2)(x, y)
  print("vmap per-example losses:", per_example.shape)

  # pmap: one shard per device (run with JAX_NUM_CPU_DEVICES=4 for four).
  n = jax.device_count()
  shards = jnp.arange(n * 3, dtype=jnp.float32).reshape(n, 3)
  print(f"pmap over {n} device(s):", jax.pmap(lambda s: s * 2 + 1)(shards))


if __name__ == "__main__":
  main()
