"""The wheels in dist/ as a user gets them: their metadata and tags, the plugin
libraries' exports, and installs into fresh virtualenvs.

Build the wheels first (python3 build/build.py build --wheels=all --python=...);
without them these tests skip (or fail under JAX_REQUIRE_WHEELS=1).
"""

from __future__ import annotations

import base64
import ctypes
import email.parser
import hashlib
import json
import os
import re
import subprocess
import tempfile
import zipfile

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

pytestmark = pytest.mark.needs_wheels

OURS = ["jax", "jaxlib", "jaxlib-cpu", "jaxlib-cuda12", "jaxlib-rocm6", "jaxlib-tpu"]
PLUGINS = {  # distribution -> extra of jax that pins it
    "jaxlib-cpu": "cpu",
    "jaxlib-cuda12": "cuda12",
    "jaxlib-rocm6": "rocm6",
    "jaxlib-tpu": "tpu",
}
# The plugins that carry a library of our own (jaxlib-tpu registers the user's libtpu).
NATIVE_PLUGINS = sorted(set(PLUGINS) - {"jaxlib-tpu"})
# One manylinux tag, PEP 600 style or a legacy alias (manylinux2014_x86_64); a
# wheel may carry several, joined by dots.
MANYLINUX = r"manylinux(_\d+_\d+|1|2010|2014)_x86_64"
QUICKSTART = "import jax, jax.numpy as jnp; print(jnp.add(1, 1))"


# ---------------------------------------------------------------------------- helpers


def metadata(path: str) -> email.message.Message:
  with zipfile.ZipFile(path) as whl:
    name = next(n for n in whl.namelist() if n.endswith(".dist-info/METADATA"))
    return email.parser.Parser().parsestr(whl.read(name).decode("utf-8"))


def dist_info_file(path: str, filename: str) -> str | None:
  with zipfile.ZipFile(path) as whl:
    for name in whl.namelist():
      if name.endswith(".dist-info/" + filename) and name.count("/") == 1:
        return whl.read(name).decode("utf-8")
  return None


def requirements(path: str, extra: str | None = None) -> dict[str, Requirement]:
  """Requires-Dist by normalized name: the unconditional ones (extra=None), or
  those that only `extra` adds."""
  result = {}
  for line in metadata(path).get_all("Requires-Dist") or []:
    req = Requirement(line)
    base = req.marker is None or req.marker.evaluate({"extra": ""})
    if extra is None:
      wanted = base
    else:
      wanted = not base and req.marker.evaluate({"extra": extra})
    if wanted:
      result[canonicalize_name(req.name)] = req
  return result


def specifiers(req: Requirement) -> set[str]:
  return {str(s) for s in req.specifier}


def exported_symbols(path: str) -> list[str]:
  out = subprocess.run(["nm", "-D", "--extern-only", "--defined-only", path], check=True,
                       capture_output=True, text=True).stdout
  return sorted(line.split()[-1] for line in out.splitlines() if line.strip())


def shared_objects(path: str) -> list[str]:
  with zipfile.ZipFile(path) as whl:
    return [n for n in whl.namelist()
            if n.endswith(".so") or ".so." in os.path.basename(n)]


def run_in(python: str, code: str) -> subprocess.CompletedProcess:
  """Runs code in a clean process: outside the source tree, no PYTHONPATH."""
  env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
  with tempfile.TemporaryDirectory() as cwd:
    return subprocess.run([python, "-c", code], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=600)


def installed_versions(python: str) -> dict[str, str]:
  code = ("import importlib.metadata as m, json; print(json.dumps({d.metadata['Name']: "
          "d.version for d in m.distributions()}))")
  proc = run_in(python, code)
  assert proc.returncode == 0, proc.stderr
  return {canonicalize_name(k): v for k, v in json.loads(proc.stdout).items()}


# ---------------------------------------------------------------------------- metadata


