#!/usr/bin/env python3
"""Runs the JAX ecosystem's own test suites against our wheels and against real JAX.

    python3 ecosystem/run.py                      # every library, both installs
    python3 ecosystem/run.py --libs einops,chex   # some of them
    python3 ecosystem/run.py --ci                 # the fast part CI runs (ours only)
    python3 ecosystem/run.py --jax-only --jobs 1  # only the reference column

The libraries, their pinned versions, dependencies, where their tests come from and
what is excluded (with the reason) are in libraries.toml. Each install gets its own
virtualenv under ~/.cache/jax-ecosystem/ (made the way benchmarks/run.py makes its
own): ours from the wheels in dist/, real JAX 0.10.2 from the package index. The
libraries go into both with --no-deps, so the index's jax never replaces the one
under test. A full run writes a junit xml per suite and install, keeps the counts in
results.json and rewrites RESULTS.md from it; --quick checks that each library
imports, runs one training step and passes a bounded part of its suite, and that the
examples of examples.toml print real JAX's numbers, and exits non-zero when any of
that fails (--ci: the same on our wheels only, two libraries at a time).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import importlib.util
import json
import math
import os
import shutil
import re
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import xml.etree.ElementTree as ET
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(HERE)
LIBRARIES_TOML = os.path.join(HERE, "libraries.toml")
EXAMPLES_TOML = os.path.join(HERE, "examples.toml")
EXAMPLES_DIR = os.path.join(REPO_ROOT, "examples")
RESULTS_JSON = os.path.join(HERE, "results.json")
RESULTS_MD = os.path.join(HERE, "RESULTS.md")
CAUSES_MD = os.path.join(HERE, "causes.md")   # hand-written: why the misses happen
SIDES = ("ours", "jax")
TEST_TOOLS = ["pytest", "pytest-xdist", "pytest-timeout", "pytest-reportlog"]
PER_TEST_TIMEOUT = 600   # seconds; a hung test fails alone instead of eating the suite's bound
COUNTS = ("passed", "failed", "errors", "skipped")   # what a suite's tests came to


def load_benchmarks_runner():
  """benchmarks/run.py as a module: its virtualenv recipes serve both harnesses."""
  if "jax_benchmarks_run" in sys.modules:
    return sys.modules["jax_benchmarks_run"]
  spec = importlib.util.spec_from_file_location(
      "jax_benchmarks_run", os.path.join(REPO_ROOT, "benchmarks", "run.py"))
  module = importlib.util.module_from_spec(spec)
  sys.modules[spec.name] = module
  spec.loader.exec_module(module)
  return module


bench = load_benchmarks_runner()
HarnessError = bench.HarnessError
Progress = bench.Progress


def cache_dir() -> str:
  base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
  return os.path.join(base, "jax-ecosystem")


def load_libraries(path: str = LIBRARIES_TOML) -> dict[str, dict]:
  with open(path, "rb") as f:
    table = tomllib.load(f)
  for name, lib in table.items():
    lib.setdefault("deps", [])
    lib.setdefault("jax_deps", [])
    lib.setdefault("test_deps", [])
    lib.setdefault("env", {})
    lib.setdefault("quick_k", "")
    if lib.get("tests") not in ("wheel", "sdist", "none"):
      raise HarnessError(f"libraries.toml: {name}.tests must be wheel, sdist or none")
    for entry in lib.get("exclude", []):
      if len(entry) != 2 or not entry[1].strip():
        raise HarnessError(f"libraries.toml: {name} excludes {entry!r} without a reason")
  return table


def select_libraries(table: dict[str, dict], libs: str | None) -> list[str]:
  if not libs:
    return list(table)
  chosen = [n.strip() for n in libs.split(",") if n.strip()]
  unknown = [n for n in chosen if n not in table]
  if unknown:
    raise HarnessError(f"unknown libraries {', '.join(unknown)}; known: {', '.join(table)}")
  return chosen


# ---------------------------------------------------------------------------- installs


def pip(python: str, args: list[str], what: str) -> None:
  bench.build_driver.run([python, "-m", "pip", "--disable-pip-version-check", "install", "-q",
                          *args], what, capture=True)


def jax_versions(python: str) -> tuple[str, str] | None:
  return bench.installed_versions(python)


def requirement_name(requirement: str) -> str:
  for sep in "=<>[!~; ":
    requirement = requirement.split(sep)[0]
  return requirement


def split_requirements(table: dict[str, dict], names: list[str]) -> tuple[list[str], list[str]]:
  """(with their dependencies, without): the libraries and whatever of theirs
  declares a dependency on jax go in without, so pip cannot replace jax."""
  with_deps, no_deps = list(TEST_TOOLS), []
  for name in names:
    lib = table[name]
    no_deps.append(f"{name}=={lib['version']}")
    no_deps += lib["jax_deps"]
    for req in lib["deps"] + lib["test_deps"]:
      (no_deps if requirement_name(req) in table else with_deps).append(req)
  return sorted(set(with_deps)), sorted(set(no_deps))


def install_libraries(python: str, table: dict[str, dict], names: list[str],
                      progress: Progress) -> None:
  """Installs what `names` need into the virtualenv of `python`, checking that jax
  and jaxlib are still the same afterwards."""
  before = jax_versions(python)
  if before is None:
    raise HarnessError(f"{python} cannot import jax and jaxlib")
  with_deps, no_deps = split_requirements(table, names)
  stamp_file = os.path.join(os.path.dirname(os.path.dirname(python)), ".jax-ecosystem.json")
  stamp = {"with": with_deps, "without": no_deps}
  if os.path.exists(stamp_file):
    with open(stamp_file, encoding="utf-8") as f:
      done = json.load(f)
    if set(with_deps) <= set(done["with"]) and set(no_deps) <= set(done["without"]):
      return
    stamp = {k: sorted(set(done[k]) | set(stamp[k])) for k in stamp}
  progress.step(f"pip install {' '.join(with_deps)}")
  pip(python, with_deps, "pip install of the libraries' dependencies")
  progress.step(f"pip install --no-deps {' '.join(no_deps)}")
  pip(python, ["--no-deps", *no_deps], "pip install --no-deps of the libraries")
  after = jax_versions(python)
  if after != before:
    raise HarnessError(f"installing the libraries changed jax/jaxlib in {python} from "
                       f"{before} to {after}; a dependency in libraries.toml needs to move "
                       "to jax_deps")
  with open(stamp_file, "w", encoding="utf-8") as f:
    json.dump(stamp, f)


def make_installs(args: argparse.Namespace, progress: Progress) -> dict[str, str]:
  """The Python interpreter of each side's virtualenv, made when missing."""
  pythons = {}
  if "ours" in args.sides:
    pythons["ours"] = bench.ensure_ours(args.ours_venv, args.dist, progress)
  if "jax" in args.sides:
    pythons["jax"] = bench.ensure_realjax(args.realjax_venv, progress)
  return pythons


