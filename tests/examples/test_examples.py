"""The programs in examples/ run unchanged on the installed wheels and reproduce the
numbers real JAX gives for them.

Each example runs as `python examples/NAME.py` in a subprocess of this interpreter
(so it sees the installed jax/jaxlib, not the source tree), from a scratch directory.
The tests check that it exits 0, that its printed numbers are sane on their own
(training lowered the loss, accuracy is well above chance), and that they match the
numbers recorded from real JAX.

How the expected numbers were obtained: each example was run once with
jax==0.10.2 / jaxlib==0.10.2 from PyPI on x86-64 Linux CPU (`python examples/NAME.py`)
and the values of its final line were copied here. Our stack gave the same values to
within a few float32 ulps (largest relative difference seen: 5e-7 on the losses, and
5e-6 on quickstart's near-zero loss, which is a mean of squared small differences of
O(1) numbers and so loses digits to cancellation). The tolerances below leave room for
float32 rounding differences (e.g. in exp/tanh/log) compounding over a few hundred
training steps, and are still orders of magnitude tighter than what a wrong gradient
or a wrong op would produce.
"""

import concurrent.futures
import os
import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.needs_wheels

EXAMPLES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")
EXAMPLES = ["quickstart", "mlp_classifier", "convnet_step", "rnn_scan"]

# Final numbers printed by real JAX 0.10.2 (see the module docstring).
REAL_JAX = {
    "quickstart": {"loss_after_200_steps": 5.222441177465953e-05},
    "mlp_classifier": {"initial_loss": 1.09618926, "final_loss": 0.040128991,
                       "accuracy": 0.986979187},
    "convnet_step": {"initial_loss": 1.19367075, "final_loss": 0.244123966, "accuracy": 1.0},
    "rnn_scan": {"initial_loss": 0.605377674, "final_loss": 0.0105266003,
                 "copy_baseline_loss": 0.0234879032},
}

# Relative tolerances. One forward pass (initial losses, data-only baselines): a few ulps.
# After training: float32 noise compounds over the steps.
RTOL_ONE_PASS = 1e-5
RTOL_TRAINED = 1e-4
# Training-set sizes: accuracy may differ by at most one borderline sample.
NUM_SAMPLES = {"mlp_classifier": 384, "convnet_step": 32}
CHANCE = {"mlp_classifier": 1 / 3, "convnet_step": 1 / 2}

TIMEOUT = 180


def _user_environment() -> dict:
  """The environment a user runs the examples in: no JAX_* settings of the test
  session (which runs with several virtual CPU devices)."""
  return {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "PYTHON"))}


def _run(name: str, cwd: str) -> subprocess.CompletedProcess:
  path = os.path.abspath(os.path.join(EXAMPLES_DIR, name + ".py"))
  return subprocess.run([sys.executable, path], capture_output=True, text=True, cwd=cwd,
                        timeout=TIMEOUT, env=_user_environment())


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
  """Every example run once (two at a time: the work is mostly compilation)."""
  probe = subprocess.run([sys.executable, "-c", "import jax; print(jax.devices())"],
                         capture_output=True, text=True, cwd="/")
  if probe.returncode != 0:
    reason = f"jax with a CPU backend is not importable by {sys.executable}:\n{probe.stderr[-2000:]}"
    if os.environ.get("JAX_REQUIRE_WHEELS", "") not in ("", "0"):
      pytest.fail(reason + " (JAX_REQUIRE_WHEELS is set)", pytrace=False)
    pytest.skip(reason)
  cwd = str(tmp_path_factory.mktemp("examples"))
  with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    futures = {name: pool.submit(_run, name, cwd) for name in EXAMPLES}
    return {name: f.result() for name, f in futures.items()}


def _completed(runs, name) -> str:
  proc = runs[name]
  assert proc.returncode == 0, (
      f"examples/{name}.py exited {proc.returncode}\nstdout:\n{proc.stdout[-3000:]}\n"
      f"stderr:\n{proc.stderr[-5000:]}")
  return proc.stdout


