"""Version rules and broken installs, as an installed jax meets them: a plugin
whose initialize() raises, PJRT C API major and minor versions outside what
jaxlib drives, tables missing functions, a jaxlib older than jax's minimum, and
a plugin installed twice.

Fake plugins here are real shared objects: a small C shim built against this
repository's PJRT C API header, wrapping the installed CPU plugin's table and
reporting another version or lacking functions, as real plugins of other
PJRT versions do."""

import os
import shutil
import subprocess
import textwrap

import pytest

pytestmark = pytest.mark.needs_wheels


def _run(python, code, env=None, cwd="/"):
  full_env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
  full_env.update(env or {})
  return subprocess.run([python, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                        env=full_env, cwd=cwd, timeout=300)


def _ok(proc):
  assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
  return proc


def _site_packages(python):
  return _ok(_run(python, "import sysconfig; print(sysconfig.get_paths()['purelib'])")).stdout.strip()


def _cpu_library(python):
  return os.path.join(_site_packages(python), "jax_plugins", "xla_cpu", "xla_cpu_plugin.so")


_SHIM = r"""
#include <dlfcn.h>
#include <string.h>
#include "xla/pjrt/c/pjrt_c_api.h"

/* The installed CPU plugin's table, reporting PJRT version MAJOR.MINOR, ending
   after LAST_FUNCTION, and optionally without NULL_FUNCTION. */
static PJRT_Api table;

const PJRT_Api* GetPjrtApi(void) {
  void* real = dlopen(REAL_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  if (real == NULL) return NULL;
  PJRT_GetPjrtApi_Fn get = (PJRT_GetPjrtApi_Fn)dlsym(real, "GetPjrtApi");
  memcpy(&table, get(), sizeof table);
  table.pjrt_api_version.major_version = MAJOR;
  table.pjrt_api_version.minor_version = MINOR;
  table.struct_size = PJRT_STRUCT_SIZE(PJRT_Api, LAST_FUNCTION);
#ifdef NULL_FUNCTION
  table.NULL_FUNCTION = NULL;
#endif
  return &table;
}
"""


@pytest.fixture
def shim_plugin(cpu_env, repo_root, tmp_path):
  """Builds a plugin library that reports C API `major.minor` with a table
  ending at `last_function`."""
  def build(major, minor, last_function, null_function=None):
    src = tmp_path / "shim.c"
    src.write_text(_SHIM)
    lib = tmp_path / f"shim_{major}_{minor}.so"
    extra = [f"-DNULL_FUNCTION={null_function}"] if null_function else []
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(lib), str(src), f"-I{repo_root}",
                    f'-DREAL_PLUGIN="{_cpu_library(cpu_env)}"', f"-DMAJOR={major}",
                    f"-DMINOR={minor}", f"-DLAST_FUNCTION={last_function}", *extra, "-ldl"],
                   check=True)
    return str(lib)
  return build


_ADD_MODULE = '''HloModule m, entry_computation_layout={(f32[3]{0})->f32[3]{0}}
ENTRY main.1 {
  p = f32[3]{0} parameter(0)
  ROOT a = f32[3]{0} add(p, p)
}'''


def test_plugin_of_an_older_minor_without_a_function_loads_and_runs(cpu_env, shim_plugin):
  # A plugin may leave optional slots empty (real PJRT plugins do): jaxlib runs
  # programs on it and says plainly what the plugin cannot do.
  lib = shim_plugin(0, 80, "PJRT_TopologyDescription_GetMemorySpaceKindIds",
                    "PJRT_Executable_Serialize")
  proc = _ok(_run(cpu_env, f"""
      import numpy as np
      from jaxlib import plugin_support as ps, xla_client as xc
      ps.load_pjrt_plugin_dynamically("old", "{lib}")
      client = xc.make_c_api_client("old")
      exe = client.compile_and_load({_ADD_MODULE!r}, client.devices()[:1])
      x = client.buffer_from_pyval(np.array([1, 2, 3], np.float32), client.devices()[0])
      print(np.asarray(exe.execute([x])[0]).tolist())
      try:
        exe.serialize()
      except xc.XlaRuntimeError as e:
        print("serialize:", e)
  """))
  assert "[2.0, 4.0, 6.0]" in proc.stdout
  assert "serialize: UNIMPLEMENTED: serializing an executable is not supported" in proc.stdout
  assert "(PJRT C API 0.80)" in proc.stdout and lib in proc.stdout


