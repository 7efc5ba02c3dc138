#!/usr/bin/env python3
"""The front door for building this repository's wheels.

    python3 build/build.py build --wheels=jax,jaxlib,jaxlib-cpu --python=3.12
    python3 build/build.py build --wheels=all --python=all
    python3 build/build.py release                 # the whole release matrix
    python3 build/build.py build --dry_run         # print the commands only
    python3 build/build.py venv --python=3.12 DIR  # a virtualenv with our wheels from dist/
    python3 build/build.py test [-- PYTEST ARGS]   # pytest in such a virtualenv

`build` runs Bazel once for every requested target, then repairs each binary
wheel with `auditwheel repair` (which also gives it its manylinux tag), checks
the result with `auditwheel show` and the project's own wheel rules, and leaves
the finished wheels in dist/ (replacing older wheels of the same distribution
and tag). The pure `jax` wheel is copied as it is. Any failure stops the build
with a non-zero exit status.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DIST = os.path.join(REPO_ROOT, "dist")

PYTHON_VERSIONS = ("3.10", "3.11", "3.12", "3.13")

# wheel (distribution name) -> Bazel target. "{cp}" is replaced by the CPython
# tag (cp312) for wheels built once per Python.
WHEELS = {
    "jax": "//jax:wheel",
    "jaxlib": "//jaxlib:wheel_{cp}",
    "jaxlib-cpu": "//plugins/cpu:wheel",
    "jaxlib-cuda12": "//plugins/cuda:wheel",
    "jaxlib-rocm6": "//plugins/rocm:wheel",
    "jaxlib-tpu": "//plugins/tpu:wheel",
}
# py3-none-any: no auditwheel. jaxlib-tpu ships no native code: it registers the
# user's libtpu (Google's, never shipped by us).
PURE_WHEELS = {"jax", "jaxlib-tpu"}
PER_PYTHON_WHEELS = {"jaxlib"}             # cp3XY-cp3XY, one per Python
PLUGIN_WHEELS = {"jaxlib-cpu", "jaxlib-cuda12", "jaxlib-rocm6"}  # cp310-abi3

# The plugin C API entry point: the only symbol a plugin library may export.
# Engine libraries a plugin opens with dlopen, beside it in its wheel: their one export.
ENGINE_EXPORTS = {"libjax_cpu_collectives_gloo.so": ["JaxCpuCrossProcessEngine"]}
PLUGIN_EXPORTS = ["GetPjrtApi"]

# Third-party packages the tests need in every virtualenv (from the package index).
TEST_REQUIREMENTS = ["numpy", "ml_dtypes", "scipy"]


class BuildError(Exception):
  """A step failed; the message says which and why."""


# ----------------------------------------------------------------------------
# Progress


class Progress:
  """One line per step, each with the time elapsed since the start."""

  def __init__(self) -> None:
    self.start = time.monotonic()

  def step(self, message: str) -> None:
    print(f"[{time.monotonic() - self.start:7.1f}s] {message}", flush=True)


# ----------------------------------------------------------------------------
# Wheel file names and tags


def normalize(name: str) -> str:
  """PEP 503 name normalization: 'jaxlib_cpu' -> 'jaxlib-cpu'."""
  return re.sub(r"[-_.]+", "-", name).lower()


def parse_wheel_name(filename: str) -> dict[str, str]:
  """'jaxlib_cpu-1!0.1.0-cp310-abi3-manylinux_2_27_x86_64.whl' -> its parts."""
  base = os.path.basename(filename)
  if not base.endswith(".whl"):
    raise ValueError(f"not a wheel file name: {base}")
  parts = base[:-4].split("-")
  if len(parts) not in (5, 6):
    raise ValueError(f"not a wheel file name: {base}")
  dist, version = parts[0], parts[1]
  python_tag, abi_tag, platform_tag = parts[-3:]
  return {
      "distribution": normalize(dist),
      "version": version,
      "python": python_tag,
      "abi": abi_tag,
      "platform": platform_tag,
      "tag": f"{python_tag}-{abi_tag}-{platform_tag}",
  }


def cp_tag(python: str) -> str:
  """'3.12' -> 'cp312'."""
  return "cp" + python.replace(".", "")


def expected_tag_prefix(wheel: str, python: str | None) -> str:
  """The python and ABI tags a finished wheel must carry."""
  if wheel in PURE_WHEELS:
    return "py3-none-any"
  if wheel in PER_PYTHON_WHEELS:
    return f"{cp_tag(python)}-{cp_tag(python)}-"
  return "cp310-abi3-"


# ----------------------------------------------------------------------------
# Requests: which wheels for which Pythons


class Item:
  """One wheel to build: its distribution, Python (per-Python wheels only), target."""

  def __init__(self, wheel: str, python: str | None) -> None:
    self.wheel = wheel
    self.python = python
    self.target = WHEELS[wheel].format(cp=cp_tag(python) if python else "")

  @property
  def label(self) -> str:
    return f"{self.wheel} (Python {self.python})" if self.python else self.wheel


def parse_wheels(value: str) -> list[str]:
  names = [w.strip() for w in value.split(",") if w.strip()]
  if not names:
    raise BuildError("--wheels is empty; choices: all, " + ", ".join(WHEELS))
  if "all" in names:
    return list(WHEELS)
  unknown = [w for w in names if w not in WHEELS]
  if unknown:
    raise BuildError(
        f"unknown wheel {', '.join(unknown)}; choices: all, {', '.join(WHEELS)}")
  return [w for w in WHEELS if w in names]   # table order, no duplicates


def parse_pythons(value: str | None) -> list[str]:
  if value is None:
    value = "%d.%d" % sys.version_info[:2]
    if value not in PYTHON_VERSIONS:
      raise BuildError(
          f"this interpreter is Python {value}, which jaxlib does not support; "
          f"pass --python with one of: all, {', '.join(PYTHON_VERSIONS)}")
    return [value]
  versions = [v.strip() for v in value.split(",") if v.strip()]
  if "all" in versions:
    return list(PYTHON_VERSIONS)
  unknown = [v for v in versions if v not in PYTHON_VERSIONS]
  if unknown or not versions:
    raise BuildError(
        f"unsupported Python version {', '.join(unknown) or '(none)'}; "
        f"choices: all, {', '.join(PYTHON_VERSIONS)}")
  return [v for v in PYTHON_VERSIONS if v in versions]


def plan(wheels: list[str], pythons: list[str]) -> list[Item]:
  items = []
  for wheel in wheels:
    if wheel in PER_PYTHON_WHEELS:
      items.extend(Item(wheel, python) for python in pythons)
    else:
      items.append(Item(wheel, None))
  return items


# ----------------------------------------------------------------------------
# Running commands


def show_command(cmd: list[str]) -> str:
  return " ".join(shlex.quote(c) for c in cmd)


def run(cmd: list[str], what: str, capture: bool = False, **kwargs) -> str:
  """Runs cmd; on failure raises BuildError with its output."""
  try:
    proc = subprocess.run(cmd, text=True, capture_output=capture, **kwargs)
  except FileNotFoundError as e:
    raise BuildError(f"{what}: cannot run {cmd[0]!r} ({e}); is it installed? "
                     "(.ci/setup.sh installs everything)") from e
  if proc.returncode != 0:
    detail = ""
    if capture:
      detail = "\n" + (proc.stdout or "") + (proc.stderr or "")
    raise BuildError(f"{what} failed (exit {proc.returncode}): {show_command(cmd)}{detail}")
  return proc.stdout if capture else ""


def auditwheel_command() -> list[str]:
  """auditwheel from this interpreter if it has it, else from PATH."""
  try:
    import auditwheel  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
    return [sys.executable, "-m", "auditwheel"]
  except ImportError:
    return [shutil.which("auditwheel") or "auditwheel"]


def bazel_command(bazel: str, targets: list[str], options: list[str],
                  bep_file: str) -> list[str]:
  return [bazel, "build", *options, f"--build_event_json_file={bep_file}", "--", *targets]


# ----------------------------------------------------------------------------
# Finding Bazel's outputs from its build event protocol file


def outputs_from_bep(bep_file: str) -> dict[str, list[str]]:
  """target label -> absolute paths of its default outputs."""
  named_sets: dict[str, dict] = {}
  completed: dict[str, dict] = {}
  with open(bep_file, encoding="utf-8") as f:
    for line in f:
      line = line.strip()
      if not line:
        continue
      event = json.loads(line)
      event_id = event.get("id", {})
      if "namedSet" in event_id:
        named_sets[event_id["namedSet"]["id"]] = event.get("namedSetOfFiles", {})
      elif "targetCompleted" in event_id and "completed" in event:
        completed[event_id["targetCompleted"]["label"]] = event["completed"]

  def files_of(set_id: str, seen: set[str]) -> list[str]:
    if set_id in seen or set_id not in named_sets:
      return []
    seen.add(set_id)
    entry = named_sets[set_id]
    paths = [_uri_to_path(f.get("uri", "")) for f in entry.get("files", [])]
    for sub in entry.get("fileSets", []):
      paths.extend(files_of(sub["id"], seen))
    return paths

  result: dict[str, list[str]] = {}
  for label, info in completed.items():
    paths: list[str] = []
    for group in info.get("outputGroup", []):
      if group.get("name") == "default":
        for fs in group.get("fileSets", []):
          paths.extend(files_of(fs["id"], set()))
    if not paths:  # older Bazel releases list them here
      paths = [_uri_to_path(f.get("uri", "")) for f in info.get("importantOutput", [])]
    result[_canonical_label(label)] = [p for p in paths if p]
  return result


def _uri_to_path(uri: str) -> str:
  from urllib.parse import unquote, urlparse  # pylint: disable=import-outside-toplevel
  if not uri.startswith("file://"):
    return ""
  return unquote(urlparse(uri).path)


def _canonical_label(label: str) -> str:
  return label[1:] if label.startswith("@//") else label


# ----------------------------------------------------------------------------
# Checking a finished wheel


def exported_symbols(path: str) -> list[str]:
  out = run(["nm", "-D", "--extern-only", "--defined-only", path], f"nm on {path}", capture=True)
  return sorted(line.split()[-1] for line in out.splitlines() if line.strip())


def check_finished_wheel(item: Item, path: str, version: str) -> None:
  """The project's own guards, run again after auditwheel rewrote the wheel."""
  info = parse_wheel_name(path)
  if info["distribution"] != item.wheel:
    raise BuildError(f"{path}: distribution {info['distribution']}, expected {item.wheel}")
  if info["version"] != version:
    raise BuildError(f"{path}: version {info['version']}, expected {version} (jax/version.py)")
  prefix = expected_tag_prefix(item.wheel, item.python)
  if not info["tag"].startswith(prefix):
    raise BuildError(f"{path}: tag {info['tag']}, expected {prefix}*")
  if item.wheel not in PURE_WHEELS and not re.fullmatch(
      r"manylinux\w*_x86_64(\.manylinux\w*_x86_64)*", info["platform"]):
    raise BuildError(f"{path}: platform tag {info['platform']} is not a manylinux tag")
  if item.wheel in PLUGIN_WHEELS:
    check_plugin_exports(path)