def _final(stdout: str) -> dict[str, float]:
  lines = [l for l in stdout.splitlines() if l.startswith("final:")]
  assert len(lines) == 1, stdout
  return {k: float(v) for k, v in re.findall(r"(\w+)=(\S+)", lines[0])}


def _step_losses(stdout: str) -> list[float]:
  return [float(m) for m in re.findall(r"^step\s+\d+\s+loss (\S+)$", stdout, re.M)]


def test_quickstart(runs):
  out = _completed(runs, "quickstart")
  assert "jnp.add(1, 1) = 2" in out
  assert "vmap per-example losses: (32,)" in out
  assert re.search(r"pmap over \d+ device\(s\): \[\[1\. 3\. 5\.\]", out), out
  loss = float(re.search(r"loss after 200 steps: (\S+)", out).group(1))
  assert 0 < loss < 1e-3  # gradient descent fits the 4-parameter model
  # The loss is tiny and carries cancellation error, hence the looser tolerance.
  assert loss == pytest.approx(REAL_JAX["quickstart"]["loss_after_200_steps"], rel=1e-3)


@pytest.mark.parametrize("name", ["mlp_classifier", "convnet_step", "rnn_scan"])
def test_training_example(runs, name):
  out = _completed(runs, name)
  got = _final(out)
  expected = REAL_JAX[name]
  assert set(got) == set(expected), got

  # Sane on its own: training lowered the loss, steadily.
  losses = _step_losses(out)
  assert len(losses) >= 5, out
  assert all(l == l for l in losses), losses  # no NaN
  assert got["final_loss"] < 0.5 * got["initial_loss"], got
  assert losses[-1] < losses[len(losses) // 2] < losses[0], losses
  if "accuracy" in got:
    assert got["accuracy"] > CHANCE[name] + 0.5 * (1 - CHANCE[name]), got
  if name == "rnn_scan":
    # Better than predicting "the next value equals the current one".
    assert got["final_loss"] < got["copy_baseline_loss"], got

  # Same numbers as real JAX.
  for key, want in expected.items():
    if key == "accuracy":
      assert abs(got[key] - want) <= 1.5 / NUM_SAMPLES[name], (key, got[key], want)
    elif key == "final_loss":
      assert got[key] == pytest.approx(want, rel=RTOL_TRAINED), (key, got[key], want)
    else:
      assert got[key] == pytest.approx(want, rel=RTOL_ONE_PASS), (key, got[key], want)


def _free_port() -> int:
  import socket
  with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    return s.getsockname()[1]


def test_distributed_train_launch_loop_matches_one_process(tmp_path):
  """examples/distributed_train.py as the README launches it (2 processes x 2 devices)
  prints the same losses as one process with 4 devices."""
  pytest.importorskip("grpc", reason="jax.distributed needs grpcio")
  path = os.path.abspath(os.path.join(EXAMPLES_DIR, "distributed_train.py"))
  flags = "--xla_force_host_platform_device_count="
  port = _free_port()
  procs = [subprocess.Popen(
      [sys.executable, path], cwd=str(tmp_path), stdout=subprocess.PIPE,
      stderr=subprocess.PIPE, text=True,
      env=dict(_user_environment(), JAX_COORDINATOR_ADDRESS=f"127.0.0.1:{port}",
               JAX_NUM_PROCESSES="2", JAX_PROCESS_ID=str(i), XLA_FLAGS=flags + "2"))
      for i in range(2)]
  outs = []
  for p in procs:
    try:
      out, err = p.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
      for q in procs:
        q.kill()
      raise
    assert p.returncode == 0, err[-3000:]
    outs.append(out)
  single = subprocess.run([sys.executable, path], capture_output=True, text=True,
                          cwd=str(tmp_path), timeout=TIMEOUT,
                          env=dict(_user_environment(), XLA_FLAGS=flags + "4"))
  assert single.returncode == 0, single.stderr[-3000:]
  assert "process 1 of 2: local devices [2, 3] of 4" in outs[1]
  assert "parameters agree on every process" in outs[0]
  losses = _step_losses(outs[0])
  assert len(losses) == 4 and losses[-1] < 0.1 * losses[0], losses
  assert losses == _step_losses(single.stdout)
