"""The binary wheels on an older glibc than the build machine's: inside a Debian 11
(bullseye, glibc 2.31) root filesystem made from the Debian archive, each plugin
library loads and runs through its C API (a small C program, no Python), and a
C++ exception thrown and caught inside the CPU plugin's compiler still works.

The root is built by tests/wheels/make_bullseye_root.sh (cached under ~/.cache,
or JAX_BULLSEYE_ROOT); these tests skip, saying why, only when it cannot be built
(no root privileges, no debootstrap, no network). Debian 11's Python is 3.9, too
old for jaxlib (3.10+), so jaxlib's extension is checked without running it:
every glibc symbol version it needs must be defined by the root's libraries.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

import pytest

import jax_build_driver as build_driver  # build/build.py, loaded by tests/conftest.py

pytestmark = pytest.mark.needs_wheels

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROOT_SCRIPT = os.path.join(REPO, "tests", "wheels", "make_bullseye_root.sh")
SMOKE_SOURCE = os.path.join(REPO, "tests", "wheels", "old_glibc_smoke.c")
STUB_TOOL = os.path.join(REPO, "build", "manylinux", "make_glibc_stubs.py")
LIBDIR = "lib/x86_64-linux-gnu"

# distribution -> (library inside the wheel, smoke program arguments). jaxlib-tpu
# ships no native code (it registers the user's libtpu), so it has nothing here.
PLUGINS = {
    "jaxlib-cpu": ("jax_plugins/xla_cpu/xla_cpu_plugin.so", ["run"]),
    "jaxlib-cuda12": ("jax_plugins/xla_cuda/xla_cuda_plugin.so", ["compile", "mock=true"]),
    "jaxlib-rocm6": ("jax_plugins/xla_rocm/xla_rocm_plugin.so", ["compile", "mock=true"]),
}
# The real libraries of the root that our objects may name as NEEDED.
ROOT_LIBRARIES = ["libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1",
                  "libutil.so.1", "libresolv.so.2", "libanl.so.1", "ld-linux-x86-64.so.2"]
STUB_TO_LIBRARY = {"libc.so.6": "libc.so.6", "libm.so": "libm.so.6",
                   "ld-linux-x86-64.so.2": "ld-linux-x86-64.so.2",
                   "libpthread.so": "libpthread.so.0", "libdl.so": "libdl.so.2",
                   "librt.so": "librt.so.1", "libutil.so": "libutil.so.1",
                   "libresolv.so": "libresolv.so.2", "libanl.so": "libanl.so.1"}


def _tail(text: str, lines: int = 8) -> str:
  return "\n".join(text.strip().splitlines()[-lines:])


@pytest.fixture(scope="module")
def bullseye_root() -> str:
  if sys.platform != "linux" or os.geteuid() != 0:
    pytest.skip("the Debian 11 root needs root privileges (debootstrap, chroot)")
  root = os.environ.get("JAX_BULLSEYE_ROOT") or os.path.expanduser("~/.cache/jax-bullseye-root")
  proc = subprocess.run(["bash", ROOT_SCRIPT, root], capture_output=True, text=True, timeout=3000)
  if proc.returncode != 0:
    pytest.skip(f"cannot build the Debian 11 root at {root}: "
                f"{_tail(proc.stdout + proc.stderr)}")
  return root


def _chroot(root: str, *cmd: str, timeout: int = 600) -> subprocess.CompletedProcess:
  return subprocess.run(["chroot", root, *cmd], capture_output=True, text=True, timeout=timeout,
                        env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C"})


@pytest.fixture(scope="module")
def workdir(bullseye_root):
  """(host path, path inside the root) of a scratch folder inside the root."""
  host = tempfile.mkdtemp(prefix="jax-old-glibc-", dir=os.path.join(bullseye_root, "tmp"))
  os.chmod(host, 0o755)
  yield host, "/tmp/" + os.path.basename(host)
  shutil.rmtree(host, ignore_errors=True)


ADD_MODULE = """HloModule add
ENTRY main {
  x = f32[2] parameter(0)
  y = f32[2] parameter(1)
  ROOT s = f32[2] add(x, y)
}
"""
# A custom call no plugin of ours registers: compiling it must fail with a message.
UNKNOWN_TARGET_MODULE = """HloModule unknown
ENTRY main {
  x = f32[2] parameter(0)
  ROOT y = f32[2] custom-call(x), custom_call_target="no_such_target_anywhere"
}
"""
# 4 GB of result: more than a 3.5 GB address space holds.
HUGE_RESULT_MODULE = """HloModule huge
ENTRY main {
  ROOT i = f32[1000000000] iota(), iota_dimension=0
}
"""


@pytest.fixture(scope="module")
def programs(workdir):
  """The smoke program's modules as jaxlib sends them (serialized HloModuleProto),
  by name, as paths inside the root."""
  from jaxlib import _jax
  host, inside = workdir
  out = {}
  for name, text in [("add", ADD_MODULE), ("unknown", UNKNOWN_TARGET_MODULE),
                     ("huge", HUGE_RESULT_MODULE)]:
    with open(os.path.join(host, name + ".pb"), "wb") as f:
      f.write(_jax._hlo_text_to_module_proto(text))
    out[name] = f"{inside}/{name}.pb"
  return out


@pytest.fixture(scope="module")
def smoke(workdir):
  """The C API smoke program, built here against the glibc 2.28 stubs (the same
  way our libraries are linked), as a path inside the root."""
  host, inside = workdir
  stubs = os.path.join(host, "stubs")
  subprocess.run([sys.executable, STUB_TOOL, "--out", stubs], check=True)
  cc = os.environ.get("CC", "cc")
  subprocess.run([cc, "-O1", "-Wall", "-I", REPO, "-o", os.path.join(host, "smoke"), SMOKE_SOURCE,
                  "-L" + stubs, "-ldl"], check=True)
  return inside + "/smoke"


def _extract(wheel: str, member: str, host_dir: str) -> str:
  with zipfile.ZipFile(wheel) as whl:
    data = whl.read(member)
  path = os.path.join(host_dir, os.path.basename(member))
  with open(path, "wb") as f:
    f.write(data)
  return path


def _defined_versions(path: str) -> set[str]:
  out = subprocess.run(["readelf", "-W", "--dyn-syms", path], check=True, capture_output=True,
                       text=True).stdout
  found = set()
  for line in out.splitlines():
    parts = line.split()
    if len(parts) >= 8 and parts[6] not in ("UND", "ABS") and "@" in parts[7]:
      name, _, version = parts[7].partition("@")
      found.add(f"{name}@{version.lstrip('@')}")
  return found


def _needed_versions(path: str) -> set[tuple[str, str]]:
  """(library, 'name@version') for each glibc symbol the object needs: the
  library is the one its version-needs entry names, where the dynamic linker
  checks that the version exists."""
  files = {}
  versions = subprocess.run(["readelf", "-W", "-V", path], check=True, capture_output=True,
                            text=True).stdout
  current = None
  for line in versions.split(".gnu.version_r", 1)[-1].splitlines():
    match = re.search(r"File: (\S+)", line)
    if match:
      current = match.group(1)
    match = re.search(r"Name: (\S+)\s+Flags: \S+\s+Version: (\d+)", line)
    if match and current:
      files[int(match.group(2))] = current
  symbols = subprocess.run(["readelf", "-W", "--dyn-syms", path], check=True, capture_output=True,
                           text=True).stdout
  needed = set()
  for line in symbols.splitlines():
    match = re.search(r" UND (\S+)@(GLIBC_\S+) \((\d+)\)", line)
    if match:
      needed.add((files[int(match.group(3))], f"{match.group(1)}@{match.group(2)}"))
  return needed


def _check_needs_in_root(wheel_path: str, root: str) -> None:
  """Every glibc symbol version each shared object of the wheel needs is
  defined by that very library of the root."""
  defined = {lib: _defined_versions(os.path.join(root, LIBDIR, lib)) for lib in ROOT_LIBRARIES}
  with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(wheel_path) as whl:
    members = [n for n in whl.namelist() if n.endswith(".so")]
    assert members, wheel_path
    for member in members:
      needed = _needed_versions(whl.extract(member, tmp))
      assert needed, member
      missing_there = sorted(f"{lib}: {sym}" for lib, sym in needed
                             if sym not in defined.get(lib, ()))
      assert not missing_there, f"{member} needs what glibc 2.31 lacks: {missing_there}"


def test_binary_wheels_are_manylinux_2_28_or_older(any_dist_wheels):
  """By their tags and by auditwheel's own reading of their symbols."""
  binary = [w for w in any_dist_wheels if w["platform"] != "any"]
  assert binary
  for wheel in binary:
    assert build_driver.manylinux_version(wheel["platform"]) <= (2, 28), wheel["path"]
    build_driver.check_baseline(wheel["path"])
    shown = subprocess.run(build_driver.auditwheel_command() + ["show", wheel["path"]],
                           capture_output=True, text=True, check=True).stdout
    match = re.search(r'platform tag:\s*"manylinux_(\d+)_(\d+)_x86_64"', " ".join(shown.split()))
    assert match, shown
    assert (int(match.group(1)), int(match.group(2))) <= (2, 28), shown


