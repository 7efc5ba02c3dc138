#!/usr/bin/env python3
"""Benchmarks our wheels against real JAX 0.10.2 (and numpy) on this machine.

    python3 benchmarks/run.py                 # full run; rewrites benchmarks/RESULTS.md
    python3 benchmarks/run.py --quick         # smoke test, under 2 minutes
    python3 benchmarks/run.py --only dispatch,matmul_1024
    python3 benchmarks/run.py --quick --only openxla   # ours vs OpenXLA's XLA:CPU plugin
    python3 benchmarks/run.py --build-times   # also clean/incremental Bazel builds (slow)

Two virtualenvs, made when missing and reused after (default under
~/.cache/jax-bench/): ours, with the wheels from dist/ (remade when those wheels
change), and real JAX from the package index. Every benchmark group of suite.py
runs in a fresh process per install, the installs taking turns (the order flips
every round) so drift of the machine falls on both. The table gives medians with
(min-max) over all samples; ours/JAX divides the medians (for times lower is
better, for throughputs higher). Each run is kept as JSON in benchmarks/results/;
a full run also rewrites RESULTS.md, whose explanations of missed targets come
from notes.md. The `openxla` group runs in our virtualenv only, with OpenXLA's own
CPU plugin installed there beside ours, and has its own table (ours / OpenXLA).
"""

from __future__ import annotations

import argparse
import datetime
import glob
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import harness  # pylint: disable=wrong-import-position

SUITE = os.path.join(HERE, "suite.py")
RESULTS_MD = os.path.join(HERE, "RESULTS.md")
NOTES_MD = os.path.join(HERE, "notes.md")
REALJAX_VERSION = "0.10.2"
REALJAX_REQUIREMENTS = [f"jax=={REALJAX_VERSION}", f"jaxlib=={REALJAX_VERSION}"]
STAMP = ".jax-bench-wheels.json"   # which dist/ wheels a virtualenv of ours holds

# The file edited (in a scratch copy) before each wheel's incremental rebuild.
BUILD_EDITS = {
    "jax": ("jax/_src/core.py", "\n# benchmark edit\n"),
    "jaxlib": ("jaxlib/py_client.cc", "\n// benchmark edit\n"),
    "jaxlib-cpu": ("xla/backends/cpu/cpu_client.cc", "\n// benchmark edit\n"),
    "jaxlib-cuda12": ("xla/backends/gpu/cuda_client.cc", "\n// benchmark edit\n"),
    "jaxlib-rocm6": ("xla/backends/gpu/rocm_client.cc", "\n// benchmark edit\n"),
    "jaxlib-tpu": ("plugins/tpu/jax_plugins/xla_tpu/__init__.py", "\n# benchmark edit\n"),
}


class HarnessError(Exception):
  """A step of the harness failed; the message says which and how to fix it."""


def load_build_driver():
  """build/build.py as a module, for its virtualenv recipe and wheel names."""
  if "jax_build_driver" in sys.modules:  # tests/conftest.py loads it the same way
    return sys.modules["jax_build_driver"]
  spec = importlib.util.spec_from_file_location(
      "jax_build_driver", os.path.join(REPO_ROOT, "build", "build.py"))
  module = importlib.util.module_from_spec(spec)
  sys.modules[spec.name] = module
  spec.loader.exec_module(module)
  return module


build_driver = load_build_driver()


Progress = build_driver.Progress  # one progress line format for build and benchmarks


def python_version() -> str:
  return "%d.%d" % sys.version_info[:2]


def cache_dir() -> str:
  base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
  return os.path.join(base, "jax-bench")


# ---------------------------------------------------------------------------- installs


def our_wheels(dist: str, version: str) -> list[str]:
  """jax, jaxlib for `version` and the CPU backend from dist/, or an error that says
  how to build the missing ones."""
  found, wanted = {}, {"jax": None, "jaxlib": build_driver.cp_tag(version), "jaxlib-cpu": None}
  for path in sorted(glob.glob(os.path.join(dist, "*.whl"))):
    try:
      info = build_driver.parse_wheel_name(path)
    except ValueError:
      continue
    name = info["distribution"]
    if name in wanted and (wanted[name] is None or info["abi"] == wanted[name]):
      found[name] = path
  missing = [w for w in wanted if w not in found]
  if missing:
    raise HarnessError(f"{dist} lacks the {', '.join(missing)} wheel(s) for Python {version}; "
                       f"build them with: python3 build/build.py build "
                       f"--wheels=jax,jaxlib,jaxlib-cpu --python={version}")
  return [found[w] for w in wanted]


