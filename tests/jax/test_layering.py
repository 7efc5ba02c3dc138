"""The layering of the installed `jax` package: imports point down, never in a circle.

Every module of the installed package is parsed with `ast`; each import of a jax
module, at module level or inside a function, is an edge. The test fails, naming
the edge with its file and line, on
  (a) an import of a module in a higher layer,
  (b) an import cycle (Tarjan's strongly connected components over all edges),
  (c) a private module (jax._src.*) importing the public API (jax.numpy, jax.lax...),
  (d) a function-level import of a jax module without a comment saying why, on
      that line or the line above,
  (e) a module reading an underscore name it does not define itself (`obj._x`,
      `module._x`, `from m import _x`): what a module shares, it names publicly.
There is no list of exceptions: library modules import the private namespaces
jax._src.numpy.namespace and jax._src.lax.namespace that the public ones re-export.
"""

from __future__ import annotations

import ast
import io
import os
import tokenize
from typing import NamedTuple

import pytest

# Layers from the bottom up, with the module-name prefixes that belong to each
# (the longest matching prefix wins).
LAYERS: list[tuple[str, str, tuple[str, ...]]] = [
    ("core", "avals, tracers, jaxprs, dtypes, config, pytrees: what every layer builds on",
     ("jax.version", "jax._src.config", "jax._src.errors", "jax._src.dtypes", "jax._src.lib",
      "jax._src.core", "jax._src.tree_util", "jax._src.linear_util", "jax._src.name_stack",
      "jax._src.traceback_util", "jax._src.monitoring", "jax._src.profiler",
      "jax._src.donation", "jax._src.util", "jax._src.lazy_loader", "jax._src.api_util", "jax._src.compiler")),
    ("interpreters/lowering", "rule tables of the transformations and jaxpr -> HLO text",
     ("jax._src.interpreters", "jax._src.lowering", "jax._src.custom_derivatives",
      "jax._src.custom_derivatives_public", "jax._src.ad_checkpoint", "jax._src.remat",
      "jax._src.ad_util")),
    ("execution", "backends, devices, shardings, arrays and the one compile-and-run path",
     ("jax._src.xla_bridge", "jax._src.devices", "jax._src.sharding", "jax._src.array",
      "jax._src.compilation_cache", "jax._src.execution", "jax._src.dispatch",
      "jax._src.extend_backend", "jax._src.mesh_context", "jax._src.mesh_utils", "jax._src.layout",
      "jax._src.distributed", "jax._src.coordination_service",
      "jax._src.preemption_sync")),
    ("lax", "primitives, one block each with their rules (callbacks and jit included)",
     ("jax._src.lax", "jax._src.callback", "jax._src.io_callback", "jax._src.debugging",
      "jax._src.checkify", "jax._src.jit_primitive", "jax._src.op_by_op", "jax._src.prng",
      "jax._src.rng_bit_generator", "jax._src.cost_analysis")),
    ("pmap/shard_map", "mapped and SPMD programs over several devices",
     ("jax._src.pmap", "jax._src.shard_map", "jax._src.shard_map_jit")),
    ("api", "the transformations as user entry points, and what exposes internals to users",
     ("jax._src.api", "jax._src.dlpack", "jax._src.serialize_executable",
      "jax._src.test_util_public", "jax._src.extend_core", "jax._src.interpreters_public",
      "jax._src.dtypes_public", "jax._src.typing", "jax._src.custom_batching",
      "jax._src.array_constructors", "jax._src.export", "jax._src.multihost_utils",
      "jax._src.array_serialization", "jax._src.ifrt_programs",
      "jax._src.hijax", "jax._src.colocated_python", "jax._src.colocated_python_serialization",
      "jax._src.topologies")),
    ("numpy", "jax.numpy written over lax (and the eig/schur/hessenberg primitives written over it)",
     ("jax._src.numpy", "jax._src.jet")),
    ("libraries", "scipy, nn, random, image and friends, written over numpy and lax",
     ("jax._src.scipy", "jax._src.nn", "jax._src.random", "jax._src.random_distributions",
      "jax._src.random_gamma", "jax._src.image", "jax._src.ops", "jax._src.flatten_util",
      "jax._src.ode", "jax._src.ref", "jax._src.sparse", "jax._src.prng_impls",
      "jax._src.state")),
    ("public", "the public modules: re-exports of the layers below",
     ("jax",)),
]

# Public modules a private module may import: leaves that hold no API.
PRIVATE_MAY_IMPORT = {"jax.version"}

class Edge(NamedTuple):
  src: str
  dst: str
  path: str
  line: int
  in_function: bool


def _layer_table() -> list[tuple[str, int]]:
  return sorted(((p, i) for i, (_, _, prefixes) in enumerate(LAYERS) for p in prefixes),
                key=lambda pi: -len(pi[0]))


