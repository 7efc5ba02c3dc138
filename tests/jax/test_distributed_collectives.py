"""Collectives across processes on the CPU plugin (Gloo underneath): pmap, shard_map
and jit over a mesh of every process's devices, each compared with what numpy computes
on the same global data.

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
  # One pair: the processes between send and receive nothing.
  "one_pair": jax.pmap(lambda v: lax.ppermute(v, "i", [(0, G - 1)]), axis_name="i")(mine),
  "all_to_all": jax.pmap(lambda v: lax.all_to_all(v, "i", 0, 0),
                         axis_name="i")(blocks[p * L:(p + 1) * L]),
  "psum_scatter": jax.pmap(lambda v: lax.psum_scatter(v, "i", tiled=True),
                           axis_name="i")(blocks[p * L:(p + 1) * L]),
  "axis_index": jax.pmap(lambda v: lax.axis_index("i") + 0 * v[0], axis_name="i")(mine),
}
# Floats whose sum depends on the order: the one-process fold is in device order.
tricky = np.array([[1e8, 1.0, -1e8, 1.0][d % 4] * (j + 1) for d in range(G) for j in range(5)],
                  np.float32).reshape(G, 5)
out["ordered"] = jax.pmap(lambda v: lax.psum(v, "i"), axis_name="i")(tricky[p * L:(p + 1) * L])
# Ahead of time: the global program (every process's devices), compiled and run.
lowered = jax.pmap(lambda v: lax.psum(v, "i"), axis_name="i").lower(mine)
compiled = lowered.compile()
out["compiled_psum"] = compiled(mine)
text = lowered.as_text()
try:
  compiled(mine[:, :2])
  wrong = None
except TypeError as e:
  wrong = str(e)
report({**{k: np.asarray(v).tolist() for k, v in out.items()},
        "lowered": [f"replica_count={G}," in text,
                    "replica_groups={{" + ",".join(map(str, range(G))) + "}}" in text,
                    compiled.as_text() == text], "wrong": wrong})
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
    one_pair = np.zeros_like(rows)
    one_pair[G - 1] = rows[0]
    np.testing.assert_array_equal(v["one_pair"], one_pair[mine])
    np.testing.assert_array_equal(v["all_to_all"], blocks.transpose(1, 0, 2)[mine])
    # tiled: each device keeps a [1, 2] block (its row of the sum)
    np.testing.assert_array_equal(v["psum_scatter"], blocks.sum(0)[mine][:, None])
    np.testing.assert_array_equal(v["axis_index"], np.arange(G)[mine])
    np.testing.assert_array_equal(v["compiled_psum"], v["psum"])
    tricky = np.array([[1e8, 1.0, -1e8, 1.0][d % 4] * (j + 1) for d in range(G)
                       for j in range(5)], np.float32).reshape(G, 5)
    fold = tricky[0].copy()
    for row in tricky[1:]:
      fold += row  # float32, in device order: what one process computes
    np.testing.assert_array_equal(v["ordered"], np.broadcast_to(fold, (L, 5)))
    assert v["lowered"] == [True, True, True]
    assert "called with" in v["wrong"] and "f32[2]" in v["wrong"]


SPMD = """
import jax, jax.numpy as jnp, numpy as np
from jax import lax
from jax.experimental import multihost_utils
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
# Collectives over one axis of a 2-D mesh: replica groups that cross processes.
n = jax.process_count()
grid = Mesh(np.array(jax.devices()).reshape(n, 2), ("p", "l"))
a = np.arange(n * n * 6, dtype=np.float32).reshape(n * n, 6)
swapped, colsum = jax.shard_map(
    lambda b: (lax.all_to_all(b, "p", 0, 0, tiled=True), lax.psum(b, "p")), mesh=grid,
    in_specs=P("p", "l"), out_specs=(P("p", "l"), P(None, "l")))(a)
grid_out = [multihost_utils.process_allgather(swapped).tolist(),
            multihost_utils.process_allgather(colsum).tolist()]
# What does not split (a reshape and a dot of split values) runs on whole values on every
# device, as under GSPMD; replicated arguments spanning processes run there too.
z = jax.jit(lambda a: a.reshape(G * 3, 4) @ a[:4])(xs)
rep = jax.jit(lambda a: a * 2)(jax.device_put(x, NamedSharding(mesh, P())))
other = Mesh(np.array(jax.devices())[::-1], ("y",))
try:
  jax.jit(lambda u, v: u + v)(xs, jax.device_put(x, NamedSharding(other, P("y"))))
  refused = None
except ValueError as e:
  refused = str(e)
report({"summed": np.asarray(summed).tolist(), "firsts": np.asarray(firsts).tolist(),
        "sharding": str(y.sharding.spec), "local": local,
        "addressable": y.is_fully_addressable, "total": float(jax.jit(jnp.sum)(xs)),
        "unsplit": [str(z.sharding.spec), np.asarray(z.addressable_shards[0].data).tolist()],
        "replicated": [str(rep.sharding.spec),
                       np.asarray(rep.addressable_shards[1].data).tolist()],
        "refused": refused, "grid": grid_out})
jax.distributed.shutdown()
"""


@pytest.mark.parametrize("n", [2, 4])
def test_shard_map_and_sharded_jit_over_all_processes(n):
  G = 2 * n
  x = np.arange(G * 4 * 3, dtype=np.float32).reshape(G * 4, 3)
  expect = np.sin(x) * np.float32(2.0) + x.sum(dtype=np.float32)
  results = [r.value() for r in harness.run(SPMD, n, timeout=100)]
  for p, v in enumerate(results):
    np.testing.assert_array_equal(v["summed"], x.sum(0, keepdims=True))
    np.testing.assert_array_equal(v["firsts"], x[::4])
    assert v["addressable"] is False and v["sharding"] == "P('x',)"
    # This process holds the blocks of its two devices, rows 8p..8p+7.
    assert [start for start, _ in v["local"]] == [8 * p, 8 * p + 4]
    for start, block in v["local"]:
      np.testing.assert_allclose(block, expect[start:start + 4], rtol=1e-6)
    assert v["total"] == pytest.approx(float(x.sum()))
    a = np.arange(n * n * 6, dtype=np.float32).reshape(n * n, 6)
    assert v["grid"] == [a.reshape(n, n, 6).transpose(1, 0, 2).reshape(n * n, 6).tolist(),
                         a.reshape(n, n, 6).sum(0).tolist()]
    assert v["unsplit"][0] == "P()"
    np.testing.assert_allclose(v["unsplit"][1], x.reshape(G * 3, 4) @ x[:4], rtol=1e-6)
    assert v["unsplit"] == results[0]["unsplit"]  # one program: the same bits everywhere
    assert v["replicated"] == ["P()", (2 * x).tolist()]
    assert "cannot run over the devices of several processes: its arguments are split over " \
           "different meshes. Put the arguments on one mesh" in v["refused"]