def test_plugin_of_a_newer_minor_loads(cpu_env, shim_plugin):
  # PJRT tables only grow and structs carry their size: a plugin some minors
  # newer than jaxlib's header is driven through the part jaxlib knows.
  lib = shim_plugin(0, 200, "PJRT_TopologyDescription_GetMemorySpaceKindIds")
  proc = _ok(_run(cpu_env, f"""
      import numpy as np
      from jaxlib import plugin_support as ps, xla_client as xc
      plugin = ps.load_pjrt_plugin_dynamically("newer", "{lib}")
      client = xc.make_c_api_client("newer")
      exe = client.compile_and_load({_ADD_MODULE!r}, client.devices()[:1])
      x = client.buffer_from_pyval(np.array([1, 2, 3], np.float32), client.devices()[0])
      print(plugin.c_api_version, np.asarray(exe.execute([x])[0]).tolist())
  """))
  assert "(0, 200) [2.0, 4.0, 6.0]" in proc.stdout, proc.stdout


def test_current_version_reaches_the_plugin(cpu_env):
  # With a complete table jaxlib serializes executables, views host buffers in
  # place through external references, and hands numpy's memory over with
  # PJRT's zero-copy semantics.
  proc = _ok(_run(cpu_env, f"""
      import numpy as np
      from jaxlib import xla_client as xc
      client = xc.make_cpu_client()
      exe = client.compile_and_load({_ADD_MODULE!r}, client.devices()[:1])
      print("serialized", len(exe.serialize()) > 0)
      x = client.buffer_from_pyval(np.array([1, 2, 3], np.float32), client.devices()[0],
                                   force_copy=True)
      view = np.asarray(x)
      print("in place", view.ctypes.data == x.unsafe_buffer_pointer(), view.flags.writeable)
      a = np.array([1, 2, 3], np.float32)
      print("zero copy", client.buffer_from_pyval(a, client.devices()[0]).unsafe_buffer_pointer()
            == a.ctypes.data)
  """))
  assert "serialized True" in proc.stdout, proc.stdout
  assert "in place True False" in proc.stdout, proc.stdout
  assert "zero copy True" in proc.stdout, proc.stdout


def test_plugin_without_external_references_gives_numpy_copies(cpu_env, shim_plugin):
  # Without external references numpy gets a copy, never a dangling view.
  lib = shim_plugin(0, 114, "PJRT_TopologyDescription_GetMemorySpaceKindIds",
                    "PJRT_Buffer_IncreaseExternalReferenceCount")
  proc = _ok(_run(cpu_env, f"""
      import numpy as np
      from jaxlib import plugin_support as ps, xla_client as xc
      ps.load_pjrt_plugin_dynamically("noref", "{lib}")
      client = xc.make_c_api_client("noref")
      x = client.buffer_from_pyval(np.array([1, 2, 3], np.float32), client.devices()[0])
      view = np.asarray(x)
      print(view.tolist(), view.ctypes.data == x.unsafe_buffer_pointer())
  """))
  assert "[1.0, 2.0, 3.0] False" in proc.stdout, proc.stdout


@pytest.mark.parametrize("major,minor,said", [
    (0, 56, "implements PJRT C API 0.56, but this jaxlib drives PJRT C API 0.57 or newer"),
    (1, 0, "implements PJRT C API 1.0, but this jaxlib drives PJRT C API 0.57 or newer"),
])
def test_pjrt_version_outside_the_range_is_refused(cpu_env, shim_plugin, major, minor, said):
  lib = shim_plugin(major, minor, "PJRT_TopologyDescription_GetMemorySpaceKindIds")
  proc = _run(cpu_env, f"""
      from jaxlib import plugin_support as ps
      try:
        ps.load_pjrt_plugin_dynamically("outside", "{lib}")
      except Exception as e:
        print(type(e).__name__, e)
  """)
  assert "PluginLoadError" in proc.stdout and lib in proc.stdout, proc.stdout
  assert said in proc.stdout, proc.stdout
  assert "(this jaxlib was built with 0.114)" in proc.stdout


def _fake_plugin(folder, name, body):
  """A plugin module in a `jax_plugins` namespace folder (no __init__.py there)."""
  pkg = folder / "jax_plugins" / name
  pkg.mkdir(parents=True)
  (pkg / "__init__.py").write_text(textwrap.dedent(body))
  return pkg / "__init__.py"


def test_manifest_with_another_c_api_major_is_skipped_before_loading(cpu_env, tmp_path):
  # The manifest alone decides: the library path does not even exist.
  _fake_plugin(tmp_path, "xla_future", f"""
      def initialize():
        from jax._src import xla_bridge
        import jaxlib.version
        xla_bridge.register_plugin("future", priority=900, library_path="{tmp_path}/none.so",
                                   version=jaxlib.version.__version__, c_api_version=(2, 0))
  """)
  proc = _ok(_run(cpu_env, "import jax.numpy as jnp, jax; print(jnp.add(1, 1), jax.default_backend())",
                  env={"PYTHONPATH": str(tmp_path)}))
  assert proc.stdout.split() == ["2", "cpu"]
  assert proc.stderr.count("Platform 'future' is skipped") == 1, proc.stderr
  assert "C API 2.0" in proc.stderr and "needs major version 0" in proc.stderr
  assert "does not exist" not in proc.stderr