# ---------------------------------------------------------------------------- test sources


def download(python: str, requirement: str, sdist: bool, dest: str) -> str:
  """The wheel or source distribution of `requirement`, downloaded once into dest."""
  os.makedirs(dest, exist_ok=True)
  name, version = requirement.split("==")
  stem = (name + "-" + version).replace("-", "_").lower()
  suffix = (".tar.gz", ".zip") if sdist else (".whl",)

  def downloaded() -> str | None:
    for f in sorted(os.listdir(dest)):
      if f.replace("-", "_").lower().startswith(stem) and f.endswith(suffix):
        return os.path.join(dest, f)
    return None

  # A pinned release never changes: asking the index again only costs time.
  if (found := downloaded()) is not None:
    return found
  kind = "--no-binary=:all:" if sdist else "--only-binary=:all:"
  cmd = [python, "-m", "pip", "--disable-pip-version-check", "download", "-q", "--no-deps",
         kind, "-d", dest, requirement]
  bench.build_driver.run(cmd, f"pip download {requirement}", capture=True)
  if (found := downloaded()) is not None:
    return found
  raise HarnessError(f"pip download {requirement} left no {'/'.join(suffix)} in {dest}")


def unpack(archive: str, dest: str) -> str:
  """The folder archive unpacks into (done once; a finished unpack leaves a marker)."""
  marker = os.path.join(dest, ".unpacked")
  if not os.path.exists(marker):
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    if archive.endswith(".whl") or archive.endswith(".zip"):
      with zipfile.ZipFile(archive) as z:
        z.extractall(dest)
    else:
      with tarfile.open(archive) as t:
        t.extractall(dest, filter="data")
    open(marker, "w", encoding="utf-8").close()
  entries = [e for e in os.listdir(dest) if not e.startswith(".")]
  return os.path.join(dest, entries[0]) if len(entries) == 1 else dest


