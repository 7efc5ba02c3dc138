"""`jax.distributed`: joining this process to a multi-process program.

The process group is described by the coordinator address, the number of processes
and this process's id: from the arguments, else the `JAX_COORDINATOR_ADDRESS`,
`JAX_NUM_PROCESSES`, `JAX_PROCESS_ID` environment variables, else a cluster's launcher
(Open MPI's `mpirun`, SLURM's `srun`). A group of one process needs no coordinator.
In a larger group process 0 runs the coordination service
(`coordination_service.CoordinationService`) and every process connects a client to it;
the CPU backend created afterwards spans the devices of every process and exchanges
collective data through its engine, which finds its peers through this client's
key-value store.
"""

from __future__ import annotations

import atexit
import os
import re
import socket
import threading
import time

from jax._src.config import config
from jax._src import coordination_service
from jax._src import preemption_sync


class _State:
  def __init__(self):
    self.lock = threading.Lock()
    self.initialized = False
    self.coordinator_address: str | None = None
    self.num_processes = 1
    self.process_id = 0
    self.local_device_ids: list[int] | None = None
    self.initialization_timeout = 300.0
    self.heartbeat_timeout = 100.0
    self.service: coordination_service.CoordinationService | None = None
    self.client: coordination_service.CoordinationClient | None = None
    self.preemption_sync_manager: preemption_sync.PreemptionSyncManager | None = None

  def reset(self) -> None:
    self.initialized = False
    self.coordinator_address = None
    self.num_processes, self.process_id = 1, 0
    self.local_device_ids = None
    self.service = self.client = self.preemption_sync_manager = None


_state = _State()
global_state = _state  # the name JAX's own modules and libraries read


def _no_backend_yet() -> bool:
  return False


# Whether a backend client exists already (then it is too late to join a group).
# xla_bridge, which imports this module to read the group when it creates the CPU
# client, installs its answer here.
_backends_exist = _no_backend_yet


def set_backend_probe(probe) -> None:
  global _backends_exist
  _backends_exist = probe


def _env_int(name: str, value):
  if value is not None:
    return int(value)
  raw = os.environ.get(name)
  return None if raw is None else int(raw)


# ---------------------------------------------------------------- cluster detection

def _port_for_job(job_id: int) -> int:
  # As JAX does: a port derived from the job id, among the top 4096 ports, so that
  # every process of a job computes the same one without talking.
  return job_id % 2**12 + (65535 - 2**12 + 1)


_ORTE_URI = "OMPI_MCA_orte_hnp_uri"