def layer_of(module: str) -> int:
  for prefix, index in _layer_table():
    if module == prefix or module.startswith(prefix + "."):
      return index
  raise KeyError(module)


def find_modules(package_dir: str) -> dict[str, str]:
  """Dotted module name -> file, for every .py file of the package in `package_dir`."""
  root = os.path.dirname(package_dir)
  out = {}
  for dirpath, _, files in os.walk(package_dir):
    for f in files:
      if f.endswith(".py"):
        path = os.path.join(dirpath, f)
        name = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
        out[name[:-len(".__init__")] if name.endswith(".__init__") else name] = path
  return out


def _resolve(name: str, modules) -> str | None:
  """The module `name` denotes: itself, or the module defining the attribute it names."""
  parts = name.split(".")
  while parts:
    candidate = ".".join(parts)
    if candidate in modules:
      return candidate
    parts.pop()
  return None


def _comment_lines(source: str) -> set[int]:
  lines = set()
  for tok in tokenize.generate_tokens(io.StringIO(source).readline):
    if tok.type == tokenize.COMMENT:
      lines.add(tok.start[0])
  return lines


def _imported_names(node, module: str, is_package: bool) -> list[str]:
  if isinstance(node, ast.Import):
    return [a.name for a in node.names]
  base = node.module or ""
  if node.level:
    package = module.split(".") if is_package else module.split(".")[:-1]
    package = package[:len(package) - (node.level - 1)]
    base = ".".join(package + ([base] if base else []))
  return [f"{base}.{a.name}" for a in node.names]


def collect_edges(modules: dict[str, str]) -> tuple[list[Edge], list[Edge]]:
  """All edges between jax modules, and the function-level ones lacking a comment."""
  edges, uncommented = [], []
  for module, path in modules.items():
    with open(path, encoding="utf-8") as f:
      source = f.read()
    comments = _comment_lines(source)
    is_package = path.endswith("__init__.py")

    def visit(node, in_function: bool):
      for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
          found = []
          for name in _imported_names(child, module, is_package):
            if name.split(".")[0] == "jax":
              target = _resolve(name, modules)
              if target is not None and target not in found:
                found.append(target)
          for target in found:
            edge = Edge(module, target, path, child.lineno, in_function)
            edges.append(edge)
            lines = range(child.lineno - 1, (child.end_lineno or child.lineno) + 1)
            if in_function and not comments.intersection(lines):
              uncommented.append(edge)
        visit(child, in_function or isinstance(
            child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(ast.parse(source, path), False)
  return edges, uncommented


def strongly_connected(nodes, edges: list[Edge]) -> list[list[str]]:
  """Tarjan's algorithm, iterative: the components of more than one module."""
  succ: dict[str, list[str]] = {n: [] for n in nodes}
  for e in edges:
    if e.src != e.dst:
      succ[e.src].append(e.dst)
  index: dict[str, int] = {}
  low: dict[str, int] = {}
  stack, on_stack, out = [], set(), []
  for start in nodes:
    if start in index:
      continue
    work = [(start, iter(succ[start]))]
    index[start] = low[start] = len(index)
    stack.append(start)
    on_stack.add(start)
    while work:
      v, it = work[-1]
      w = next(it, None)
      if w is not None:
        if w not in index:
          index[w] = low[w] = len(index)
          stack.append(w)
          on_stack.add(w)
          work.append((w, iter(succ[w])))
        elif w in on_stack:
          low[v] = min(low[v], index[w])
        continue
      work.pop()
      if work:
        low[work[-1][0]] = min(low[work[-1][0]], low[v])
      if low[v] == index[v]:
        comp = []
        while True:
          w = stack.pop()
          on_stack.discard(w)
          comp.append(w)
          if w == v:
            break
        if len(comp) > 1:
          out.append(sorted(comp))
  return out


def _where(e: Edge) -> str:
  kind = "function-level" if e.in_function else "module-level"
  return f"{e.src} -> {e.dst} ({kind}, {e.path}:{e.line})"


def upward_edges(edges: list[Edge]) -> list[Edge]:
  return [e for e in edges if layer_of(e.dst) > layer_of(e.src)]


def private_to_public(edges: list[Edge]) -> list[Edge]:
  return [e for e in edges if e.src.startswith("jax._src.")
          and not e.dst.startswith("jax._src.") and e.dst not in PRIVATE_MAY_IMPORT]


def cycle_report(cycle: list[str], edges: list[Edge]) -> str:
  members = set(cycle)
  inside = [_where(e) for e in edges if e.src in members and e.dst in members]
  return f"cycle of {len(cycle)} modules: {cycle}\n    " + "\n    ".join(inside)


# Underscore names of the public API of Python itself (namedtuple) and of jaxlib, a
# separate wheel: its C++ classes and plugin_support; and jax.version's, which keeps
# the names JAX's version module has (the Bazel build reads them from the file).
FOREIGN_PRIVATE = {"_replace", "_fields", "_asdict", "_make", "_jax", "_fast_clear",
                   "_block_until_ready", "_dims", "_optimized_hlo", "_distribution_for",
                   "_version", "_minimum_jaxlib_version", "_version_as_tuple"}


def _defined_names(tree: ast.AST) -> set[str]:
  """Every name the module binds: functions, classes, assignments (also to attributes
  and through setattr), parameters, `as` names of imports, and __slots__ entries."""
  names = set()
  for node in ast.walk(tree):
    if isinstance(node, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets):
      names.update(c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant))
    if _is_call_to(node, "setattr") and isinstance(node.args[1], ast.Constant):
      names.add(node.args[1].value)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
      names.add(node.name)
    elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
      names.add(node.attr)
    elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
      names.add(node.id)
    elif isinstance(node, ast.arg):
      names.add(node.arg)
    elif isinstance(node, ast.alias) and node.asname:
      names.add(node.asname)
  return names


def _is_call_to(node: ast.AST, name: str) -> bool:
  return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
          and node.func.id == name and len(node.args) >= 2)


