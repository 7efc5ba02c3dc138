"""A small MLP (784-512-512-10) trained with plain SGD on random data, written only
against the public JAX API. suite.py times its step; run as a script it trains a
few steps, and run.py reads the peak resident memory of that process.

    python mlp_train.py [--steps N]
"""

from __future__ import annotations

import argparse

import numpy as np

import jax
import jax.numpy as jnp

SIZES = (784, 512, 512, 10)
BATCH = 128


def init_params(seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
  """He-initialised float32 weights from numpy, so both installs start equal."""
  rng = np.random.default_rng(seed)
  return [(rng.standard_normal((m, n), dtype=np.float32) * np.float32(np.sqrt(2.0 / m)),
           np.zeros((n,), np.float32))
          for m, n in zip(SIZES[:-1], SIZES[1:])]


def make_batch(seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
  rng = np.random.default_rng(seed)
  x = rng.standard_normal((BATCH, SIZES[0]), dtype=np.float32)
  labels = rng.integers(0, SIZES[-1], size=(BATCH,))
  return x, np.eye(SIZES[-1], dtype=np.float32)[labels]


def loss_fn(params, x, y):
  """Mean softmax cross-entropy of the MLP (ReLU hidden layers)."""
  h = x
  for w, b in params[:-1]:
    h = jax.nn.relu(h @ w + b)
  w, b = params[-1]
  logits = h @ w + b
  return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(logits), axis=-1))


def make_step(learning_rate: float = 0.01):
  grad_fn = jax.value_and_grad(loss_fn)

  @jax.jit
  def step(params, x, y):
    loss, grads = grad_fn(params, x, y)
    params = jax.tree_util.tree_map(lambda p, g: p - learning_rate * g, params, grads)
    return params, loss

  return step


def train(steps: int) -> list[float]:
  params = [(jnp.asarray(w), jnp.asarray(b)) for w, b in init_params()]
  x, y = (jnp.asarray(a) for a in make_batch())
  step = make_step()
  losses = []
  for _ in range(steps):
    params, loss = step(params, x, y)
    losses.append(float(loss))
  return losses


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__)
  parser.add_argument("--steps", type=int, default=20)
  args = parser.parse_args()
  losses = train(args.steps)
  if not losses[-1] < losses[0]:
    raise SystemExit(f"training did not reduce the loss: {losses[0]} -> {losses[-1]}")
  print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f} in {args.steps} steps")


if __name__ == "__main__":
  main()
