"""The HLO conformance corpus on XLA's own compiler: OpenXLA's CPU PJRT plugin
(`lammps-jax-pjrt-cpu`, Apache-2.0, PJRT 0.115, four CPU devices) driven by our
jaxlib through the public `xla_client` API, exactly as `run_hlo.py` drives our
CPU plugin: jaxlib loads the library by path, turns each module's HLO text into
the HloModuleProto and CompileOptionsProto it sends every plugin, and runs it.

Every module must give real JAX's expected values, except those listed in
KNOWN_FAILURES, which must fail, and with the listed message: a regression in
either direction fails the test. The corpus holds no custom calls (its linear
algebra is lowered to plain `cholesky` and `triangular-solve` ops), so nothing
in it needs a target only our plugin provides.

The plugin wheel declares `jax<=0.11.2`; pip would satisfy that by replacing our
jax and jaxlib with Google's, so it is installed with --no-deps, and the test
checks that the jaxlib it runs is still ours.

A module that crashes the plugin's process is reported as an error naming the
module (the rest of the corpus still runs, in a fresh process)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.needs_wheels

# Module -> a piece of the message it must fail with on XLA's plugin. None do:
# jaxlib's compile options ask XLA's CPU compiler for jax's NaN semantics of
# min, max and clamp (xla_cpu_enable_fast_min_max=false), as jax.jit does;
# without that entry clamp_f32 gave -0.5 for clamp(-0.5, nan, 0.75).
KNOWN_FAILURES: dict[str, str] = {}

# Runs in the virtualenv: run_hlo.py's own Backend and run_case (load the case,
# compile, transfer, run, compare with its rtol/atol) on a client of XLA's
# plugin. Prints one JSON object per line: the client, then for every module a
# "start" line before it runs and its result after.
_DRIVER = r"""
import json, os, sys

sys.path.insert(0, os.environ["CONFORMANCE_DIR"])
import run_hlo  # pylint: disable=import-error

import lammps_jax_pjrt_cpu
from jaxlib import plugin_support, version, xla_client

plugin = plugin_support.load_pjrt_plugin_dynamically("openxla_cpu",
                                                     str(lammps_jax_pjrt_cpu.PLUGIN_PATH))
client = xla_client.make_c_api_client("openxla_cpu", {})
print(json.dumps({"jaxlib": version.__version__, "c_api": list(plugin.c_api_version),
                  "platform": client.platform, "devices": len(client.devices())}), flush=True)

# run_hlo's Backend asks xla_client.make_cpu_client() for its client; in this
# process that is XLA's plugin.
xla_client.make_cpu_client = lambda *args, **kwargs: client
backend = run_hlo.Backend("native")
assert backend.client is client and backend.mode == "native"

skip = set(json.loads(sys.argv[1]))
for case in run_hlo.find_cases(os.path.join(os.environ["CONFORMANCE_DIR"], "hlo")):
  if os.path.basename(case) in skip:
    continue
  print(json.dumps({"start": os.path.basename(case)}), flush=True)
  name, status, reason, seconds = run_hlo.run_case(backend, case)
  print(json.dumps({"name": name, "status": status, "reason": reason,
                    "seconds": round(seconds, 3)}), flush=True)
"""


def _run_corpus(python, conformance_dir, workdir):
  """({client facts}, {module: result}) for every corpus module. A process that
  dies takes only the module it was running: that one is recorded as an ERROR
  and a fresh process goes on with the rest."""
  env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "JAX_", "XLA_"))}
  env["CONFORMANCE_DIR"] = conformance_dir
  info, results = None, {}
  while True:
    proc = subprocess.run([python, "-c", textwrap.dedent(_DRIVER), json.dumps(sorted(results))],
                          capture_output=True, text=True, cwd=str(workdir), env=env, timeout=1800)
    lines = [json.loads(l) for l in proc.stdout.splitlines() if l.startswith("{")]
    assert lines, f"the driver printed nothing (exit {proc.returncode}):\n{proc.stderr[-3000:]}"
    info = info or lines[0]
    running = None
    for line in lines[1:]:
      if "start" in line:
        running = line["start"]
      else:
        results[line["name"]] = line
        running = None
    if proc.returncode == 0 and running is None:
      return info, results
    assert running is not None, (
        f"the driver failed between modules (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    # The last line of the death message, without a native stack trace's lines.
    last = [l for l in proc.stderr.splitlines()
            if l.strip() and not l.startswith(("    @", "*** "))]
    results[running] = {"name": running, "status": "ERROR",
                        "reason": f"process died (exit {proc.returncode}): "
                                  f"{last[-1] if last else ''}"[:300]}


def test_hlo_corpus_on_openxla_cpu_plugin(openxla_cpu_env, conformance_dir, jax_version, tmp_path):
  corpus = os.path.join(conformance_dir, "hlo")
  modules = sorted(n for n in os.listdir(corpus)
                   if os.path.exists(os.path.join(corpus, n, "module.hlo")))
  assert len(modules) >= 205, len(modules)

  info, results = _run_corpus(openxla_cpu_env, conformance_dir, tmp_path)
  report = "\n".join(f"{r['status']} {r['name']}: {r['reason']}"
                     for r in sorted(results.values(), key=lambda r: r["name"])
                     if r["status"] != "PASS")
  print(json.dumps(info), f"{len(results)} modules", report, sep="\n")

  # Installing the plugin left our jaxlib in place, and the client is XLA's CPU
  # plugin (PJRT 0.115, four devices), not ours.
  assert info["jaxlib"] == jax_version, info
  assert info["c_api"] == [0, 115], info
  assert info["platform"] == "cpu" and info["devices"] == 4, info

  assert sorted(results) == modules, "not every corpus module ran"
  failed = {name: r for name, r in results.items() if r["status"] != "PASS"}
  unexpected = {n: r for n, r in failed.items() if n not in KNOWN_FAILURES}
  assert not unexpected, "modules failing on XLA's CPU plugin:\n" + "\n".join(
      f"{r['status']} {n}: {r['reason']}" for n, r in sorted(unexpected.items()))
  now_passing = sorted(set(KNOWN_FAILURES) - set(failed))
  assert not now_passing, (
      f"known failures that now pass (remove them from KNOWN_FAILURES): {now_passing}")
  for name, piece in KNOWN_FAILURES.items():
    assert piece in failed[name]["reason"], (name, failed[name])
  assert len(results) - len(failed) == len(modules) - len(KNOWN_FAILURES)
