"""The benchmark harness's pure parts: which figures exist, their targets, the
statistics over samples, ratios against real JAX, and the tables.

No JAX here: `suite.py` (run under each install) imports this for the figure
table, and `run.py` for everything else.
"""

from __future__ import annotations

import dataclasses
import re
import statistics

OURS = "ours"
REALJAX = "realjax"
NUMPY = "numpy"
# OpenXLA's own XLA:CPU PJRT plugin, driven by our jax in our virtualenv: the same
# programs compiled by our CPU compiler and by XLA's, in one process.
OPENXLA = "openxla"
SIDES = (OURS, REALJAX)


@dataclasses.dataclass(frozen=True)
class Target:
  """ours/realjax must be <= `ratio` (lower is better) or >= it (higher is better).
  `numpy_ref`/`numpy_factor`: also ours >= numpy_ref's median / numpy_factor."""
  ratio: float
  aim: float | None = None
  numpy_ref: str | None = None
  numpy_factor: float = 1.0


@dataclasses.dataclass(frozen=True)
class Figure:
  name: str
  group: str            # suite.py runs one group per process
  title: str
  unit: str
  higher_is_better: bool
  target: Target | None = None
  quick: bool = True    # measured in --quick runs too
  against: str = REALJAX  # the side `ratio` divides ours by (REALJAX or OPENXLA)


_COPY = dict(numpy_ref="numpy_copy_1e7", numpy_factor=1.5)

# The compiler-against-compiler group: run only in our virtualenv, where run.py also
# installs OpenXLA's CPU plugin; each figure is measured on our CPU plugin's device
# and on the OpenXLA plugin's, and the ratio is ours / OpenXLA XLA:CPU.
OPENXLA_GROUP = "openxla"
OPENXLA_TITLE = "OpenXLA XLA:CPU"
# The plugin's wheel (installed with --no-deps: it declares Google's jax as a
# dependency, which would replace ours) and the module giving its library's path.
OPENXLA_WHEEL = "lammps-jax-pjrt-cpu==0.11.2"
OPENXLA_MODULE = "lammps_jax_pjrt_cpu"


def _vs_xla(name: str, title: str, unit: str, higher_is_better: bool, ratio: float,
            quick: bool = True) -> Figure:
  return Figure(name, OPENXLA_GROUP, title, unit, higher_is_better, Target(ratio),
                quick=quick, against=OPENXLA)


# Wheels whose clean and incremental Bazel builds run.py --build-times measures.
BUILD_WHEELS = ("jax", "jaxlib", "jaxlib-cpu", "jaxlib-cuda12", "jaxlib-rocm6", "jaxlib-tpu")

