"""Our jax on OpenXLA's own CPU PJRT plugin, registered as a vendor plugin is
(`register_plugin(name, library_path=...)`, then JAX_PLATFORMS=<name>), as the
PJRT integration guide describes: devices, eager ops, jit, pmap with psum over
its four devices, donation, device_put, grad, and the optimized program read
back from the plugin. Every value is checked against numpy."""

import os
import subprocess
import textwrap

import pytest

pytestmark = pytest.mark.needs_wheels

_REGISTER = """
import lammps_jax_pjrt_cpu
from jax._src import xla_bridge
plugin = xla_bridge.register_plugin("openxla_cpu",
                                    library_path=str(lammps_jax_pjrt_cpu.PLUGIN_PATH))
"""


def _run(python, code, env=None):
  full_env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "JAX_", "XLA_"))}
  full_env.update(env or {})
  return subprocess.run([python, "-c", _REGISTER + textwrap.dedent(code)], capture_output=True,
                        text=True, env=full_env, cwd="/", timeout=600)


def _ok(proc):
  assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
  return proc.stdout


def test_registered_vendor_plugin_runs_jax(openxla_cpu_env):
  out = _ok(_run(openxla_cpu_env, """
      import numpy as np
      import jax, jax.numpy as jnp
      print("version", plugin.c_api_version)
      print("backend", jax.default_backend(), len(jax.devices("openxla_cpu")))
      print("add", jnp.add(1, 1))
      x = np.linspace(-1, 1, 128 * 128, dtype=np.float32).reshape(128, 128)
      got = jax.jit(lambda a: jnp.sin(a) @ a.T)(x)
      np.testing.assert_allclose(got, np.sin(x) @ x.T, rtol=2e-5, atol=2e-5)
      print("jit ok")
      v = jnp.arange(4.0)
      print("psum", jax.pmap(lambda a: a + jax.lax.psum(a, "i"), axis_name="i")(v + 6))
      g = jax.grad(lambda w: jnp.sum(jnp.tanh(w) ** 2))(jnp.arange(3.0))
      w = np.arange(3.0, dtype=np.float32)
      np.testing.assert_allclose(g, 2 * np.tanh(w) * (1 - np.tanh(w) ** 2), rtol=1e-6)
      print("grad ok")
  """, env={"JAX_PLATFORMS": "openxla_cpu"}))
  assert "version (0, 115)" in out
  assert "backend cpu 4" in out
  assert "add 2" in out and "jit ok" in out and "grad ok" in out
  # Each of the four devices adds the sum over all of them (6+7+8+9 = 30).
  assert "psum [36. 37. 38. 39.]" in out


def test_donation_and_device_put_on_the_vendor_plugin(openxla_cpu_env):
  out = _ok(_run(openxla_cpu_env, """
      import numpy as np
      import jax, jax.numpy as jnp
      devices = jax.devices()
      a = jax.device_put(np.arange(8, dtype=np.float32), devices[2])
      print("placed", a.devices() == {devices[2]}, a.tolist())
      b = jax.jit(lambda x: x * 2, donate_argnums=0)(a)
      print("donated", a.is_deleted(), b.tolist())
      try:
        a + 1
      except RuntimeError as e:
        print("use after donation:", e)
      c = jax.device_put(b, devices[3])
      print("moved", c.devices() == {devices[3]}, np.asarray(c).tolist())
  """, env={"JAX_PLATFORMS": "openxla_cpu"}))
  assert "placed True [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]" in out
  assert "donated True [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0]" in out
  assert "use after donation:" in out and "deleted" in out
  assert "moved True [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0]" in out


def test_optimized_program_comes_back_as_text(openxla_cpu_env):
  # XLA's plugin answers PJRT_Executable_OptimizedProgram with its own
  # optimized module; jaxlib decodes it (fusions and all) with our reader.
  out = _ok(_run(openxla_cpu_env, """
      import jax, jax.numpy as jnp
      compiled = jax.jit(lambda x: jnp.exp(x) * 2 + 1).lower(jnp.ones(16)).compile()
      print(compiled.as_text())
      print("stats", compiled.memory_analysis().argument_size_in_bytes)
  """, env={"JAX_PLATFORMS": "openxla_cpu"}))
  assert "fusion(" in out and "kind=kLoop" in out, out
  assert "stats 64" in out


def test_both_cpu_plugins_in_one_process(openxla_cpu_env):
  # As in JAX, the registered plugin (default priority 400) becomes the default
  # backend over ours; arrays go to the client of the device they are put on,
  # and both compilers give the same values for the same program.
  out = _ok(_run(openxla_cpu_env, """
      import numpy as np
      import jax, jax.numpy as jnp
      f = jax.jit(lambda x: jnp.cumsum(jnp.cos(x)))
      x = np.linspace(0, 3, 50, dtype=np.float32)
      ours = f(jax.device_put(x, jax.devices("cpu")[0]))
      theirs = f(jax.device_put(x, jax.devices("openxla_cpu")[0]))
      print("default", jax.default_backend(), "plugin_version" in jax.devices()[0].client.plugin.attributes)
      np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)
      np.testing.assert_allclose(ours, np.cumsum(np.cos(x)), rtol=1e-5, atol=1e-5)
      print("same")
  """))
  assert "default cpu False" in out and "same" in out


def test_a_library_that_is_not_a_pjrt_plugin_is_refused(openxla_cpu_env, tmp_path):
  lib = tmp_path / "libnot_a_plugin.so"
  subprocess.run(["cc", "-shared", "-fPIC", "-o", str(lib), "-x", "c", "-"],
                 input="int answer(void) { return 42; }\n", text=True, check=True)
  proc = subprocess.run([openxla_cpu_env, "-c", textwrap.dedent(f"""
      from jax._src import xla_bridge
      try:
        xla_bridge.register_plugin("vendor", library_path="{lib}")
      except Exception as e:
        print(type(e).__name__, e)
  """)], capture_output=True, text=True, cwd="/", timeout=300)
  assert "PluginLoadError" in proc.stdout and "does not export GetPjrtApi" in proc.stdout, (
      proc.stdout + proc.stderr)