def test_the_root_is_glibc_2_31(bullseye_root):
  proc = _chroot(bullseye_root, f"/{LIBDIR}/libc.so.6")
  assert re.search(r"release version 2\.31\b", proc.stdout), proc.stdout[:300]


def test_stub_tables_agree_with_a_real_old_glibc(bullseye_root):
  """Every symbol version the link-time stubs offer is defined, by the library
  the stub stands for, in a real glibc newer than 2.28: the split of what moved
  into libc in 2.34 back into libpthread/libdl/librt is right."""
  listing = subprocess.run([sys.executable, STUB_TOOL, "--out", "-", "--list"], check=True,
                           capture_output=True, text=True).stdout
  defined = {lib: _defined_versions(os.path.join(bullseye_root, LIBDIR, lib))
             for lib in set(STUB_TO_LIBRARY.values())}
  wrong = []
  for line in listing.splitlines():
    stub, name, version = line.split()
    if f"{name}@{version}" not in defined[STUB_TO_LIBRARY[stub]]:
      wrong.append(f"{stub}: {name}@{version}")
  assert listing.count("\n") > 1000
  assert not wrong, f"{len(wrong)} stub symbols glibc 2.31 does not define there: {wrong[:20]}"


@pytest.mark.parametrize("plugin", sorted(PLUGINS))
def test_plugin_runs_in_debian_11(plugin, dist_wheel, bullseye_root, workdir, smoke, programs):
  member, arguments = PLUGINS[plugin]
  host, inside = workdir
  library = _extract(dist_wheel(plugin), member, host)
  mode, options = arguments[0], arguments[1:]
  proc = _chroot(bullseye_root, smoke, inside + "/" + os.path.basename(library), mode,
                 programs["add"], *options)
  assert proc.returncode == 0 and proc.stdout.startswith("ok: "), proc.stdout + proc.stderr


