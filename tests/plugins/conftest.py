"""Fresh virtual environments with our wheels, for tests that install plugins."""

import sys

import pytest


def _this_python() -> str:
  return "%d.%d" % sys.version_info[:2]


@pytest.fixture(scope="session")
def cpu_env(wheel_venv):
  """Python of a fresh venv after `pip install jax` (a complete CPU install)."""
  return wheel_venv(_this_python(), ["jax"])


@pytest.fixture(scope="session")
def gpu_env(wheel_venv):
  """Python of a fresh venv after `pip install jax jaxlib-cuda12`."""
  return wheel_venv(_this_python(), ["jax", "jaxlib-cuda12"])


@pytest.fixture(scope="session")
def rocm_env(wheel_venv):
  """Python of a fresh venv after `pip install jax jaxlib-rocm6`."""
  return wheel_venv(_this_python(), ["jax", "jaxlib-rocm6"])


@pytest.fixture(scope="session")
def all_plugins_env(wheel_venv):
  """Python of a fresh venv with jax and every accelerator plugin installed."""
  return wheel_venv(_this_python(), ["jax", "jaxlib-cuda12", "jaxlib-rocm6", "jaxlib-tpu"])


# Google's CUDA PJRT plugin for JAX 0.10.2 (PJRT 0.112); it needs no GPU to load.
CUDA12_PJRT_WHEEL = "jax-cuda12-pjrt==0.10.2"


@pytest.fixture(scope="session")
def vendor_cuda_env(tmp_path_factory, dist_dir, python_for):
  """A venv of its own (it installs `jax_plugins.xla_cuda12`, which every jax in
  it would discover) with `pip install jax` from our wheels and Google's CUDA
  PJRT plugin from the index, without dependencies (it has none it needs here)."""
  import subprocess
  import jax_build_driver as build_driver  # build/build.py, loaded by tests/conftest.py
  path = tmp_path_factory.mktemp("venv-vendor-cuda")
  python = build_driver.make_venv(str(path / "venv"), python_for(_this_python()), ["jax"],
                                  dist_dir)
  proc = subprocess.run([python, "-m", "pip", "install", "--no-deps", "--quiet",
                         "--disable-pip-version-check", CUDA12_PJRT_WHEEL],
                        capture_output=True, text=True, timeout=1800)
  if proc.returncode != 0:
    pytest.fail(f"pip install {CUDA12_PJRT_WHEEL} failed:\n{proc.stdout}\n{proc.stderr}",
                pytrace=False)
  return python