def wheel_stamp(wheels: list[str]) -> list[list]:
  return [[os.path.basename(w), os.path.getsize(w), int(os.path.getmtime(w))] for w in wheels]


def ensure_ours(path: str, dist: str, progress: Progress) -> str:
  """Our virtualenv: made from dist/ when missing or when its wheels changed. A
  virtualenv the harness did not make (no stamp) is used as it is."""
  version = python_version()
  python = os.path.join(path, "bin", "python")
  stamp_file = os.path.join(path, STAMP)
  if os.path.exists(python) and not os.path.exists(stamp_file):
    return python
  if not os.path.exists(stamp_file) and os.path.isdir(path) and os.listdir(path):
    raise HarnessError(f"{path} exists but is not a virtualenv; remove it or pass "
                       "another --ours-venv")
  wheels = our_wheels(dist, version)
  stamp = wheel_stamp(wheels)
  if os.path.exists(stamp_file):
    with open(stamp_file, encoding="utf-8") as f:
      if json.load(f) == stamp:
        return python
    progress.step(f"the wheels in {dist} changed: remaking {path}")
  interpreter = build_driver.find_python(version)
  if interpreter is None:
    raise HarnessError(f"no Python {version} interpreter without a virtualenv found")
  progress.step(f"virtualenv with our wheels: {path}")
  try:
    build_driver.make_venv(path, interpreter, ["jax", "jaxlib"], dist)
  except build_driver.BuildError as e:
    raise HarnessError(str(e)) from e
  with open(stamp_file, "w", encoding="utf-8") as f:
    json.dump(stamp, f)
  return python


def ensure_openxla_plugin(python: str, progress: Progress) -> str | None:
  """OpenXLA's CPU plugin in our virtualenv, for the compiler-against-compiler
  group: pip-installed from the index without its dependencies (it declares
  Google's jax, which would replace ours). Returns why it could not be installed,
  or None; suite.py then reports OpenXLA's side of each figure as an error."""
  code = f"import importlib.util as u; print(u.find_spec({harness.OPENXLA_MODULE!r}) is not None)"
  proc = subprocess.run([python, "-c", code], capture_output=True, text=True,
                        cwd=tempfile.gettempdir(), env=clean_env())
  if proc.stdout.strip() == "True":
    return None
  wheel = harness.OPENXLA_WHEEL
  progress.step(f"pip install --no-deps {wheel} into {os.path.dirname(os.path.dirname(python))}")
  proc = subprocess.run([python, "-m", "pip", "--disable-pip-version-check", "install", "-q",
                         "--no-deps", wheel], capture_output=True, text=True, env=clean_env())
  if proc.returncode != 0:
    last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    return f"pip install --no-deps {wheel} failed: {last}"
  return None


def ensure_realjax(path: str, progress: Progress) -> str:
  """Real JAX's virtualenv: made, or completed, with pip from the package index."""
  python = os.path.join(path, "bin", "python")
  if os.path.exists(python) and installed_versions(python) == (REALJAX_VERSION,) * 2:
    return python
  if not os.path.exists(python):
    if os.path.exists(path) and os.listdir(path):
      raise HarnessError(f"{path} exists but is not a virtualenv; remove it or pass "
                         "another --realjax-venv")
    interpreter = build_driver.find_python(python_version()) or sys.executable
    progress.step(f"virtualenv for real JAX {REALJAX_VERSION}: {path}")
    build_driver.run([interpreter, "-m", "venv", path], f"creating a virtualenv at {path}",
                     capture=True)
  progress.step(f"pip install {' '.join(REALJAX_REQUIREMENTS)} into {path}")
  build_driver.run([python, "-m", "pip", "--disable-pip-version-check", "install", "-q",
                    *REALJAX_REQUIREMENTS], "pip install of real JAX", capture=True)
  return python