def test_root(python: str, name: str, lib: dict) -> str | None:
  """The folder the library's test paths are relative to. A wheel's tests run from
  a copy of the wheel outside the virtualenv, the same files for both installs; the
  installed library is the one imported (tests go in without the package itself)."""
  if lib["tests"] == "none":
    return None
  requirement = f"{name}=={lib['version']}"
  sdist = lib["tests"] == "sdist"
  archive = download(python, requirement, sdist, os.path.join(cache_dir(), "downloads"))
  root = unpack(archive, os.path.join(cache_dir(), "sources", os.path.basename(archive)))
  return root if sdist else os.path.join(root, lib["import"])


# ---------------------------------------------------------------------------- running


def pytest_command(python: str, root: str, lib: dict, quick: bool, jobs: int,
                   junit: str) -> list[str]:
  """The junit xml is written at the end; the report log (beside it, .jsonl) as the
  tests finish, so that a suite stopped at its time bound still has counts."""
  paths = lib["quick"] if quick else lib["test_paths"]
  report_log = os.path.splitext(junit)[0] + ".jsonl"
  cmd = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
         "-o", "python_files=*_test.py test_*.py", f"--junitxml={junit}",
         f"--report-log={report_log}",
         f"--timeout={PER_TEST_TIMEOUT}", "--rootdir", root,
         "--import-mode=importlib", "--continue-on-collection-errors"]
  if jobs > 1:
    cmd += ["-n", str(jobs)]
  if quick and lib.get("quick_k"):
    cmd += ["-k", " ".join(lib["quick_k"].split())]
  for target, _ in lib.get("exclude", []):
    flag = "--deselect" if "::" in target else "--ignore"
    cmd += [flag, os.path.join(root, target)]
  return cmd + [os.path.join(root, p) for p in paths]


def child_env(lib: dict) -> dict[str, str]:
  env = bench.clean_env()
  env.update(lib["env"])
  env["PYTHONDONTWRITEBYTECODE"] = "1"
  env.setdefault("JAX_PLATFORMS", "cpu")
  return env


def run_bounded(cmd: list[str], timeout: float, env: dict[str, str], cwd: str,
                log: str) -> tuple[int | None, float]:
  """(exit code or None on timeout, seconds); output goes to `log`. On timeout the
  whole process group goes, pytest-xdist's workers included."""
  start = time.monotonic()
  with open(log, "w", encoding="utf-8") as out:
    proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd,
                            start_new_session=True)
    try:
      code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
      os.killpg(proc.pid, signal.SIGKILL)
      proc.wait()
      code = None
  return code, time.monotonic() - start


def parse_junit(path: str) -> dict[str, int]:
  """Counts of one junit xml: passed, failed, errors, skipped."""
  counts = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0}
  root = ET.parse(path).getroot()
  for case in root.iter("testcase"):
    tags = {child.tag for child in case}
    if "error" in tags:
      counts["errors"] += 1
    elif "failure" in tags:
      counts["failed"] += 1
    elif "skipped" in tags:
      counts["skipped"] += 1
    else:
      counts["passed"] += 1
  return counts