def needed_libraries(path: str) -> list[str]:
  out = run(["readelf", "-d", path], f"readelf on {path}", capture=True)
  return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def check_plugin_exports(path: str) -> None:
  """Every plugin library in the wheel exports exactly GetPjrtApi and links nothing
  auditwheel grafted; an engine library opened with dlopen (ENGINE_EXPORTS) exports
  exactly its entry point and may link grafted third-party libraries (libgloo and its
  dependencies); Python extension modules (they export PyInit_*) are left alone."""
  plugin_libraries = 0
  with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(path) as whl:
    names = [n for n in whl.namelist()
             if n.endswith(".so") or ".so." in os.path.basename(n)]
    grafted = {os.path.basename(n) for n in names if ".libs/" in n}
    engines = [n for n in names if os.path.basename(n) in ENGINE_EXPORTS]
    if grafted and not engines:
      raise BuildError(f"{path}: auditwheel grafted {sorted(grafted)}; plugins must link "
                       "their dependencies statically")
    for name in names:
      if ".libs/" in name:
        continue
      local = whl.extract(name, tmp)
      symbols = exported_symbols(local)
      if any(s.startswith("PyInit_") for s in symbols):
        continue
      expected = ENGINE_EXPORTS.get(os.path.basename(name), PLUGIN_EXPORTS)
      if symbols != expected:
        raise BuildError(f"{path}: {name} must export exactly {expected}, "
                         f"it exports {symbols[:20]}")
      if expected == PLUGIN_EXPORTS:
        linked = sorted(grafted & set(needed_libraries(local)))
        if linked:
          raise BuildError(f"{path}: {name} links the grafted {linked}; only an engine "
                           "library opened with dlopen may")
        plugin_libraries += 1
  if plugin_libraries == 0:
    raise BuildError(f"{path}: holds no plugin library exporting GetPjrtApi")


