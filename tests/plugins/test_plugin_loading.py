"""Plugins load through the C API alone: exported symbols, errors that name the
file and the reason, and two plugins with private LLVM copies in one process.

Runs against installed wheels (the `installed_env` fixture of tests/conftest.py
builds a fresh virtual environment from dist/)."""

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.needs_wheels


def _run(python, code, env=None, check=True):
  full_env = dict(os.environ)
  full_env.update(env or {})
  proc = subprocess.run([python, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                        env=full_env, cwd="/")
  if check and proc.returncode != 0:
    raise AssertionError(f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
  return proc


def _site_packages(python):
  return _run(python, "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip()


def test_every_plugin_exports_only_get_pjrt_api(gpu_env):
  site = _site_packages(gpu_env)
  libs = []
  for root, _, files in os.walk(os.path.join(site, "jax_plugins")):
    libs += [os.path.join(root, f) for f in files if f.endswith("_plugin.so")]
  assert len(libs) >= 2, libs
  for lib in libs:
    out = subprocess.run(["nm", "-D", "--extern-only", "--defined-only", lib], capture_output=True, text=True,
                         check=True).stdout
    symbols = sorted(line.split()[-1] for line in out.splitlines() if line.strip())
    assert symbols == ["GetPjrtApi"], (lib, symbols[:10])


def test_cpu_and_cuda_plugins_in_one_process(gpu_env):
  # Both libraries carry their own LLVM; loading both must not clash, and CPU
  # work goes on while CUDA reports plainly that there is no driver.
  proc = _run(gpu_env, """
      import warnings
      from jaxlib import plugin_support as ps, xla_client as xc
      import jax_plugins.xla_cuda as cuda
      ps.load_pjrt_plugin_dynamically("cuda", cuda.library_path())
      cpu = xc.make_cpu_client()
      exe = cpu.compile_and_load('''HloModule m, entry_computation_layout={(f32[3]{0})->f32[3]{0}}
      ENTRY main.1 {
        p = f32[3]{0} parameter(0)
        ROOT a = f32[3]{0} add(p, p)
      }''', cpu.devices()[:1])
      import numpy as np
      out = exe.execute([cpu.buffer_from_pyval(np.array([1, 2, 3], np.float32), cpu.devices()[0])])
      print(np.asarray(out[0]).tolist())
      try:
        xc.make_c_api_client("cuda")
      except xc.XlaRuntimeError as e:
        print("cuda:", e)
  """)
  assert "[2.0, 4.0, 6.0]" in proc.stdout
  assert "libcuda.so.1" in proc.stdout


def test_missing_library_names_the_file(cpu_env, tmp_path):
  proc = _run(cpu_env, f"""
      from jaxlib import plugin_support as ps
      try:
        ps.load_pjrt_plugin_dynamically("broken", "{tmp_path}/nope.so")
      except Exception as e:
        print(type(e).__name__, e)
  """)
  assert f"{tmp_path}/nope.so does not exist" in proc.stdout


def test_truncated_library_is_refused_with_the_reason(cpu_env, tmp_path):
  site = _site_packages(cpu_env)
  good = os.path.join(site, "jax_plugins", "xla_cpu", "xla_cpu_plugin.so")
  bad = tmp_path / "truncated.so"
  with open(good, "rb") as f:
    bad.write_bytes(f.read(4096))
  proc = _run(cpu_env, f"""
      from jaxlib import plugin_support as ps
      try:
        ps.load_pjrt_plugin_dynamically("broken", "{bad}")
      except Exception as e:
        print(type(e).__name__, e)
  """)
  assert "PluginLoadError" in proc.stdout and str(bad) in proc.stdout


def test_library_without_get_pjrt_api_is_refused(cpu_env, tmp_path):
  lib = tmp_path / "notaplugin.so"
  src = tmp_path / "x.c"
  src.write_text("int some_function(void) { return 1; }\n")
  subprocess.run(["cc", "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
  proc = _run(cpu_env, f"""
      from jaxlib import plugin_support as ps
      try:
        ps.load_pjrt_plugin_dynamically("broken", "{lib}")
      except Exception as e:
        print(type(e).__name__, e)
  """)
  assert "does not export GetPjrtApi" in proc.stdout and str(lib) in proc.stdout


def test_plugin_version_mismatch_names_both_versions_and_the_fix(cpu_env):
  proc = _run(cpu_env, """
      from jaxlib import plugin_support as ps, version
      try:
        ps.check_plugin_version("cuda", "1!0.0.9")
      except ps.PluginVersionError as e:
        print(e)
  """)
  assert "1!0.0.9" in proc.stdout and "1!0.1.0" in proc.stdout
  assert 'pip install "jaxlib-cuda12==1!0.1.0"' in proc.stdout


def test_no_gpu_warns_once_and_falls_back_to_cpu(gpu_env):
  proc = _run(gpu_env, """
      import jax, jax.numpy as jnp
      print(jnp.add(1, 1), jax.default_backend())
  """)
  assert proc.stdout.split() == ["2", "cpu"]
  assert proc.stderr.count("Platform 'cuda' is skipped") == 1, proc.stderr


def test_requested_cuda_without_driver_raises_the_reason(gpu_env):
  proc = _run(gpu_env, "import jax; jax.devices()", env={"JAX_PLATFORMS": "cuda"}, check=False)
  assert proc.returncode != 0
  assert "Unable to initialize backend 'cuda'" in proc.stderr
  assert "libcuda.so.1" in proc.stderr
