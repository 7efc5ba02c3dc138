"""An MLP classifier trained with hand-written momentum SGD on synthetic data.

Shows: jax.random for data and init (jax.nn.initializers), a pytree of params
updated with jax.tree.map, softmax cross-entropy via jax.nn.log_softmax, and a
jitted jax.value_and_grad training step.
"""

import jax
import jax.numpy as jnp

NUM_CLASSES = 3
NUM_FEATURES = 2
NUM_POINTS = 384
HIDDEN = 32
STEPS = 300
LEARNING_RATE = 0.1
MOMENTUM = 0.9
PRINT_EVERY = 50


def make_data(key):
  """Three noisy interleaved spiral arms in the plane, one per class."""
  k_radius, k_noise = jax.random.split(key)
  per_class = NUM_POINTS // NUM_CLASSES
  labels = jnp.repeat(jnp.arange(NUM_CLASSES), per_class)
  radius = jax.random.uniform(k_radius, (NUM_POINTS,), minval=0.1, maxval=1.0)
  angle = 4.0 * radius + labels * (2.0 * jnp.pi / NUM_CLASSES)
  points = jnp.stack([radius * jnp.cos(angle), radius * jnp.sin(angle)], axis=1)
  points = points + 0.05 * jax.random.normal(k_noise, points.shape)
  return points, labels


def init_params(key, sizes):
  weight_init = jax.nn.initializers.glorot_normal()
  params = []
  for k, (n_in, n_out) in zip(jax.random.split(key, len(sizes) - 1), zip(sizes[:-1], sizes[1:])):
    params.append({"w": weight_init(k, (n_in, n_out), jnp.float32),
                   "b": jnp.zeros((n_out,), jnp.float32)})
  return params


def forward(params, x):
  for layer in params[:-1]:
    x = jnp.tanh(x @ layer["w"] + layer["b"])
  return x @ params[-1]["w"] + params[-1]["b"]


def loss_fn(params, x, labels):
  log_probs = jax.nn.log_softmax(forward(params, x))
  one_hot = jax.nn.one_hot(labels, NUM_CLASSES)
  return -jnp.mean(jnp.sum(one_hot * log_probs, axis=-1))


@jax.jit
def train_step(params, velocity, x, labels):
  loss, grads = jax.value_and_grad(loss_fn)(params, x, labels)
  velocity = jax.tree.map(lambda v, g: MOMENTUM * v + g, velocity, grads)
  params = jax.tree.map(lambda p, v: p - LEARNING_RATE * v, params, velocity)
  return params, velocity, loss


@jax.jit
def accuracy(params, x, labels):
  return jnp.mean(jnp.argmax(forward(params, x), axis=-1) == labels)


def main():
  data_key, init_key = jax.random.split(jax.random.key(0))
  x, labels = make_data(data_key)
  params = init_params(init_key, [NUM_FEATURES, HIDDEN, HIDDEN, NUM_CLASSES])
  velocity = jax.tree.map(jnp.zeros_like, params)

  initial_loss = float(loss_fn(params, x, labels))
  print(f"step    0  loss {initial_loss:.6f}")
  for step in range(1, STEPS + 1):
    params, velocity, loss = train_step(params, velocity, x, labels)
    if step % PRINT_EVERY == 0:
      print(f"step {step:4d}  loss {float(loss):.6f}")

  results = {
      "initial_loss": initial_loss,
      "final_loss": float(loss_fn(params, x, labels)),
      "accuracy": float(accuracy(params, x, labels)),
  }
  print("final:", " ".join(f"{k}={v:.9g}" for k, v in results.items()))
  return results


if __name__ == "__main__":
  main()
