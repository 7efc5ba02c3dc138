"""The frontend conformance corpus (real JAX 0.10.2's results for the public
jax API) against the installed wheels, with 4 virtual CPU devices so the
multi-device cases run too: every case must pass, and the number passing may
only grow (all 131 pass today)."""

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.needs_wheels

# Cases passing when this floor was last raised.
MINIMUM_PASSING = 131


def test_frontend_corpus(tmp_path, conformance_dir):
  root = conformance_dir
  report = tmp_path / "frontend.json"
  env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "JAX_"))}
  env["JAX_NUM_CPU_DEVICES"] = "4"
  proc = subprocess.run(
      [sys.executable, os.path.join(root, "run_frontend.py"), os.path.join(root, "frontend"),
       "--json", str(report)],
      capture_output=True, text=True, cwd=str(tmp_path), env=env, timeout=1800)
  print(proc.stdout[-3000:], proc.stderr[-3000:])
  results = json.loads(report.read_text())
  cases = results["results"]
  bad = [c for c in cases if c["status"] not in ("PASS", "SKIP")]
  skipped = [c for c in cases if c["status"] == "SKIP"]
  assert results["devices"] == 4, results["devices"]
  assert not bad, "\n".join(f"{c['status']} {c['name']}: {c.get('reason', '')}" for c in bad)
  assert not skipped, f"skipped with 4 devices: {[c['name'] for c in skipped]}"
  assert results["passed"] >= MINIMUM_PASSING, f"{results['passed']} passed, floor is {MINIMUM_PASSING}"