# ----------------------------------------------------------------------------
# The manylinux_2_28 baseline


# Every binary wheel must install where glibc 2.28 is (RHEL 8, Debian 11,
# Ubuntu 20.04): manylinux_2_28's newest symbol version of each system library
# family (auditwheel's policy). build/manylinux makes our links meet it.
BASELINE_TAG = (2, 28)
BASELINE_VERSIONS = {
    "GLIBC": (2, 28),
    "GLIBCXX": (3, 4, 24),
    "CXXABI": (1, 3, 11),
    "GCC": (7, 0, 0),
}


def _version_tuple(text: str) -> tuple[int, ...]:
  return tuple(int(p) for p in re.findall(r"\d+", text))


def too_new_symbols(path: str) -> list[str]:
  """'name@VERSION' for each symbol the shared object at `path` needs from the
  system in a version newer than the baseline's."""
  out = run(["readelf", "-W", "--dyn-syms", path], f"readelf on {path}", capture=True)
  found = set()
  for line in out.splitlines():
    parts = line.split()
    if len(parts) < 8 or parts[6] != "UND" or "@" not in parts[7]:
      continue
    name, _, version = parts[7].partition("@")
    version = version.lstrip("@").split(" ")[0]
    family, sep, number = version.partition("_")
    if not sep or family not in BASELINE_VERSIONS or not re.fullmatch(r"[\d.]+", number):
      continue
    if _version_tuple(number) > BASELINE_VERSIONS[family]:
      found.add(f"{name}@{version}")
  return sorted(found)


