"""Launches a program as several local processes of one `jax.distributed` group.

Each process gets the coordinator address (127.0.0.1 and a free port), the group size
and its id through JAX's environment variables, two virtual CPU devices, and a hard
deadline: when it passes, every process still running is killed and the caller gets
what they printed, so a hang fails a test instead of stopping CI.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time


def plugin_has_cross_process_collectives() -> bool:
  """Whether the installed CPU plugin carries multi-process clients (the Gloo
  engine beside the plugin)."""
  from jax_plugins import xla_cpu
  return os.path.exists(os.path.join(os.path.dirname(xla_cpu.__file__),
                                     "libjax_cpu_collectives_gloo.so"))


def free_port() -> int:
  with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
    s.bind(("127.0.0.1", 0))
    return s.getsockname()[1]


class Result:
  def __init__(self, returncode, stdout, stderr, timed_out):
    self.returncode, self.stdout, self.stderr, self.timed_out = (returncode, stdout, stderr,
                                                                 timed_out)

  def value(self):
    """The JSON object the process printed last on a line starting with 'RESULT '."""
    lines = [l for l in self.stdout.splitlines() if l.startswith("RESULT ")]
    if not lines:
      raise AssertionError(f"no RESULT (rc={self.returncode}, timed_out={self.timed_out})\n"
                           f"stdout:\n{self.stdout}\nstderr:\n{self.stderr[-4000:]}")
    return json.loads(lines[-1][len("RESULT "):])


PRELUDE = """
import json, os, sys
def report(obj):
  print("RESULT " + json.dumps(obj), flush=True)
  # A launcher that merges its ranks' stdout may interleave their lines: under one, each
  # process also leaves its result in a file of its own.
  if os.environ.get("HARNESS_RESULT_DIR"):
    with open(os.path.join(os.environ["HARNESS_RESULT_DIR"], f"{os.getpid()}.json"), "w") as f:
      json.dump(obj, f)
"""


def run(body: str, num_processes: int, timeout: float = 60.0, env_per_process=None,
        devices_per_process: int = 2, extra_env=None) -> list[Result]:
  """Runs `body` (Python source; `report(obj)` prints a result) in `num_processes`
  processes; returns one Result per process, in process-id order."""
  port = free_port()
  with tempfile.TemporaryDirectory(prefix="jax-dist-") as tmp:
    script = os.path.join(tmp, "prog.py")
    with open(script, "w") as f:
      f.write(PRELUDE + textwrap.dedent(body))
    procs = []
    for pid in range(num_processes):
      env = clean_env(devices_per_process)
      env.update(JAX_COORDINATOR_ADDRESS=f"127.0.0.1:{port}",
                 JAX_NUM_PROCESSES=str(num_processes), JAX_PROCESS_ID=str(pid))
      env.update(extra_env or {})
      if env_per_process is not None:
        env.update(env_per_process(pid))
      env = {k: v for k, v in env.items() if v is not None}
      procs.append(subprocess.Popen([sys.executable, script], cwd=tmp, env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    deadline = time.monotonic() + timeout
    results = []
    for p in procs:
      timed_out = False
      try:
        out, err = p.communicate(timeout=max(0.1, deadline - time.monotonic()))
      except subprocess.TimeoutExpired:
        timed_out = True
        p.kill()
        out, err = p.communicate()
      results.append(Result(p.returncode, out, err, timed_out))
    return results


def clean_env(devices_per_process: int) -> dict:
  """This environment without any launcher's or JAX's settings, CPU only."""
  env = {k: v for k, v in os.environ.items()
         if not k.startswith(("JAX_", "OMPI_", "PMIX_", "SLURM_", "PYTEST"))}
  env.update(JAX_PLATFORMS="cpu",
             XLA_FLAGS=f"--xla_force_host_platform_device_count={devices_per_process}")
  return env


def run_mpirun(body: str, num_processes: int, timeout: float = 60.0,
               devices_per_process: int = 2) -> list[dict]:
  """Runs `body` under Open MPI's `mpirun -np num_processes` (the processes learn their
  group only from mpirun's environment); returns each rank's RESULT, in rank order. The
  body's report() must include "rank"."""
  with tempfile.TemporaryDirectory(prefix="jax-mpi-") as tmp:
    script = os.path.join(tmp, "prog.py")
    with open(script, "w") as f:
      f.write(PRELUDE + textwrap.dedent(body))
    results = os.path.join(tmp, "results")
    os.mkdir(results)
    env = dict(clean_env(devices_per_process), HARNESS_RESULT_DIR=results)
    cmd = [shutil.which("mpirun"), "--allow-run-as-root", "--oversubscribe",
           "-np", str(num_processes), sys.executable, script]
    # Its own session: on a timeout the whole tree (mpirun, its daemons, the ranks) dies.
    proc = subprocess.Popen(cmd, cwd=tmp, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    timed_out = False
    try:
      out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
      timed_out = True
      os.killpg(proc.pid, signal.SIGKILL)
      out, err = proc.communicate()
    # mpirun merges the ranks' stdout, and lines from two ranks can run together.
    reports = []
    for name in os.listdir(results):
      with open(os.path.join(results, name)) as f:
        reports.append(json.load(f))
    if proc.returncode != 0 or len(reports) != num_processes:
      raise AssertionError(f"mpirun: rc={proc.returncode}, timed_out={timed_out}, "
                           f"{len(reports)} results\nstdout:\n{out}\nstderr:\n{err[-4000:]}")
    return sorted(reports, key=lambda r: r["rank"])


# An installed jaxlib-cpu older than this source tree has no engine: its tests say so
# rather than fail. CI (JAX_REQUIRE_WHEELS=1) builds them from this tree: there they
# must run, and fail if the engine is missing.
try:
  import pytest
  needs_cross_process = pytest.mark.skipif(
      os.environ.get("JAX_REQUIRE_WHEELS") != "1" and not plugin_has_cross_process_collectives(),
      reason="the installed jaxlib-cpu has no cross-process collectives (rebuild the wheels)")
except ImportError:  # used outside pytest
  pass
