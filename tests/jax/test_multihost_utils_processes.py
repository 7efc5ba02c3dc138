"""jax.experimental.multihost_utils with 1, 2 and 4 real processes: one implementation for
any process count, each function checked against what numpy computes from every
process's input.

Local processes with 2 virtual CPU devices each (127.0.0.1, free ports, hard deadlines:
tests/jax/tools/distributed_harness.py)."""

import numpy as np
import pytest

pytest.importorskip("grpc", reason="jax.distributed needs grpcio")

import distributed_harness as harness

pytestmark = harness.needs_cross_process

PROGRAM = """
import jax, numpy as np
from jax.experimental import multihost_utils as mh
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
jax.distributed.initialize(initialization_timeout=60)
p, n = jax.process_index(), jax.process_count()

def error(fn, *args, **kwargs):
  try:
    fn(*args, **kwargs)
  except (AssertionError, ValueError) as e:
    return [type(e).__name__, str(e)]
  return None

mh.sync_global_devices("start")
out = {}
gathered = mh.process_allgather({"v": np.array([p, 10 * p], np.int32), "s": np.float32(p)})
out["gathered"] = np.asarray(gathered["v"]).tolist()
out["gathered_scalar"] = [list(gathered["s"].shape), gathered["s"].tolist()]
tiled = mh.process_allgather(np.full((2, 1), p, np.float32), tiled=True)
out["tiled"] = [list(tiled.shape), tiled.ravel().tolist()]
tiled_scalar = mh.process_allgather(np.int16(p), tiled=True)
out["tiled_scalar"] = [list(tiled_scalar.shape), str(tiled_scalar.dtype)]
# Bits, not values: float64 without x64, a NaN payload, -0.0, bool and complex.
odd = np.array([-0.0, np.nan, 1e300 * (p + 1)], np.float64)
odd[1] = np.frombuffer(np.uint64(0x7ff8000000000000 + p).tobytes(), np.float64)[0]
bits = mh.process_allgather({"f": odd, "b": np.array([p % 2 == 0]), "c": np.complex64(p + 1j)})
out["bits"] = [bits["f"].dtype.str, bits["f"].view(np.uint64).tolist(),
               bits["b"].ravel().tolist(), bits["c"].tolist() == [complex(q, 1) for q in range(n)]]
out["types"] = [type(gathered["v"]).__name__, type(tiled).__name__]

bcast = mh.broadcast_one_to_all({"a": np.array([100 + p, 7], np.int32), "b": -0.0 * (p + 1)})
out["bcast"] = [bcast["a"].tolist(), type(bcast["a"]).__name__, bool(np.signbit(bcast["b"]))]
from_last = mh.broadcast_one_to_all(np.float32(p), is_source=(p == n - 1))
out["from_last"] = float(from_last)
out["no_source"] = error(mh.broadcast_one_to_all, np.ones(2), is_source=False)
out["mismatch"] = error(mh.process_allgather, np.zeros(2 if p == n - 1 else 3))

mh.assert_equal({"x": np.arange(3), "y": 2.5}, "all equal")
out["unequal"] = error(mh.assert_equal, np.array([p]), "step 3:")
out["names"] = error(mh.sync_global_devices, "barrier" if p == 0 else "other")

mesh = Mesh(np.array(jax.devices()), ("d",))
local = np.arange(4, dtype=np.float32).reshape(2, 2) + 100 * p
g = mh.host_local_array_to_global_array(local, mesh, P("d"))
back = mh.global_array_to_host_local_array(g, mesh, P("d"))
out["global"] = [list(g.shape), g.is_fully_addressable == (n == 1)]
out["back"] = [np.asarray(back).tolist(), [d.id for d in back.sharding.mesh.devices.flat]]
out["total"] = float(jax.jit(lambda a: a.sum())(g))
out["whole"] = mh.process_allgather(g).tolist()  # a global Array: its whole value
grid = Mesh(np.array(jax.devices()).reshape(n, 2), ("hosts", "cols"))
block = np.arange(6, dtype=np.int32).reshape(1, 6) + 10 * p
g2 = mh.host_local_array_to_global_array({"x": block}, grid, {"x": P("hosts", "cols")})["x"]
out["grid"] = [list(g2.shape), mh.process_allgather(g2).tolist(),
               np.asarray(mh.global_array_to_host_local_array(g2, grid, P("hosts", "cols"))
                          ).tolist()]
mh.sync_global_devices("end")
report(out)
jax.distributed.shutdown()
"""