def manylinux_version(platform: str) -> tuple[int, int]:
  """The oldest glibc among a wheel's platform tags ('manylinux_2_27_x86_64',
  possibly several joined by dots; legacy aliases count as what they mean)."""
  legacy = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}
  versions = []
  for tag in platform.split("."):
    match = re.fullmatch(r"manylinux_(\d+)_(\d+)_\w+", tag)
    if match:
      versions.append((int(match.group(1)), int(match.group(2))))
    elif tag.split("_", 1)[0] in legacy:
      versions.append(legacy[tag.split("_", 1)[0]])
  if not versions:
    raise BuildError(f"platform tag {platform} is not a manylinux tag")
  return min(versions)


def check_baseline(path: str) -> None:
  """Fails when the repaired wheel at `path` is tagged newer than
  manylinux_2_28, naming the symbols that pulled it up."""
  info = parse_wheel_name(path)
  version = manylinux_version(info["platform"])
  if version <= BASELINE_TAG:
    return
  culprits = []
  with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(path) as whl:
    for name in whl.namelist():
      if name.endswith(".so") or ".so." in os.path.basename(name):
        culprits += [f"{name}: {s}" for s in too_new_symbols(whl.extract(name, tmp))]
  baseline = "manylinux_%d_%d" % BASELINE_TAG
  raise BuildError(
      f"{os.path.basename(path)} is manylinux_{version[0]}_{version[1]}, newer than "
      f"{baseline}; these symbols need a newer system library than {baseline} has "
      "(link with build/defs.bzl's shared_object(), or give the function a "
      "replacement in build/manylinux/glibc_compat.c):\n  "
      + ("\n  ".join(culprits) or "(none found: see auditwheel show)"))