def installed_versions(python: str) -> tuple[str, str] | None:
  code = "import jax, jaxlib; print(jax.__version__, jaxlib.__version__)"
  proc = subprocess.run([python, "-c", code], capture_output=True, text=True,
                        cwd=tempfile.gettempdir(), env=clean_env())
  return tuple(proc.stdout.split()) if proc.returncode == 0 else None


def clean_env() -> dict[str, str]:
  """The environment for child processes: nothing that would put a source tree
  on sys.path."""
  env = dict(os.environ)
  env.pop("PYTHONPATH", None)
  return env


# ---------------------------------------------------------------------------- the suite


def run_suite(python: str, group: str, quick: bool, repeats: int | None,
              timeout: float) -> dict:
  """One process of suite.py; a crash becomes an error for each of the group's figures."""
  cmd = [python, SUITE, group] + (["--quick"] if quick else [])
  if repeats:
    cmd += ["--repeats", str(repeats)]
  try:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          cwd=tempfile.gettempdir(), env=clean_env())
  except subprocess.TimeoutExpired:
    return failed_group(group, quick, f"suite.py {group} took over {timeout:.0f}s")
  lines = proc.stdout.strip().splitlines()
  if proc.returncode == 0 and lines:
    try:
      return json.loads(lines[-1])
    except json.JSONDecodeError:
      pass
  last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
  return failed_group(group, quick, f"suite.py {group} exited with {proc.returncode}: {last}")


def failed_group(group: str, quick: bool, message: str) -> dict:
  """Every figure of the group as an error of this install ("jax" is the side
  that ran suite.py)."""
  names = [f.name for f in harness.figures_of(group, quick)]
  return {"group": group, "figures": {}, "unsupported": [],
          "errors": {n: {"jax": message} for n in names}}


class Collected:
  """Samples and errors per figure and side, pooled over rounds."""

  def __init__(self) -> None:
    self.samples: dict[str, dict[str, list[float]]] = {}
    self.errors: dict[str, dict[str, str]] = {}
    self.unsupported: set[tuple[str, str]] = set()
    self.versions: dict[str, dict[str, str]] = {}

  def add(self, side: str, result: dict) -> None:
    for key in ("jax_version", "numpy_version", "python"):
      if key in result:
        self.versions.setdefault(side, {})[key] = result[key]
    for name, sources in result["figures"].items():
      for source, values in sources.items():
        self.samples.setdefault(name, {}).setdefault(who(side, source), []).extend(values)
    for name, sources in result["errors"].items():
      for source, message in sources.items():
        self.errors.setdefault(name, {})[who(side, source)] = message
    for name in result.get("unsupported", []):
      self.unsupported.add((name, side))


def who(side: str, source: str) -> str:
  """suite.py's source of a sample -> the harness's side: "jax" is the install that
  ran it, "numpy" and "openxla" (OpenXLA's CPU plugin, in our virtualenv) are
  themselves."""
  return {"jax": side, "numpy": harness.NUMPY, "openxla": harness.OPENXLA}[source]


def needs_realjax(groups: list[str]) -> bool:
  """Whether any selected group runs in real JAX's virtualenv (or needs it, as the
  wheel sizes do): a run of our-virtualenv-only groups makes none."""
  return "wheels" in groups or any(
      harness.REALJAX in harness.sides_of(g) for g in groups if g in harness.SUITE_GROUPS)


def run_rounds(pythons: dict[str, str], groups: list[str], args, collected: Collected,
               progress: Progress) -> None:
  rounds = args.rounds or (1 if args.quick else 3)
  timeout = 600 if args.quick else 1800
  for r in range(rounds):
    order = harness.SIDES if r % 2 == 0 else harness.SIDES[::-1]
    for group in (g for g in groups if g in harness.SUITE_GROUPS):
      for side in (s for s in order if s in harness.sides_of(group)):
        start = time.monotonic()
        result = run_suite(pythons[side], group, args.quick, args.repeats, timeout)
        collected.add(side, result)
        note = f"; errors: {sorted(result['errors'])}" if result["errors"] else ""
        progress.step(f"round {r + 1}/{rounds} {group:<11} {side:<7} "
                      f"{time.monotonic() - start:5.1f}s{note}")


# ---------------------------------------------------------------------------- wheels


