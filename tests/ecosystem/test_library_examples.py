"""The ecosystem examples (examples/flax_*.py, equinox_mlp.py, numpyro_nuts.py) run on
our wheels with the real libraries installed and print the loss curves real JAX
0.10.2 prints.

The libraries cannot go into this test session's interpreter (they are installed
with --no-deps beside our jax), so the examples run in the virtualenv that
ecosystem/run.py keeps for our wheels (made here when missing, from dist/); set
JAX_ECOSYSTEM_PYTHON to use another interpreter that has them.

The expected numbers are real JAX 0.10.2's, recorded in ecosystem/examples.toml (which
says how they were obtained, and the tolerance of each example); the fast CI run
(`ecosystem/run.py --ci`) compares the same numbers.
"""

import importlib.util
import os
import sys

import pytest

pytestmark = [pytest.mark.needs_wheels, pytest.mark.ecosystem]

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIMEOUT = 900


def _load_runner():
  spec = importlib.util.spec_from_file_location(
      "jax_ecosystem_run", os.path.join(REPO_ROOT, "ecosystem", "run.py"))
  module = importlib.util.module_from_spec(spec)
  sys.modules[spec.name] = module
  spec.loader.exec_module(module)
  return module


runner = _load_runner()
EXAMPLES = runner.load_examples()


@pytest.fixture(scope="session")
def ecosystem_python(dist_dir) -> str:
  """An interpreter with our wheels and the pinned libraries."""
  if os.environ.get("JAX_ECOSYSTEM_PYTHON"):
    return os.environ["JAX_ECOSYSTEM_PYTHON"]
  progress = runner.Progress()
  python = runner.bench.ensure_ours(os.path.join(runner.cache_dir(), "ours"), dist_dir,
                                    progress)
  table = runner.load_libraries()
  try:
    runner.install_libraries(python, table, list(table), progress)
  except runner.bench.build_driver.BuildError as e:
    pytest.skip(f"the libraries could not be installed from the package index: {e}")
  return python


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_matches_real_jax(ecosystem_python, name):
  text = runner.run_example(ecosystem_python, name, TIMEOUT)
  misses = runner.example_mismatches(EXAMPLES[name], text)
  assert not misses, f"{name}:\n" + "\n".join(misses) + f"\n{text}"
