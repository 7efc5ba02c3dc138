"""Google's CUDA PJRT plugin (`pip install jax-cuda12-pjrt`) under our jax on a
machine without a GPU: its initialize() runs against our jax, and jax falls
back to the CPU saying why, as JAX does.

- As installed alone, the plugin's own check of the CUDA libraries it expects
  beside it (jax-cuda12-plugin) fails an assertion: the warning names it.
- With that check skipped (JAX_SKIP_CUDA_CONSTRAINTS_CHECK, the plugin's own
  switch), jaxlib loads its PJRT library (PJRT 0.112), client creation fails
  with the plugin's "No visible GPU devices", and jax runs on the CPU.
- Asked for by name (JAX_PLATFORMS=cuda), the plugin's reason is the error."""

import os
import subprocess

import pytest

pytestmark = pytest.mark.needs_wheels

_PROGRAM = "import jax, jax.numpy as jnp; print(jax.default_backend(), jnp.add(1, 2))"


def _run(python, env=None):
  full_env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "JAX_", "XLA_"))}
  full_env.update(env or {})
  return subprocess.run([python, "-c", _PROGRAM], capture_output=True, text=True, env=full_env,
                        cwd="/", timeout=600)


def test_plugin_without_its_cuda_libraries_is_skipped_with_its_reason(vendor_cuda_env):
  proc = _run(vendor_cuda_env)
  assert proc.returncode == 0, proc.stderr
  assert proc.stdout.split() == ["cpu", "3"]
  assert "jax_plugins.xla_cuda12" in proc.stderr and "failed to initialize" in proc.stderr
  assert "AssertionError at " in proc.stderr and "cuda_versions" in proc.stderr, proc.stderr


def test_plugin_loads_and_without_a_gpu_jax_falls_back_to_cpu(vendor_cuda_env):
  proc = _run(vendor_cuda_env, {"JAX_SKIP_CUDA_CONSTRAINTS_CHECK": "1"})
  assert proc.returncode == 0, proc.stderr
  assert proc.stdout.split() == ["cpu", "3"]
  assert "Platform 'cuda' is skipped" in proc.stderr, proc.stderr
  assert "xla_cuda_plugin.so" in proc.stderr and "No visible GPU devices" in proc.stderr


def test_plugin_asked_for_by_name_raises_its_reason(vendor_cuda_env):
  proc = _run(vendor_cuda_env, {"JAX_SKIP_CUDA_CONSTRAINTS_CHECK": "1", "JAX_PLATFORMS": "cuda"})
  assert proc.returncode != 0
  assert "Unable to initialize backend 'cuda'" in proc.stderr, proc.stderr
  assert "No visible GPU devices" in proc.stderr


def test_plugin_library_is_driven_through_jaxlib_loader(vendor_cuda_env):
  # The library itself, loaded by path: a PJRT plugin of another minor version
  # that jaxlib accepts, whose client creation fails cleanly.
  code = """
import jax_plugins.xla_cuda12 as p
from jaxlib import plugin_support, xla_client
plugin = plugin_support.load_pjrt_plugin_dynamically("cuda", str(p._get_library_path()))
print("version", plugin.c_api_version)
try:
  xla_client.make_c_api_client("cuda", {})
except Exception as e:
  print(type(e).__name__, e)
"""
  proc = subprocess.run([vendor_cuda_env, "-c", code], capture_output=True, text=True, cwd="/",
                        timeout=600)
  assert proc.returncode == 0, proc.stderr
  assert "version (0, 112)" in proc.stdout, proc.stdout
  assert "XlaRuntimeError FAILED_PRECONDITION: No visible GPU devices" in proc.stdout, proc.stdout