def test_all_wheels_share_the_version(any_dist_wheels, jax_version):
  dist_wheels = any_dist_wheels
  versions = {os.path.basename(w["path"]): metadata(w["path"])["Version"] for w in dist_wheels}
  assert set(versions.values()) == {jax_version}, versions
  keys = [(w["distribution"], w["python"], w["abi"]) for w in dist_wheels]
  assert len(keys) == len(set(keys)), f"two wheels of one distribution and tag: {keys}"
  assert {w["distribution"] for w in dist_wheels} <= set(OURS)


def test_jax_wheel_metadata(dist_wheel, jax_version, minimum_jaxlib_version):
  path = dist_wheel("jax")
  assert os.path.basename(path).endswith("-py3-none-any.whl")
  assert shared_objects(path) == []
  reqs = requirements(path)
  assert "jaxlib" in reqs, reqs
  assert specifiers(reqs["jaxlib"]) == {f">={minimum_jaxlib_version}", f"<={jax_version}"}
  for third_party in ("numpy", "ml-dtypes"):
    assert third_party in reqs, f"jax must require {third_party}: {list(reqs)}"
  assert not set(reqs) & set(PLUGINS), f"plugins may only come through extras: {list(reqs)}"
  extras = set(metadata(path).get_all("Provides-Extra") or [])
  assert extras >= set(PLUGINS.values()), extras
  for plugin, extra in PLUGINS.items():
    pinned = requirements(path, extra)
    assert plugin in pinned, f"jax[{extra}] must require {plugin}: {list(pinned)}"
    assert specifiers(pinned[plugin]) == {f"=={jax_version}"}


def test_jaxlib_wheel_metadata(dist_wheel, wheel_python, python_for, jax_version):
  python_for(wheel_python)
  path = dist_wheel("jaxlib", python=wheel_python)
  cp = "cp" + wheel_python.replace(".", "")
  assert re.fullmatch(rf"jaxlib-.+-{cp}-{cp}-{MANYLINUX}(\.{MANYLINUX})*\.whl",
                      os.path.basename(path)), path
  reqs = requirements(path)
  assert specifiers(reqs["jaxlib-cpu"]) == {f"=={jax_version}"}, reqs
  for third_party in ("numpy", "ml-dtypes", "scipy"):
    assert third_party in reqs, f"jaxlib must require {third_party}: {list(reqs)}"
  extension = f"jaxlib/_jax.cpython-{cp[2:]}-x86_64-linux-gnu.so"
  assert extension in shared_objects(path)
  wheel = dist_info_file(path, "WHEEL")
  assert "Root-Is-Purelib: false" in wheel
  with zipfile.ZipFile(path) as whl, tempfile.TemporaryDirectory() as tmp:
    symbols = exported_symbols(whl.extract(extension, tmp))
  # Only the module init function: jaxlib holds no compiler and no plugin entry
  # point, and its nanobind/libstdc++ instantiations stay private.
  assert symbols == ["PyInit__jax"], f"_jax exports {symbols[:20]}"


JAXLIB_WHEEL_LIMIT = 5 * 1024 * 1024  # jaxlib holds no compiler; the plugins do


def test_jaxlib_wheel_is_small(dist_wheel, wheel_python):
  path = dist_wheel("jaxlib", python=wheel_python)
  size = os.path.getsize(path)
  assert size < JAXLIB_WHEEL_LIMIT, f"{os.path.basename(path)} is {size / 2**20:.2f} MiB"


