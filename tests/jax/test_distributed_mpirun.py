"""Open MPI's mpirun as the launcher: `jax.distributed.initialize()` with no arguments
finds the group (size, rank, coordinator) in mpirun's environment, and collectives run
across the ranks.

Skipped only when mpirun is not installed (Debian: openmpi-bin)."""

import shutil

import numpy as np
import pytest

pytest.importorskip("grpc", reason="jax.distributed needs grpcio")

import distributed_harness as harness

pytestmark = [harness.needs_cross_process,
              pytest.mark.skipif(shutil.which("mpirun") is None,
                                 reason="Open MPI's mpirun is not installed (openmpi-bin)")]

PROGRAM = """
import jax, numpy as np
from jax import lax
from jax._src import distributed
jax.distributed.initialize()  # everything from mpirun's environment
p, n, L = jax.process_index(), jax.process_count(), jax.local_device_count()
rows = np.arange(jax.device_count() * 3, dtype=np.float32).reshape(-1, 3)
total = jax.pmap(lambda v: lax.psum(v, "i"), axis_name="i")(rows[p * L:(p + 1) * L])
report({"rank": int(os.environ["OMPI_COMM_WORLD_RANK"]), "process_index": p,
        "process_count": n, "devices": jax.device_count(),
        "address": distributed.global_state.coordinator_address,
        "psum": np.asarray(total)[0].tolist()})
jax.distributed.shutdown()
"""


def test_mpirun_launch_is_detected():
  n = 2
  reports = harness.run_mpirun(PROGRAM, n, timeout=120)
  rows = np.arange(2 * n * 3, dtype=np.float32).reshape(-1, 3)
  addresses = {r["address"] for r in reports}
  assert len(addresses) == 1  # every rank derived the same coordinator
  port = int(addresses.pop().rsplit(":", 1)[1])
  assert 61440 <= port <= 65535
  for rank, r in enumerate(reports):
    assert r["process_index"] == rank and r["process_count"] == n
    assert r["devices"] == 2 * n
    assert r["psum"] == rows.sum(axis=0).tolist()