def test_cpu_plugin_errors_reach_a_c_caller_in_debian_11(dist_wheel, bullseye_root, workdir,
                                                         smoke, programs):
  """Failures come back through the C API as errors with messages, in the old
  root too: a custom-call target nobody registered at compile time, and a 4 GB
  result under a 3.5 GB address-space limit at run time."""
  host, inside = workdir
  library = f"{inside}/" + os.path.basename(
      _extract(dist_wheel("jaxlib-cpu"), PLUGINS["jaxlib-cpu"][0], host))
  proc = _chroot(bullseye_root, smoke, library, "error", programs["unknown"])
  assert proc.returncode == 0, proc.stdout + proc.stderr
  assert "no_such_target_anywhere" in proc.stdout, proc.stdout
  command = f"ulimit -v 3500000; exec {smoke} {library} oom {programs['huge']}"
  proc = _chroot(bullseye_root, "/bin/sh", "-c", command)
  assert proc.returncode == 0, proc.stdout + proc.stderr
  assert "RESOURCE_EXHAUSTED" in proc.stdout or "out of host memory" in proc.stdout, proc.stdout


def test_jaxlib_extension_needs_only_what_debian_11_has(dist_wheels, bullseye_root):
  """jaxlib cannot be imported there (Debian 11's Python is 3.9; jaxlib needs
  3.10 or newer), so its extension is checked symbol by symbol instead."""
  proc = _chroot(bullseye_root, "/bin/sh", "-c", "command -v python3.10 python3.11 python3.12 "
                 "python3.13 || true")
  assert proc.stdout.strip() == "", "a Python 3.10+ is in the root: import jaxlib there instead"
  wheels = [w for w in dist_wheels if w["distribution"] == "jaxlib"]
  if not wheels:
    pytest.skip("no jaxlib wheel in dist/")
  for wheel in wheels:
    _check_needs_in_root(wheel["path"], bullseye_root)


@pytest.mark.parametrize("plugin", sorted(PLUGINS))
def test_plugin_needs_only_what_debian_11_has_where_it_looks(plugin, dist_wheel, bullseye_root):
  """Stricter than loading: the dynamic linker finds a symbol in any loaded
  library, so a symbol recorded against libc that an old glibc keeps in
  libpthread still loads in a process that has libpthread; this names it."""
  _check_needs_in_root(dist_wheel(plugin), bullseye_root)
