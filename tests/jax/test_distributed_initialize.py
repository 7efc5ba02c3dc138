"""jax.distributed.initialize across real processes: the group's topology and its
key-value store (faults: test_distributed_faults.py).

Every case launches local processes on 127.0.0.1 with two virtual CPU devices each
(tests/jax/tools/distributed_harness.py); unit cases check the cluster detection of
Open MPI's and SLURM's environments in this process."""

import pytest

pytest.importorskip("grpc", reason="jax.distributed needs grpcio")

import distributed_harness as harness
from jax._src import distributed


TOPOLOGY = """
import jax
jax.distributed.initialize(initialization_timeout=60)
report({
  "index": jax.process_index(), "count": jax.process_count(),
  "devices": [[d.id, d.process_index] for d in jax.devices()],
  "local": [d.id for d in jax.local_devices()],
  "local_count": jax.local_device_count(), "device_count": jax.device_count(),
  "local_hw": [d.local_hardware_id for d in jax.local_devices()],
  "gloo_loaded": any("gloo" in line for line in open("/proc/self/maps")),
})
jax.distributed.shutdown()
"""


@harness.needs_cross_process
@pytest.mark.parametrize("n", [2, 4])
def test_global_and_local_devices(n):
  results = harness.run(TOPOLOGY, n, timeout=90)
  for pid, r in enumerate(results):
    v = r.value()
    assert v["index"] == pid and v["count"] == n
    assert v["devices"] == [[i, i // 2] for i in range(2 * n)]
    assert v["local"] == [2 * pid, 2 * pid + 1]
    assert v["local_hw"] == [0, 1]
    assert (v["local_count"], v["device_count"]) == (2, 2 * n)
    assert v["gloo_loaded"]  # the engine, opened for this multi-process client


def test_single_process_programs_never_load_the_engine():
  body = """
import jax, jax.numpy as jnp
jax.pmap(lambda v: jax.lax.psum(v, "i"), axis_name="i")(jnp.ones((2, 3)))
report({"gloo_loaded": any("gloo" in line for line in open("/proc/self/maps"))})
"""
  v = harness.run(body, 1, timeout=60, extra_env={"JAX_NUM_PROCESSES": None,
                                                  "JAX_PROCESS_ID": None})[0].value()
  assert v == {"gloo_loaded": False}


def test_key_value_store_and_barrier_between_processes():
  body = """
import jax
jax.distributed.initialize(initialization_timeout=60)
c = jax._src.distributed.client()  # the coordinator only: no backend is created
c.key_value_set(f"k{c.process_id}", f"v{c.process_id}")
seen = [c.blocking_key_value_get(f"k{i}", 20000) for i in range(c.num_processes)]
c.wait_at_barrier("all_here", 20000)
report({"seen": seen, "dir": c.key_value_dir_get("k"), "missing": c.key_value_try_get("nope")})
jax.distributed.shutdown()
"""
  for r in harness.run(body, 3, timeout=60):
    v = r.value()
    assert v["seen"] == ["v0", "v1", "v2"]
    assert v["dir"] == [["k0", "v0"], ["k1", "v1"], ["k2", "v2"]]
    assert v["missing"] is None


def test_second_initialize_and_single_process_group():
  body = """
import jax
jax.distributed.initialize(num_processes=1, process_id=0)
try:
  jax.distributed.initialize(num_processes=1, process_id=0)
  again = None
except RuntimeError as e:
  again = str(e)
report({"count": jax.process_count(), "again": again,
        "initialized": jax.distributed.is_initialized()})
"""
  v = harness.run(body, 1, timeout=60, extra_env={"JAX_NUM_PROCESSES": None,
                                                  "JAX_PROCESS_ID": None})[0].value()
  assert v == {"count": 1, "again": "jax.distributed.initialize should only be called once.",
               "initialized": True}


# ------------------------------------------------------------------ cluster detection


def test_open_mpi_environment_is_detected(monkeypatch):
  monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "4")
  monkeypatch.setenv("OMPI_COMM_WORLD_RANK", "2")
  monkeypatch.setenv("OMPI_COMM_WORLD_LOCAL_RANK", "0")
  monkeypatch.setenv("OMPI_MCA_orte_hnp_uri", "1234567.0;tcp://10.1.2.3,172.17.0.1:41231")
  found = distributed.detect_cluster(None)
  # As JAX does: Open MPI's job ids step by 2**12, so the port uses job_id // 2**12.
  assert found == {"coordinator_address": f"10.1.2.3:{1234567 // 4096 % 4096 + 61440}",
                   "num_processes": 4, "process_id": 2, "local_device_ids": [0]}
  assert distributed.detect_cluster("deactivate") == {}
  # Open MPI 4.1's own format: one address with its port, then the IPv6 ones.
  monkeypatch.setenv("OMPI_MCA_orte_hnp_uri",
                     "2049638400.0;tcp://192.0.2.2:56131;tcp6://[fd00::2]:58361")
  assert distributed.detect_cluster("ompi")["coordinator_address"] == "192.0.2.2:62128"
  monkeypatch.setenv("OMPI_MCA_orte_hnp_uri", "8192.0;tcp6://[fe80::1,2620::3]:43370")
  assert distributed.detect_cluster("ompi")["coordinator_address"] == "[fe80::1]:61442"
  monkeypatch.setenv("OMPI_MCA_orte_hnp_uri", "not-a-uri")
  with pytest.raises(ValueError, match="not in Open MPI's format; pass coordinator_address"):
    distributed.detect_cluster(None)


def test_open_mpi_5_needs_the_coordinator_address(monkeypatch):
  # Open MPI 5 (PRRTE) sets the ranks but publishes no launcher address.
  monkeypatch.delenv("OMPI_MCA_orte_hnp_uri", raising=False)
  monkeypatch.delenv("JAX_COORDINATOR_ADDRESS", raising=False)
  monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "2")
  monkeypatch.setenv("OMPI_COMM_WORLD_RANK", "1")
  monkeypatch.setenv("OMPI_VERSION", "5.0.3")
  with pytest.raises(ValueError, match=r"Open MPI 5.0.3 .* set JAX_COORDINATOR_ADDRESS"):
    distributed.detect_cluster(None)
  monkeypatch.setenv("JAX_COORDINATOR_ADDRESS", "10.0.0.1:1234")
  assert distributed.detect_cluster(None) == {"num_processes": 2, "process_id": 1,
                                              "local_device_ids": [0]}


