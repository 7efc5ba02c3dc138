"""A GRU-style recurrent network, its time loop written with jax.lax.scan,
trained to predict the next value of noisy sine waves.

Shows: jax.lax.scan carrying a hidden state over time, jax.vmap over the batch
of sequences, jax.value_and_grad through the scan, and a jitted training step
with hand-written momentum SGD over a pytree of params.
"""

import jax
import jax.numpy as jnp
from jax import lax

BATCH = 16
LENGTH = 40
HIDDEN = 16
STEPS = 60
LEARNING_RATE = 0.05
MOMENTUM = 0.9
PRINT_EVERY = 10


def make_data(key):
  """Sine waves with random frequency and phase plus noise; targets are the next value."""
  k_freq, k_phase, k_noise = jax.random.split(key, 3)
  freq = jax.random.uniform(k_freq, (BATCH, 1), minval=0.1, maxval=0.3)
  phase = jax.random.uniform(k_phase, (BATCH, 1), minval=0.0, maxval=2.0 * jnp.pi)
  t = jnp.arange(LENGTH + 1, dtype=jnp.float32)[None, :]
  waves = jnp.sin(freq * t + phase) + 0.05 * jax.random.normal(k_noise, (BATCH, LENGTH + 1))
  return waves[:, :-1], waves[:, 1:]  # inputs, targets: (BATCH, LENGTH)


def init_params(key):
  keys = jax.random.split(key, 4)
  w_init = jax.nn.initializers.glorot_uniform()
  u_init = jax.nn.initializers.lecun_normal()
  gate = lambda k: {"w": w_init(k, (1, HIDDEN), jnp.float32),
                    "u": u_init(jax.random.fold_in(k, 1), (HIDDEN, HIDDEN), jnp.float32),
                    "b": jnp.zeros((HIDDEN,), jnp.float32)}
  return {"update": gate(keys[0]), "reset": gate(keys[1]), "cand": gate(keys[2]),
          "out": {"w": w_init(keys[3], (HIDDEN, 1), jnp.float32),
                  "b": jnp.zeros((1,), jnp.float32)}}


def gru_cell(params, h, x):
  """One step for a single sequence: h is (HIDDEN,), x is a scalar input."""
  x = jnp.reshape(x, (1,))
  z = jax.nn.sigmoid(x @ params["update"]["w"] + h @ params["update"]["u"] + params["update"]["b"])
  r = jax.nn.sigmoid(x @ params["reset"]["w"] + h @ params["reset"]["u"] + params["reset"]["b"])
  c = jnp.tanh(x @ params["cand"]["w"] + (r * h) @ params["cand"]["u"] + params["cand"]["b"])
  h = (1.0 - z) * h + z * c
  y = h @ params["out"]["w"] + params["out"]["b"]
  return h, y[0]


def run_sequence(params, xs):
  """Predictions for one sequence xs of shape (LENGTH,)."""
  h0 = jnp.zeros((HIDDEN,), jnp.float32)
  _, ys = lax.scan(lambda h, x: gru_cell(params, h, x), h0, xs)
  return ys


def loss_fn(params, inputs, targets):
  preds = jax.vmap(run_sequence, in_axes=(None, 0))(params, inputs)
  return jnp.mean((preds - targets) ** 2)


@jax.jit
def train_step(params, velocity, inputs, targets):
  loss, grads = jax.value_and_grad(loss_fn)(params, inputs, targets)
  velocity = jax.tree.map(lambda v, g: MOMENTUM * v + g, velocity, grads)
  params = jax.tree.map(lambda p, v: p - LEARNING_RATE * v, params, velocity)
  return params, velocity, loss


def main():
  data_key, init_key = jax.random.split(jax.random.key(7))
  inputs, targets = make_data(data_key)
  params = init_params(init_key)
  velocity = jax.tree.map(jnp.zeros_like, params)

  losses = []
  for step in range(STEPS):
    params, velocity, loss = train_step(params, velocity, inputs, targets)
    losses.append(float(loss))
    if step % PRINT_EVERY == 0:
      print(f"step {step:3d}  loss {losses[-1]:.6f}")

  results = {
      "initial_loss": losses[0],
      "final_loss": float(jax.jit(loss_fn)(params, inputs, targets)),
      # Baseline: predicting "next value = current value".
      "copy_baseline_loss": float(jnp.mean((inputs - targets) ** 2)),
  }
  print("final:", " ".join(f"{k}={v:.9g}" for k, v in results.items()))
  return results


if __name__ == "__main__":
  main()