def _is_private(name: str) -> bool:
  return name.startswith("_") and not name.startswith("__") and name not in FOREIGN_PRIVATE


def _module_aliases(tree: ast.AST, module: str, is_package: bool, modules) -> set[str]:
  """Names under which the module binds other jax modules (`from jax._src import core`)."""
  out = set()
  for node in ast.walk(tree):
    if isinstance(node, (ast.Import, ast.ImportFrom)):
      for alias, name in zip(node.names, _imported_names(node, module, is_package)):
        if name in modules and (alias.asname or isinstance(node, ast.ImportFrom)):
          out.add(alias.asname or alias.name)
  return out


def private_reads(modules: dict[str, str]) -> list[str]:
  """`module:line name` for each read of another module's underscore name: through an
  import, through a module bound to a name, or on an object whose module does not
  define that name (so it belongs to another module's class)."""
  out = []
  for module, path in sorted(modules.items()):
    with open(path, encoding="utf-8") as f:
      tree = ast.parse(f.read(), path)
    own = _defined_names(tree)
    aliases = _module_aliases(tree, module, path.endswith("__init__.py"), modules)
    for node in ast.walk(tree):
      if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "jax":
        out += [f"{module}:{node.lineno} from {node.module} import {a.name}"
                for a in node.names if _is_private(a.name)]
      elif isinstance(node, ast.Attribute) and _is_private(node.attr):
        base = node.value.id if isinstance(node.value, ast.Name) else None
        if base in aliases or (node.attr not in own and base not in ("self", "cls")):
          out.append(f"{module}:{node.lineno} {ast.unparse(node)}")
      elif (_is_call_to(node, "getattr") and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str) and _is_private(node.args[1].value)
            and node.args[1].value not in own):
        out.append(f"{module}:{node.lineno} {ast.unparse(node)}")
  return out


# ----------------------------------------------------------------------------- tests


@pytest.fixture(scope="module")
def graph():
  import jax
  modules = find_modules(os.path.dirname(jax.__file__))
  edges, uncommented = collect_edges(modules)
  return modules, edges, uncommented


def _has_layer(module: str) -> bool:
  """Whether a prefix of LAYERS claims `module`; a private module needs a private
  prefix (the public layer's "jax" would otherwise take every new module silently)."""
  private = module.startswith("jax._src")
  return any((module == p or module.startswith(p + ".")) and (not private or p.startswith("jax._src"))
             for _, _, ps in LAYERS for p in ps)


def test_every_module_has_a_layer(graph):
  modules, _, _ = graph
  missing = sorted(m for m in modules if m != "jax._src" and not _has_layer(m))
  assert not missing, f"modules without a layer in LAYERS: {missing}"


def test_table_finds_the_layers_it_names():
  assert layer_of("jax._src.core") == 0
  assert layer_of("jax._src.interpreters.ad") == 1
  assert layer_of("jax._src.lax.shape") == 3
  assert layer_of("jax._src.numpy.ufuncs") == 6
  assert layer_of("jax.numpy") == len(LAYERS) - 1
  assert layer_of("jax.version") == 0  # a longer prefix wins over "jax"


def test_imports_point_down(graph):
  _, edges, _ = graph
  bad = upward_edges(edges)
  assert not bad, "imports pointing up a layer:\n  " + "\n  ".join(
      f"{_where(e)}: {LAYERS[layer_of(e.src)][0]} imports {LAYERS[layer_of(e.dst)][0]}"
      for e in bad)


