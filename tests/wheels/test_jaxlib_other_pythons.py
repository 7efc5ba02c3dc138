"""tests/jaxlib inside a fresh virtualenv of every other Python with a jaxlib wheel
in dist/ (CI builds 3.10 and 3.13): the bindings must work on each, not only on the
interpreter that runs the suite. Reuses the session's virtualenvs of test_install."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.needs_wheels


def test_jaxlib_tests_pass(wheel_venv, wheel_python, repo_root, dist_dir, tmp_path):
  if wheel_python == "%d.%d" % sys.version_info[:2]:
    pytest.skip("this interpreter runs tests/jaxlib itself")
  python = wheel_venv(wheel_python, ["jax"])
  install = subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                            "pytest"], capture_output=True, text=True)
  assert install.returncode == 0, install.stdout + install.stderr
  env = dict(os.environ, JAX_REQUIRE_WHEELS="1", JAX_DIST_DIR=dist_dir)
  env.pop("PYTHONPATH", None)
  # From tmp_path, so the checkout's jax/ and jaxlib/ cannot shadow the installed ones.
  proc = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                         os.path.join(repo_root, "tests", "jaxlib")],
                        cwd=tmp_path, env=env, capture_output=True, text=True)
  tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-30:])
  assert proc.returncode == 0, f"tests/jaxlib on Python {wheel_python}:\n{tail}"
  assert " passed" in proc.stdout