FIGURES = [
    Figure("import_jax", "import", "import jax (fresh process)", "ms", False,
           Target(0.5)),
    Figure("eager_add_f32_16", "dispatch", "eager jnp.add, f32[16]", "us", False,
           Target(1.0, aim=0.5)),
    Figure("jit_add1_f32_16", "dispatch", "cached jit x + 1, f32[16]", "us", False,
           Target(1.0, aim=0.5)),
    Figure("jit_dict10_f32_16", "dispatch", "cached jit, dict of 10 f32[16]", "us", False,
           Target(1.0, aim=0.5)),
    Figure("compile_small", "compile", "first call (trace + compile), small fn", "ms",
           False, Target(1.0)),
    Figure("compile_closure_16mb", "compile",
           "first call of a fn closing over a 16 MB numpy weight", "ms", False, Target(1.0)),
    Figure("fused_elementwise_1e7", "elementwise", "fused elementwise, f32[1e7]", "GB/s",
           True, Target(1.0, **_COPY)),
    Figure("numpy_copy_1e7", "elementwise", "numpy copy bandwidth, f32[1e7]", "GB/s", True),
    Figure("sum_1e7", "reduce", "sum, f32[1e7]", "GB/s", True, Target(1.0, **_COPY)),
    Figure("sum_rows_1000x10000", "reduce", "row sums, f32[1000,10000]", "GB/s", True,
           Target(1.0, **_COPY)),
    Figure("matmul_256", "matmul", "matmul f32 256", "GFLOP/s", True, Target(0.8)),
    Figure("matmul_1024", "matmul", "matmul f32 1024", "GFLOP/s", True, Target(0.8)),
    Figure("matmul_2048", "matmul", "matmul f32 2048", "GFLOP/s", True, Target(0.8),
           quick=False),
    Figure("mlp_step", "mlp", "jit(value_and_grad) MLP 784-512-512-10, b128", "ms",
           False, Target(1.2)),
    Figure("vmap_matvec_64x256", "vmap", "jit(vmap) 64 matvecs 256x256", "us", False),
    Figure("softmax_4096x1024", "softmax", "row softmax f32[4096,1024]", "GB/s", True,
           Target(1.0, **_COPY)),
    Figure("conv_3x3_nhwc", "conv", "conv 3x3 NHWC 8x64x64x32 -> 32", "ms", False,
           Target(1.2)),
    Figure("random_normal_1e7", "random", "jax.random.normal, 1e7 samples", "ms", False),
    # A long loop that stacks one output per step (RNNs, MCMC traces, lax.map): each
    # step's write into the stacked buffer must be in place.
    Figure("scan_stacked_1e5", "scan", "jit lax.scan, 1e5 steps, stacked f32 outputs", "ms",
           False, Target(2.0)),
    Figure("peak_rss_mlp", "memory", "peak RSS, MLP training script", "MB", False,
           Target(1.0)),
    # Ours against OpenXLA's CPU compiler under the same jax (same jaxprs, same HLO);
    # the targets are those of the matching figures against real JAX, whose CPU
    # backend is the same compiler.
    _vs_xla("xla_matmul_1024", "matmul f32 1024", "GFLOP/s", True, 0.8),
    _vs_xla("xla_conv_3x3_nhwc", "conv 3x3 NHWC 8x64x64x32 -> 32", "ms", False, 1.2),
    _vs_xla("xla_fused_elementwise_1e7", "fused elementwise, f32[1e7]", "GB/s", True, 1.0),
    _vs_xla("xla_mlp_step", "jit(value_and_grad) MLP 784-512-512-10, b128", "ms", False,
            1.2),
    _vs_xla("xla_compile_mid", "first call (trace + compile) of a fresh jit, "
            "grad of an 8-layer MLP", "ms", False, 1.0),
    # Measured by run.py itself, not by suite.py.
    Figure("wheel_size", "wheels", "wheel sizes: jax + jaxlib + CPU backend", "MB", False),
] + [
    Figure(f"build_{kind}_{wheel.replace('-', '_')}", "build",
           f"{kind} build of the {wheel} wheel", "s", False, quick=False)
    for wheel in BUILD_WHEELS for kind in ("clean", "incremental")
]

BY_NAME = {f.name: f for f in FIGURES}
GROUPS = list(dict.fromkeys(f.group for f in FIGURES))
HARNESS_GROUPS = ("wheels", "build")   # measured by run.py
SUITE_GROUPS = [g for g in GROUPS if g not in HARNESS_GROUPS]
OURS_ONLY_GROUPS = (OPENXLA_GROUP,)   # suite.py runs them in our virtualenv alone


def figures_of(group: str, quick: bool = False) -> list[Figure]:
  return [f for f in FIGURES if f.group == group and (f.quick or not quick)]


def sides_of(group: str) -> tuple[str, ...]:
  """The installs whose virtualenvs run `group` of suite.py."""
  return (OURS,) if group in OURS_ONLY_GROUPS else SIDES