# ----------------------------------------------------------------------------
# dist/


def read_version() -> str:
  text = open(os.path.join(REPO_ROOT, "jax", "version.py"), encoding="utf-8").read()
  match = re.search(r'^_version\s*=\s*"([^"]+)"', text, re.M)
  if not match:
    raise BuildError("cannot read _version from jax/version.py")
  return match.group(1)


def wheel_file_version(version: str) -> str:
  """Wheel file names spell the version with '_' for '-' (the '!' stays)."""
  return version.replace("-", "_")


def replace_in_dist(dist: str, new_wheel: str) -> str:
  """Moves new_wheel into dist/, first removing older wheels of the same
  distribution and python/ABI tags (any version, any platform tag)."""
  new = parse_wheel_name(new_wheel)
  os.makedirs(dist, exist_ok=True)
  for old in os.listdir(dist):
    if not old.endswith(".whl"):
      continue
    try:
      info = parse_wheel_name(old)
    except ValueError:
      continue
    if (info["distribution"], info["python"], info["abi"]) == (
        new["distribution"], new["python"], new["abi"]):
      os.remove(os.path.join(dist, old))
  dest = os.path.join(dist, os.path.basename(new_wheel))
  shutil.move(new_wheel, dest)
  os.chmod(dest, 0o644)
  return dest


def wheel_table(paths: list[str]) -> str:
  rows = [("wheel", "version", "tags", "size")]
  for path in sorted(paths):
    info = parse_wheel_name(path)
    size = os.path.getsize(path)
    human = f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{size / 1e3:.1f} kB"
    rows.append((info["distribution"], info["version"], info["tag"], human))
  widths = [max(len(r[i]) for r in rows) for i in range(4)]
  lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
  lines.insert(1, "  ".join("-" * w for w in widths))
  return "\n".join(lines)


# ----------------------------------------------------------------------------
# The build


def build(items: list[Item], args: argparse.Namespace) -> list[str]:
  progress = Progress()
  dist = os.path.abspath(args.dist_dir)
  options = shlex.split(args.bazel_options or "")
  targets = [item.target for item in items]
  audit = auditwheel_command()

  with tempfile.TemporaryDirectory(prefix="jax-build-") as tmp:
    bep_file = os.path.join(tmp, "build_events.json")
    bazel = bazel_command(args.bazel, targets, options, bep_file)
    if args.dry_run:
      print(show_command(bazel).replace(tmp, "<tmp>"))
      for item in items:
        src = f"<output of {item.target}>"
        if item.wheel in PURE_WHEELS:
          print(f"cp {src} {shlex.quote(dist)}/")
        else:
          print(show_command(audit + ["repair", "-w", "<tmp>", src]))
          print(show_command(audit + ["show", "<repaired wheel>"]))
          print(f"mv <repaired wheel> {shlex.quote(dist)}/")
      return []

    progress.step(f"bazel build: {len(targets)} target(s): {' '.join(targets)}")
    run(bazel, "bazel build", cwd=REPO_ROOT)
    outputs = outputs_from_bep(bep_file)
    progress.step("bazel build done")

    finished = finish_wheels(items, outputs, dist, tmp, progress)
  progress.step(f"{len(finished)} wheel(s) in {dist}")
  print(wheel_table(finished), flush=True)
  return finished


