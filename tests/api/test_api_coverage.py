"""JAX 0.10.2's public API, name for name: coverage of the installed jax, measured by
the shared manifest's checker, may only go up.

The floors below are the committed level; raise them when names are added. Names
that cannot work here are listed with a reason in exclusions.txt (kept short).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(HERE))
EXCLUSIONS = os.path.join(HERE, "exclusions.txt")

# The committed level: present names (exclusions not counted) and names that reject a
# parameter JAX accepts.
MIN_PRESENT = 1888
MAX_REJECTING_PARAMS = 44
MAX_EXCLUSIONS = 60


def _api_dir() -> str:
  candidates = [os.environ.get("JAX_API_DIR")]
  if os.environ.get("CONFORMANCE_DIR"):
    candidates.append(os.path.join(os.path.dirname(os.environ["CONFORMANCE_DIR"]), "api"))
  candidates.append(os.path.join(os.path.dirname(REPO_ROOT), "shared", "api"))
  for c in candidates:
    if c and os.path.isfile(os.path.join(c, "check_api.py")):
      return c
  pytest.fail("the API manifest (shared/api/check_api.py) was not found beside the "
              "repository; set JAX_API_DIR")


def _exclusions() -> dict[str, str]:
  out = {}
  with open(EXCLUSIONS) as f:
    for line in f:
      line = line.strip()
      if line and not line.startswith("#"):
        name, _, why = line.partition(" ")
        out[name] = why.strip()
  return out


@pytest.fixture(scope="module")
def report(tmp_path_factory):
  tmp = tmp_path_factory.mktemp("api")
  out = tmp / "api.json"
  # From an empty folder: the repository's jax/ sources must not shadow the installed jax.
  proc = subprocess.run(
      [sys.executable, os.path.join(_api_dir(), "check_api.py"), "--exclude", EXCLUSIONS,
       "--json", str(out)], cwd=tmp, capture_output=True, text=True, timeout=600)
  assert proc.returncode == 0, proc.stderr[-3000:]
  return json.loads(out.read_text()), proc.stdout


def test_exclusions_are_few_and_explained():
  excl = _exclusions()
  assert len(excl) <= MAX_EXCLUSIONS
  assert all(why for why in excl.values()), [n for n, why in excl.items() if not why]


def test_coverage_does_not_drop(report):
  result, text = report
  present = sum(m["present"] for m in result.values())
  rejecting = sum(len(m["signature"]) for m in result.values())
  total_line = text.strip().splitlines()[-1]
  assert present >= MIN_PRESENT, total_line
  assert rejecting <= MAX_REJECTING_PARAMS, total_line


def test_removed_names_stay_removed():
  # Names JAX 0.10.2 no longer has: code written against ours must run on JAX.
  import jax
  import jax.numpy as jnp
  for owner, name in [(jax, "tree_map"), (jnp, "round_")]:
    assert not hasattr(owner, name), f"{owner.__name__}.{name} was removed in JAX"