def parse_report_log(path: str, collection_errors: bool = True) -> dict[str, int]:
  """Counts of the tests a pytest report log has so far, like parse_junit's: a test
  whose setup or teardown failed is an error, a module that failed to import too
  (unless `collection_errors` is False: earlier parts counted those)."""
  outcomes: dict[str, str] = {}
  counts = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0}
  with open(path, encoding="utf-8") as f:
    for line in f:
      try:
        report = json.loads(line)
      except json.JSONDecodeError:
        continue  # the last line of a killed run may be cut short
      kind, outcome = report.get("$report_type"), report.get("outcome")
      if kind == "CollectReport" and outcome == "failed":
        if collection_errors:
          outcomes[report["nodeid"]] = "errors"  # once, however many parts collected it
      elif kind == "TestReport":
        node, when = report["nodeid"], report["when"]
        if outcome == "failed":
          outcomes[node] = "failed" if when == "call" else "errors"
        elif outcome == "skipped" and outcomes.get(node) is None:
          outcomes[node] = "skipped"
        elif outcome == "passed" and when == "call" and node not in outcomes:
          outcomes[node] = "passed"
  for outcome in outcomes.values():
    counts[outcome] += 1
  return counts


def finished_tests(report_log: str) -> set[str]:
  """The node ids a report log has a final outcome for (its call ran, or its setup was
  skipped or failed)."""
  done = set()
  with open(report_log, encoding="utf-8") as f:
    for line in f:
      try:
        report = json.loads(line)
      except json.JSONDecodeError:
        continue
      if report.get("$report_type") != "TestReport":
        continue
      if report["when"] == "call" or (report["when"] == "setup"
                                      and report["outcome"] != "passed"):
        done.add(report["nodeid"])
  return done


# Loaded into a resumed pytest (-p): the tests an earlier part finished are deselected.
# Those named in the report log, and, when the earlier parts' report log is gone (the
# run moved to another machine), the first JAX_ECOSYSTEM_FIRST_DONE they counted: a
# serial run goes in collection order, so what it finished is the first tests collected,
# and its count holds one error per module that failed to import, which is no item.
RESUME_PLUGIN = """
import os

_failed_modules = set()

def pytest_collectreport(report):
    if report.failed:
        _failed_modules.add(report.nodeid)

def pytest_collection_modifyitems(config, items):
    with open(os.environ["JAX_ECOSYSTEM_FINISHED"], encoding="utf-8") as f:
        done = set(f.read().splitlines())
    first = int(os.environ.get("JAX_ECOSYSTEM_FIRST_DONE", "0"))
    first = max(0, first - len(_failed_modules)) if first else 0
    gone = [i for n, i in enumerate(items) if n < first or i.nodeid in done]
    config.hook.pytest_deselected(items=gone)
    gone = set(map(id, gone))
    items[:] = [i for i in items if id(i) not in gone]
"""


def counts_so_far(report_log: str, before: dict | None) -> dict[str, int]:
  """The counts of a suite's report log, plus those of the earlier parts whose own log
  is gone (`before`), which already hold the modules that failed to import."""
  if not os.path.exists(report_log):
    return dict(before or {})
  counts = parse_report_log(report_log, collection_errors=before is None)
  return {k: counts[k] + (before or {}).get(k, 0) for k in COUNTS}


