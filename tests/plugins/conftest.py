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