def test_plugin_whose_initialize_raises_is_skipped_with_one_warning(cpu_env, tmp_path):
  init = _fake_plugin(tmp_path, "xla_broken", """
      def initialize():
        raise RuntimeError("libbroken_driver.so.1 is missing")
  """)
  env = {"PYTHONPATH": str(tmp_path)}
  proc = _ok(_run(cpu_env, "import jax.numpy as jnp, jax; print(jnp.add(1, 1), jax.default_backend())",
                  env=env))
  assert proc.stdout.split() == ["2", "cpu"]
  assert proc.stderr.count("jax_plugins.xla_broken") == 1, proc.stderr
  assert "libbroken_driver.so.1 is missing" in proc.stderr and str(init) in proc.stderr

  # Asked for by name, the plugin's own failure is the error (not "not installed").
  proc = _run(cpu_env, "import jax; jax.devices()", env={**env, "JAX_PLATFORMS": "broken"})
  assert proc.returncode != 0
  assert "BackendError: Unable to initialize backend 'broken'" in proc.stderr
  assert "libbroken_driver.so.1 is missing" in proc.stderr and str(init) in proc.stderr


def test_jaxlib_older_than_the_minimum_is_refused_at_import(cpu_env, tmp_path):
  # A copy of the installed jaxlib that says it is an old release, first on the path.
  site = _site_packages(cpu_env)
  shutil.copytree(os.path.join(site, "jaxlib"), tmp_path / "jaxlib")
  version_py = tmp_path / "jaxlib" / "version.py"
  text = version_py.read_text()
  proc = _ok(_run(cpu_env, "import jaxlib.version as v, jax.version as j; "
                           "print(v.__version__, j._minimum_jaxlib_version)"))
  installed, minimum = proc.stdout.split()
  version_py.write_text(text.replace(installed, "1!0.0.1"))
  assert "1!0.0.1" in version_py.read_text()
  proc = _run(cpu_env, "import jax", env={"PYTHONPATH": str(tmp_path)})
  assert proc.returncode != 0
  assert "JaxlibVersionError" in proc.stderr
  assert f"needs jaxlib >= {minimum}" in proc.stderr and "jaxlib 1!0.0.1 is installed" in proc.stderr
  assert 'pip install "jaxlib==' in proc.stderr


def test_plugin_installed_twice_uses_one_copy_and_says_so(cpu_env, tmp_path):
  site = _site_packages(cpu_env)
  shutil.copytree(os.path.join(site, "jax_plugins", "xla_cpu"), tmp_path / "jax_plugins" / "xla_cpu")
  proc = _ok(_run(cpu_env, """
      import jax, jax.numpy as jnp
      from jax._src import xla_bridge
      print(jnp.add(1, 1), jax.default_backend())
      print(xla_bridge.discovery_report()["registered"]["cpu"]["library_path"])
  """, env={"PYTHONPATH": str(tmp_path)}))
  first, library = proc.stdout.splitlines()
  assert first.split() == ["2", "cpu"]
  assert library.startswith(str(tmp_path))  # the first copy on sys.path wins
  assert proc.stderr.count("jax_plugins.xla_cpu is installed more than once") == 1, proc.stderr
  assert str(tmp_path) in proc.stderr and site in proc.stderr


@pytest.mark.parametrize("null_function,last_function", [
    ("PJRT_Plugin_Initialize", "PJRT_TopologyDescription_GetMemorySpaceKindIds"),
    ("PJRT_Client_Compile", "PJRT_TopologyDescription_GetMemorySpaceKindIds"),
    (None, "PJRT_LoadedExecutable_IsDeleted"),  # a table ending before Execute
])
def test_table_without_a_function_jaxlib_needs_is_refused(cpu_env, shim_plugin, null_function,
                                                          last_function):
  # Refused at load time, before jaxlib calls anything through an empty slot.
  lib = shim_plugin(0, 114, last_function, null_function)
  proc = _run(cpu_env, f"""
      from jaxlib import plugin_support as ps
      try:
        ps.load_pjrt_plugin_dynamically("holey", "{lib}")
      except Exception as e:
        print(type(e).__name__, e)
  """)
  assert proc.returncode == 0, proc.stderr
  assert "PluginLoadError" in proc.stdout and lib in proc.stdout, proc.stdout
  missing = null_function or "PJRT_LoadedExecutable_Execute"
  assert f"lacks C API functions jaxlib needs: {missing}" in proc.stdout, proc.stdout