def run_suite(python: str, side: str, name: str, lib: dict, root: str, args: argparse.Namespace,
              progress: Progress) -> dict:
  """Runs one suite on one side. With args.resume, a suite an earlier run stopped at its
  time bound goes on from where it stopped: the tests it finished are deselected, the
  new reports are added to its report log, and the seconds add up."""
  out_dir = os.path.join(cache_dir(), "results", "quick" if args.quick else "full", side)
  os.makedirs(out_dir, exist_ok=True)
  junit, log = os.path.join(out_dir, f"{name}.xml"), os.path.join(out_dir, f"{name}.log")
  report_log = os.path.splitext(junit)[0] + ".jsonl"
  earlier = load_results().get(name, {}).get(side, {}) if args.resume else {}
  resuming = str(earlier.get("status", "")).startswith("stopped")
  # Counts of earlier parts that no report log here holds (a stop on another machine).
  before = (earlier.get("before_log") if os.path.exists(report_log)
            else {k: earlier.get(k, 0) for k in COUNTS}) if resuming else None
  for stale in (junit,) if resuming else (junit, report_log):
    if os.path.exists(stale):
      os.remove(stale)
  part = os.path.join(out_dir, f"{name}.part.xml") if resuming else junit
  part_log = os.path.splitext(part)[0] + ".jsonl"
  cmd = pytest_command(python, root, lib, args.quick, args.jobs, part)
  env = child_env(lib)
  progress.step(f"{side}: {name} tests{' (resumed)' if resuming else ''} (log: {log})")
  with tempfile.TemporaryDirectory() as cwd:
    if resuming:
      finished = os.path.join(cwd, "finished.txt")
      with open(finished, "w", encoding="utf-8") as f:
        if os.path.exists(report_log):
          f.write("\n".join(sorted(finished_tests(report_log))))
      with open(os.path.join(cwd, "ecosystem_resume.py"), "w", encoding="utf-8") as f:
        f.write(RESUME_PLUGIN)
      env = dict(env, JAX_ECOSYSTEM_FINISHED=finished,
                 JAX_ECOSYSTEM_FIRST_DONE=str(sum((before or {}).values())),
                 PYTHONPATH=os.pathsep.join(filter(None, [cwd, env.get("PYTHONPATH")])))
      cmd[cmd.index("pytest") + 1:cmd.index("pytest") + 1] = ["-p", "ecosystem_resume"]
    code, seconds = run_bounded(cmd, args.timeout, env, cwd, log)
  if resuming:
    if os.path.exists(part_log):
      with open(part_log, encoding="utf-8") as src, open(report_log, "a", encoding="utf-8") as dst:
        dst.write(src.read())
    for done in (part, part_log):
      if os.path.exists(done):
        os.remove(done)
    seconds += float(earlier.get("seconds", 0.0))
  entry = {"seconds": round(seconds, 1), "log": log}
  if before:
    entry["before_log"] = before
  if code is None:
    entry["status"] = f"stopped at {seconds:.0f} s"
    if os.path.exists(report_log) or before:
      entry.update(counts_so_far(report_log, before))
  elif not os.path.exists(report_log if resuming else junit):
    entry["status"] = f"pytest exited {code} without a report"
  else:
    entry.update(counts_so_far(report_log, before) if resuming else parse_junit(junit))
    # 5: nothing left to run, when a resumed suite had finished all but its last test
    entry["status"] = "ok" if code in ((0, 1, 5) if resuming else (0, 1)) else (
        f"pytest exited {code}")
  return entry


def run_snippet(python: str, code: str, timeout: float, env: dict[str, str]) -> tuple[bool, str]:
  try:
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=timeout,
                          cwd=tempfile.gettempdir(), env=env)
  except subprocess.TimeoutExpired:
    return False, f"took over {timeout:.0f} s"
  tail = (proc.stderr.strip().splitlines() or [""])[-1]
  return proc.returncode == 0, tail


IMPORTED = "-- imported --"


def quick_checks(python: str, name: str, lib: dict, progress: Progress) -> dict:
  """{"import": ..., "step": ...}, each "ok" or why not. One process does both (an
  interpreter start and the library's import are a good part of a step's time); the
  marker it prints after the import tells which of the two failed."""
  progress.step(f"{name}: import and one training step")
  code = f"import {lib['import']}\nprint({IMPORTED!r}, flush=True)\n{lib['step']}"
  try:
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=600,
                          cwd=tempfile.gettempdir(), env=child_env(lib))
  except subprocess.TimeoutExpired as e:
    imported = IMPORTED in (e.stdout or b"").decode(errors="replace")
    return {"import": "ok", "step": "took over 600 s"} if imported else {
        "import": "took over 600 s"}
  why = (proc.stderr.strip().splitlines() or [f"exited {proc.returncode}"])[-1]
  if IMPORTED not in proc.stdout:
    return {"import": why}
  return {"import": "ok", "step": "ok" if proc.returncode == 0 else why}


# ---------------------------------------------------------------------------- examples


def load_examples(path: str = EXAMPLES_TOML) -> dict[str, dict]:
  with open(path, "rb") as f:
    table = tomllib.load(f)
  for name, example in table.items():
    if not os.path.exists(os.path.join(EXAMPLES_DIR, f"{name}.py")):
      raise HarnessError(f"examples.toml: examples/{name}.py does not exist")
    if not example.get("losses") or not example.get("rtol"):
      raise HarnessError(f"examples.toml: {name} needs losses and rtol")
    example.setdefault("final", {})
    example.setdefault("libraries", [])
  return table


