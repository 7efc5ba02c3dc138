"""Programs across processes: a data-parallel training loop equal to one process, and
multihost_utils between processes.

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


MULTIHOST = """
import jax, numpy as np
from jax.experimental import multihost_utils as mh
from jax.sharding import Mesh, PartitionSpec as P
jax.distributed.initialize(initialization_timeout=60)
p, n = jax.process_index(), jax.process_count()
mh.sync_global_devices("start")
gathered = mh.process_allgather({"v": np.array([p, 10 * p], np.int32)})
tiled = mh.process_allgather(np.full((2,), p, np.float32), tiled=True)
bcast = mh.broadcast_one_to_all(np.array([100 + p, 7], np.int32))
from_last = mh.broadcast_one_to_all(np.float32(p), is_source=(p == n - 1))
mh.assert_equal(np.arange(3))
try:
  mh.assert_equal(np.array([p]))
  unequal = None
except AssertionError as e:
  unequal = str(e)
mesh = Mesh(np.array(jax.devices()), ("d",))
local = np.arange(4, dtype=np.float32).reshape(2, 2) + 100 * p
g = mh.host_local_array_to_global_array(local, mesh, P("d"))
back = mh.global_array_to_host_local_array(g, mesh, P("d"))
total = float(jax.jit(lambda a: a.sum())(g))
whole = mh.process_allgather(g)  # a global Array: its whole value on every process
mh.sync_global_devices("end")
report({"gathered": np.asarray(gathered["v"]).tolist(), "tiled": np.asarray(tiled).tolist(),
        "bcast": np.asarray(bcast).tolist(), "from_last": float(from_last),
        "unequal": unequal, "global_shape": list(g.shape), "back": np.asarray(back).tolist(),
        "total": total, "whole": np.asarray(whole).tolist()})
jax.distributed.shutdown()
"""


def test_multihost_utils_across_processes():
  n = 2
  for p, r in enumerate(harness.run(MULTIHOST, n, timeout=100)):
    v = r.value()
    assert v["gathered"] == [[q, 10 * q] for q in range(n)]
    assert v["tiled"] == [float(q) for q in range(n) for _ in range(2)]
    assert v["bcast"] == [100, 7]
    assert v["from_last"] == n - 1
    assert v["unequal"] is not None and v["unequal"].endswith(f"Expected: [0]; got: [{p}].")
    assert v["global_shape"] == [2 * n, 2]
    assert v["back"] == (np.arange(4).reshape(2, 2) + 100 * p).tolist()
    assert v["total"] == sum(float((np.arange(4) + 100 * q).sum()) for q in range(n))
    assert v["whole"] == np.concatenate([np.arange(4).reshape(2, 2) + 100 * q
                                         for q in range(n)]).tolist()