def test_private_modules_do_not_import_the_public_api(graph):
  _, edges, _ = graph
  bad = private_to_public(edges)
  assert not bad, "private modules importing public ones:\n  " + "\n  ".join(map(_where, bad))


def test_no_import_cycles(graph):
  modules, edges, _ = graph
  bad = strongly_connected(list(modules), edges)
  assert not bad, "import cycles:\n  " + "\n  ".join(cycle_report(c, edges) for c in bad)


def test_function_level_imports_say_why(graph):
  _, _, uncommented = graph
  assert not uncommented, ("function-level imports without a comment on the line or the "
                           "line above:\n  " + "\n  ".join(map(_where, uncommented)))


def test_no_module_reads_another_modules_private_names(graph):
  modules, _, _ = graph
  bad = private_reads(modules)
  assert not bad, ("underscore names read outside the module that defines them (give them "
                   "a public name there):\n  " + "\n  ".join(bad))


# ----------------------------------------------------------------------------- the checker


def _fake_package(tmp_path, files: dict[str, str]) -> str:
  for name, text in files.items():
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
  return str(tmp_path / "jax")


def test_checker_finds_cycles_upward_and_uncommented_imports(tmp_path):
  pkg = _fake_package(tmp_path, {
      "jax/__init__.py": "",
      "jax/numpy/__init__.py": "",
      "jax/_src/__init__.py": "",
      "jax/_src/core.py": "def f():\n  from jax._src import api\n",
      "jax/_src/api.py": "from jax._src import core\nfrom . import execution\n",
      "jax/_src/execution.py": ("def g():\n  # why: a reason\n  import jax.numpy as jnp\n"
                                "def h():\n  from jax._src.core import f  # a reason\n"),
  })
  modules = find_modules(pkg)
  assert set(modules) == {"jax", "jax.numpy", "jax._src", "jax._src.core", "jax._src.api",
                          "jax._src.execution"}
  edges, uncommented = collect_edges(modules)
  pairs = {(e.src, e.dst, e.in_function) for e in edges}
  assert ("jax._src.api", "jax._src.execution", False) in pairs  # relative import resolved
  assert ("jax._src.execution", "jax._src.core", True) in pairs  # `from m import name`
  assert [(e.src, e.dst) for e in uncommented] == [("jax._src.core", "jax._src.api")]
  assert strongly_connected(list(modules), edges) == [
      ["jax._src.api", "jax._src.core", "jax._src.execution"]]
  assert {(e.src, e.dst) for e in upward_edges(edges)} == {
      ("jax._src.core", "jax._src.api"), ("jax._src.execution", "jax.numpy")}
  assert [(e.src, e.dst, e.line) for e in private_to_public(edges)] == [
      ("jax._src.execution", "jax.numpy", 3)]


def test_public_numpy_and_lax_are_their_private_namespaces():
  # Library modules import the private namespaces; users see the same objects.
  import jax.lax
  import jax.numpy
  from jax._src.lax import namespace as lax_namespace
  from jax._src.numpy import namespace as numpy_namespace
  for public, private in ((jax.numpy, numpy_namespace), (jax.lax, lax_namespace)):
    names = [n for n in vars(private) if not n.startswith("_")]
    assert len(names) > 200
    for name in names:
      assert getattr(public, name) is getattr(private, name), (public.__name__, name)
  assert jax.numpy.linalg.__name__ == "jax.numpy.linalg"
  assert jax.numpy.fft.__name__ == "jax.numpy.fft"
  assert jax.lax.linalg.__name__ == "jax.lax.linalg"
  assert jax.numpy.sum(jax.numpy.arange(4)) == 6


def test_checker_finds_private_reads(tmp_path):
  pkg = _fake_package(tmp_path, {
      "jax/__init__.py": "",
      "jax/_src/__init__.py": "",
      "jax/_src/a.py": ("class A:\n  __slots__ = ('_x',)\n  def _check(self):\n"
                        "    return self._x\n_helper = 1\n"),
      "jax/_src/b.py": ("from jax._src import a\nfrom jax._src.a import _helper\n"
                        "def f(obj):\n  obj._check()\n  return a._helper, obj._x\n"
                        "def g(p):\n  return p._replace(x=1), getattr(p, '_y', 0)\n"),
      "jax/_src/c.py": ("import jax._src.a as mod_a\n_helper = 2\n"
                        "class C:\n  _x = 0\n  def h(self, other):\n"
                        "    return mod_a._helper + other._x + self._x\n"),
  })
  reads = private_reads(find_modules(pkg))
  assert reads == ["jax._src.b:2 from jax._src.a import _helper", "jax._src.b:4 obj._check",
                   "jax._src.b:5 a._helper", "jax._src.b:5 obj._x",
                   "jax._src.b:7 getattr(p, '_y', 0)", "jax._src.c:6 mod_a._helper"]