def parse_example_output(text: str) -> tuple[list[float], dict[str, float]]:
  """(the loss of each `step N loss X` line, the `mean NAME X` / `accuracy X` values)."""
  losses = [float(v) for v in re.findall(r"^step \d+ loss (\S+)$", text, re.M)]
  final = {k: float(v) for k, v in re.findall(r"^((?:mean \w+)|accuracy) (\S+)$", text, re.M)}
  return losses, final


def run_example(python: str, name: str, timeout: float = 900) -> str:
  """What examples/NAME.py prints, run from a scratch folder; raises on failure."""
  env = {k: v for k, v in bench.clean_env().items() if not k.startswith(("JAX_", "PYTHON"))}
  with tempfile.TemporaryDirectory() as cwd:
    try:
      proc = subprocess.run([python, os.path.join(EXAMPLES_DIR, f"{name}.py")], cwd=cwd,
                            env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
      raise HarnessError(f"examples/{name}.py took over {timeout:.0f} s") from None
  if proc.returncode != 0:
    last = (proc.stderr.strip().splitlines() or [f"exited {proc.returncode}"])[-1]
    raise HarnessError(f"examples/{name}.py failed: {last}")
  return proc.stdout


def example_mismatches(example: dict, text: str) -> list[str]:
  """Where the printed numbers differ from real JAX's beyond the tolerance."""
  losses, final = parse_example_output(text)
  want_losses, rtol = example["losses"], example["rtol"]
  if len(losses) != len(want_losses):
    return [f"printed {len(losses)} losses, real JAX {len(want_losses)}"]
  misses = [f"step {i} loss {got:.8g}, real JAX {want:.8g}"
            for i, (got, want) in enumerate(zip(losses, want_losses))
            if not _close(got, want, rtol)]
  if final.keys() != example["final"].keys():
    misses.append(f"printed final values {sorted(final)}, real JAX {sorted(example['final'])}")
  else:
    misses += [f"{k} {final[k]:.8g}, real JAX {want:.8g}" for k, want in example["final"].items()
               if not _close(final[k], want, rtol, atol=1e-6)]
  return misses


def _close(got: float, want: float, rtol: float, atol: float = 0.0) -> bool:
  return math.isfinite(got) and abs(got - want) <= atol + rtol * abs(want)


def check_example(python: str, name: str, example: dict, progress: Progress) -> str:
  """"ok", or why examples/NAME.py does not print real JAX's numbers."""
  progress.step(f"examples/{name}.py")
  try:
    misses = example_mismatches(example, run_example(python, name))
  except HarnessError as e:
    return str(e)
  if not misses:
    return "ok"
  return f"{len(misses)} values off real JAX's (first: {misses[0]})"


# ---------------------------------------------------------------------------- the table


def load_results() -> dict:
  if os.path.exists(RESULTS_JSON):
    with open(RESULTS_JSON, encoding="utf-8") as f:
      return json.load(f)
  return {}


def save_results(table: dict[str, dict], results: dict) -> None:
  with open(RESULTS_JSON, "w", encoding="utf-8") as f:
    json.dump(results, f, indent=1, sort_keys=True)
    f.write("\n")
  with open(RESULTS_MD, "w", encoding="utf-8") as f:
    f.write(results_markdown(table, results))


def cell(entry: dict | None) -> list[str]:
  if entry is None:
    return ["not run"] + [""] * 4
  if "passed" not in entry:
    return [entry["status"], "", "", "", f"{entry['seconds']:.0f}"]
  note = "" if entry["status"] == "ok" else f" ({entry['status']})"
  return [f"{entry['passed']}{note}", str(entry["failed"]), str(entry["errors"]),
          str(entry["skipped"]), f"{entry['seconds']:.0f}"]


def results_markdown(table: dict[str, dict], results: dict) -> str:
  header = ["library", "version", "tests from"] + [
      f"{h} ({side})" for side in ("ours", "JAX 0.10.2")
      for h in ("passed", "failed", "errors", "skipped", "s")]
  lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
  for name, lib in table.items():
    got = results.get(name, {})
    source = {"wheel": "wheel", "sdist": "sdist", "none": "none (examples)"}[lib["tests"]]
    row = [name, lib["version"], source] + cell(got.get("ours")) + cell(got.get("jax"))
    lines.append("| " + " | ".join(row) + " |")
  excluded = []
  for name, lib in table.items():
    for target, reason in lib.get("exclude", []):
      excluded.append(f"- {name}: `{target}` - {reason}")
  dates = sorted({e.get("date", "") for r in results.values() for e in r.values()} - {""})
  return "\n".join([
      "# Ecosystem test suites: our wheels and real JAX 0.10.2",
      "",
      "Written by `python3 ecosystem/run.py` (see README.md). Each library's own test "
      "suite, the same selection on both installs, run with pytest; counts come from "
      "pytest's junit xml. \"s\" is the suite's wall time in seconds. A cell with a status "
      "instead of counts means the suite did not finish (time bound) or pytest could not "
      "run it.",
      "",
      f"Runs: {', '.join(dates) if dates else 'none yet'}.",
      "",
      *lines,
      "",
      "## Excluded from the suites",
      "",
      *(excluded or ["- nothing"]),
      "",
      "equinox and diffrax publish no tests (neither wheel nor source distribution): "
      "`examples/equinox_mlp.py` and the one-step checks of `--quick` cover them.",
      "",
      *_causes(),
  ])


def _causes() -> list[str]:
  """The hand-written analysis of the misses (causes.md), kept beside the table."""
  if not os.path.exists(CAUSES_MD):
    return []
  with open(CAUSES_MD, encoding="utf-8") as f:
    return [f.read().rstrip("\n"), ""]


# ---------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
  p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  p.add_argument("--libs", default=None, help="comma-separated names from libraries.toml")
  p.add_argument("--quick", action="store_true",
                 help="import, one training step and a bounded part of each suite, and "
                 "the examples against real JAX's numbers")
  p.add_argument("--ci", action="store_true",
                 help="what CI runs: --quick --ours-only --workers 2")
  side = p.add_mutually_exclusive_group()
  side.add_argument("--ours-only", action="store_true")
  side.add_argument("--jax-only", action="store_true")
  p.add_argument("--jobs", type=int, default=1, help="pytest-xdist workers per suite")
  p.add_argument("--workers", type=int, default=None,
                 help="with --quick: libraries and examples checked at the same time "
                 "(default 1, 2 with --ci)")
  p.add_argument("--timeout", type=float, default=None,
                 help="seconds per suite (default 3600, or 300 with --quick)")
  p.add_argument("--resume", action="store_true",
                 help="a full suite that an earlier run stopped at its time bound goes on "
                 "from where it stopped (its counts and seconds add up; without its report "
                 "log, from its counts: the first tests collected)")
  p.add_argument("--dist", default=os.path.join(REPO_ROOT, "dist"),
                 help="where our wheels are")
  p.add_argument("--ours-venv", default=os.path.join(cache_dir(), "ours"))
  p.add_argument("--realjax-venv", default=os.path.join(
      cache_dir(), f"realjax-{bench.REALJAX_VERSION}-py{bench.python_version()}"))
  args = p.parse_args(argv)
  if args.ci:
    if args.jax_only:
      p.error("--ci runs our wheels only; it cannot take --jax-only")
    args.quick, args.ours_only = True, True
  args.sides = ["ours"] if args.ours_only else ["jax"] if args.jax_only else list(SIDES)
  if args.workers is None:
    args.workers = 2 if args.ci else 1
  if args.workers < 1 or args.jobs < 1:
    p.error("--workers and --jobs take a positive number")
  if args.resume and args.quick:
    p.error("--resume is for full runs")
  if args.workers > 1 and not args.quick:
    p.error("--workers is for --quick (a full run bounds its suites one at a time)")
  if args.timeout is None:
    args.timeout = 300.0 if args.quick else 3600.0
  args.dist = os.path.abspath(args.dist)
  return args


def summary_of(entry: dict) -> str:
  return ", ".join(f"{k} {entry[k]}" for k in ("passed", "failed", "errors", "skipped")
                   if k in entry) or entry["status"]


def run_full(args: argparse.Namespace, table: dict[str, dict], names: list[str],
             pythons: dict[str, str], progress: Progress) -> int:
  """Each selected suite on each side; the counts go to results.json and RESULTS.md."""
  stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
  for name in names:
    lib = table[name]
    for side, python in pythons.items():
      root = test_root(python, name, lib)
      if root is None:
        continue
      entry = run_suite(python, side, name, lib, root, args, progress)
      entry["date"] = stamp
      print(f"{side:4} {name:9} {summary_of(entry)} ({entry['seconds']:.0f} s)", flush=True)
      # Re-read first: a run of the other side may have saved rows meanwhile.
      results = load_results()
      results.setdefault(name, {})[side] = {k: v for k, v in entry.items() if k != "log"}
      save_results(table, results)  # after each suite: a long run stopped early keeps its part
  print(f"wrote {RESULTS_MD}")
  return 0


def quick_library(python: str, side: str, name: str, lib: dict, root: str | None,
                  args: argparse.Namespace, progress: Progress) -> list[str]:
  """The fast checks of one library on one side: what failed, one line each."""
  checks = quick_checks(python, name, lib, progress)
  failures = [f"{side} {name} {k}: {v}" for k, v in checks.items() if v != "ok"]
  if root is None or not lib["quick"]:
    return failures
  entry = run_suite(python, side, name, lib, root, args, progress)
  print(f"{side:4} {name:9} {summary_of(entry)} ({entry['seconds']:.0f} s)", flush=True)
  if entry.get("failed") or entry.get("errors") or not entry.get("passed"):
    failures.append(f"{side} {name} tests: {summary_of(entry)} (log: {entry['log']})")
  return failures


def quick_example(python: str, side: str, name: str, example: dict,
                  progress: Progress) -> list[str]:
  start = time.monotonic()
  outcome = check_example(python, name, example, progress)
  print(f"{side:4} examples/{name}.py: {outcome} ({time.monotonic() - start:.0f} s)",
        flush=True)
  return [] if outcome == "ok" else [f"{side} examples/{name}.py: {outcome}"]


def run_quick(args: argparse.Namespace, table: dict[str, dict], names: list[str],
              pythons: dict[str, str], progress: Progress) -> int:
  """Imports, training steps, the `quick` tests and the CI examples, `args.workers` at a
  time; prints what failed and returns 1 if anything did."""
  examples = {n: e for n, e in load_examples().items()
              if e.get("ci") and set(e["libraries"]) <= set(names)}
  jobs = []
  for side, python in pythons.items():
    for name in names:
      # Sources are downloaded here, one at a time, before the checks start in parallel.
      root = test_root(python, name, table[name]) if table[name]["quick"] else None
      jobs.append((quick_library, (python, side, name, table[name], root, args, progress)))
    jobs += [(quick_example, (python, side, n, e, progress)) for n, e in examples.items()]
  start = time.monotonic()
  with concurrent.futures.ThreadPoolExecutor(max_workers=args.workers) as pool:
    done = [pool.submit(fn, *fn_args) for fn, fn_args in jobs]
  failures = [line for future in done for line in future.result()]
  for line in failures:
    print("FAILED", line)
  verdict = f"{len(failures)} failed" if failures else "all passed"
  print(f"fast ecosystem checks: {verdict} in {time.monotonic() - start:.0f} s "
        f"({args.workers} at a time)", flush=True)
  return 1 if failures else 0


def run(args: argparse.Namespace) -> int:
  progress = Progress()
  table = load_libraries()
  names = select_libraries(table, args.libs)
  pythons = make_installs(args, progress)
  # Every library goes into both installs whatever --libs says: suites import each
  # other's libraries (einops tests flax layers), and a suite's result must not
  # depend on which others ran before.
  for side, python in pythons.items():
    install_libraries(python, table, list(table), progress)
  if args.quick:
    return run_quick(args, table, names, pythons, progress)
  return run_full(args, table, names, pythons, progress)


def main(argv: list[str] | None = None) -> int:
  args = parse_args(argv)
  try:
    return run(args)
  except (HarnessError, bench.build_driver.BuildError) as e:
    print(f"error: {e}", file=sys.stderr)
    return 2


if __name__ == "__main__":
  sys.exit(main())
