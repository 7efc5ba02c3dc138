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

from fake_drivers import COMGR_SOURCE, CUDA_INIT_ONLY_SOURCE, HIP_SOURCE, build_fake_library

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


def test_every_plugin_exports_only_get_pjrt_api(all_plugins_env):
  site = _site_packages(all_plugins_env)
  libs = []
  for root, _, files in os.walk(os.path.join(site, "jax_plugins")):
    libs += [os.path.join(root, f) for f in files if f.endswith("_plugin.so")]
  # jaxlib-tpu ships no library of its own: it registers the user's libtpu.
  assert sorted(os.path.basename(lib) for lib in libs) == [
      "xla_cpu_plugin.so", "xla_cuda_plugin.so", "xla_rocm_plugin.so"]
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


def test_every_plugin_in_one_process(all_plugins_env):
  # Our three libraries, each with its own XLA and LLVM, and Google's libtpu: CPU
  # runs, the others compile through their compile-only clients (libtpu's for a
  # topology), and plain jax still runs on the CPU.
  proc = _run(all_plugins_env, """
      import warnings
      import numpy as np
      from jaxlib import plugin_support as ps, xla_client as xc
      import jax_plugins.xla_tpu as tpu
      TEXT = '''HloModule m, entry_computation_layout={(f32[8,128]{1,0})->f32[8,128]{1,0}}
      ENTRY main.1 {
        p = f32[8,128]{1,0} parameter(0)
        ROOT a = f32[8,128]{1,0} add(p, p)
      }'''
      cpu = xc.make_cpu_client()
      cuda = xc.make_gpu_client(platform_name="cuda", mock=True)
      rocm = xc.make_gpu_client(platform_name="rocm", mock=True)
      tpu.configure_environment()
      ps.load_pjrt_plugin_dynamically("tpu", tpu.library_path())
      tpu_client = xc.make_compile_only_client(xc.make_c_api_device_topology("tpu", "v5e:1x1"))
      for client in (cuda, rocm, tpu_client):
        exe = client.compile_and_load(TEXT, client.devices()[:1])
        print(client.platform, "compiled", "add(" in exe.as_text())
      x = np.arange(8 * 128, dtype=np.float32).reshape(8, 128)
      exe = cpu.compile_and_load(TEXT, cpu.devices()[:1])
      (out,) = exe.execute([cpu.buffer_from_pyval(x, cpu.devices()[0])])
      print("cpu ok", bool((np.asarray(out) == 2 * x).all()))
      with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        import jax, jax.numpy as jnp
        print("jax", jax.default_backend(), int(jnp.add(1, 1)))
  """)
  for line in ("cuda compiled True", "rocm compiled True", "tpu compiled True", "cpu ok True",
               "jax cpu 2"):
    assert line in proc.stdout, proc.stdout + proc.stderr


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


# ------------------------------------------------------- drivers that are missing or lacking
# The stand-in libraries (fake_drivers.py) go on LD_LIBRARY_PATH, where the
# plugins' dlopen looks.


def _make_rocm_client(python, env=None):
  """Creates the ROCm client through the C API; prints its devices or the error."""
  return _run(python, """
      from jaxlib import plugin_support as ps, xla_client as xc
      import jax_plugins.xla_rocm as rocm
      ps.load_pjrt_plugin_dynamically("rocm", rocm.library_path())
      try:
        client = xc.make_c_api_client("rocm")
        print("version:", client.platform_version)
        print("devices:", [(str(d), d.device_kind) for d in client.devices()])
      except xc.XlaRuntimeError as e:
        print("error:", e)
  """, env=env)


def test_rocm_without_hip_names_the_library_and_the_fix(rocm_env, tmp_path):
  proc = _make_rocm_client(rocm_env, {"LD_LIBRARY_PATH": str(tmp_path)})
  assert "error:" in proc.stdout
  assert "libamdhip64.so or libamdhip64.so.6" in proc.stdout
  assert "Install ROCm 6" in proc.stdout and "mock=True" in proc.stdout


def test_requested_rocm_without_hip_raises_the_reason(rocm_env):
  proc = _run(rocm_env, "import jax; jax.devices()", env={"JAX_PLATFORMS": "rocm"}, check=False)
  assert proc.returncode != 0
  assert "Unable to initialize backend 'rocm'" in proc.stderr
  assert "libamdhip64.so" in proc.stderr


