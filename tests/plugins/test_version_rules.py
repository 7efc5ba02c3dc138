"""Version rules and broken installs, as an installed jax meets them: a plugin
whose initialize() raises, C API major and minor mismatches, a jaxlib older
than jax's minimum, and a plugin installed twice.

Fake plugins here are real shared objects: a small C shim built against this
repository's C API header, wrapping the installed CPU plugin's table and
reporting another version."""

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

/* The installed CPU plugin's table, reporting version MAJOR.MINOR and only the
   functions that version had. */
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


def test_plugin_from_an_older_minor_version_loads_and_runs(cpu_env, shim_plugin):
  lib = shim_plugin(1, 0, "PJRT_LoadedExecutable_Execute")
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
  # The 1.1 function is absent from a 1.0 table: a clear error, never a call past its end.
  assert "serialize: UNIMPLEMENTED" in proc.stdout
  assert "needs C API version 1.1" in proc.stdout and "implements 1.0" in proc.stdout
  assert lib in proc.stdout


def test_current_minor_version_reaches_the_plugin(cpu_env):
  # With a current table jaxlib calls the 1.1 and 1.2 functions, fills in the
  # 1.3 fields, and the CPU backend answers: a serialized executable, in-place
  # numpy views, and a zero-copy buffer over numpy's memory.
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


@pytest.mark.parametrize("minor", [0, 2])
def test_plugin_before_1_3_gets_copies_and_keeps_no_array(cpu_env, shim_plugin, minor):
  # The real CPU backend behind the shim could use numpy's memory in place, but
  # a plugin reporting an older version never hands the array back: jaxlib must
  # copy, and hold no reference to the array.
  last = {0: "PJRT_LoadedExecutable_Execute", 2: "PJRT_Buffer_DecreaseExternalReferenceCount"}
  lib = shim_plugin(1, minor, last[minor])
  proc = _ok(_run(cpu_env, f"""
      import gc, weakref
      import numpy as np
      from jaxlib import plugin_support as ps, xla_client as xc
      ps.load_pjrt_plugin_dynamically("old", "{lib}")
      client = xc.make_c_api_client("old")
      a = np.array([1, 2, 3, 4], np.float32)
      alive = weakref.ref(a)
      x = client.buffer_from_pyval(a, client.devices()[0])
      print("copied", x.unsafe_buffer_pointer() != a.ctypes.data)
      del a
      gc.collect()
      print("released", alive() is None)
      print(np.asarray(x).tolist())
  """))
  assert "copied True" in proc.stdout and "released True" in proc.stdout, proc.stdout
  assert "[1.0, 2.0, 3.0, 4.0]" in proc.stdout


def test_1_3_adds_no_functions_so_a_1_2_length_table_loads(cpu_env, shim_plugin):
  # 1.3 appended struct fields only: a table that ends at the 1.2 functions is
  # complete for 1.3, and the zero-copy fields reach the backend.
  lib = shim_plugin(1, 3, "PJRT_Buffer_DecreaseExternalReferenceCount")
  proc = _ok(_run(cpu_env, f"""
      import numpy as np
      from jaxlib import plugin_support as ps, xla_client as xc
      ps.load_pjrt_plugin_dynamically("same", "{lib}")
      client = xc.make_c_api_client("same")
      a = np.array([1, 2, 3, 4], np.float32)
      x = client.buffer_from_pyval(a, client.devices()[0])
      print("zero copy", x.unsafe_buffer_pointer() == a.ctypes.data)
  """))
  assert "zero copy True" in proc.stdout, proc.stdout


def test_plugin_without_external_references_gives_numpy_copies(cpu_env, shim_plugin):
  # A 1.1 plugin has no external references: numpy gets a copy, never a dangling view.
  lib = shim_plugin(1, 1, "PJRT_LoadedExecutable_Serialize")
  proc = _ok(_run(cpu_env, f"""
      import numpy as np
      from jaxlib import plugin_support as ps, xla_client as xc
      ps.load_pjrt_plugin_dynamically("older", "{lib}")
      client = xc.make_c_api_client("older")
      x = client.buffer_from_pyval(np.array([1, 2, 3], np.float32), client.devices()[0])
      view = np.asarray(x)
      print(view.tolist(), view.ctypes.data == x.unsafe_buffer_pointer())
  """))
  assert "[1.0, 2.0, 3.0] False" in proc.stdout, proc.stdout


@pytest.mark.parametrize("minor,last_function,missing", [
    (1, "PJRT_LoadedExecutable_Execute", "1.1"),
    (2, "PJRT_LoadedExecutable_Serialize", "1.2"),
])
def test_table_shorter_than_its_minor_version_is_refused(cpu_env, shim_plugin, minor,
                                                         last_function, missing):
  lib = shim_plugin(1, minor, last_function)
  proc = _run(cpu_env, f"""
      from jaxlib import plugin_support as ps
      try:
        ps.load_pjrt_plugin_dynamically("short", "{lib}")
      except Exception as e:
        print(type(e).__name__, e)
  """)
  assert "PluginLoadError" in proc.stdout and lib in proc.stdout
  assert f"ends before version {missing}'s functions" in proc.stdout


def test_c_api_major_mismatch_is_refused_naming_both_versions(cpu_env, shim_plugin):
  lib = shim_plugin(2, 0, "PJRT_LoadedExecutable_Serialize")
  proc = _run(cpu_env, f"""
      from jaxlib import plugin_support as ps
      try:
        ps.load_pjrt_plugin_dynamically("future", "{lib}")
      except Exception as e:
        print(type(e).__name__, e)
  """)
  assert "PluginLoadError" in proc.stdout and lib in proc.stdout
  assert "implements C API version 2.0" in proc.stdout
  assert "needs major version 1" in proc.stdout


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
  assert "C API 2.0" in proc.stderr and "needs major version 1" in proc.stderr
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


@pytest.mark.parametrize("null_function", ["PJRT_Plugin_Initialize", "PJRT_Client_Compile"])
def test_table_with_a_null_function_is_refused(cpu_env, shim_plugin, null_function):
  # A NULL entry within the table's length is refused at load time, before
  # jaxlib calls anything through it (it used to jump to address 0).
  lib = shim_plugin(1, 3, "PJRT_Buffer_DecreaseExternalReferenceCount", null_function)
  proc = _run(cpu_env, f"""
      from jaxlib import plugin_support as ps
      try:
        ps.load_pjrt_plugin_dynamically("holey", "{lib}")
      except Exception as e:
        print(type(e).__name__, e)
  """)
  assert proc.returncode == 0, proc.stderr
  assert "PluginLoadError" in proc.stdout and lib in proc.stdout, proc.stdout
  assert "has no function in entry" in proc.stdout, proc.stdout
