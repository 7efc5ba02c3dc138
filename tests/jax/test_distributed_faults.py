"""The faults jax.distributed.initialize must refuse or report: a wrong coordinator
address, a mismatched num_processes, a duplicate process_id, a process that dies. Each
case has a bounded run time (never a hang) and checks the message says what to fix.

Local processes on 127.0.0.1 (tests/jax/tools/distributed_harness.py)."""

import time

import pytest

pytest.importorskip("grpc", reason="jax.distributed needs grpcio")

import distributed_harness as harness
from jax._src import distributed


FAILING_INIT = """
import time, jax
start = time.monotonic()
try:
  jax.distributed.initialize(initialization_timeout=int(os.environ.get("INIT_TIMEOUT", "20")),
                             heartbeat_timeout_seconds=5)
  report({"ok": True})
  # Keep the coordinator up while a late process still tries to join (the duplicate case).
  time.sleep(float(os.environ.get("LINGER", "0")))
  jax.distributed.shutdown()
except Exception as e:
  report({"ok": False, "type": type(e).__name__, "error": str(e),
          "seconds": time.monotonic() - start})
"""


def test_wrong_coordinator_address_fails_within_the_timeout():
  # Process 1 alone: nobody listens on the coordinator's port.
  results = harness.run(FAILING_INIT, 1, timeout=40, extra_env={
      "JAX_NUM_PROCESSES": "2", "JAX_PROCESS_ID": "1", "INIT_TIMEOUT": "3",
      "JAX_COORDINATOR_ADDRESS": f"127.0.0.1:{harness.free_port()}"})
  v = results[0].value()
  assert not v["ok"]
  assert "could not reach the coordinator" in v["error"]
  assert "coordinator_address" in v["error"]
  assert v["seconds"] < 15


def test_malformed_coordinator_address_is_refused():
  with pytest.raises(ValueError, match="host:port"):
    distributed.initialize("localhost", num_processes=2, process_id=1)
  assert not distributed.is_initialized()


def test_mismatched_num_processes_is_refused():
  results = harness.run(FAILING_INIT, 2, timeout=60, extra_env={"INIT_TIMEOUT": "8"},
                        env_per_process=lambda pid: {"JAX_NUM_PROCESSES": "3"} if pid else {})
  v = results[1].value()
  assert not v["ok"]
  assert "num_processes=3" in v["error"] and "num_processes=2" in v["error"]
  assert "same num_processes" in v["error"]
  assert not results[0].value()["ok"]  # process 0 waits for process 1 in vain, then fails


def test_duplicate_process_id_is_refused():
  # Three processes for a group of two: the last two both say process_id=1.
  results = harness.run(FAILING_INIT, 3, timeout=60,
                        extra_env={"INIT_TIMEOUT": "20", "LINGER": "15"},
                        env_per_process=lambda pid: {"JAX_NUM_PROCESSES": "2",
                                                     "JAX_PROCESS_ID": str(min(pid, 1))})
  values = [r.value() for r in results]
  refused = [v for v in values if not v["ok"] and "two processes" in v["error"]]
  assert len(refused) == 1
  assert "process_id=1" in refused[0]["error"]
  assert sum(v["ok"] for v in values) == 2


def test_a_dead_process_is_named_by_the_others():
  body = """
import time, jax
jax.distributed.initialize(initialization_timeout=30, heartbeat_timeout_seconds=3)
c = jax._src.distributed.client()
if c.process_id == 1:
  os._exit(7)  # dies without leaving the group
start = time.monotonic()
try:
  c.wait_at_barrier("never_complete", 60000)
  report({"ok": True})
except Exception as e:
  report({"ok": False, "error": str(e), "seconds": time.monotonic() - start})
os._exit(0)
"""
  t0 = time.monotonic()
  results = harness.run(body, 2, timeout=60)
  assert results[1].returncode == 7
  v = results[0].value()
  assert not v["ok"]
  assert "process 1" in v["error"] and "heartbeats" in v["error"]
  assert v["seconds"] < 20
  assert time.monotonic() - t0 < 50


@harness.needs_cross_process
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
