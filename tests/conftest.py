"""Shared pytest setup: markers, the repository and dist/ fixtures, and fresh
virtualenvs with this project's wheels installed from dist/.

Markers (declared in pytest.ini):
  slow          skipped unless --runslow is given.
  ecosystem     runs JAX libraries (flax, equinox, numpyro, ...) installed from the
                package index on our wheels; skipped unless --run-ecosystem is given
                (the full measurement is `python3 ecosystem/run.py`).
  needs_wheels  the test uses wheels from dist/; it is skipped when they are
                missing, and fails instead when JAX_REQUIRE_WHEELS=1 (CI sets it,
                so a broken build cannot hide behind skips).
  needs_gpu     skipped unless a CUDA or ROCm driver is present.

Python versions under test (the `wheel_python` parameter): --wheel-pythons=3.10,3.13,
or by default every version that has a jaxlib wheel in dist/ and an interpreter here.
"""

from __future__ import annotations

import ctypes
import glob
import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _load_build_driver():
  """build/build.py as a module: the tests reuse its wheel-name parsing,
  interpreter search and virtualenv recipe instead of copying them."""
  spec = importlib.util.spec_from_file_location(
      "jax_build_driver", os.path.join(REPO_ROOT, "build", "build.py"))
  module = importlib.util.module_from_spec(spec)
  sys.modules[spec.name] = module
  spec.loader.exec_module(module)
  return module


build_driver = _load_build_driver()


def pytest_addoption(parser):
  parser.addoption("--runslow", action="store_true", default=False,
                   help="also run tests marked slow")
  parser.addoption("--run-ecosystem", action="store_true", default=False,
                   help="also run tests marked ecosystem (they install JAX libraries)")
  parser.addoption("--wheel-pythons", default=None,
                   help="comma-separated Python versions to install the wheels into "
                   "(default: those with a jaxlib wheel in dist/)")
  parser.addoption("--dist-dir", default=os.environ.get("JAX_DIST_DIR"),
                   help="where the built wheels are (default: <repo>/dist)")


def _dist_dir(config) -> str:
  return os.path.abspath(config.getoption("--dist-dir") or os.path.join(REPO_ROOT, "dist"))


def require_wheels() -> bool:
  return os.environ.get("JAX_REQUIRE_WHEELS", "") not in ("", "0")


def missing(reason: str):
  """Skips the test, or fails it when wheels are required (CI)."""
  if require_wheels():
    pytest.fail(reason + " (JAX_REQUIRE_WHEELS is set)", pytrace=False)
  pytest.skip(reason)


def _gpu_present() -> bool:
  for lib in ("libcuda.so.1", "libamdhip64.so"):
    try:
      ctypes.CDLL(lib)
      return True
    except OSError:
      pass
  return False


def pytest_collection_modifyitems(config, items):
  runslow = config.getoption("--runslow")
  gpu = None
  for item in items:
    if "slow" in item.keywords and not runslow:
      item.add_marker(pytest.mark.skip(reason="slow: pass --runslow to run it"))
    # The marker itself, not item.keywords: keywords hold the folder names too, and
    # tests/ecosystem/'s harness tests need no libraries.
    if item.get_closest_marker("ecosystem") and not config.getoption("--run-ecosystem"):
      item.add_marker(pytest.mark.skip(
          reason="ecosystem: pass --run-ecosystem (installs JAX libraries from the index)"))
    if "needs_gpu" in item.keywords:
      if gpu is None:
        gpu = _gpu_present()
      if not gpu:
        item.add_marker(pytest.mark.skip(reason="needs a GPU: no CUDA or ROCm driver here"))


def _dist_wheels(dist: str) -> list[dict]:
  wheels = []
  for path in sorted(glob.glob(os.path.join(dist, "*.whl"))):
    try:
      info = build_driver.parse_wheel_name(path)
    except ValueError:
      continue
    info["path"] = path
    wheels.append(info)
  return wheels


def _versions_under_test(config) -> list[str]:
  option = config.getoption("--wheel-pythons")
  if option:
    return [v.strip() for v in option.split(",") if v.strip()]
  found = []
  for info in _dist_wheels(_dist_dir(config)):
    if info["distribution"] == "jaxlib" and info["abi"].startswith("cp3"):
      version = "3." + info["abi"][3:]
      if version not in found:
        found.append(version)
  return sorted(found, key=lambda v: int(v.split(".")[1]))


def pytest_generate_tests(metafunc):
  if "wheel_python" in metafunc.fixturenames:
    versions = _versions_under_test(metafunc.config)
    # With no jaxlib wheel in dist/ the test still appears once, and skips (or fails
    # under JAX_REQUIRE_WHEELS) with the reason.
    metafunc.parametrize("wheel_python", versions or ["none"], scope="session")


# ---------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def build_py():
  """build/build.py as a module (its wheel->target table, name parsing, ...)."""
  return build_driver


@pytest.fixture(scope="session")
def repo_root() -> str:
  return REPO_ROOT


@pytest.fixture(scope="session")
def dist_dir(pytestconfig) -> str:
  return _dist_dir(pytestconfig)


@pytest.fixture(scope="session")
def jax_version() -> str:
  """The version every wheel carries, from jax/version.py."""
  return build_driver.read_version()


@pytest.fixture(scope="session")
def minimum_jaxlib_version() -> str:
  import re  # pylint: disable=import-outside-toplevel
  text = open(os.path.join(REPO_ROOT, "jax", "version.py"), encoding="utf-8").read()
  return re.search(r'^_minimum_jaxlib_version\s*=\s*"([^"]+)"', text, re.M).group(1)


