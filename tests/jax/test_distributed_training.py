"""Programs across processes: a data-parallel training loop equal to one process
(multihost_utils between processes: test_multihost_utils_processes.py).

Local processes with 2 virtual CPU devices each (127.0.0.1, free ports, hard deadlines:
tests/jax/tools/distributed_harness.py)."""

import numpy as np
import pytest

pytest.importorskip("grpc", reason="jax.distributed needs grpcio")

import distributed_harness as harness

pytestmark = harness.needs_cross_process

MLP = """
import jax, jax.numpy as jnp, numpy as np
from jax import lax
multi = os.environ.get("JAX_NUM_PROCESSES") is not None
if multi:
  jax.distributed.initialize(initialization_timeout=60)
rng = np.random.default_rng(0)
G = 8  # global devices in both runs: 4 processes x 2, or 1 process x 8
X = rng.standard_normal((G * 4, 5)).astype(np.float32)
Y = rng.standard_normal((G * 4, 1)).astype(np.float32)
params = {"w1": rng.standard_normal((5, 16)).astype(np.float32) * 0.3,
          "b1": np.zeros(16, np.float32),
          "w2": rng.standard_normal((16, 1)).astype(np.float32) * 0.3,
          "b2": np.zeros(1, np.float32)}

def loss(p, x, y):
  h = jnp.tanh(x @ p["w1"] + p["b1"])
  return jnp.mean((h @ p["w2"] + p["b2"] - y) ** 2)

def step(p, x, y):
  g = lax.pmean(jax.grad(loss)(p, x, y), "batch")
  return jax.tree.map(lambda a, b: a - 0.1 * b, p, g)

train = jax.pmap(step, axis_name="batch", in_axes=(None, 0, 0))
L, i = jax.local_device_count(), jax.process_index()
xs = X.reshape(G, 4, 5)[i * L:(i + 1) * L]
ys = Y.reshape(G, 4, 1)[i * L:(i + 1) * L]
for _ in range(5):
  params = jax.tree.map(lambda a: np.asarray(a)[0], train(params, xs, ys))
report({k: np.asarray(v).tolist() for k, v in params.items()})
"""


def test_data_parallel_mlp_matches_one_process():
  multi = harness.run(MLP, 4, timeout=100)
  single = harness.run(MLP, 1, timeout=100, devices_per_process=8,
                       extra_env={"JAX_NUM_PROCESSES": None, "JAX_PROCESS_ID": None,
                                  "JAX_COORDINATOR_ADDRESS": None})[0].value()
  for r in multi:
    got = r.value()
    for k in single:
      # The same reductions in the same order: bit-identical to one process.
      np.testing.assert_array_equal(np.asarray(got[k]), np.asarray(single[k]), err_msg=k)