def test_hip_library_lacking_a_function_names_it(rocm_env, tmp_path):
  build_fake_library(tmp_path, "libamdhip64.so", HIP_SOURCE, omit=["hipModuleLaunchKernel"])
  proc = _make_rocm_client(rocm_env, {"LD_LIBRARY_PATH": str(tmp_path), "FAKE_HIP_DEVICES": "1"})
  assert "libamdhip64.so lacks hipModuleLaunchKernel" in proc.stdout


def test_versioned_hip_library_is_found_and_named(rocm_env, tmp_path):
  build_fake_library(tmp_path, "libamdhip64.so.6", HIP_SOURCE, omit=["hipGetErrorName"])
  proc = _make_rocm_client(rocm_env, {"LD_LIBRARY_PATH": str(tmp_path), "FAKE_HIP_DEVICES": "1"})
  assert "libamdhip64.so.6 lacks hipGetErrorName" in proc.stdout


def test_cuda_driver_lacking_a_function_names_it(gpu_env, tmp_path):
  build_fake_library(tmp_path, "libcuda.so.1", CUDA_INIT_ONLY_SOURCE)
  proc = _run(gpu_env, """
      from jaxlib import plugin_support as ps, xla_client as xc
      import jax_plugins.xla_cuda as cuda
      ps.load_pjrt_plugin_dynamically("cuda", cuda.library_path())
      try:
        xc.make_c_api_client("cuda")
      except xc.XlaRuntimeError as e:
        print("error:", e)
  """, env={"LD_LIBRARY_PATH": str(tmp_path)})
  assert "libcuda.so.1 lacks cuGetErrorName" in proc.stdout


def test_hip_without_devices_says_so_and_what_to_check(rocm_env, tmp_path):
  build_fake_library(tmp_path, "libamdhip64.so", HIP_SOURCE)
  proc = _make_rocm_client(rocm_env, {"LD_LIBRARY_PATH": str(tmp_path), "FAKE_HIP_DEVICES": "0"})
  assert "found no AMD GPU: libamdhip64.so reports no devices" in proc.stdout
  assert "/dev/kfd" in proc.stdout and "mock=True" in proc.stdout


def test_hip_device_without_comgr_names_it(rocm_env, tmp_path):
  build_fake_library(tmp_path, "libamdhip64.so", HIP_SOURCE)
  proc = _make_rocm_client(rocm_env, {"LD_LIBRARY_PATH": str(tmp_path), "FAKE_HIP_DEVICES": "1"})
  assert "libamd_comgr.so or libamd_comgr.so.3 or libamd_comgr.so.2" in proc.stdout
  assert "LD_LIBRARY_PATH" in proc.stdout


def test_rocm_client_over_stand_in_hip_and_comgr(rocm_env, tmp_path):
  # Devices and their architecture come from HIP; buffers go through HIP's
  # copies; compiling links through comgr, whose failure log reaches the user.
  build_fake_library(tmp_path, "libamdhip64.so", HIP_SOURCE)
  build_fake_library(tmp_path, "libamd_comgr.so", COMGR_SOURCE)
  env = {"LD_LIBRARY_PATH": str(tmp_path), "FAKE_HIP_DEVICES": "2",
         "FAKE_HIP_ARCH": "gfx942:sramecc+:xnack-"}
  proc = _make_rocm_client(rocm_env, env)
  assert "version: rocm gfx942" in proc.stdout, proc.stdout
  assert "('rocm:0', 'Fake Instinct'), ('rocm:1', 'Fake Instinct')" in proc.stdout
  proc = _run(rocm_env, """
      import jax, numpy as np
      devices = jax.devices()
      print("platform:", devices[0].platform, len(devices))
      x = jax.device_put(np.arange(6, dtype=np.float32).reshape(2, 3), devices[1])
      print("back:", np.asarray(x).tolist())
      try:
        jax.jit(lambda a: a * 2)(x)
      except Exception as e:
        print("jit:", e)
  """, env={**env, "JAX_PLATFORMS": "rocm"})
  assert "platform: rocm 2" in proc.stdout
  assert "back: [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]" in proc.stdout
  # comgr 2.x numbers the link action 9 (the stand-in fails other actions with status 2).
  assert "linking the kernels (amd_comgr_do_action) failed with status 1" in proc.stdout
  assert "ld.lld: error: fake link failure" in proc.stdout
