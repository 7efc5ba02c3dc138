"""Incremental builds follow the wheel split, shown with Bazel's own data.

The fast tests read the action graph (`bazel aquery`, no build):
  - no C++ action (compile, archive or link) has an input under jax/, directly or
    through generated files, so an edit under jax/ can run no C++ action;
  - nothing a plugin wheel is made of has an input under jaxlib/ (nor nanobind), so
    an edit of the bindings relinks no plugin;
  - jaxlib's extension links no compiler (no LLVM).
The slow test (--runslow) does the experiment: in a scratch copy of the repository
it builds, edits a file, rebuilds and reads Bazel's execution log.

jax/version.py is the one file under jax/ that Bazel reads outside the action
graph (a repository rule stamps the version into every wheel), so changing the
version rebuilds everything, as it should; a comment in it changes nothing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest

BAZEL = os.environ.get("BAZEL", "bazel")


def _bazel(repo: str, *args: str, startup: tuple[str, ...] = (), timeout: int = 1800) -> str:
  if shutil.which(BAZEL) is None:
    pytest.skip(f"{BAZEL} is not installed (.ci/setup.sh installs it)")
  proc = subprocess.run([BAZEL, *startup, *args], cwd=repo, capture_output=True,
                        text=True, timeout=timeout)
  if proc.returncode != 0:
    pytest.fail(f"bazel {' '.join(args[:2])} failed:\n{proc.stderr[-5000:]}", pytrace=False)
  return proc.stdout


# ---------------------------------------------------------------------------- the graph


class ActionGraph:
  """`bazel aquery --output=jsonproto`, with every action's inputs as exec paths and
  a way to follow generated inputs back to the actions that make them."""

  def __init__(self, data: dict) -> None:
    fragments = {f["id"]: f for f in data.get("pathFragments", [])}

    def path_of(fragment_id: int) -> str:
      parts = []
      while fragment_id:
        fragment = fragments[fragment_id]
        parts.append(fragment["label"])
        fragment_id = fragment.get("parentId", 0)
      return "/".join(reversed(parts))

    self.paths = {}
    for artifact in data.get("artifacts", []):
      self.paths[artifact["id"]] = (artifact["execPath"] if "execPath" in artifact
                                    else path_of(artifact["pathFragmentId"]))
    self.depsets = {d["id"]: d for d in data.get("depSetOfFiles", [])}
    self.targets = {t["id"]: t["label"] for t in data.get("targets", [])}
    self.actions = data.get("actions", [])
    self.producer = {}
    for action in self.actions:
      for output in action.get("outputIds", []):
        self.producer[self.paths[output]] = action
    self._inputs_cache: dict[str, list[str]] = {}

  def label(self, action: dict) -> str:
    return _canonical(self.targets.get(action.get("targetId"), "?"))

  def outputs(self, action: dict) -> list[str]:
    return [self.paths[o] for o in action.get("outputIds", [])]

  def inputs(self, action: dict) -> list[str]:
    key = action.get("actionKey") or str(id(action))
    if key not in self._inputs_cache:
      seen, stack, files = set(), list(action.get("inputDepSetIds", [])), []
      while stack:
        depset_id = stack.pop()
        if depset_id in seen:
          continue
        seen.add(depset_id)
        depset = self.depsets[depset_id]
        files.extend(self.paths[a] for a in depset.get("directArtifactIds", []))
        stack.extend(depset.get("transitiveDepSetIds", []))
      self._inputs_cache[key] = files
    return self._inputs_cache[key]

  def closure(self, actions: list[dict]) -> set[str]:
    """Every file that the given actions read, directly or through the actions
    that generate their inputs."""
    files: set[str] = set()
    visited: set[str] = set()
    stack = list(actions)
    while stack:
      action = stack.pop()
      key = action.get("actionKey") or str(id(action))
      if key in visited:
        continue
      visited.add(key)
      for path in self.inputs(action):
        if path in files:
          continue
        files.add(path)
        if path in self.producer:
          stack.append(self.producer[path])
    return files


def _canonical(label: str) -> str:
  return label[1:] if label.startswith("@//") else label


def package_of(path: str) -> str:
  """'jaxlib/py_client.cc' or 'bazel-out/k8-opt/bin/jaxlib/x.o' -> 'jaxlib/py_client.cc'
  / 'jaxlib/x.o': the path inside the workspace (or external/<repo>/...)."""
  match = re.match(r"bazel-out/[^/]+/(?:bin|genfiles)/(.*)", path)
  return match.group(1) if match else path


def under(paths, folder: str) -> list[str]:
  return sorted(p for p in paths if package_of(p).startswith(folder.rstrip("/") + "/"))


# ---------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def wheel_targets(repo_root, build_py) -> dict[str, str]:
  """Wheel target -> distribution, for the wheels of the build table that exist."""
  build_driver = build_py
  out = _bazel(repo_root, "query", "kind(py_wheel, //...)", "--output=label")
  existing = {_canonical(l.strip()) for l in out.splitlines() if l.strip()}
  table = {}
  for wheel, pattern in build_driver.WHEELS.items():
    for python in build_driver.PYTHON_VERSIONS:
      target = pattern.format(cp=build_driver.cp_tag(python))
      if target in existing:
        table[target] = wheel
  if not table:
    pytest.skip("no wheel targets in the build table exist yet")
  return table


@pytest.fixture(scope="module")
def graph(repo_root, wheel_targets) -> ActionGraph:
  expression = "deps(" + " + ".join(sorted(wheel_targets)) + ")"
  out = _bazel(repo_root, "aquery", expression, "--output=jsonproto",
               "--include_commandline=false")
  return ActionGraph(json.loads(out))


def wheel_action(graph: ActionGraph, target: str) -> dict:
  actions = [a for a in graph.actions
             if graph.label(a) == target and any(o.endswith(".whl") for o in graph.outputs(a))]
  assert len(actions) == 1, f"{target}: {len(actions)} actions make a .whl"
  return actions[0]


def targets_of(wheel_targets: dict[str, str], kind: set[str]) -> list[str]:
  return sorted(t for t, wheel in wheel_targets.items() if wheel in kind)


# The plugin wheels built from our compiler (jaxlib-tpu is pure Python: it registers libtpu).
PLUGINS = {"jaxlib-cpu", "jaxlib-cuda12", "jaxlib-rocm6"}


# ---------------------------------------------------------------------------- fast tests


def test_no_cpp_action_reads_jax_sources(graph):
  cpp = [a for a in graph.actions if a["mnemonic"].startswith("Cpp")]
  assert cpp, "no C++ actions in the graph: the query is wrong"
  for action in cpp:
    found = under(graph.closure([action]), "jax")
    assert not found, (f"{action['mnemonic']} of {graph.label(action)} "
                       f"({graph.outputs(action)[:1]}) reads {found[:10]}")


def test_jax_wheel_reads_jax_sources(graph, wheel_targets):
  """The other direction, so that the test above can see jax/ inputs at all."""
  if "//jax:wheel" not in wheel_targets:
    pytest.skip("//jax:wheel does not exist yet")
  closure = graph.closure([wheel_action(graph, "//jax:wheel")])
  assert under(closure, "jax"), "//jax:wheel reads nothing under jax/"
  assert not [p for p in closure if p.endswith((".o", ".a", ".so"))], \
      "the pure jax wheel depends on native code"


def test_plugins_read_no_binding_sources(graph, wheel_targets):
  plugins = targets_of(wheel_targets, PLUGINS)
  if not plugins:
    pytest.skip("no plugin wheel targets exist yet")
  for target in plugins:
    closure = graph.closure([wheel_action(graph, target)])
    assert under(closure, "xla"), f"{target} reads nothing under xla/: the query is wrong"
    assert not under(closure, "jaxlib"), f"{target} reads {under(closure, 'jaxlib')[:10]}"
    assert not under(closure, "external/nanobind"), f"{target} depends on nanobind"
    python = [p for p in under(closure, "external/python")
              if not package_of(p).startswith("external/python/include_3_10/")]
    assert not python, f"{target} uses headers of a Python other than 3.10 (limited API): {python[:5]}"


def test_jaxlib_links_no_compiler(graph, wheel_targets):
  jaxlibs = targets_of(wheel_targets, {"jaxlib"})
  if not jaxlibs:
    pytest.skip("no jaxlib wheel targets exist yet")
  for target in jaxlibs:
    closure = graph.closure([wheel_action(graph, target)])
    assert under(closure, "jaxlib"), f"{target} reads nothing under jaxlib/: the query is wrong"
    assert not under(closure, "external/llvm"), f"{target} depends on LLVM"
    backends = under(closure, "xla/backends")
    assert not backends, f"{target} depends on a compiler backend: {backends[:5]}"


# ---------------------------------------------------------------------------- the experiment


def _spawns(log_file: str) -> list[dict]:
  """Bazel's --execution_log_json_file: JSON objects one after another."""
  text = open(log_file, encoding="utf-8").read()
  decoder, pos, spawns = json.JSONDecoder(), 0, []
  while True:
    while pos < len(text) and text[pos].isspace():
      pos += 1
    if pos >= len(text):
      return spawns
    obj, pos = decoder.raw_decode(text, pos)
    spawns.append(obj)