def finish_wheels(items: list[Item], outputs: dict[str, list[str]], dist: str,
                  tmp: str, progress: Progress) -> list[str]:
  """Repairs (or copies) each item's Bazel-built wheel, checks it, moves it to dist/."""
  version = wheel_file_version(read_version())
  audit = auditwheel_command()
  finished = []
  for item in items:
    wheels = [p for p in outputs.get(item.target, []) if p.endswith(".whl")]
    if len(wheels) != 1:
      raise BuildError(f"{item.target} should output exactly one .whl, Bazel "
                       f"reported {outputs.get(item.target, [])}")
    built = wheels[0]
    if item.wheel in PURE_WHEELS:
      copy = os.path.join(tmp, os.path.basename(built))
      shutil.copyfile(built, copy)
      check_finished_wheel(item, copy, version)
      finished.append(replace_in_dist(dist, copy))
      progress.step(f"{item.label}: copied {os.path.basename(finished[-1])}")
      continue
    out_dir = os.path.join(tmp, "repaired-" + item.wheel + (item.python or ""))
    os.makedirs(out_dir)
    run(audit + ["repair", "-w", out_dir, built],
        f"auditwheel repair of {os.path.basename(built)}", capture=True)
    repaired = [os.path.join(out_dir, f) for f in os.listdir(out_dir) if f.endswith(".whl")]
    if len(repaired) != 1:
      raise BuildError(f"auditwheel repair of {built} left {repaired}")
    shown = run(audit + ["show", repaired[0]],
                f"auditwheel show of {os.path.basename(repaired[0])}", capture=True)
    if "consistent with the following platform tag" not in " ".join(shown.split()):
      raise BuildError(f"auditwheel show does not accept {repaired[0]}:\n{shown}")
    check_finished_wheel(item, repaired[0], version)
    check_baseline(repaired[0])
    finished.append(replace_in_dist(dist, repaired[0]))
    progress.step(f"{item.label}: repaired {os.path.basename(finished[-1])}")
  return finished


def release(args: argparse.Namespace) -> None:
  """The full matrix; afterwards dist/ must hold exactly one wheel per item."""
  items = plan(list(WHEELS), list(PYTHON_VERSIONS))
  finished = build(items, args)
  if args.dry_run:
    return
  if len(finished) != len(items):
    raise BuildError(f"release built {len(finished)} wheels, expected {len(items)}")


# ----------------------------------------------------------------------------
# A virtualenv with our wheels


def find_python(version: str) -> str | None:
  """An interpreter for `version` ('3.12'): this one, python3.12 on PATH, or pyenv's."""
  if "%d.%d" % sys.version_info[:2] == version and not _in_venv():
    return sys.executable
  candidates = [shutil.which(f"python{version}")]
  root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
  versions_dir = os.path.join(root, "versions")
  if os.path.isdir(versions_dir):
    found = [d for d in os.listdir(versions_dir)
             if re.fullmatch(re.escape(version) + r"\.\d+", d)]
    found.sort(key=lambda d: int(d.rsplit(".", 1)[1]), reverse=True)
    candidates += [os.path.join(versions_dir, d, "bin", f"python{version}") for d in found]
  for candidate in candidates:
    if not candidate or not os.path.exists(candidate):
      continue
    proc = subprocess.run([candidate, "-c", "import sys, venv; print('%d.%d' % sys.version_info[:2])"],
                          capture_output=True, text=True)
    if proc.returncode == 0 and proc.stdout.strip() == version:
      return candidate
  return None


def _in_venv() -> bool:
  return sys.prefix != getattr(sys, "base_prefix", sys.prefix)


