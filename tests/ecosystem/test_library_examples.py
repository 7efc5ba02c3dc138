"""The ecosystem examples (examples/flax_*.py, equinox_mlp.py, numpyro_nuts.py) run on
our wheels with the real libraries installed and print the loss curves real JAX
0.10.2 prints.

The libraries cannot go into this test session's interpreter (they are installed
with --no-deps beside our jax), so the examples run in the virtualenv that
ecosystem/run.py keeps for our wheels (made here when missing, from dist/); set
JAX_ECOSYSTEM_PYTHON to use another interpreter that has them.

How the expected numbers were obtained: each example was run once with jax==0.10.2 /
jaxlib==0.10.2 from PyPI on x86-64 Linux CPU, with the library versions pinned in
ecosystem/libraries.toml (`python examples/NAME.py`), and its printed values were
copied here. The tolerance leaves room for float32 rounding differences compounding
over the steps; a wrong gradient or op moves the curve far more.
"""

import importlib.util
import os
import re
import subprocess
import sys
import tempfile

import pytest

pytestmark = [pytest.mark.needs_wheels, pytest.mark.ecosystem]

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES_DIR = os.path.join(REPO_ROOT, "examples")
TIMEOUT = 900

REAL_JAX = {
    "flax_nnx_mlp": {
        "losses": [1.9502705, 1.2159989, 0.78849459, 0.52582455, 0.36275786, 0.2632249,
                   0.20145753, 0.16013357, 0.12956117, 0.1048099, 0.083795339, 0.066076279,
                   0.051494647, 0.039906152, 0.031143449, 0.024677254, 0.020027563,
                   0.016615883, 0.014083434, 0.012139706, 0.010536894, 0.0091485735,
                   0.0078982525, 0.0067569911, 0.0057482626],
        "final": {"accuracy": 1.0}},
    "flax_linen_cnn": {
        "losses": [0.70514208, 0.70225966, 0.69684941, 0.68920839, 0.67960727, 0.66829145,
                   0.65532219, 0.64074624, 0.62454891, 0.60642099, 0.58636367, 0.56431222,
                   0.54017484, 0.51427299, 0.48677304, 0.45807308, 0.4285652, 0.39876559,
                   0.36911547, 0.33975834],
        "final": {"accuracy": 0.90625}},
    "equinox_mlp": {
        "losses": [0.54035467, 0.29571295, 0.19555217, 0.16656445, 0.20808995, 0.24682042,
                   0.23479329, 0.20204066, 0.17673618, 0.16346531, 0.15859532, 0.16072823,
                   0.1682103, 0.17641763, 0.18024574, 0.1780709, 0.17198682, 0.16500761,
                   0.15875331, 0.15342715, 0.14931171, 0.14743027, 0.14835992, 0.15088797,
                   0.152668, 0.15232125, 0.15025255, 0.14747223, 0.14447784, 0.14148885],
        "final": {}},
    # NUTS: potential energy of every 20th of 200 posterior samples, then the means.
    "numpyro_nuts": {
        "losses": [22.308292, 22.819281, 21.520893, 22.594547, 23.395363, 23.185284,
                   22.614885, 22.180395, 23.793201, 22.259851],
        "final": {"mean slope": 1.5155389, "mean intercept": -0.64197087,
                  "mean sigma": 0.34353644}},
}

# Relative tolerance per example. Gradient descent damps rounding differences; a
# Markov chain can only keep them as small as its accept/reject decisions allow.
RTOL = {"flax_nnx_mlp": 1e-4, "flax_linen_cnn": 1e-4, "equinox_mlp": 1e-4,
        "numpyro_nuts": 1e-3}
LIBRARIES = ["flax", "equinox", "numpyro"]


def _load_runner():
  spec = importlib.util.spec_from_file_location(
      "jax_ecosystem_run", os.path.join(REPO_ROOT, "ecosystem", "run.py"))
  module = importlib.util.module_from_spec(spec)
  sys.modules[spec.name] = module
  spec.loader.exec_module(module)
  return module


@pytest.fixture(scope="session")
def ecosystem_python(dist_dir) -> str:
  """An interpreter with our wheels and the pinned libraries."""
  if os.environ.get("JAX_ECOSYSTEM_PYTHON"):
    return os.environ["JAX_ECOSYSTEM_PYTHON"]
  runner = _load_runner()
  progress = runner.Progress()
  python = runner.bench.ensure_ours(os.path.join(runner.cache_dir(), "ours"), dist_dir,
                                    progress)
  table = runner.load_libraries()
  try:
    runner.install_libraries(python, table, list(table), progress)
  except runner.bench.build_driver.BuildError as e:
    pytest.skip(f"the libraries could not be installed from the package index: {e}")
  return python


def parse_output(text: str) -> tuple[list[float], dict[str, float]]:
  losses = [float(v) for v in re.findall(r"^step \d+ loss (\S+)$", text, re.M)]
  final = {k: float(v) for k, v in re.findall(r"^((?:mean \w+)|accuracy) (\S+)$", text, re.M)}
  return losses, final


def run_example(python: str, name: str) -> str:
  env = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "PYTHON"))}
  with tempfile.TemporaryDirectory() as cwd:
    proc = subprocess.run([python, os.path.join(EXAMPLES_DIR, f"{name}.py")], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=TIMEOUT)
  assert proc.returncode == 0, f"{name} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
  return proc.stdout


def test_parse_output_reads_steps_and_final_values():
  text = "step 0 loss 1.5\nstep 1 loss 0.25\nmean slope -2\naccuracy 1\n"
  assert parse_output(text) == ([1.5, 0.25], {"mean slope": -2.0, "accuracy": 1.0})


@pytest.mark.parametrize("name", sorted(REAL_JAX))
def test_example_matches_real_jax(ecosystem_python, name):
  losses, final = parse_output(run_example(ecosystem_python, name))
  expected = REAL_JAX[name]
  assert len(losses) == len(expected["losses"]), losses
  for step, (got, want) in enumerate(zip(losses, expected["losses"])):
    assert got == pytest.approx(want, rel=RTOL[name]), f"{name} step {step}: {losses}"
  assert final.keys() == expected["final"].keys()
  for key, want in expected["final"].items():
    assert final[key] == pytest.approx(want, rel=RTOL[name], abs=1e-6), key

