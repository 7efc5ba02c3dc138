"""A small convnet trained for a few steps on synthetic images.

Shows: jax.lax.conv_general_dilated with NHWC images and HWIO kernels, relu,
max pooling with jax.lax.reduce_window, a dense head, and a jitted training
step built from jax.value_and_grad.
"""

import jax
import jax.numpy as jnp
from jax import lax

BATCH = 32
SIZE = 12
CHANNELS = 1
NUM_CLASSES = 2
STEPS = 20
LEARNING_RATE = 0.05


def make_data(key):
  """Noisy images of a bright horizontal (class 0) or vertical (class 1) bar."""
  k_label, k_pos, k_noise = jax.random.split(key, 3)
  labels = jax.random.bernoulli(k_label, 0.5, (BATCH,)).astype(jnp.int32)
  pos = jax.random.randint(k_pos, (BATCH,), 2, SIZE - 2)
  idx = jnp.arange(SIZE)
  rows = (idx[None, :, None] == pos[:, None, None]).astype(jnp.float32)  # (B, H, 1)
  cols = (idx[None, None, :] == pos[:, None, None]).astype(jnp.float32)  # (B, 1, W)
  horizontal = jnp.broadcast_to(rows, (BATCH, SIZE, SIZE))
  vertical = jnp.broadcast_to(cols, (BATCH, SIZE, SIZE))
  images = jnp.where(labels[:, None, None] == 0, horizontal, vertical)
  images = images + 0.3 * jax.random.normal(k_noise, images.shape)
  return images[..., None], labels  # NHWC


def init_params(key):
  k1, k2, k3 = jax.random.split(key, 3)
  he = jax.nn.initializers.he_normal()
  pooled = SIZE // 2 // 2
  return {
      "conv1": {"w": he(k1, (3, 3, CHANNELS, 8), jnp.float32), "b": jnp.zeros((8,), jnp.float32)},
      "conv2": {"w": he(k2, (3, 3, 8, 16), jnp.float32), "b": jnp.zeros((16,), jnp.float32)},
      "dense": {"w": he(k3, (pooled * pooled * 16, NUM_CLASSES), jnp.float32),
                "b": jnp.zeros((NUM_CLASSES,), jnp.float32)},
  }


def conv(x, layer):
  y = lax.conv_general_dilated(x, layer["w"], window_strides=(1, 1), padding="SAME",
                               dimension_numbers=("NHWC", "HWIO", "NHWC"))
  return y + layer["b"]


def max_pool(x):
  return lax.reduce_window(x, -jnp.inf, lax.max, window_dimensions=(1, 2, 2, 1),
                           window_strides=(1, 2, 2, 1), padding="VALID")


def forward(params, images):
  x = max_pool(jax.nn.relu(conv(images, params["conv1"])))
  x = max_pool(jax.nn.relu(conv(x, params["conv2"])))
  x = x.reshape(x.shape[0], -1)
  return x @ params["dense"]["w"] + params["dense"]["b"]


def loss_fn(params, images, labels):
  log_probs = jax.nn.log_softmax(forward(params, images))
  return -jnp.mean(jnp.take_along_axis(log_probs, labels[:, None], axis=1))


@jax.jit
def train_step(params, images, labels):
  loss, grads = jax.value_and_grad(loss_fn)(params, images, labels)
  params = jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)
  return params, loss


@jax.jit
def accuracy(params, images, labels):
  return jnp.mean(jnp.argmax(forward(params, images), axis=-1) == labels)


def main():
  data_key, init_key = jax.random.split(jax.random.key(42))
  images, labels = make_data(data_key)
  params = init_params(init_key)

  losses = []
  for step in range(STEPS):
    params, loss = train_step(params, images, labels)
    losses.append(float(loss))
    print(f"step {step:3d}  loss {losses[-1]:.6f}")

  results = {
      "initial_loss": losses[0],
      "final_loss": float(loss_fn(params, images, labels)),
      "accuracy": float(accuracy(params, images, labels)),
  }
  print("final:", " ".join(f"{k}={v:.9g}" for k, v in results.items()))
  return results


if __name__ == "__main__":
  main()
