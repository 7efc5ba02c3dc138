"""A flax.nnx MLP classifier trained with optax on synthetic data.

    python examples/flax_nnx_mlp.py

Prints the training loss at every step; the run is deterministic (fixed seeds).
"""

import jax
import jax.numpy as jnp
import optax
from flax import nnx

STEPS = 25


class MLP(nnx.Module):

  def __init__(self, din: int, dhidden: int, dout: int, rngs: nnx.Rngs):
    self.hidden = nnx.Linear(din, dhidden, rngs=rngs)
    self.out = nnx.Linear(dhidden, dout, rngs=rngs)

  def __call__(self, x):
    return self.out(nnx.relu(self.hidden(x)))


def make_data(key, n=128):
  """Three Gaussian blobs in 2-D, one per class."""
  centers = jnp.array([[0.0, 2.0], [-2.0, -1.0], [2.0, -1.0]])
  labels = jnp.arange(n) % 3
  points = centers[labels] + 0.7 * jax.random.normal(key, (n, 2))
  return points, labels


def loss_fn(model, x, y):
  logits = model(x)
  return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()


@nnx.jit
def train_step(model, optimizer, x, y):
  loss, grads = nnx.value_and_grad(loss_fn)(model, x, y)
  optimizer.update(model, grads)
  return loss


def main():
  x, y = make_data(jax.random.PRNGKey(0))
  model = MLP(2, 16, 3, rngs=nnx.Rngs(0))
  optimizer = nnx.Optimizer(model, optax.adam(0.05), wrt=nnx.Param)
  for step in range(STEPS):
    loss = train_step(model, optimizer, x, y)
    print(f"step {step} loss {float(loss):.8g}")
  accuracy = jnp.mean(jnp.argmax(model(x), axis=-1) == y)
  print(f"accuracy {float(accuracy):.8g}")


if __name__ == "__main__":
  main()
