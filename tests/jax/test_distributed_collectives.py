"""Collectives across processes on the CPU plugin (Gloo underneath): pmap, shard_map
and jit over a mesh of every process's devices, a data-parallel training loop and
multihost_utils, each compared with what one process computes on the same global data.

2 and 4 local processes with 2 virtual CPU devices each (127.0.0.1, free ports, hard
deadlines: tests/jax/tools/distributed_harness.py)."""

import numpy as np
import pytest

pytest.importorskip("grpc", reason="jax.distributed needs grpcio")

import distributed_harness as harness


pytestmark = harness.needs_cross_process

PMAP = """
import jax, numpy as np
from jax import lax
jax.distributed.initialize(initialization_timeout=60)
p, L, G = jax.process_index(), jax.local_device_count(), jax.device_count()
rows = np.arange(G * 3, dtype=np.float32).reshape(G, 3) ** 2   # global data, one row per device
mine = rows[p * L:(p + 1) * L]
blocks = np.arange(G * G * 2, dtype=np.float32).reshape(G, G, 2)
perm = [(j, (j + 1) % G) for j in range(G)]
out = {
  "psum": jax.pmap(lambda v: lax.psum(v, "i"), axis_name="i")(mine),
  "pmax": jax.pmap(lambda v: lax.pmax(v, "i"), axis_name="i")(mine),
  "all_gather": jax.pmap(lambda v: lax.all_gather(v, "i"), axis_name="i")(mine),
  "ppermute": jax.pmap(lambda v: lax.ppermute(v, "i", perm), axis_name="i")(mine),
  "all_to_all": jax.pmap(lambda v: lax.all_to_all(v, "i", 0, 0),
                         axis_name="i")(blocks[p * L:(p + 1) * L]),
  "psum_scatter": jax.pmap(lambda v: lax.psum_scatter(v, "i", tiled=True),
                           axis_name="i")(blocks[p * L:(p + 1) * L]),
  "axis_index": jax.pmap(lambda v: lax.axis_index("i") + 0 * v[0], axis_name="i")(mine),
}
report({k: np.asarray(v).tolist() for k, v in out.items()})
jax.distributed.shutdown()
"""


@pytest.mark.parametrize("n", [2, 4])
def test_pmap_collectives_across_processes(n):
  G, L = 2 * n, 2
  rows = np.arange(G * 3, dtype=np.float32).reshape(G, 3) ** 2
  blocks = np.arange(G * G * 2, dtype=np.float32).reshape(G, G, 2)
  results = harness.run(PMAP, n, timeout=100)
  for p, r in enumerate(results):
    v = r.value()
    mine = slice(p * L, (p + 1) * L)
    np.testing.assert_array_equal(v["psum"], np.broadcast_to(rows.sum(0), (L, 3)))
    np.testing.assert_array_equal(v["pmax"], np.broadcast_to(rows.max(0), (L, 3)))
    np.testing.assert_array_equal(v["all_gather"], np.broadcast_to(rows, (L, G, 3)))
    np.testing.assert_array_equal(v["ppermute"], np.roll(rows, 1, axis=0)[mine])
    np.testing.assert_array_equal(v["all_to_all"], blocks.transpose(1, 0, 2)[mine])
    # tiled: each device keeps a [1, 2] block (its row of the sum)
    np.testing.assert_array_equal(v["psum_scatter"], blocks.sum(0)[mine][:, None])
    np.testing.assert_array_equal(v["axis_index"], np.arange(G)[mine])


SPMD = """
import jax, jax.numpy as jnp, numpy as np
from jax import lax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
jax.distributed.initialize(initialization_timeout=60)
G = jax.device_count()
mesh = Mesh(np.array(jax.devices()), ("x",))
x = np.arange(G * 4 * 3, dtype=np.float32).reshape(G * 4, 3)

def body(b):
  return lax.psum(b.sum(0, keepdims=True), "x"), lax.all_gather(b[:1], "x", tiled=True)
summed, firsts = jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=(P(), P()))(x)

xs = jax.device_put(x, NamedSharding(mesh, P("x")))
y = jax.jit(lambda a: jnp.sin(a) * 2.0 + a.sum())(xs)
local = sorted([s.index[0].indices(G * 4)[0], np.asarray(s.data).tolist()]
               for s in y.addressable_shards)
report({"summed": np.asarray(summed).tolist(), "firsts": np.asarray(firsts).tolist(),
        "sharding": str(y.sharding.spec), "local": local,
        "addressable": y.is_fully_addressable, "total": float(jax.jit(jnp.sum)(xs))})
jax.distributed.shutdown()
"""


@pytest.mark.parametrize("n", [2, 4])
def test_shard_map_and_sharded_jit_over_all_processes(n):
  G = 2 * n
  x = np.arange(G * 4 * 3, dtype=np.float32).reshape(G * 4, 3)
  expect = np.sin(x) * np.float32(2.0) + x.sum(dtype=np.float32)
  for p, r in enumerate(harness.run(SPMD, n, timeout=100)):
    v = r.value()
    np.testing.assert_array_equal(v["summed"], x.sum(0, keepdims=True))
    np.testing.assert_array_equal(v["firsts"], x[::4])
    assert v["addressable"] is False and v["sharding"] == "P('x',)"
    # This process holds the blocks of its two devices, rows 8p..8p+7.
    assert [start for start, _ in v["local"]] == [8 * p, 8 * p + 4]
    for start, block in v["local"]:
      np.testing.assert_allclose(block, expect[start:start + 4], rtol=1e-6)
    assert v["total"] == pytest.approx(float(x.sum()))


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
mh.sync_global_devices("end")
report({"gathered": np.asarray(gathered["v"]).tolist(), "tiled": np.asarray(tiled).tolist(),
        "bcast": np.asarray(bcast).tolist(), "from_last": float(from_last),
        "unequal": unequal, "global_shape": list(g.shape), "back": np.asarray(back).tolist(),
        "total": total})
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
    assert v["unequal"] is not None and "same value" in v["unequal"]
    assert v["global_shape"] == [2 * n, 2]
    assert v["back"] == (np.arange(4).reshape(2, 2) + 100 * p).tolist()
    assert v["total"] == sum(float((np.arange(4) + 100 * q).sum()) for q in range(n))


def test_a_process_dying_in_a_collective_is_named():
  body = """
import time, jax, numpy as np
from jax import lax
jax.distributed.initialize(initialization_timeout=60, heartbeat_timeout_seconds=3)
f = jax.pmap(lambda v: lax.psum(v, "i"), axis_name="i")
f(np.ones((2, 3), np.float32))  # one good step
if jax.process_index() == 1:
  os._exit(3)
start = time.monotonic()
try:
  f(np.ones((2, 3), np.float32))
  report({"ok": True})
except Exception as e:
  report({"ok": False, "error": str(e), "seconds": time.monotonic() - start})
os._exit(0)
"""
  results = harness.run(body, 2, timeout=90)
  assert results[1].returncode == 3
  v = results[0].value()
  assert not v["ok"]
  assert "process 1" in v["error"]
  assert v["seconds"] < 30