def select_groups(only: str | None) -> list[str]:
  """--only takes group names or figure names; returns the groups to run."""
  if not only:
    return [g for g in GROUPS if g != "build"]
  groups = []
  for word in (w.strip() for w in only.split(",")):
    if not word:
      continue
    group = word if word in GROUPS else BY_NAME[word].group if word in BY_NAME else None
    if group is None:
      raise ValueError(f"--only: unknown benchmark {word!r}; groups: {', '.join(GROUPS)}; "
                       f"figures: {', '.join(BY_NAME)}")
    if group not in groups:
      groups.append(group)
  return groups


# ---------------------------------------------------------------------------- statistics


def summarize(samples: list[float]) -> dict | None:
  """Median with min and max; None without samples."""
  if not samples:
    return None
  return {"median": statistics.median(samples), "min": min(samples), "max": max(samples),
          "n": len(samples)}


def ratio(ours: dict | None, real: dict | None) -> float | None:
  """ours / real JAX on medians (for times <1 is faster, for throughputs >1 is)."""
  if not ours or not real or not real["median"]:
    return None
  return ours["median"] / real["median"]


def check_target(figure: Figure, entry: dict, numpy_medians: dict[str, float]) -> tuple[str, str]:
  """(status, why) for one figure's entry: 'ok', 'MISS', 'unsupported', 'error' or
  '' (no target / nothing to compare)."""
  if entry.get(OURS) is None and entry.get("errors", {}).get(OURS):
    kind = "unsupported" if entry.get("unsupported") else "error"
    return kind, entry["errors"][OURS]
  target = figure.target
  r = entry.get("ratio")
  if target is None or r is None:
    return "", ""
  misses = []
  if (r > target.ratio) if not figure.higher_is_better else (r < target.ratio):
    misses.append(f"{r:.2f}x vs {target_text(figure)}")
  if target.numpy_ref and numpy_medians.get(target.numpy_ref):
    floor = numpy_medians[target.numpy_ref] / target.numpy_factor
    if entry[OURS]["median"] < floor:
      misses.append(f"{entry[OURS]['median']:.3g} {figure.unit} < numpy copy/"
                    f"{target.numpy_factor:g} = {floor:.3g} {figure.unit}")
  return ("MISS", "; ".join(misses)) if misses else ("ok", "")


def target_text(figure: Figure) -> str:
  t = figure.target
  if t is None:
    return ""
  text = ("<=" if not figure.higher_is_better else ">=") + f"{t.ratio:g}x"
  if t.aim is not None:
    text += f" (aim {t.aim:g}x)"
  if t.numpy_ref:
    text += f", >=copy/{t.numpy_factor:g}"
  return text


def evaluate(samples: dict[str, dict[str, list[float]]], errors: dict[str, dict[str, str]],
             unsupported: set[tuple[str, str]] = frozenset()) -> dict[str, dict]:
  """samples[figure][side or 'numpy'] -> per figure: summaries, ratio, status.
  errors[figure][side] is the message of a benchmark that could not run."""
  entries = {}
  for figure in FIGURES:
    if figure.name not in samples and figure.name not in errors:
      continue
    per_side = samples.get(figure.name, {})
    entry = {side: summarize(per_side.get(side, [])) for side in (*SIDES, NUMPY, OPENXLA)}
    entry["errors"] = dict(errors.get(figure.name, {}))
    entry["unsupported"] = (figure.name, OURS) in unsupported
    entry["ratio"] = ratio(entry[OURS], entry[figure.against])
    entries[figure.name] = entry
  numpy_medians = {name: e[NUMPY]["median"] for name, e in entries.items() if e[NUMPY]}
  for name, entry in entries.items():
    entry["status"], entry["why"] = check_target(BY_NAME[name], entry, numpy_medians)
  return entries


# ---------------------------------------------------------------------------- tables


def format_value(summary: dict | None) -> str:
  if summary is None:
    return "-"
  return f"{_num(summary['median'])} ({_num(summary['min'])}-{_num(summary['max'])})"