def third_party_requirements(dist: str) -> list[str]:
  """Requirements of our wheels in dist/ that are not ours (they come from the index)."""
  ours = set(WHEELS)
  reqs = list(TEST_REQUIREMENTS)
  for name in sorted(os.listdir(dist)) if os.path.isdir(dist) else []:
    if not name.endswith(".whl"):
      continue
    with zipfile.ZipFile(os.path.join(dist, name)) as whl:
      metadata = [n for n in whl.namelist() if n.endswith(".dist-info/METADATA")]
      if not metadata:
        continue
      text = whl.read(metadata[0]).decode("utf-8")
    for line in text.split("\n\n", 1)[0].splitlines():
      if not line.startswith("Requires-Dist:"):
        continue
      req = line.split(":", 1)[1].strip()
      if "extra ==" in req.replace('"', "").replace("'", ""):
        continue
      req_name = normalize(re.match(r"[A-Za-z0-9._-]+", req).group(0))
      if req_name not in ours and req not in reqs:
        reqs.append(req)
  return reqs


def make_venv(path: str, python: str, packages: list[str], dist: str,
              extra: list[str] = (), quiet: bool = True) -> str:
  """Creates a fresh virtualenv at `path` for interpreter `python`: third-party
  packages from the index, then `packages` only from dist/ (--no-index).
  Returns the virtualenv's python."""
  if os.path.exists(path):
    shutil.rmtree(path)
  run([python, "-m", "venv", path], f"creating a virtualenv at {path}", capture=True)
  vpython = os.path.join(path, "bin", "python")
  q = ["-q"] if quiet else []
  pip = [vpython, "-m", "pip", "--disable-pip-version-check"]
  run(pip + ["install", *q, *third_party_requirements(dist), *extra],
      "pip install of third-party packages from the index", capture=quiet)
  run(pip + ["install", *q, "--no-index", "--find-links", dist, *packages],
      f"pip install --no-index --find-links {dist} {' '.join(packages)}", capture=quiet)
  return vpython


def venv(args: argparse.Namespace) -> None:
  progress = Progress()
  version = args.python or "%d.%d" % sys.version_info[:2]
  if version not in PYTHON_VERSIONS:
    raise BuildError(f"unsupported Python version {version}; choices: {', '.join(PYTHON_VERSIONS)}")
  python = find_python(version)
  if python is None:
    raise BuildError(f"no Python {version} interpreter found (python{version} on PATH or pyenv)")
  packages = [p for p in args.packages.split(",") if p]
  progress.step(f"virtualenv {args.path} for Python {version} ({python})")
  vpython = make_venv(os.path.abspath(args.path), python, packages,
                      os.path.abspath(args.dist_dir), extra=args.extra, quiet=False)
  progress.step(f"done: {vpython}")


def test(args: argparse.Namespace) -> int:
  """Runs the test suite in a fresh virtualenv with our wheels from dist/, so the
  tests see what users install (not the source tree: pytest runs from its console
  script, which puts no checkout folder on sys.path)."""
  progress = Progress()
  version = args.python or "%d.%d" % sys.version_info[:2]
  python = find_python(version)
  if python is None:
    raise BuildError(f"no Python {version} interpreter found (python{version} on PATH or pyenv)")
  dist = os.path.abspath(args.dist_dir)
  with tempfile.TemporaryDirectory(prefix="jax-test-") as tmp:
    path = os.path.abspath(args.venv) if args.venv else os.path.join(tmp, "venv")
    progress.step(f"virtualenv for Python {version} with jax from {dist}")
    # grpcio: jax.distributed's coordinator (tests/jax/test_distributed_*.py);
    # tensorstore: jax.experimental.array_serialization; absl-py: config.parse_flags_with_absl.
    make_venv(path, python, ["jax"], dist,
              extra=["pytest", "grpcio", "tensorstore", "absl-py"])
    pytest_args = [a for a in args.pytest_args if a != "--"] or ["tests", "-q"]
    cmd = [os.path.join(path, "bin", "pytest"), *pytest_args]
    env = dict(os.environ, JAX_REQUIRE_WHEELS="1", JAX_DIST_DIR=dist)
    env.pop("PYTHONPATH", None)
    progress.step(show_command(cmd))
    rc = subprocess.run(cmd, cwd=REPO_ROOT, env=env).returncode
  if rc == 5:
    raise BuildError("pytest collected no tests (exit 5)")
  progress.step(f"pytest exit status {rc}")
  return rc