def _orte_launcher_address(uri: str) -> str:
  """mpirun's address in its ORTE URI, "<job id>.<vpid>;tcp://<ip>[,<ip>...]:<port>;tcp6://
  [<ip>,...]:<port>": the first address listed, with the port every process of the job
  derives from the job id (JAX's rule)."""
  match = re.match(r"(\d+)\.\d+;(?:tcp://([^,:;]+)|tcp6://\[([^,\]]+))", uri)
  if match is None:
    raise ValueError(f"{_ORTE_URI}={uri!r} is not in Open MPI's format; pass "
                     "coordinator_address explicitly")
  # Open MPI's job ids are multiples of 2**12: dividing first keeps jobs' ports apart.
  port = _port_for_job(int(match.group(1)) // 2**12)
  return f"{match.group(2)}:{port}" if match.group(2) else f"[{match.group(3)}]:{port}"


def _ompi_cluster() -> dict | None:
  """Open MPI's mpirun environment: the group from OMPI_COMM_WORLD_*, the coordinator from
  the launcher's address (Open MPI 4's ORTE URI). Open MPI 5 launches through PRRTE,
  which publishes no launcher address: there the coordinator must be given."""
  env = os.environ
  if "OMPI_COMM_WORLD_SIZE" not in env or "OMPI_COMM_WORLD_RANK" not in env:
    return None
  found = {"num_processes": int(env["OMPI_COMM_WORLD_SIZE"]),
           "process_id": int(env["OMPI_COMM_WORLD_RANK"]),
           "local_device_ids": [int(env.get("OMPI_COMM_WORLD_LOCAL_RANK", 0))]}
  if _ORTE_URI in env:
    found["coordinator_address"] = _orte_launcher_address(env[_ORTE_URI])
  elif "JAX_COORDINATOR_ADDRESS" not in env and found["num_processes"] > 1:
    version = env.get("OMPI_VERSION", "5 or newer")
    raise ValueError(f"Open MPI {version} (launched without {_ORTE_URI}) does not say where "
                     "process 0 runs: set JAX_COORDINATOR_ADDRESS=<host of rank 0>:<free port> "
                     "in mpirun's environment (mpirun -x JAX_COORDINATOR_ADDRESS=...) or pass "
                     "coordinator_address to jax.distributed.initialize")
  return found


def first_slurm_host(nodelist: str) -> str:
  """The first host of a SLURM node list: 'n[3-5,9],m1' -> 'n3'."""
  match = re.match(r"([^,\[]+)(\[([^\]]+)\])?", nodelist)
  if match is None:
    raise ValueError(f"SLURM node list {nodelist!r} is not understood")
  prefix, ranges = match.group(1), match.group(3)
  if ranges is None:
    return prefix
  return prefix + ranges.split(",")[0].split("-")[0]


def _slurm_cluster() -> dict | None:
  env = os.environ
  needed = ("SLURM_JOB_ID", "SLURM_NTASKS", "SLURM_PROCID", "SLURM_STEP_NODELIST")
  if not all(k in env for k in needed):
    return None
  host = first_slurm_host(env["SLURM_STEP_NODELIST"])
  return {"coordinator_address": f"{host}:{_port_for_job(int(env['SLURM_JOB_ID']))}",
          "num_processes": int(env["SLURM_NTASKS"]),
          "process_id": int(env["SLURM_PROCID"]),
          "local_device_ids": [int(env.get("SLURM_LOCALID", 0))]}


_CLUSTERS = {"ompi": _ompi_cluster, "slurm": _slurm_cluster}


def detect_cluster(method: str | None) -> dict:
  """What the launcher's environment says ({} when nothing is detected)."""
  if method == "deactivate":
    return {}
  if method is not None and method not in _CLUSTERS:
    raise ValueError(f"cluster_detection_method {method!r} is not known; use one of "
                     f"{sorted(_CLUSTERS)} or 'deactivate'")
  for name, detect in _CLUSTERS.items():
    if method in (None, name):
      found = detect()
      if found is not None:
        return found
  if method is not None:
    raise ValueError(f"cluster_detection_method={method!r}, but this process was not "
                     f"started by that launcher (its environment variables are missing)")
  return {}


# ---------------------------------------------------------------- initialize / shutdown

def initialize(coordinator_address: str | None = None, num_processes: int | None = None,
               process_id: int | None = None, local_device_ids=None,
               cluster_detection_method: str | None = None, initialization_timeout: int = 300,
               heartbeat_timeout_seconds: int = 100, shutdown_timeout_seconds: int = 300,
               coordinator_bind_address: str | None = None, slice_index: int | None = None,
               partition_index: int | None = None) -> None:
  """Join the process group (call once, before any other JAX call that uses devices).

  `local_device_ids` is recorded for GPU plugins (which devices this process drives);
  the CPU plugin's local devices are its virtual devices (JAX_NUM_CPU_DEVICES or
  --xla_force_host_platform_device_count), all of them."""
  del slice_index, partition_index
  with _state.lock:
    if _state.initialized:
      raise RuntimeError("jax.distributed.initialize should only be called once.")
    detected = detect_cluster(cluster_detection_method)
    address = (coordinator_address or os.environ.get("JAX_COORDINATOR_ADDRESS")
               or detected.get("coordinator_address"))
    n = _env_int("JAX_NUM_PROCESSES", num_processes)
    pid = _env_int("JAX_PROCESS_ID", process_id)
    n = detected.get("num_processes", 1) if n is None else n
    pid = detected.get("process_id", 0) if pid is None else pid
    if local_device_ids is None:
      local_device_ids = detected.get("local_device_ids")
    if n < 1 or not 0 <= pid < n:
      raise ValueError(f"process_id must be in [0, num_processes); got process_id={pid} and "
                       f"num_processes={n}")
    if n > 1:
      if address is None:
        raise ValueError("coordinator_address should be defined when num_processes > 1.")
      coordination_service.split_address(address)
      if _backends_exist():
        raise RuntimeError("jax.distributed.initialize() must be called before any JAX "
                           "computation (the backend already exists)")
      _state.service, _state.client = _connect(
          address, n, pid, coordinator_bind_address, float(initialization_timeout),
          float(heartbeat_timeout_seconds), float(shutdown_timeout_seconds))
      # As JAX does: a process that ends without shutdown() still waits for the others at
      # the shutdown barrier, so process 0 keeps the coordinator up until all are done.
      atexit.register(shutdown)
    _state.coordinator_address = address
    _state.num_processes, _state.process_id = n, pid
    _state.initialization_timeout = float(initialization_timeout)
    _state.heartbeat_timeout = float(heartbeat_timeout_seconds)
    _state.local_device_ids = None if local_device_ids is None else [
        int(i) for i in (local_device_ids if isinstance(local_device_ids, (list, tuple))
                         else [local_device_ids])]
    if config.jax_enable_preemption_service:
      _state.preemption_sync_manager = preemption_sync.PreemptionSyncManager(
          _state.client, pid, n, _state.initialization_timeout)
    _state.initialized = True


def _connect(address, n, pid, bind_address, init_timeout, heartbeat_timeout, shutdown_timeout):
  """Process 0 starts the coordinator; every process connects to it (all or none)."""
  host, port = coordination_service.split_address(address)
  service = None
  if pid == 0:
    bind = bind_address or f"[::]:{port}"
    service = coordination_service.CoordinationService(bind, n, heartbeat_timeout)
  client = coordination_service.CoordinationClient(
      f"{host}:{port}" if ":" not in host else f"[{host}]:{port}", pid, n, init_timeout,
      heartbeat_timeout, shutdown_timeout)
  try:
    client.connect()
  except BaseException:
    client.close()
    if service is not None:
      service.stop()
    raise
  return service, client


def local_address() -> str:
  """This host's address on the route to the coordinator: where peers reach its
  collectives (a loopback coordinator gives a loopback address)."""
  host, port = coordination_service.split_address(_state.coordinator_address)
  family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_DGRAM)[0]
  with socket.socket(family, kind, proto) as s:
    s.connect(address)  # a datagram socket: picks the route, sends nothing
    return s.getsockname()[0]