def wheel_sizes(dist: str, realjax_python: str, collected: Collected) -> dict:
  """Total size in MB of the wheels each side installs (real JAX's downloaded once
  into the cache)."""
  detail = {}
  try:
    ours = our_wheels(dist, python_version())
    detail[harness.OURS] = {os.path.basename(w): os.path.getsize(w) for w in ours}
  except HarnessError as e:
    collected.errors.setdefault("wheel_size", {})[harness.OURS] = str(e)
  target = os.path.join(cache_dir(), "wheels")
  proc = subprocess.run([realjax_python, "-m", "pip", "--disable-pip-version-check",
                         "download", "-q", "--no-deps", "-d", target, *REALJAX_REQUIREMENTS],
                        capture_output=True, text=True, env=clean_env())
  if proc.returncode == 0:
    files = [p for p in glob.glob(os.path.join(target, "*.whl"))
             if os.path.basename(p).startswith((f"jax-{REALJAX_VERSION}-",
                                                f"jaxlib-{REALJAX_VERSION}-"))]
    detail[harness.REALJAX] = {os.path.basename(p): os.path.getsize(p) for p in files}
  else:
    last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    collected.errors.setdefault("wheel_size", {})[harness.REALJAX] = f"pip download: {last}"
  for side, files in detail.items():
    collected.samples.setdefault("wheel_size", {})[side] = [sum(files.values()) / 1e6]
  return detail


# ---------------------------------------------------------------------------- build times


def build_times(collected: Collected, progress: Progress, wheels=harness.BUILD_WHEELS) -> None:
  """Each wheel's clean build in its own new output base without the disk cache,
  then its rebuild after an edit of one source file. All in a scratch copy of the
  checkout: its sources and shared output base are never touched."""
  bazel = os.environ.get("BAZEL", "bazel")
  if shutil.which(bazel) is None:
    collected.errors["build_clean_jax"] = {harness.OURS: f"{bazel} is not installed"}
    return
  with tempfile.TemporaryDirectory(prefix="jax-bench-build-") as tmp:
    copy = os.path.join(tmp, "repo")
    shutil.copytree(REPO_ROOT, copy, symlinks=True, ignore=shutil.ignore_patterns(
        "bazel-*", "dist", ".git", "__pycache__", ".venv*", "results"))
    for wheel in wheels:
      source, edit = BUILD_EDITS[wheel]
      python = python_version() if wheel in build_driver.PER_PYTHON_WHEELS else None
      target = build_driver.Item(wheel, python).target
      key = wheel.replace("-", "_")
      output_base = os.path.join(tmp, f"output_base_{key}")
      cmd = [bazel, f"--output_base={output_base}", "build", "--disk_cache=", target]
      try:
        progress.step(f"clean build of {target}")
        collected.samples[f"build_clean_{key}"] = {harness.OURS: [timed_run(cmd, copy)]}
        with open(os.path.join(copy, source), "a", encoding="utf-8") as f:
          f.write(edit)
        progress.step(f"incremental build of {target} after editing {source}")
        collected.samples[f"build_incremental_{key}"] = {harness.OURS: [timed_run(cmd, copy)]}
      except HarnessError as e:
        collected.errors.setdefault(f"build_clean_{key}", {})[harness.OURS] = str(e)
      finally:
        subprocess.run([bazel, f"--output_base={output_base}", "shutdown"], cwd=copy,
                       capture_output=True)
        # Bazel leaves its outputs read-only.
        subprocess.run(["chmod", "-R", "u+w", output_base], capture_output=True)
        shutil.rmtree(output_base, ignore_errors=True)


def load_build_times(path: str) -> dict:
  """The build-time samples of an earlier run, and when and under what load it ran."""
  try:
    with open(path, encoding="utf-8") as f:
      earlier = json.load(f)
  except (OSError, ValueError) as e:
    raise HarnessError(f"--build-times-from {path}: {e}") from None
  samples = {k: v for k, v in earlier.get("samples", {}).items() if k.startswith("build_")}
  if not samples:
    raise HarnessError(f"--build-times-from {path}: that run measured no build times "
                       "(make one with --only build --build-times)")
  return {"samples": samples,
          "source": {"date": earlier.get("date"), "load_at_end": earlier.get("load_at_end"),
                     "file": os.path.basename(path)}}