def _num(x: float) -> str:
  if x == 0:
    return "0"
  if abs(x) >= 100:
    return f"{x:.0f}"
  if abs(x) >= 10:
    return f"{x:.1f}"
  return f"{x:.3g}"


COLUMNS = ["figure", "unit", "ours", "real JAX", "numpy", "ours/JAX", "target", "status"]
# The separate table of the figures measured against OpenXLA's CPU plugin.
OPENXLA_COLUMNS = ["figure", "unit", "ours", OPENXLA_TITLE, "ours/OpenXLA", "target",
                   "status"]


def _cell(entry: dict, side: str) -> str:
  if entry.get(side) is None and entry["errors"].get(side):
    return "unsupported" if side == OURS and entry["unsupported"] else "error"
  return format_value(entry.get(side))


def table_rows(entries: dict[str, dict]) -> list[list[str]]:
  """The main table: figures compared with real JAX (and numpy)."""
  rows = []
  for figure in FIGURES:
    entry = entries.get(figure.name)
    if entry is None or figure.against != REALJAX:
      continue
    r = entry["ratio"]
    rows.append([figure.title, figure.unit, _cell(entry, OURS), _cell(entry, REALJAX),
                 format_value(entry[NUMPY]), "-" if r is None else f"{r:.2f}x",
                 target_text(figure) or "-", entry["status"] or "-"])
  return rows


def openxla_rows(entries: dict[str, dict]) -> list[list[str]]:
  """The compiler-against-compiler table: our CPU plugin and OpenXLA's, both under
  our jax, on the same programs (OPENXLA_COLUMNS)."""
  rows = []
  for figure in FIGURES:
    entry = entries.get(figure.name)
    if entry is None or figure.against != OPENXLA:
      continue
    r = entry["ratio"]
    rows.append([figure.title, figure.unit, _cell(entry, OURS), _cell(entry, OPENXLA),
                 "-" if r is None else f"{r:.2f}x", target_text(figure) or "-",
                 entry["status"] or "-"])
  return rows


def format_table(header: list[str], rows: list[list[str]], markdown: bool = False) -> str:
  """A plain aligned table for the terminal, or a Markdown one."""
  if markdown:
    def line(cells):
      return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"
    return "\n".join([line(header), line(["---"] * len(header))] + [line(r) for r in rows])
  widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
  def line(cells):
    return "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()
  return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


# ---------------------------------------------------------------------------- notes


def parse_notes(text: str) -> dict[str, str]:
  """notes.md: a `## figure_name` heading per figure, the explanation beneath it."""
  notes, name, lines = {}, None, []
  for line in text.splitlines():
    heading = re.match(r"^##\s+(\S+)\s*$", line)
    if heading:
      if name:
        notes[name] = "\n".join(lines).strip()
      name, lines = heading.group(1), []
    elif name:
      lines.append(line)
  if name:
    notes[name] = "\n".join(lines).strip()
  return notes


def misses_section(entries: dict[str, dict], notes: dict[str, str]) -> str:
  """One bullet per figure that misses its target (or cannot run on our side), with
  the human explanation from notes.md or a placeholder asking for one."""
  lines = []
  for figure in FIGURES:
    entry = entries.get(figure.name)
    if not entry or entry["status"] not in ("MISS", "unsupported", "error"):
      continue
    why = entry["why"].splitlines()[0] if entry["why"] else ""
    if figure.against == OPENXLA and entry["status"] == "MISS":
      why = f"against {OPENXLA_TITLE}: {why}"
    note = notes.get(figure.name)
    if not note:
      note = (f"_No explanation yet: add a `## {figure.name}` section to "
              "benchmarks/notes.md saying why and what would close it._")
    lines.append(f"- **{figure.title}** (`{figure.name}`, {entry['status']}: {why})\n"
                 + _indent(note))
  return "\n".join(lines) if lines else "Every figure meets its target."


def _indent(text: str) -> str:
  return "\n".join(("  " + l) if l.strip() else "" for l in text.splitlines())
