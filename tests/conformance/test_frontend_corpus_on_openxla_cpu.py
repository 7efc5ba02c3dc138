"""The frontend conformance corpus (real JAX 0.10.2's results for the public jax
API) with our jax running on OpenXLA's own CPU PJRT plugin, registered from
PJRT_NAMES_AND_LIBRARY_PATHS and selected with JAX_PLATFORMS, as a vendor
plugin is: every case gives real JAX's values, except the ones whose linear
algebra lowers to LAPACK custom calls that only our CPU plugin registers (real
jaxlib registers those handlers in its own CPU client, not in a PJRT plugin).
The failing set is exact, so a regression or a fix both show."""

import json
import os
import subprocess

import pytest

pytestmark = pytest.mark.needs_wheels

# Case -> the LAPACK target XLA's plugin has no handler for.
NEEDS_OUR_LAPACK_TARGETS = {
    "e2e_gp_regression": "lapack_spotrf_ffi",
    "linalg_batched": "lapack_sgetrf_ffi",
    "linalg_decompositions_invariant": "lapack_ssyevd_ffi",
    "linalg_solve_inv_det": "lapack_sgetrf_ffi",
}


def test_frontend_corpus_on_openxla_cpu_plugin(openxla_cpu_env, conformance_dir, tmp_path):
  library = subprocess.run(
      [openxla_cpu_env, "-c", "import lammps_jax_pjrt_cpu as m; print(m.PLUGIN_PATH)"],
      capture_output=True, text=True, check=True, cwd="/").stdout.strip()
  report = tmp_path / "frontend.json"
  env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "JAX_", "XLA_"))}
  env.update(PJRT_NAMES_AND_LIBRARY_PATHS=f"openxla_cpu:{library}", JAX_PLATFORMS="openxla_cpu")
  proc = subprocess.run(
      [openxla_cpu_env, os.path.join(conformance_dir, "run_frontend.py"),
       os.path.join(conformance_dir, "frontend"), "--json", str(report)],
      capture_output=True, text=True, cwd=str(tmp_path), env=env, timeout=1800)
  assert report.exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
  results = json.loads(report.read_text())
  assert results["devices"] == 4, results["devices"]  # the plugin's own four CPU devices
  cases = {c["name"]: c for c in results["results"]}
  bad = {name: c for name, c in cases.items() if c["status"] not in ("PASS",)}
  unexpected = {n: f"{c['status']}: {c.get('reason', '')}" for n, c in bad.items()
                if n not in NEEDS_OUR_LAPACK_TARGETS}
  assert not unexpected, unexpected
  for name, target in NEEDS_OUR_LAPACK_TARGETS.items():
    assert name in bad, f"{name} passes on XLA's plugin now: take it out of the list"
    assert f"No FFI handler registered for {target}" in bad[name].get("reason", ""), bad[name]
  assert results["passed"] == len(cases) - len(NEEDS_OUR_LAPACK_TARGETS)