def timed_run(cmd: list[str], cwd: str) -> float:
  start = time.monotonic()
  proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
  if proc.returncode != 0:
    raise HarnessError(f"{' '.join(cmd)} failed: {proc.stderr.strip()[-300:]}")
  return time.monotonic() - start


# ---------------------------------------------------------------------------- reports


def machine_info() -> dict:
  cpu = platform.processor() or platform.machine()
  memory = None
  try:
    with open("/proc/cpuinfo", encoding="utf-8") as f:
      models = [l.split(":", 1)[1].strip() for l in f if l.startswith("model name")]
    cpu = models[0] if models else cpu
    with open("/proc/meminfo", encoding="utf-8") as f:
      kb = next(int(l.split()[1]) for l in f if l.startswith("MemTotal:"))
    memory = f"{kb / 2**20:.1f} GiB"
  except (OSError, StopIteration):
    pass
  return {"cpu": cpu, "cores": os.cpu_count(), "memory": memory,
          "os": platform.platform(), "python": platform.python_version(),
          "load": load_average()}


def load_average() -> str | None:
  """The 1-minute load average: on a shared machine it says how much the run competed
  for cores."""
  try:
    return f"{os.getloadavg()[0]:.2f}"
  except OSError:
    return None


def print_table(entries: dict) -> None:
  print()
  rows = harness.table_rows(entries)
  if rows:
    print(harness.format_table(harness.COLUMNS, rows))
  xla_rows = harness.openxla_rows(entries)
  if xla_rows:
    print(("\n" if rows else "") + f"Against {harness.OPENXLA_TITLE}, both under our jax:")
    print(harness.format_table(harness.OPENXLA_COLUMNS, xla_rows))
  for name, entry in entries.items():
    for side, message in entry["errors"].items():
      print(f"  {name} [{side}]: {message}")
  print()


def results_markdown(report: dict, notes: dict[str, str]) -> str:
  m, sides = report["machine"], report["sides"]
  ours, real = sides.get(harness.OURS, {}), sides.get(harness.REALJAX, {})
  numpy_versions = sorted({s.get("numpy_version") for s in sides.values() if s.get("numpy_version")})
  table = harness.format_table(harness.COLUMNS, harness.table_rows(report["entries"]),
                               markdown=True)
  errors = [f"- `{name}` [{side}]: {message}" for name, entry in report["entries"].items()
            for side, message in entry["errors"].items()]
  return f"""# Benchmark results

The latest full run of `python3 benchmarks/run.py`, which rewrites this file. The
explanations under "Misses" live in `benchmarks/notes.md` (one `## figure_name`
section each), so they survive reruns.

## Machine

- CPU: {m['cpu']} ({m['cores']} logical cores)
- Memory: {m['memory']}
- OS: {m['os']}
- Python: {ours.get('python') or m['python']}; numpy {', '.join(numpy_versions) or '-'}
- Ours: jax {ours.get('jax_version', '-')} (wheels from dist/); real JAX: jax {real.get('jax_version', '-')}
- Date: {report['date']}
- Load average (1 min) at start / end: {m.get('load') or '-'} / {report.get('load_at_end') or '-'}
- Run: {report['rounds']} round(s), each group in a fresh process per install, the order flipping every round

## Results

Medians with (min-max) over all samples. `ours/JAX` divides the medians: for times
(us, ms, s, MB) lower is better, for throughputs (GB/s, GFLOP/s) higher is better.
GB/s counts the bytes a kernel must read and write once; "copy/1.5" means within
1.5x of numpy's copy bandwidth on the same machine. numpy figures pool the samples
taken in both installs' processes.

{table}
{build_times_line(report)}{chr(10).join(["", "Messages:", ""] + errors) if errors else ""}
{openxla_section(report)}
## Misses

{harness.misses_section(report["entries"], notes)}
"""