def test_installed_jaxlib_has_typing_stubs(wheel_venv, wheel_python):
  """The extension's generated stubs and py.typed are installed next to it."""
  python = wheel_venv(wheel_python, ["jax"])
  proc = run_in(python, "import os, jaxlib; print(os.path.dirname(jaxlib.__file__))")
  assert proc.returncode == 0, proc.stderr
  root = proc.stdout.strip()
  assert os.path.isfile(os.path.join(root, "py.typed"))
  stubs = {name: open(os.path.join(root, "_jax", name), encoding="utf-8").read()
           for name in ("__init__.pyi", "pytree.pyi", "jit.pyi")}
  for cls in ("class Client", "class Buffer", "class LoadedExecutable", "class Device",
              "class DeviceList"):
    assert cls in stubs["__init__.pyi"], cls
  for cls in ("class PyTreeRegistry", "class PyTreeDef", "def flatten(", "def unflatten("):
    assert cls in stubs["pytree.pyi"], cls
  # The documented hooks jax configures the native fast path through.
  for name in ("class JitFunction", "def configure(", "def set_thread_staging(staging: bool)",
               "def set_x64(enabled: bool)", "single_device_buffer"):
    assert name in stubs["jit.pyi"], name
  # The stub package beside the extension does not shadow it at run time.
  proc = run_in(python, "import jaxlib._jax as m; print(m.__file__.endswith('.so'))")
  assert proc.stdout.strip() == "True", proc.stdout + proc.stderr


@pytest.mark.parametrize("plugin", NATIVE_PLUGINS)
def test_plugin_wheel_metadata(dist_wheel, plugin, jax_version):
  path = dist_wheel(plugin)
  assert re.fullmatch(rf"{plugin.replace('-', '_')}-.+-cp310-abi3-{MANYLINUX}(\.{MANYLINUX})*\.whl",
                      os.path.basename(path)), path
  reqs = requirements(path)
  ours = {name: req for name, req in reqs.items() if name in OURS}
  if plugin == "jaxlib-cpu":
    assert ours == {}, f"jaxlib-cpu must require nothing of ours (jaxlib requires it): {ours}"
  else:
    assert set(ours) == {"jaxlib"}, ours
    assert specifiers(ours["jaxlib"]) == {f"=={jax_version}"}
  entry_points = dist_info_file(path, "entry_points.txt") or ""
  section = re.search(r"^\[jax_plugins\]\n((?:[^\[\n].*\n?)*)", entry_points, re.M)
  assert section, f"{plugin} has no [jax_plugins] entry point:\n{entry_points}"
  entries = [l for l in section.group(1).splitlines() if "=" in l]
  assert entries and all(l.split("=", 1)[1].strip().startswith("jax_plugins.") for l in entries)


def test_tpu_wheel_is_pure_python_and_requires_libtpu(dist_wheel, jax_version):
  path = dist_wheel("jaxlib-tpu")
  assert os.path.basename(path).endswith("-py3-none-any.whl"), path
  with zipfile.ZipFile(path) as whl:
    names = whl.namelist()
  assert "jax_plugins/xla_tpu/__init__.py" in names
  assert not [n for n in names if n.endswith(".so")], names  # libtpu is never shipped
  reqs = requirements(path)
  assert specifiers(reqs["jaxlib"]) == {f"=={jax_version}"}
  libtpu = reqs["libtpu"]
  assert specifiers(libtpu) == {">=0.0.52"}
  # libtpu 0.0.52 (PJRT 0.117) exists for Python 3.11 and newer only.
  assert libtpu.marker.evaluate({"python_version": "3.11"})
  assert not libtpu.marker.evaluate({"python_version": "3.10"})
  entry_points = dist_info_file(path, "entry_points.txt") or ""
  assert "[jax_plugins]\nxla_tpu = jax_plugins.xla_tpu" in entry_points, entry_points


# The cross-process collectives engine beside the CPU plugin (opened with dlopen only by
# multi-process clients, after the system's libgloo): its one export. Nothing is grafted:
# Gloo is not vendored (it would raise the wheel above manylinux_2_28).
ENGINE = "libjax_cpu_collectives_gloo.so"


def _needed(path) -> list[str]:
  out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True,
                       check=True).stdout
  return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