# ----------------------------------------------------------------------------
# Command line


def main(argv: list[str] | None = None) -> int:
  parser = argparse.ArgumentParser(
      description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  sub = parser.add_subparsers(dest="command", required=True)

  def common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dry_run", "--dry-run", action="store_true",
                   help="print the commands, run nothing")
    p.add_argument("--bazel_options", "--bazel-options", default="",
                   help="extra options for `bazel build`, one string (e.g. '--config=dbg')")
    p.add_argument("--bazel", default=os.environ.get("BAZEL", "bazel"), help="the bazel binary")
    p.add_argument("--dist_dir", "--dist-dir", default=DEFAULT_DIST,
                   help="where finished wheels go (dist/)")

  p_build = sub.add_parser("build", help="build some wheels into dist/")
  p_build.add_argument("--wheels", default="all",
                       help="comma-separated: all, " + ", ".join(WHEELS) + " (default all)")
  p_build.add_argument("--python", default=None,
                       help="comma-separated Python versions for jaxlib: all, "
                       + ", ".join(PYTHON_VERSIONS) + " (default: this interpreter's)")
  common(p_build)

  p_release = sub.add_parser("release", help="the full matrix: jaxlib for every Python, "
                             "each plugin once, jax")
  common(p_release)

  p_venv = sub.add_parser("venv", help="a fresh virtualenv with our wheels from dist/")
  p_venv.add_argument("path", help="where to create it (replaced if it exists)")
  p_venv.add_argument("--python", default=None, help="Python version (default: this one's)")
  p_venv.add_argument("--packages", default="jax",
                      help="comma-separated wheels of ours to install (default jax)")
  p_venv.add_argument("--extra", action="append", default=[],
                      help="another third-party package from the index (e.g. pytest)")
  p_venv.add_argument("--dist_dir", "--dist-dir", default=DEFAULT_DIST)

  p_test = sub.add_parser("test", help="run pytest in a fresh virtualenv with our wheels "
                          "from dist/ (wheels are required: missing ones fail)")
  p_test.add_argument("--python", default=None, help="Python version (default: this one's)")
  p_test.add_argument("--venv", default=None, help="keep the virtualenv here (default: a "
                      "temporary one)")
  p_test.add_argument("--dist_dir", "--dist-dir", default=DEFAULT_DIST)
  p_test.add_argument("pytest_args", nargs=argparse.REMAINDER,
                      help="arguments for pytest after --, default: tests -q")

  args = parser.parse_args(argv)
  try:
    if args.command == "build":
      try:
        wheels = parse_wheels(args.wheels)
        # Only jaxlib is built per Python; the others ignore --python.
        needs_python = any(w in PER_PYTHON_WHEELS for w in wheels)
        pythons = parse_pythons(args.python) if needs_python or args.python else []
        items = plan(wheels, pythons)
      except BuildError as e:
        parser.exit(2, f"{parser.prog} build: error: {e}\n")
      build(items, args)
    elif args.command == "release":
      release(args)
    elif args.command == "venv":
      venv(args)
    elif args.command == "test":
      return test(args)
  except BuildError as e:
    print(f"\nerror: {e}", file=sys.stderr, flush=True)
    return 1
  return 0


if __name__ == "__main__":
  sys.exit(main())