def openxla_section(report: dict) -> str:
  """Our CPU compiler against OpenXLA's (its own table: one install, two plugins)."""
  rows = harness.openxla_rows(report["entries"])
  head = f"## Against {harness.OPENXLA_TITLE}\n\n"
  if not rows:
    return head + ("Not measured in this run (the `openxla` group runs OpenXLA's CPU "
                   "plugin beside ours in our virtualenv).\n")
  table = harness.format_table(harness.OPENXLA_COLUMNS, rows, markdown=True)
  return head + f"""Our CPU plugin against OpenXLA's own XLA:CPU PJRT plugin (the PyPI wheel
installed beside ours without its dependencies), both loaded by our jax in one
process: the same jitted functions, hence the same HLO, compiled by each, with
inputs placed on one device of each plugin and the two taking turns sample by
sample. `ours/OpenXLA` divides the medians (lower is better for ms, higher for
GB/s and GFLOP/s); the targets are those of the matching figures against real JAX.

{table}
"""


def build_times_line(report: dict) -> str:
  if not any(n.startswith("build_") for n in report["entries"]):
    return "\nBuild times were not measured in this run (they need `--build-times`).\n"
  sources = report.get("build_times_from")
  if isinstance(sources, dict):
    sources = [sources]
  if sources:
    runs = "; ".join(f"{s['date']} (`{s['file']}`, load average at its end {s['load_at_end']})"
                     for s in sources)
    return (f"\nBuild times (one clean build each, in a new output base without the disk "
            f"cache, then one rebuild after editing one source file) come from separate "
            f"`--only build --build-times` runs: {runs}.\n")
  return ("\nBuild times: one clean build each, in a new output base without the disk cache, "
          "then one rebuild after editing one source file.\n")


def read_notes() -> dict[str, str]:
  if not os.path.exists(NOTES_MD):
    return {}
  with open(NOTES_MD, encoding="utf-8") as f:
    return harness.parse_notes(f.read())


# ---------------------------------------------------------------------------- main