def collectives_options() -> dict:
  """The CPU client's options for this group (xla_bridge passes them at creation)."""
  return {"node_id": _state.process_id, "num_nodes": _state.num_processes,
          "collectives_hostname": local_address(),
          # A collective may wait for a peer that is still compiling: as long as joining.
          "collectives_timeout_ms": int(1000 * max(_state.initialization_timeout,
                                                   _state.heartbeat_timeout))}


def is_initialized() -> bool:
  return _state.initialized


def client():
  """This process's coordination client, or None outside a multi-process group."""
  return _state.client


def lost_process_error(wait: bool = False) -> str | None:
  """Why the group is broken (a process was lost), or None. With `wait`, gives the
  coordinator up to one heartbeat timeout to notice: a peer's death breaks a collective
  at once, but is known only when its heartbeats stop."""
  c = _state.client
  if c is None:
    return None
  deadline = time.monotonic() + (c.heartbeat_timeout + 2 if wait else 0)
  while c.error is None and time.monotonic() < deadline:
    time.sleep(0.1)
  return c.error


def shutdown() -> None:
  """Leave the process group (a no-op if initialize was not called): waits for the
  other processes at the shutdown barrier, then stops the coordinator (process 0)."""
  with _state.lock:
    c, service, manager = _state.client, _state.service, _state.preemption_sync_manager
    _state.reset()
  if manager is not None:
    manager.close()
  try:
    if c is not None:
      c.shutdown()
  finally:
    if service is not None:
      service.stop()
