"""Shared fixtures. Execution tests use the `backend` fixture: they run on our jaxlib
backend when it initialises; with JAX_TESTS_USE_REALJAX=1 they may instead run on the
optional dev adapter over real jaxlib (tests/jax/tools/realjax_backend.py); else skip."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "tools"))

# Four virtual CPU devices, so pmap, shard_map and sharding tests run everywhere
# (set before the first backend use; an explicit setting wins).
os.environ.setdefault("JAX_NUM_CPU_DEVICES", "4")


@pytest.fixture(scope="session")
def backend():
  if os.environ.get("JAX_TESTS_USE_REALJAX") == "1":
    import realjax_backend
    if realjax_backend.install():
      from jax._src import xla_bridge
      return xla_bridge.get_backend()
  pytest.importorskip("jaxlib._jax")
  from jax._src import xla_bridge
  try:
    return xla_bridge.get_backend()
  except Exception as e:  # no plugin built yet
    pytest.skip(f"no backend: {e}")


@pytest.fixture(autouse=True)
def _restore_x64():
  from jax._src.config import config
  saved = config.jax_enable_x64
  yield
  if config.jax_enable_x64 != saved:
    config.update("jax_enable_x64", saved)