@pytest.fixture(scope="module", params=[1, 2, 4])
def runs(request):
  n = request.param
  return n, [r.value() for r in harness.run(PROGRAM, n, timeout=120)]


def test_process_allgather(runs):
  n, results = runs
  for v in results:
    assert v["gathered"] == [[q, 10 * q] for q in range(n)]
    assert v["gathered_scalar"] == [[n], [float(q) for q in range(n)]]
    assert v["tiled"] == [[2 * n, 1], [float(q) for q in range(n) for _ in range(2)]]
    # Tiled scalars have no axis to concatenate: stacked, and one process's stays a scalar.
    assert v["tiled_scalar"] == [[n] if n > 1 else [], "int16"]
    nan_bits = [0x7ff8000000000000 + q for q in range(n)]
    assert v["bits"][0] == "<f8"
    assert [row[1] for row in v["bits"][1]] == nan_bits
    assert [row[0] for row in v["bits"][1]] == [0x8000000000000000] * n  # -0.0
    assert v["bits"][2:] == [[q % 2 == 0 for q in range(n)], True]
    assert v["types"] == ["ndarray", "ndarray"]


def test_process_allgather_refuses_mismatched_shapes(runs):
  n, results = runs
  for p, v in enumerate(results):
    if n == 1:
      assert v["mismatch"] is None  # one process: nothing to disagree with
      continue
    kind, message = v["mismatch"]
    assert kind == "ValueError"
    assert f"processes [{n - 1}] passed a different one than process 0" in message
    assert f"this process, {p}, passed" in message and ("float64[2]" if p == n - 1
                                                        else "float64[3]") in message


def test_broadcast_one_to_all(runs):
  n, results = runs
  for v in results:
    assert v["bcast"] == [[100, 7], "ndarray", True]  # process 0's bits (-0.0 stays)
    assert v["from_last"] == n - 1
    kind, message = v["no_source"]
    assert kind == "ValueError" and "exactly one source process, got 0" in message


def test_assert_equal_and_sync_global_devices(runs):
  n, results = runs
  for p, v in enumerate(results):
    if n == 1:
      assert v["unequal"] is None and v["names"] is None
      continue
    kind, message = v["unequal"]
    assert kind == "AssertionError"
    if p == 0:  # JAX's process 0 would go on alone; here it stops too, naming the others
      assert message == f"step 3: Processes {list(range(1, n))} differ from process 0's value [0]."
    else:
      assert message == f"step 3: Expected: [0]; got: [{p}]."
    kind, message = v["names"]
    assert kind == "AssertionError" and "sync_global_devices name mismatch" in message


def test_host_local_and_global_arrays(runs):
  n, results = runs
  whole = np.concatenate([np.arange(4).reshape(2, 2) + 100 * q for q in range(n)])
  rows = np.concatenate([np.arange(6).reshape(1, 6) + 10 * q for q in range(n)])
  for p, v in enumerate(results):
    assert v["global"] == [[2 * n, 2], True]
    assert v["back"] == [(np.arange(4).reshape(2, 2) + 100 * p).tolist(), [2 * p, 2 * p + 1]]
    assert v["total"] == float(whole.sum())
    # As in JAX: an Array over one process's devices is a host value like any other
    # (stacked once per process); one spanning processes is returned whole.
    stack = (lambda a: [a.tolist()]) if n == 1 else (lambda a: a.tolist())
    assert v["whole"] == stack(whole)
    assert v["grid"] == [[n, 6], stack(rows), rows[p:p + 1].tolist()]