@pytest.mark.parametrize("plugin", NATIVE_PLUGINS)
def test_plugin_libraries_export_only_get_pjrt_api(dist_wheel, plugin):
  path = dist_wheel(plugin)
  objects = shared_objects(path)
  grafted = {os.path.basename(o) for o in objects if ".libs/" in o}
  engines = [o for o in objects if os.path.basename(o) == ENGINE]
  if plugin == "jaxlib-cpu":
    assert engines, f"jaxlib-cpu lacks {ENGINE}: {objects}"
  assert not grafted, f"auditwheel grafted libraries: {objects}"
  assert not [o for o in objects if ".cpython-" in o], f"abi3 wheel with version-specific ones: {objects}"
  plugin_libraries = []
  with zipfile.ZipFile(path) as whl, tempfile.TemporaryDirectory() as tmp:
    for name in objects:
      if ".libs/" in name:
        continue
      local = whl.extract(name, tmp)
      symbols = exported_symbols(local)
      if any(s.startswith("PyInit_") for s in symbols):
        # The plugin's small limited-API extension module: only its init function.
        assert symbols == ["PyInit__plugin_ext"], f"{name} exports {symbols[:20]}"
        continue
      if os.path.basename(name) == ENGINE:
        assert symbols == ["JaxCpuCrossProcessEngine"], f"{name} exports {symbols[:20]}"
        continue
      assert symbols == ["GetPjrtApi"], f"{name} exports {symbols[:20]}"
      # Single-process users never load Gloo: nothing we ship links it.
      assert not any("gloo" in n for n in _needed(local)), f"{name} links {_needed(local)}"
      plugin_libraries.append(name)
  assert plugin_libraries, f"{plugin} holds no library exporting GetPjrtApi: {objects}"


def test_record_matches_contents(any_dist_wheels):
  for wheel in any_dist_wheels:
    with zipfile.ZipFile(wheel["path"]) as whl:
      record_name = next(n for n in whl.namelist() if n.endswith(".dist-info/RECORD"))
      listed = {}
      for line in whl.read(record_name).decode().splitlines():
        name, digest, _ = line.rsplit(",", 2)
        listed[name] = digest
      files = {n for n in whl.namelist() if not n.endswith("/")}  # skip directory entries
      assert set(listed) == files, wheel["path"]
      for name, digest in listed.items():
        if name == record_name:
          continue
        data = whl.read(name)
        actual = "sha256=" + base64.urlsafe_b64encode(
            hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert digest == actual, f"{wheel['path']}: {name}"


# ---------------------------------------------------------------------------- installs


def test_cpu_install(wheel_venv, wheel_python, jax_version):
  """`pip install jax` (ours from dist/ only) is a complete CPU install."""
  python = wheel_venv(wheel_python, ["jax"])
  installed = installed_versions(python)
  for name in ("jax", "jaxlib", "jaxlib-cpu"):
    assert installed.get(name) == jax_version, f"{name}: {installed.get(name)}"
  assert not set(installed) & {"jaxlib-cuda12", "jaxlib-rocm6", "jaxlib-tpu"}
  check = subprocess.run([python, "-m", "pip", "check"], capture_output=True, text=True)
  assert check.returncode == 0, check.stdout + check.stderr
  proc = run_in(python, QUICKSTART)
  assert proc.returncode == 0, proc.stderr
  assert proc.stdout.strip() == "2", proc.stdout + proc.stderr


def test_cuda_plugin_install_falls_back_to_cpu(wheel_venv, wheel_python, jax_version):
  """With jaxlib-cuda12 but no GPU, jax still computes on the CPU, and says why."""
  try:
    ctypes.CDLL("libcuda.so.1")
    pytest.skip("a CUDA driver is present: this test is about machines without one")
  except OSError:
    pass
  python = wheel_venv(wheel_python, ["jax", "jaxlib-cuda12"])
  installed = installed_versions(python)
  for name in ("jax", "jaxlib", "jaxlib-cpu", "jaxlib-cuda12"):
    assert installed.get(name) == jax_version, f"{name}: {installed.get(name)}"
  proc = run_in(python, QUICKSTART)
  assert proc.returncode == 0, proc.stderr
  assert proc.stdout.strip().splitlines()[-1] == "2", proc.stdout + proc.stderr
  assert "cuda" in (proc.stdout + proc.stderr).lower(), (
      "expected a warning about the CUDA plugin:\n" + proc.stdout + proc.stderr)