def test_slurm_environment_is_detected(monkeypatch):
  for k in ("OMPI_COMM_WORLD_SIZE", "OMPI_MCA_orte_hnp_uri"):
    monkeypatch.delenv(k, raising=False)
  monkeypatch.setenv("SLURM_JOB_ID", "4242")
  monkeypatch.setenv("SLURM_NTASKS", "8")
  monkeypatch.setenv("SLURM_PROCID", "5")
  monkeypatch.setenv("SLURM_LOCALID", "1")
  monkeypatch.setenv("SLURM_STEP_NODELIST", "node[07-09,12],login1")
  found = distributed.detect_cluster("slurm")
  assert found == {"coordinator_address": f"node07:{4242 % 4096 + 61440}",
                   "num_processes": 8, "process_id": 5, "local_device_ids": [1]}


def test_slurm_node_lists():
  assert distributed.first_slurm_host("n1") == "n1"
  assert distributed.first_slurm_host("gpu[3-5,9],cpu1") == "gpu3"
  assert distributed.first_slurm_host("a,b") == "a"


def test_unknown_or_absent_launcher(monkeypatch):
  for k in ("SLURM_JOB_ID", "OMPI_COMM_WORLD_SIZE"):
    monkeypatch.delenv(k, raising=False)
  with pytest.raises(ValueError, match="not known"):
    distributed.detect_cluster("pbs")
  with pytest.raises(ValueError, match="not started by that launcher"):
    distributed.detect_cluster("slurm")
  assert distributed.detect_cluster(None) == {}


# ------------------------------------------------------------------ jaxlib entry points


def test_cpu_client_entry_points_refuse_incomplete_groups():
  from jax._src.lib import xla_client
  with pytest.raises(ValueError, match="needs the distributed_client"):
    xla_client.make_cpu_client(num_nodes=2)
  kv = distributed.coordination_service.CoordinationClient  # any object with the methods
  with pytest.raises(ValueError, match="node_id must be in"):
    xla_client.make_cpu_client(distributed_client=kv, node_id=2, num_nodes=2)
  with pytest.raises(ValueError, match="Gloo only"):
    xla_client.make_cpu_client(distributed_client=kv, node_id=0, num_nodes=2,
                               collectives="mpi")
  with pytest.raises(TypeError, match="key_value_set_bytes"):
    xla_client.make_c_api_client("cpu", {}, distributed_client=object())
