"""Data-parallel training across processes with jax.distributed.

Every process runs this same script. Process 0 hosts the coordinator; each process
trains on its own slice of the batch on its local devices, and `lax.pmean` averages
the gradients over the devices of all processes (on the CPU plugin the averaging
crosses processes through Gloo), so every process ends with the same parameters.

Launch N processes on one machine (2 virtual CPU devices each):

    for i in 0 1; do
      JAX_COORDINATOR_ADDRESS=127.0.0.1:12345 JAX_NUM_PROCESSES=2 JAX_PROCESS_ID=$i \\
      XLA_FLAGS=--xla_force_host_platform_device_count=2 \\
      python examples/distributed_train.py &
    done; wait

Under Open MPI or SLURM the three JAX_* variables are not needed: initialize() reads the
launcher's environment (rank, size, and process 0's address):

    mpirun -np 2 -x XLA_FLAGS=--xla_force_host_platform_device_count=2 \
      python examples/distributed_train.py
 Without any of them the script runs as one process.
"""

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import multihost_utils

FEATURES, HIDDEN, PER_DEVICE_BATCH = 4, 16, 8
STEPS, LEARNING_RATE = 20, 0.1


def init_params(rng):
  return {"w1": rng.standard_normal((FEATURES, HIDDEN)).astype(np.float32) * 0.5,
          "b1": np.zeros(HIDDEN, np.float32),
          "w2": rng.standard_normal((HIDDEN, 1)).astype(np.float32) * 0.5,
          "b2": np.zeros(1, np.float32)}


def loss_fn(params, x, y):
  hidden = jnp.tanh(x @ params["w1"] + params["b1"])
  return jnp.mean((hidden @ params["w2"] + params["b2"] - y) ** 2)


def train_step(params, x, y):
  loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
  # The one cross-process step: average over every device of every process.
  grads = lax.pmean(grads, "batch")
  new = jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)
  return new, lax.pmean(loss, "batch")


def main():
  jax.distributed.initialize()  # reads JAX_* or the launcher's environment
  index, local = jax.process_index(), jax.local_device_count()
  print(f"process {index} of {jax.process_count()}: local devices "
        f"{[d.id for d in jax.local_devices()]} of {jax.device_count()}")

  # The same data and initial parameters everywhere; each process takes its slice.
  rng = np.random.default_rng(0)
  true_w = rng.standard_normal((FEATURES, 1)).astype(np.float32)
  params = init_params(rng)
  step = jax.pmap(train_step, axis_name="batch", in_axes=(None, 0, 0))
  for i in range(STEPS):
    data = np.random.default_rng(1000 + i)
    x = data.standard_normal((jax.device_count(), PER_DEVICE_BATCH, FEATURES))
    x = x.astype(np.float32)[index * local:(index + 1) * local]
    y = np.sin(x @ true_w)
    replicated, loss = step(params, x, y)
    params = jax.tree.map(lambda a: np.asarray(a)[0], replicated)
    if index == 0 and i % 5 == 0:
      print(f"step {i:3d}  loss {float(np.asarray(loss)[0]):.5f}")

  # Every process holds the same parameters: check it across processes.
  multihost_utils.assert_equal(params, "parameters diverged between processes")
  if index == 0:
    print("parameters agree on every process")
  jax.distributed.shutdown()


if __name__ == "__main__":
  main()
