"""The benchmark harness (benchmarks/): its statistics, target logic, tables and
notes, the suite's recorder and timer, one tiny benchmark run in-process against
the installed jax, and the suite's JSON protocol in a child process. The check
against real JAX runs only where a real JAX virtualenv exists."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH_DIR = os.path.join(REPO_ROOT, "benchmarks")
sys.path.insert(0, BENCH_DIR)

import harness  # noqa: E402  pylint: disable=wrong-import-position
import run  # noqa: E402  pylint: disable=wrong-import-position
import suite  # noqa: E402  pylint: disable=wrong-import-position


def _entry(ours=None, real=None, numpy=None, errors=None, unsupported=False):
  summ = harness.summarize
  entry = {harness.OURS: summ(ours or []), harness.REALJAX: summ(real or []),
           harness.NUMPY: summ(numpy or []), "errors": errors or {}, "unsupported": unsupported}
  entry["ratio"] = harness.ratio(entry[harness.OURS], entry[harness.REALJAX])
  return entry


# ---------------------------------------------------------------------------- statistics


def test_summarize_gives_median_min_max():
  assert harness.summarize([3.0, 1.0, 2.0, 10.0]) == {"median": 2.5, "min": 1.0, "max": 10.0,
                                                      "n": 4}
  assert harness.summarize([]) is None


def test_ratio_divides_medians():
  assert harness.ratio({"median": 6.0}, {"median": 3.0}) == 2.0
  assert harness.ratio(None, {"median": 3.0}) is None
  assert harness.ratio({"median": 1.0}, None) is None


# ---------------------------------------------------------------------------- targets


def test_time_target_lower_is_better():
  figure = harness.BY_NAME["jit_add1_f32_16"]           # <= 1.0x
  assert harness.check_target(figure, _entry([4.0], [5.0]), {}) == ("ok", "")
  status, why = harness.check_target(figure, _entry([10.0], [5.0]), {})
  assert status == "MISS" and "2.00x vs <=1x" in why


def test_throughput_target_needs_ratio_and_numpy_copy_bandwidth():
  figure = harness.BY_NAME["sum_1e7"]                   # >= 1.0x and >= copy/1.5
  assert harness.check_target(figure, _entry([30.0], [20.0]), {"numpy_copy_1e7": 30.0}) == (
      "ok", "")
  status, why = harness.check_target(figure, _entry([15.0], [10.0]), {"numpy_copy_1e7": 30.0})
  assert status == "MISS" and "numpy copy/1.5 = 20" in why and "x vs" not in why
  status, why = harness.check_target(figure, _entry([5.0], [10.0]), {})
  assert status == "MISS" and "0.50x vs >=1x" in why


def test_unsupported_and_errors_are_reported_not_compared():
  figure = harness.BY_NAME["conv_3x3_nhwc"]
  message = "AttributeError: module 'jax.lax' has no attribute 'conv_general_dilated'"
  entry = _entry(None, [4.0], errors={harness.OURS: message}, unsupported=True)
  assert harness.check_target(figure, entry, {}) == ("unsupported", message)
  entry = _entry(None, [4.0], errors={harness.OURS: "RuntimeError: boom"})
  assert harness.check_target(figure, entry, {})[0] == "error"


def test_figures_without_target_have_no_status():
  figure = harness.BY_NAME["vmap_matvec_64x256"]
  assert harness.check_target(figure, _entry([9.0], [1.0]), {}) == ("", "")


def test_evaluate_pools_numpy_reference_into_targets():
  samples = {
      "numpy_copy_1e7": {harness.NUMPY: [30.0, 31.0, 29.0]},
      "softmax_4096x1024": {harness.OURS: [25.0, 26.0], harness.REALJAX: [20.0],
                            harness.NUMPY: [3.0]},
      "mlp_step": {harness.OURS: [13.0, 12.0, 11.0], harness.REALJAX: [10.0]},
  }
  entries = harness.evaluate(samples, {})
  assert set(entries) == {"softmax_4096x1024", "mlp_step", "numpy_copy_1e7"}
  assert entries["softmax_4096x1024"]["status"] == "ok"          # 25.5 >= 30/1.5
  assert entries["mlp_step"]["ratio"] == pytest.approx(1.2)
  assert entries["mlp_step"]["status"] == "ok"                   # <= 1.2x
  assert entries["numpy_copy_1e7"]["status"] == ""


def test_target_text_reads_like_the_issue():
  assert harness.target_text(harness.BY_NAME["import_jax"]) == "<=0.5x"
  assert harness.target_text(harness.BY_NAME["eager_add_f32_16"]) == "<=1x (aim 0.5x)"
  assert harness.target_text(harness.BY_NAME["matmul_1024"]) == ">=0.8x"
  assert harness.target_text(harness.BY_NAME["sum_1e7"]) == ">=1x, >=copy/1.5"


def test_select_groups_by_group_or_figure_name():
  assert harness.select_groups("matmul_1024,dispatch,matmul") == ["matmul", "dispatch"]
  assert "build" not in harness.select_groups(None)
  with pytest.raises(ValueError, match="unknown benchmark 'nope'"):
    harness.select_groups("nope")


def test_quick_mode_drops_the_slowest_figures():
  assert "matmul_2048" not in [f.name for f in harness.figures_of("matmul", quick=True)]
  assert "matmul_2048" in [f.name for f in harness.figures_of("matmul", quick=False)]


# ---------------------------------------------------------------------------- tables


def test_table_formats_values_ratios_and_unsupported():
  entries = harness.evaluate(
      {"jit_add1_f32_16": {harness.OURS: [30.0, 20.0, 40.0], harness.REALJAX: [10.0]}},
      {"conv_3x3_nhwc": {harness.OURS: "AttributeError: no conv"}},
      unsupported={("conv_3x3_nhwc", harness.OURS)})
  rows = harness.table_rows(entries)
  assert rows[0] == ["cached jit x + 1, f32[16]", "us", "30.0 (20.0-40.0)", "10.0 (10.0-10.0)",
                     "-", "3.00x", "<=1x (aim 0.5x)", "MISS"]
  assert rows[1][2] == "unsupported" and rows[1][-1] == "unsupported"
  text = harness.format_table(harness.COLUMNS, rows)
  lines = text.splitlines()
  assert lines[0].startswith("figure") and set(lines[1].replace(" ", "")) == {"-"}
  assert lines[2].index("us") == lines[0].index("unit")        # columns align
  markdown = harness.format_table(["a", "b"], [["x|y", "1"]], markdown=True)
  assert markdown.splitlines() == ["| a | b |", "| --- | --- |", "| x\\|y | 1 |"]


def test_number_formatting_keeps_three_significant_digits():
  assert harness.format_value(harness.summarize([0.012345])) == "0.0123 (0.0123-0.0123)"
  assert harness.format_value(harness.summarize([1234.5])) == "1234 (1234-1234)"
  assert harness.format_value(None) == "-"


# ---------------------------------------------------------------------------- notes


def test_notes_survive_in_the_misses_section():
  notes = harness.parse_notes("# Notes\nintro\n\n## mlp_step\nDispatch of 6 arrays.\n"
                              "Fix: fuse.\n\n## sum_1e7\nOne thread.\n")
  assert notes == {"mlp_step": "Dispatch of 6 arrays.\nFix: fuse.", "sum_1e7": "One thread."}
  entries = harness.evaluate({"mlp_step": {harness.OURS: [20.0], harness.REALJAX: [10.0]},
                              "matmul_256": {harness.OURS: [10.0], harness.REALJAX: [100.0]},
                              "import_jax": {harness.OURS: [1.0], harness.REALJAX: [10.0]}}, {})
  text = harness.misses_section(entries, notes)
  assert "**jit(value_and_grad) MLP" in text and "  Dispatch of 6 arrays.\n  Fix: fuse." in text
  assert "add a `## matmul_256` section to benchmarks/notes.md" in text
  assert "import jax" not in text                                   # met its target


def test_results_markdown_names_the_machine_and_keeps_notes():
  entries = harness.evaluate({"mlp_step": {harness.OURS: [20.0], harness.REALJAX: [10.0]}}, {})
  report = {"machine": {"cpu": "Test CPU", "cores": 2, "memory": "1.0 GiB", "os": "Linux",
                        "python": "3.11.0"},
            "sides": {harness.OURS: {"jax_version": "1!0.1.0", "numpy_version": "2.0.0",
                                     "python": "3.11.0"},
                      harness.REALJAX: {"jax_version": "0.10.2", "numpy_version": "2.0.0"}},
            "date": "2030-01-01 00:00", "rounds": 3, "entries": entries}
  text = run.results_markdown(report, {"mlp_step": "Because."})
  assert "- CPU: Test CPU (2 logical cores)" in text and "numpy 2.0.0" in text
  assert "| jit(value_and_grad) MLP 784-512-512-10, b128 | ms |" in text
  assert "## Misses" in text and "  Because." in text


def test_build_times_from_an_earlier_run(tmp_path):
  earlier = tmp_path / "builds.json"
  earlier.write_text(json.dumps({
      "date": "2030-01-01 00:00", "load_at_end": "1.50",
      "samples": {"build_clean_jax": {harness.OURS: [2.5]}, "matmul_256": {harness.OURS: [1.0]}}}))
  loaded = run.load_build_times(str(earlier))
  assert set(loaded["samples"]) == {"build_clean_jax"}
  report = {"entries": harness.evaluate(loaded["samples"], {}),
            "build_times_from": [loaded["source"]]}
  line = run.build_times_line(report)
  assert "separate `--only build --build-times` runs: 2030-01-01 00:00" in line
  assert "`builds.json`" in line and "1.50" in line
  none = tmp_path / "none.json"
  none.write_text(json.dumps({"samples": {"matmul_256": {harness.OURS: [1.0]}}}))
  with pytest.raises(run.HarnessError, match="measured no build times"):
    run.load_build_times(str(none))
  with pytest.raises(run.HarnessError, match="missing.json"):
    run.load_build_times(str(tmp_path / "missing.json"))


def test_render_takes_build_times_from_separate_runs(tmp_path, monkeypatch):
  entries = harness.evaluate({"mlp_step": {harness.OURS: [2.0], harness.REALJAX: [2.5]}}, {})
  full = tmp_path / "full.json"
  full.write_text(json.dumps({
      "machine": {"cpu": "Test CPU", "cores": 2, "memory": "1 GiB", "os": "Linux", "python": "3.11"},
      "sides": {}, "date": "2030-01-01 00:00", "rounds": 3, "entries": entries,
      "args": {"quick": False, "only": None}}))
  builds = tmp_path / "builds.json"
  builds.write_text(json.dumps({"date": "2030-01-02 00:00", "load_at_end": "0.5", "samples": {
      "build_clean_jaxlib_tpu": {harness.OURS: [60.0]}}}))
  out = tmp_path / "RESULTS.md"
  monkeypatch.setattr(run, "RESULTS_MD", str(out))
  assert run.render(str(full), [str(builds)]) == 0
  text = out.read_text()
  assert "| clean build of the jaxlib-tpu wheel | s | 60.0 (60.0-60.0) |" in text
  assert "runs: 2030-01-02 00:00 (`builds.json`" in text


def test_every_timed_wheel_has_an_edit_for_its_rebuild():
  assert set(run.BUILD_EDITS) == set(harness.BUILD_WHEELS)
  for wheel in harness.BUILD_WHEELS:
    assert os.path.exists(os.path.join(REPO_ROOT, run.BUILD_EDITS[wheel][0])), wheel
    assert f"build_clean_{wheel.replace('-', '_')}" in harness.BY_NAME


# ---------------------------------------------------------------------------- the suite


def test_recorder_separates_unsupported_from_errors():
  rec = suite.Recorder("conv", suite.Config(quick=True))

  def no_api():
    raise AttributeError("module 'jax.lax' has no attribute 'conv_general_dilated'")

  rec.run("conv_3x3_nhwc", "jax", no_api)
  assert rec.unsupported == ["conv_3x3_nhwc"]
  assert rec.errors["conv_3x3_nhwc"]["jax"].startswith("AttributeError: module 'jax.lax'")
  rec = suite.Recorder("matmul", suite.Config(quick=True))
  rec.run("matmul_2048", "jax", lambda: [1.0])                   # not in --quick
  rec.run("matmul_256", "numpy", lambda: [2, 3])
  assert rec.figures == {"matmul_256": {"numpy": [2.0, 3.0]}}
  with pytest.raises(KeyError, match="no figure named 'matmul_7'"):
    rec.run("matmul_7", "jax", lambda: [1.0])


def test_per_call_seconds_loops_short_calls():
  calls = []
  samples = suite.per_call_seconds(lambda: calls.append(1),
                                   suite.Config(repeats=3, sample_time=0.001))
  assert len(samples) == 3 and all(0 < s < 1e-3 for s in samples)
  assert len(calls) > 3 + 2                  # each sample looped more than one call


def test_collected_maps_sources_to_sides():
  collected = run.Collected()
  collected.add(harness.OURS, {"jax_version": "1", "figures": {"sum_1e7": {"jax": [1.0],
                                                                          "numpy": [5.0]}},
                               "errors": {"conv_3x3_nhwc": {"jax": "AttributeError: x"}},
                               "unsupported": ["conv_3x3_nhwc"]})
  collected.add(harness.REALJAX, {"figures": {"sum_1e7": {"jax": [2.0], "numpy": [6.0]}},
                                  "errors": {}})
  assert collected.samples["sum_1e7"] == {harness.OURS: [1.0], harness.NUMPY: [5.0, 6.0],
                                          harness.REALJAX: [2.0]}
  assert collected.errors == {"conv_3x3_nhwc": {harness.OURS: "AttributeError: x"}}
  assert collected.unsupported == {("conv_3x3_nhwc", harness.OURS)}


def test_a_crashing_suite_process_becomes_errors(tmp_path):
  fake = tmp_path / "python"
  fake.write_text("#!/bin/sh\necho 'ImportError: no jax here' >&2\nexit 3\n")
  fake.chmod(0o755)
  result = run.run_suite(str(fake), "matmul", quick=True, repeats=1, timeout=30)
  assert set(result["errors"]) == {"matmul_256", "matmul_1024"}
  assert result["errors"]["matmul_256"]["jax"] == (
      "suite.py matmul exited with 3: ImportError: no jax here")


def test_missing_wheels_say_how_to_build_them(tmp_path):
  with pytest.raises(run.HarnessError, match=r"build/build.py build --wheels=jax,jaxlib"):
    run.our_wheels(str(tmp_path), "3.11")


def test_an_unrelated_folder_is_never_replaced(tmp_path):
  (tmp_path / "keep.txt").write_text("mine")
  with pytest.raises(run.HarnessError, match="is not a virtualenv"):
    run.ensure_ours(str(tmp_path), str(tmp_path), run.Progress())
  assert (tmp_path / "keep.txt").read_text() == "mine"


def _jax_backend():
  jax = pytest.importorskip("jax")
  try:
    jax.devices()
  except Exception as e:  # pylint: disable=broad-except
    pytest.skip(f"no jax backend: {e}")
  return jax


def test_dispatch_benchmark_runs_in_process():
  _jax_backend()
  rec = suite.Recorder("dispatch", suite.Config(quick=True))
  suite.bench_dispatch(rec, suite.Config(repeats=2, sample_time=0.002, quick=True))
  assert not rec.errors, rec.errors
  for name in ("eager_add_f32_16", "jit_add1_f32_16", "jit_dict10_f32_16"):
    samples = rec.figures[name]["jax"]
    assert len(samples) == 2 and all(0 < s < 1e5 for s in samples)   # microseconds
  assert len(rec.figures["eager_add_f32_16"]["numpy"]) == 2


def test_suite_process_prints_json_for_this_install():
  jax = _jax_backend()
  result = run.run_suite(sys.executable, "import", quick=True, repeats=1, timeout=60)
  assert result["jax_version"] == jax.__version__, result
  assert not result["errors"]
  (ms,) = result["figures"]["import_jax"]["jax"]
  assert 0 < ms < 30_000


def _realjax_python():
  path = os.environ.get("JAX_BENCH_REALJAX_VENV") or os.path.join(
      run.cache_dir(), f"realjax-{run.REALJAX_VERSION}-py{run.python_version()}")
  python = os.path.join(path, "bin", "python")
  if not os.path.exists(python):
    pytest.skip(f"no real JAX virtualenv at {path} (run.py makes one; or set "
                "JAX_BENCH_REALJAX_VENV)")
  return python


def test_suite_runs_under_real_jax(tmp_path):
  python = _realjax_python()
  proc = subprocess.run([python, suite.__file__, "dispatch", "--quick", "--repeats", "1"],
                        capture_output=True, text=True, timeout=120, cwd=str(tmp_path),
                        env=run.clean_env())
  assert proc.returncode == 0, proc.stderr[-2000:]
  result = json.loads(proc.stdout.strip().splitlines()[-1])
  assert result["jax_version"] == run.REALJAX_VERSION
  assert set(result["figures"]) == {"eager_add_f32_16", "jit_add1_f32_16", "jit_dict10_f32_16"}


# ---------------------------------------------------------------------------- vs OpenXLA


def test_openxla_figures_divide_by_openxla_and_keep_their_own_table():
  names = [f.name for f in harness.figures_of(harness.OPENXLA_GROUP)]
  assert names == ["xla_matmul_1024", "xla_conv_3x3_nhwc", "xla_fused_elementwise_1e7",
                   "xla_mlp_step", "xla_compile_mid"]
  assert all(harness.BY_NAME[n].against == harness.OPENXLA for n in names)
  assert all(f.against == harness.REALJAX for f in harness.FIGURES
             if f.group != harness.OPENXLA_GROUP)
  entries = harness.evaluate(
      {"xla_matmul_1024": {harness.OURS: [90.0, 110.0], harness.OPENXLA: [200.0]},
       "xla_mlp_step": {harness.OURS: [3.0], harness.OPENXLA: [2.0]},
       "mlp_step": {harness.OURS: [2.0], harness.REALJAX: [2.5]}},
      {"xla_conv_3x3_nhwc": {harness.OPENXLA: "RuntimeError: plugin missing"}})
  assert entries["xla_matmul_1024"]["ratio"] == pytest.approx(0.5)
  assert entries["xla_matmul_1024"]["status"] == "MISS"           # >= 0.8x
  assert entries["xla_mlp_step"]["status"] == "MISS"              # 1.5x vs <= 1.2x
  assert entries["mlp_step"]["ratio"] == pytest.approx(0.8)       # still against real JAX
  assert [r[0] for r in harness.table_rows(entries)] == [harness.BY_NAME["mlp_step"].title]
  rows = harness.openxla_rows(entries)
  assert rows[0] == ["matmul f32 1024", "GFLOP/s", "100 (90.0-110)", "200 (200-200)", "0.50x",
                     ">=0.8x", "MISS"]
  assert rows[1][2:4] == ["-", "error"] and rows[1][-1] == "-"   # ours not measured
  assert len(rows[0]) == len(harness.OPENXLA_COLUMNS) == 7
  text = harness.misses_section(entries, {})
  assert "(`xla_matmul_1024`, MISS: against OpenXLA XLA:CPU: 0.50x vs >=0.8x)" in text
  assert "add a `## xla_mlp_step` section" in text


def test_openxla_group_runs_only_in_our_virtualenv():
  assert harness.sides_of(harness.OPENXLA_GROUP) == (harness.OURS,)
  assert harness.sides_of("matmul") == harness.SIDES
  assert harness.select_groups("xla_mlp_step") == [harness.OPENXLA_GROUP]
  assert harness.OPENXLA_GROUP in harness.select_groups(None)
  assert harness.OPENXLA_GROUP in suite.GROUPS
  assert not run.needs_realjax([harness.OPENXLA_GROUP])
  assert run.needs_realjax([harness.OPENXLA_GROUP, "matmul"])
  assert run.needs_realjax(["wheels"])


def test_rounds_run_the_openxla_group_in_our_virtualenv_alone(monkeypatch):
  calls = []

  def fake_run_suite(python, group, quick, repeats, timeout):
    calls.append((python, group))
    return {"group": group, "figures": {}, "errors": {}, "unsupported": []}

  monkeypatch.setattr(run, "run_suite", fake_run_suite)
  args = type("Args", (), {"rounds": 2, "quick": True, "repeats": 1})()
  run.run_rounds({harness.OURS: "ours-python", harness.REALJAX: "real-python"},
                 [harness.OPENXLA_GROUP, "dispatch"], args, run.Collected(),
                 run.Progress())
  assert calls == [("ours-python", "openxla"), ("ours-python", "dispatch"),
                   ("real-python", "dispatch"), ("ours-python", "openxla"),
                   ("real-python", "dispatch"), ("ours-python", "dispatch")]
  calls.clear()
  run.run_rounds({harness.OURS: "ours-python"}, [harness.OPENXLA_GROUP], args,
                 run.Collected(), run.Progress())
  assert calls == [("ours-python", "openxla")] * 2


def test_collected_maps_the_openxla_source_to_its_side():
  collected = run.Collected()
  collected.add(harness.OURS, {"figures": {"xla_mlp_step": {"jax": [3.0], "openxla": [2.0]}},
                               "errors": {"xla_matmul_1024": {"openxla": "RuntimeError: x"}}})
  assert collected.samples["xla_mlp_step"] == {harness.OURS: [3.0], harness.OPENXLA: [2.0]}
  assert collected.errors == {"xla_matmul_1024": {harness.OPENXLA: "RuntimeError: x"}}


def _report(entries):
  return {"machine": {"cpu": "Test CPU", "cores": 2, "memory": "1 GiB", "os": "Linux",
                      "python": "3.11"},
          "sides": {}, "date": "2030-01-01 00:00", "rounds": 3, "entries": entries}


def test_results_markdown_has_a_section_against_openxla():
  entries = harness.evaluate({"mlp_step": {harness.OURS: [2.0], harness.REALJAX: [4.0]},
                              "xla_conv_3x3_nhwc": {harness.OURS: [4.0],
                                                    harness.OPENXLA: [5.0]}}, {})
  text = run.results_markdown(_report(entries), {})
  section = text[text.index("## Against OpenXLA XLA:CPU"):text.index("## Misses")]
  assert "| figure | unit | ours | OpenXLA XLA:CPU | ours/OpenXLA | target | status |" in section
  assert "| conv 3x3 NHWC 8x64x64x32 -> 32 | ms | 4 (4-4) | 5 (5-5) | 0.80x | <=1.2x | ok |" \
      in section
  main_table = text[:text.index("## Against OpenXLA XLA:CPU")]
  assert "0.80x" not in main_table and "| jit(value_and_grad) MLP" in main_table
  text = run.results_markdown(_report(harness.evaluate(
      {"mlp_step": {harness.OURS: [2.0], harness.REALJAX: [2.5]}}, {})), {})
  assert "## Against OpenXLA XLA:CPU\n\nNot measured in this run" in text


def test_interleaved_samples_take_turns():
  log = []
  cfg = suite.Config(repeats=4, sample_time=0.0005)
  samples = suite.interleaved_per_call_seconds(
      {"jax": lambda: log.append("a"), "openxla": lambda: log.append("b")}, cfg)
  assert [len(v) for v in samples.values()] == [4, 4]
  assert all(s > 0 for v in samples.values() for s in v)
  runs = [log[0]]                   # collapse each sample's loop into one letter
  for item in log[1:]:
    if item != runs[-1]:
      runs.append(item)
  # warm-ups (a, b), then samples a b | b a | a b | b a
  assert runs == ["a", "b", "a", "b", "a", "b", "a"]


def test_a_failing_plugin_is_that_sources_error_only():
  rec = suite.Recorder(harness.OPENXLA_GROUP, suite.Config(quick=True))
  cfg = suite.Config(repeats=2, sample_time=0.0005, quick=True)

  def make_call(device):
    if device == "theirs":
      raise RuntimeError("BufferFromHost: device is not a CPU device of this client")
    return lambda: None

  suite._record_pair(rec, cfg, "xla_mlp_step", {"jax": "ours", "openxla": "theirs"}, {},
                     make_call, lambda s: suite.scaled(s, "ms"))
  assert len(rec.figures["xla_mlp_step"]["jax"]) == 2
  assert "openxla" not in rec.figures["xla_mlp_step"]
  assert rec.errors["xla_mlp_step"] == {
      "openxla": "RuntimeError: BufferFromHost: device is not a CPU device of this client"}
  assert rec.unsupported == []
  missing = {"openxla": RuntimeError("OpenXLA's CPU plugin unavailable")}
  suite._record_pair(rec, cfg, "xla_matmul_1024", {"jax": "ours"}, missing, make_call,
                     lambda s: s)
  assert rec.errors["xla_matmul_1024"] == {"openxla": "RuntimeError: OpenXLA's CPU plugin "
                                                      "unavailable"}
  assert len(rec.figures["xla_matmul_1024"]["jax"]) == 2


def test_openxla_plugin_install_is_skipped_when_present(tmp_path):
  fake = tmp_path / "python"
  fake.write_text("#!/bin/sh\necho True\n")          # find_spec says it is there
  fake.chmod(0o755)
  assert run.ensure_openxla_plugin(str(fake), run.Progress()) is None
  failing = tmp_path / "python2"
  failing.write_text("#!/bin/sh\necho 'ERROR: no index' >&2\nexit 1\n")
  failing.chmod(0o755)
  message = run.ensure_openxla_plugin(str(failing), run.Progress())
  assert message == f"pip install --no-deps {harness.OPENXLA_WHEEL} failed: ERROR: no index"


@pytest.mark.needs_wheels
def test_openxla_group_runs_with_both_plugins(openxla_cpu_env):
  # A virtualenv of our wheels with OpenXLA's CPU plugin installed, as run.py
  # prepares its own (ensure_openxla_plugin).
  result = run.run_suite(openxla_cpu_env, harness.OPENXLA_GROUP, quick=True, repeats=1,
                         timeout=600)
  assert not result["errors"], result["errors"]
  for figure in harness.figures_of(harness.OPENXLA_GROUP, quick=True):
    sources = result["figures"][figure.name]
    assert set(sources) == {"jax", "openxla"} and all(
        len(v) == 1 and v[0] > 0 for v in sources.values()), figure.name
