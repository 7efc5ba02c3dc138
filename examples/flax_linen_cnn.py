"""A flax.linen CNN trained with optax on synthetic images.

    python examples/flax_linen_cnn.py

Two classes of 8x8 images: a bright horizontal bar or a bright vertical bar, at a
random position, in noise. Prints the training loss at every step; deterministic.
"""

import jax
import jax.numpy as jnp
import optax
from flax import linen as nn

STEPS = 20


class CNN(nn.Module):

  @nn.compact
  def __call__(self, x):
    x = nn.relu(nn.Conv(features=4, kernel_size=(3, 3))(x))
    x = nn.avg_pool(x, window_shape=(2, 2), strides=(2, 2))
    x = x.reshape((x.shape[0], -1))
    return nn.Dense(features=2)(x)


def make_data(key, n=32):
  k_pos, k_noise = jax.random.split(key)
  labels = jnp.arange(n) % 2
  pos = jax.random.randint(k_pos, (n,), 1, 7)
  grid = jnp.arange(8)
  rows = (grid[None, :, None] == pos[:, None, None]) & (labels[:, None, None] == 0)
  cols = (grid[None, None, :] == pos[:, None, None]) & (labels[:, None, None] == 1)
  images = (rows | cols).astype(jnp.float32)
  images = images + 0.3 * jax.random.normal(k_noise, images.shape)
  return images[..., None], labels


def main():
  x, y = make_data(jax.random.PRNGKey(1))
  model = CNN()
  params = model.init(jax.random.PRNGKey(0), x[:1])
  optimizer = optax.sgd(0.1, momentum=0.9)
  opt_state = optimizer.init(params)

  def loss_fn(params):
    logits = model.apply(params, x)
    return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()

  @jax.jit
  def train_step(params, opt_state):
    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss

  for step in range(STEPS):
    params, opt_state, loss = train_step(params, opt_state)
    print(f"step {step} loss {float(loss):.8g}")
  accuracy = jnp.mean(jnp.argmax(model.apply(params, x), axis=-1) == y)
  print(f"accuracy {float(accuracy):.8g}")


if __name__ == "__main__":
  main()