@pytest.fixture(scope="session")
def dist_wheels(dist_dir) -> list[dict]:
  """Parsed names of the wheels in dist/ ({distribution, version, python, abi,
  platform, tag, path})."""
  return _dist_wheels(dist_dir)


@pytest.fixture(scope="session")
def any_dist_wheels(dist_wheels, dist_dir) -> list[dict]:
  """dist_wheels, but skips (or fails under JAX_REQUIRE_WHEELS) when there are none."""
  if not dist_wheels:
    missing(f"no wheels in {dist_dir}; build them with: python3 build/build.py build --wheels=all")
  return dist_wheels


@pytest.fixture(scope="session")
def dist_wheel(dist_wheels, dist_dir):
  """dist_wheel("jaxlib", python="3.12") -> path of that wheel in dist/, or skip."""

  def find(distribution: str, python: str | None = None) -> str:
    matches = [w for w in dist_wheels if w["distribution"] == distribution
               and (python is None or w["abi"] == build_driver.cp_tag(python))]
    if not matches:
      what = distribution + (f" for Python {python}" if python else "")
      missing(f"no {what} wheel in {dist_dir}; build it with: python3 build/build.py "
              f"build --wheels={distribution}" + (f" --python={python}" if python else ""))
    if len(matches) > 1:
      pytest.fail(f"several {distribution} wheels in {dist_dir}: "
                  f"{[os.path.basename(m['path']) for m in matches]}")
    return matches[0]["path"]

  return find


@pytest.fixture(scope="session")
def python_for():
  """python_for("3.12") -> an interpreter of that version, or skip."""

  def find(version: str) -> str:
    if version == "none":
      missing("no jaxlib wheel in dist/ (so no Python version to test); build one with: "
              "python3 build/build.py build --wheels=all")
    python = build_driver.find_python(version)
    if python is None:
      missing(f"no Python {version} interpreter here")
    return python

  return find


@pytest.fixture(scope="session")
def wheel_venv(tmp_path_factory, dist_dir, dist_wheel, python_for):
  """wheel_venv("3.12", ["jax", "jaxlib-cuda12"]) -> the python of a fresh
  virtualenv for Python 3.12 with third-party packages from the index and those
  of our wheels from dist/ only (--no-index). One per (version, packages) and
  session."""
  cache: dict[tuple[str, tuple[str, ...]], str] = {}
  made: list[str] = []

  def make(version: str, packages=("jax",)) -> str:
    key = (version, tuple(packages))
    if key not in cache:
      python = python_for(version)
      dist_wheel("jax")
      dist_wheel("jaxlib", python=version)
      dist_wheel("jaxlib-cpu")
      for package in packages:
        dist_wheel(package)
      path = tmp_path_factory.mktemp(f"venv-{version}-{'-'.join(packages)}")
      made.append(str(path))
      try:
        cache[key] = build_driver.make_venv(str(path / "venv"), python, list(packages),
                                            dist_dir)
      except build_driver.BuildError as e:
        pytest.fail(str(e), pytrace=False)
    return cache[key]

  yield make
  for path in made:  # each is a few hundred MB (numpy, scipy)
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def conformance_dir() -> str:
  """The conformance corpora sit beside the repository (../shared/conformance)
  or where CONFORMANCE_DIR says. A missing corpus fails the tests that need it:
  a run that checked nothing must not pass."""
  root = os.environ.get("CONFORMANCE_DIR") or os.path.join(REPO_ROOT, "..", "shared",
                                                           "conformance")
  root = os.path.abspath(root)
  for corpus in ("hlo", "frontend"):
    assert os.path.isdir(os.path.join(root, corpus)), (
        f"conformance corpus not found at {root}: set CONFORMANCE_DIR to the folder holding "
        f"hlo/ and frontend/")
  return root


# OpenXLA's own XLA:CPU PJRT plugin, as XLA builds it (Apache-2.0, PJRT 0.115,
# four CPU devices). The wheel declares `jax<=0.11.2`, which pip would satisfy
# by replacing our jax with Google's: it is installed without dependencies.
OPENXLA_CPU_WHEEL = "lammps-jax-pjrt-cpu==0.11.2"


@pytest.fixture(scope="session")
def openxla_cpu_env(tmp_path_factory, dist_dir, dist_wheel, python_for):
  """Python of a venv of its own (the plugin's unmet `jax<=0.11.2` would fail
  `pip check` in the shared one) after `pip install jax` from our wheels, with
  OpenXLA's CPU plugin beside it (its library: `lammps_jax_pjrt_cpu.PLUGIN_PATH`)."""
  version = "%d.%d" % sys.version_info[:2]
  dist_wheel("jax")
  dist_wheel("jaxlib", python=version)
  dist_wheel("jaxlib-cpu")
  path = tmp_path_factory.mktemp("venv-openxla-cpu")
  try:
    python = build_driver.make_venv(str(path / "venv"), python_for(version), ["jax"], dist_dir)
  except build_driver.BuildError as e:
    pytest.fail(str(e), pytrace=False)
  proc = subprocess.run([python, "-m", "pip", "install", "--no-deps", "--quiet",
                         "--disable-pip-version-check", OPENXLA_CPU_WHEEL],
                        capture_output=True, text=True, timeout=900)
  if proc.returncode != 0:
    pytest.fail(f"pip install --no-deps {OPENXLA_CPU_WHEEL} failed:\n{proc.stdout}\n"
                f"{proc.stderr}", pytrace=False)
  return python