def parse_args(argv):
  parser = argparse.ArgumentParser(description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument("--quick", action="store_true",
                      help="one round of short samples, no matmul 2048 (smoke test)")
  parser.add_argument("--ours-venv", default=None,
                      help="virtualenv with our wheels (default: made under the cache dir)")
  parser.add_argument("--realjax-venv", default=None,
                      help=f"virtualenv with jax {REALJAX_VERSION} (default: made under the "
                      "cache dir)")
  parser.add_argument("--dist-dir", default=build_driver.DEFAULT_DIST,
                      help="where our wheels are (default: dist/)")
  parser.add_argument("--json", default=None,
                      help="where to write the run's JSON (default: benchmarks/results/"
                      "<timestamp>.json)")
  parser.add_argument("--build-times", action="store_true",
                      help="also time clean and incremental Bazel builds of each wheel")
  parser.add_argument("--build-wheels", default=",".join(harness.BUILD_WHEELS),
                      help="with --build-times: the wheels whose builds are timed "
                      f"(default: {','.join(harness.BUILD_WHEELS)})")
  parser.add_argument("--build-times-from", action="append", default=[], metavar="JSON",
                      help="take the build times from this earlier `--only build "
                      "--build-times` run instead of measuring them again (repeatable)")
  parser.add_argument("--only", default=None,
                      help="comma-separated groups or figures: " + ", ".join(harness.GROUPS))
  parser.add_argument("--rounds", type=int, default=None,
                      help="turns per install (default 3, 1 with --quick)")
  parser.add_argument("--repeats", type=int, default=None,
                      help="samples per figure and process (default 5, 3 with --quick)")
  parser.add_argument("--render", default=None, metavar="JSON",
                      help="only rewrite RESULTS.md from this saved full run (after "
                      "editing notes.md)")
  return parser.parse_args(argv)


def render(path: str, build_times_from: list[str]) -> int:
  """Rewrites RESULTS.md from a saved full run, e.g. after notes.md changed, with the
  build times of `build_times_from` runs (if any) in place of the run's own."""
  with open(path, encoding="utf-8") as f:
    report = json.load(f)
  if report["args"].get("quick") or report["args"].get("only"):
    print(f"error: {path} is not a full run", file=sys.stderr)
    return 1
  try:
    earlier_builds = [load_build_times(p) for p in build_times_from]
  except HarnessError as e:
    print(f"error: {e}", file=sys.stderr)
    return 2
  if earlier_builds:
    samples = {}
    for earlier in earlier_builds:
      samples.update(earlier["samples"])
    report["entries"].update(harness.evaluate(samples, {}))
    report["build_times_from"] = [e["source"] for e in earlier_builds]
  with open(RESULTS_MD, "w", encoding="utf-8") as f:
    f.write(results_markdown(report, read_notes()))
  print(f"wrote {RESULTS_MD} from {path}")
  return 0


def main(argv: list[str] | None = None) -> int:
  args = parse_args(argv)
  if args.render:
    return render(args.render, args.build_times_from)
  progress = Progress()
  try:
    groups = harness.select_groups(args.only)
  except ValueError as e:
    print(f"error: {e}", file=sys.stderr)
    return 2
  if "build" in groups and not args.build_times:
    print("error: build times need --build-times", file=sys.stderr)
    return 2
  if args.build_times and args.quick:
    print("error: --build-times takes far longer than --quick allows", file=sys.stderr)
    return 2
  if args.build_times and args.build_times_from:
    print("error: --build-times measures what --build-times-from reuses; pass one",
          file=sys.stderr)
    return 2
  if args.build_times and "build" not in groups:
    groups.append("build")
  build_wheels = [w.strip() for w in args.build_wheels.split(",") if w.strip()]
  unknown = [w for w in build_wheels if w not in harness.BUILD_WHEELS]
  if unknown:
    print(f"error: --build-wheels: unknown wheel(s) {', '.join(unknown)}; choose from "
          f"{', '.join(harness.BUILD_WHEELS)}", file=sys.stderr)
    return 2
  try:
    earlier_builds = [load_build_times(p) for p in args.build_times_from]
  except HarnessError as e:
    print(f"error: {e}", file=sys.stderr)
    return 2
  version = python_version()
  dist = os.path.abspath(args.dist_dir)
  try:
    pythons = {harness.OURS: ensure_ours(os.path.abspath(args.ours_venv or os.path.join(
        cache_dir(), f"ours-py{version}")), dist, progress)}
    if needs_realjax(groups):
      pythons[harness.REALJAX] = ensure_realjax(os.path.abspath(
          args.realjax_venv or os.path.join(cache_dir(), f"realjax-{REALJAX_VERSION}-py{version}")),
          progress)
  except (HarnessError, build_driver.BuildError) as e:
    print(f"error: {e}", file=sys.stderr)
    return 1
  for side, python in pythons.items():
    progress.step(f"{side}: {python}")
  plugin_error = None
  if harness.OPENXLA_GROUP in groups:
    plugin_error = ensure_openxla_plugin(pythons[harness.OURS], progress)
    if plugin_error:
      progress.step(f"{plugin_error}; OpenXLA's side of the {harness.OPENXLA_GROUP} group "
                    "is left out")

  machine = machine_info()
  collected = Collected()
  run_rounds(pythons, groups, args, collected, progress)
  if plugin_error:
    for figure in harness.figures_of(harness.OPENXLA_GROUP, args.quick):
      collected.errors.setdefault(figure.name, {})[harness.OPENXLA] = plugin_error
  wheels = wheel_sizes(dist, pythons[harness.REALJAX], collected) if "wheels" in groups else {}
  if "build" in groups:
    build_times(collected, progress, build_wheels)
  for earlier in earlier_builds:
    collected.samples.update(earlier["samples"])

  entries = harness.evaluate(collected.samples, collected.errors, collected.unsupported)
  now = datetime.datetime.now()
  report = {
      "date": now.strftime("%Y-%m-%d %H:%M"), "machine": machine,
      "load_at_end": load_average(),
      "args": vars(args), "rounds": args.rounds or (1 if args.quick else 3),
      "venvs": pythons, "sides": collected.versions, "wheels": wheels,
      "samples": collected.samples, "entries": entries,
  }
  if earlier_builds:
    report["build_times_from"] = [e["source"] for e in earlier_builds]
  print_table(entries)
  out = args.json or os.path.join(HERE, "results", now.strftime("%Y%m%d-%H%M%S") + ".json")
  os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
  with open(out, "w", encoding="utf-8") as f:
    json.dump(report, f, indent=1)
  progress.step(f"wrote {out}")
  if not args.quick and not args.only:
    with open(RESULTS_MD, "w", encoding="utf-8") as f:
      f.write(results_markdown(report, read_notes()))
    progress.step(f"wrote {RESULTS_MD}")
  return 0


if __name__ == "__main__":
  sys.exit(main())
