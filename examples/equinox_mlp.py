"""An equinox model (eqx.Module of eqx.nn layers) fitted with optax on synthetic data.

    python examples/equinox_mlp.py

Regression of sin(3x) on [-1, 1] with a small MLP, using equinox's filtered
transformations (filter_jit, filter_value_and_grad) and jax.vmap over the batch.
Prints the training loss at every step; deterministic.
"""

import equinox as eqx
import jax
import jax.numpy as jnp
import optax

STEPS = 30


class Regressor(eqx.Module):
  layers: list
  scale: jax.Array

  def __init__(self, key):
    k1, k2 = jax.random.split(key)
    self.layers = [eqx.nn.Linear(1, 32, key=k1), eqx.nn.Linear(32, 1, key=k2)]
    self.scale = jnp.ones(())

  def __call__(self, x):
    h = jnp.tanh(self.layers[0](x))
    return self.scale * self.layers[1](h)


def main():
  x = jnp.linspace(-1.0, 1.0, 64)[:, None]
  y = jnp.sin(3.0 * x)
  model = Regressor(jax.random.PRNGKey(0))
  optimizer = optax.adam(0.03)
  opt_state = optimizer.init(eqx.filter(model, eqx.is_array))

  @eqx.filter_value_and_grad
  def loss_fn(model):
    return jnp.mean((jax.vmap(model)(x) - y) ** 2)

  @eqx.filter_jit
  def train_step(model, opt_state):
    loss, grads = loss_fn(model)
    updates, opt_state = optimizer.update(grads, opt_state, eqx.filter(model, eqx.is_array))
    return eqx.apply_updates(model, updates), opt_state, loss

  for step in range(STEPS):
    model, opt_state, loss = train_step(model, opt_state)
    print(f"step {step} loss {float(loss):.8g}")


if __name__ == "__main__":
  main()