def _spawn_outputs(spawn: dict) -> list[str]:
  outs = [o.get("path", "") for o in spawn.get("actualOutputs", [])]
  return outs + list(spawn.get("listedOutputs", []))


def _append_comment(path: str, comment: str) -> None:
  with open(path, "a", encoding="utf-8") as f:
    f.write(comment)


@pytest.mark.slow
def test_edits_rebuild_only_their_side(repo_root, wheel_targets, tmp_path):
  """In a scratch copy: build, edit a jax/ file (no C++ runs), then edit a binding
  source (jaxlib relinks, no plugin does). The source tree is never touched."""
  copy = tmp_path / "repo"
  shutil.copytree(repo_root, copy, symlinks=True, ignore=shutil.ignore_patterns(
      "bazel-*", "dist", ".git", "__pycache__"))
  startup = (f"--output_base={tmp_path / 'output_base'}",)
  targets = sorted(wheel_targets)
  try:
    _bazel(str(copy), "build", *targets, startup=startup, timeout=3600)

    jax_file = next(os.path.join(d, f) for d, _, fs in os.walk(copy / "jax" / "_src")
                    for f in sorted(fs) if f.endswith(".py"))
    _append_comment(jax_file, "\n# an edit that must rebuild no C++\n")
    log = str(tmp_path / "after_jax_edit.json")
    _bazel(str(copy), "build", f"--execution_log_json_file={log}", *targets, startup=startup)
    ran = [s["mnemonic"] for s in _spawns(log)]
    assert ran, "the edit under jax/ ran nothing: the experiment is wrong"
    assert not [m for m in ran if m.startswith("Cpp")], f"an edit under jax/ ran {ran}"

    binding = next(str(copy / "jaxlib" / f) for f in sorted(os.listdir(copy / "jaxlib"))
                   if f.endswith(".cc"))
    _append_comment(binding, "\n// an edit that must relink no plugin\n")
    log = str(tmp_path / "after_binding_edit.json")
    _bazel(str(copy), "build", f"--execution_log_json_file={log}", *targets, startup=startup)
    spawns = _spawns(log)
    cpp = [o for s in spawns if s["mnemonic"].startswith("Cpp") for o in _spawn_outputs(s)]
    assert under(cpp, "jaxlib"), f"the binding edit recompiled nothing in jaxlib: {cpp}"
    assert not under(cpp, "plugins") and not under(cpp, "xla"), f"it rebuilt {cpp}"
    rewheeled = [o for s in spawns if s["mnemonic"] == "Wheel" for o in _spawn_outputs(s)]
    assert not under(rewheeled, "plugins"), f"a plugin wheel was rebuilt: {rewheeled}"
  finally:
    subprocess.run([BAZEL, *startup, "shutdown"], cwd=copy, capture_output=True)
    # Bazel leaves its outputs read-only; the output base is large, so it goes now.
    subprocess.run(["chmod", "-R", "u+w", str(tmp_path)], capture_output=True)
    shutil.rmtree(tmp_path / "output_base", ignore_errors=True)
    shutil.rmtree(copy, ignore_errors=True)
