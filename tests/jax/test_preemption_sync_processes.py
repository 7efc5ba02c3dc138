"""multihost_utils.reached_preemption_sync_point with 1, 2 and 4 real processes: one of
them gets SIGTERM (as a scheduler's preemption notice) and every process must answer True
at the same step, once, and keep running.

Local processes with 2 virtual CPU devices each (127.0.0.1, free ports, hard deadlines:
tests/jax/tools/distributed_harness.py)."""

import pytest

pytest.importorskip("grpc", reason="jax.distributed needs grpcio")

import distributed_harness as harness

pytestmark = harness.needs_cross_process

PROGRAM = """
import signal, time
import jax, numpy as np
from jax import lax
from jax.experimental import multihost_utils as mh
jax.distributed.initialize(initialization_timeout=60)
p, n = jax.process_index(), jax.process_count()
step_fn = jax.pmap(lambda v: lax.psum(v, "i"), axis_name="i")  # keeps the processes in step
answers = []
for step in range(300):
  total = float(np.asarray(step_fn(np.ones(jax.local_device_count())))[0])
  if p == n - 1 and step == 3:
    os.kill(os.getpid(), signal.SIGTERM)  # the preemption notice, to one process only
  answers.append(mh.reached_preemption_sync_point(step))
  if answers[-1]:
    break
  time.sleep(0.02)
report({"true_at": [i for i, a in enumerate(answers) if a], "steps": len(answers),
        "total": total})
jax.distributed.shutdown()
"""


@pytest.mark.parametrize("n", [1, 2, 4])
def test_every_process_stops_at_the_same_step(n):
  results = [r.value() for r in harness.run(PROGRAM, n, timeout=120)]
  sync = results[0]["true_at"]
  assert len(sync) == 1 and sync[0] >= 3, results
  for v in results:
    assert v["true_at"] == sync and v["steps"] == sync[0] + 1
    assert v["total"] == 2 * n  # the collectives ran to the end, SIGTERM killed nobody


def test_without_initialize_or_with_the_service_disabled():
  results = harness.run("""
import jax
from jax.experimental import multihost_utils as mh
out = []
for enabled in (True, False):
  jax.config.update("jax_enable_preemption_service", enabled)
  try:
    mh.reached_preemption_sync_point(0)
  except RuntimeError as e:
    out.append(str(e))
  jax.distributed.initialize(num_processes=1, process_id=0)
  try:
    out.append(mh.reached_preemption_sync_point(0))
  except RuntimeError as e:
    out.append(str(e))
  jax.distributed.shutdown()
report(out)
""", 1, timeout=60)
  before, with_service, before2, without_service = results[0].value()
  assert "has not been initialized" in before and before == before2 == without_service
  assert "jax.distributed.initialize()" in before
  assert "'jax_enable_preemption_service'" in before
  assert with_service is False
