"""ecosystem/run.py's own logic: the library table, the pytest command it builds,
junit parsing and the results table. No virtualenv or network is needed."""

import importlib.util
import json
import os
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _load_runner():
  spec = importlib.util.spec_from_file_location(
      "jax_ecosystem_run", os.path.join(REPO_ROOT, "ecosystem", "run.py"))
  module = importlib.util.module_from_spec(spec)
  sys.modules[spec.name] = module
  spec.loader.exec_module(module)
  return module


runner = _load_runner()
LIBRARIES = ["optax", "chex", "flax", "equinox", "numpyro", "dm-haiku", "distrax", "einops",
             "diffrax"]


def test_table_pins_every_library_with_an_exact_version():
  table = runner.load_libraries()
  assert list(table) == LIBRARIES
  for name, lib in table.items():
    assert lib["version"].count(".") >= 2, name
    assert lib["step"].strip(), f"{name} has no training step for the fast run"
    if lib["tests"] != "none":
      assert lib["test_paths"] and lib["quick"], name


def test_no_dependency_can_pull_in_jax():
  """Whatever the table names a library of its own is installed without dependencies."""
  table = runner.load_libraries()
  with_deps, no_deps = runner.split_requirements(table, list(table))
  for req in with_deps:
    assert runner.requirement_name(req) not in table, req
    assert runner.requirement_name(req) not in ("jax", "jaxlib"), req
  for name, lib in table.items():
    assert f"{name}=={lib['version']}" in no_deps
  assert "optax==0.2.8" in no_deps and "equinox==0.13.8" in no_deps


def test_exclusion_without_reason_is_rejected(tmp_path):
  path = tmp_path / "libs.toml"
  path.write_text('[x]\nversion = "1.0.0"\ntests = "wheel"\nexclude = [["a_test.py", ""]]\n')
  with pytest.raises(runner.HarnessError, match="without a reason"):
    runner.load_libraries(str(path))
  path.write_text('[x]\nversion = "1.0.0"\ntests = "github"\n')
  with pytest.raises(runner.HarnessError, match="wheel, sdist or none"):
    runner.load_libraries(str(path))


def test_unknown_library_is_named():
  with pytest.raises(runner.HarnessError, match="unknown libraries nope"):
    runner.select_libraries(runner.load_libraries(), "einops,nope")
  assert runner.select_libraries(runner.load_libraries(), "chex, einops") == ["chex", "einops"]


def test_pytest_command_excludes_files_and_test_ids():
  lib = {"test_paths": ["tests"], "quick": ["tests/a_test.py"],
         "exclude": [["tests/tf_test.py", "TensorFlow"], ["tests/b_test.py::T::test_gpu", "GPU"]]}
  cmd = runner.pytest_command("py", "/src", lib, quick=False, jobs=2, junit="/r.xml")
  assert cmd[:3] == ["py", "-m", "pytest"]
  assert cmd[cmd.index("--ignore") + 1] == "/src/tests/tf_test.py"
  assert cmd[cmd.index("--deselect") + 1] == "/src/tests/b_test.py::T::test_gpu"
  assert cmd[cmd.index("-n") + 1] == "2"
  assert cmd[-1] == "/src/tests" and "--junitxml=/r.xml" in cmd
  quick = runner.pytest_command("py", "/src", lib, quick=True, jobs=1, junit="/r.xml")
  assert quick[-1] == "/src/tests/a_test.py" and "-n" not in quick


JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="1" failures="1" skipped="1" tests="5">
<testcase classname="a" name="ok1" time="0.1"/>
<testcase classname="a" name="ok2" time="0.1"><system-out>x</system-out></testcase>
<testcase classname="a" name="bad" time="0.1"><failure message="boom">tb</failure></testcase>
<testcase classname="a" name="err" time="0.1"><error message="fixture">tb</error></testcase>
<testcase classname="a" name="skip" time="0.0"><skipped message="gpu"/></testcase>
</testsuite></testsuites>
"""


def test_parse_junit_counts_each_outcome(tmp_path):
  path = tmp_path / "r.xml"
  path.write_text(JUNIT)
  assert runner.parse_junit(str(path)) == {"passed": 2, "failed": 1, "errors": 1, "skipped": 1}


def test_run_bounded_kills_a_suite_over_its_time(tmp_path):
  log = str(tmp_path / "log")
  code, seconds = runner.run_bounded([sys.executable, "-c", "import time; time.sleep(30)"],
                                     1.0, dict(os.environ), str(tmp_path), log)
  assert code is None and seconds < 20
  code, _ = runner.run_bounded([sys.executable, "-c", "print('hi')"], 30.0,
                               dict(os.environ), str(tmp_path), log)
  assert code == 0 and open(log).read() == "hi\n"


def test_results_table_has_both_columns_and_the_exclusions():
  table = runner.load_libraries()
  results = {"einops": {
      "ours": {"passed": 3, "failed": 2, "errors": 1, "skipped": 0, "seconds": 4.2,
               "status": "ok", "date": "2026-01-01 00:00 UTC"},
      "jax": {"status": "stopped at 10 s", "seconds": 10.0,
              "date": "2026-01-01 00:00 UTC"}}}
  text = runner.results_markdown(table, results)
  row = next(line for line in text.splitlines() if line.startswith("| einops"))
  assert row.split(" | ")[3:9] == ["3", "2", "1", "0", "4", "stopped at 10 s"]
  chex_row = next(line for line in text.splitlines() if line.startswith("| chex"))
  assert "not run" in chex_row
  assert "`tests/run_tests.py`" in text and "2026-01-01 00:00 UTC" in text


def test_report_log_counts_what_finished_before_the_stop(tmp_path):
  lines = [
      {"$report_type": "SessionStart", "pytest_version": "8"},
      {"$report_type": "CollectReport", "nodeid": "bad_test.py", "outcome": "failed"},
      {"$report_type": "CollectReport", "nodeid": "a_test.py", "outcome": "passed"},
      {"$report_type": "TestReport", "nodeid": "a::ok", "when": "setup", "outcome": "passed"},
      {"$report_type": "TestReport", "nodeid": "a::ok", "when": "call", "outcome": "passed"},
      {"$report_type": "TestReport", "nodeid": "a::ok", "when": "teardown", "outcome": "passed"},
      {"$report_type": "TestReport", "nodeid": "a::bad", "when": "call", "outcome": "failed"},
      {"$report_type": "TestReport", "nodeid": "a::fix", "when": "setup", "outcome": "failed"},
      {"$report_type": "TestReport", "nodeid": "a::gpu", "when": "setup", "outcome": "skipped"},
      {"$report_type": "TestReport", "nodeid": "a::td", "when": "call", "outcome": "passed"},
      {"$report_type": "TestReport", "nodeid": "a::td", "when": "teardown", "outcome": "failed"},
  ]
  path = tmp_path / "r.jsonl"
  path.write_text("\n".join(json.dumps(line) for line in lines) + '\n{"$report_type": "Te')
  assert runner.parse_report_log(str(path)) == {"passed": 1, "failed": 1, "errors": 3,
                                                "skipped": 1}


def test_results_table_ends_with_the_written_causes(tmp_path, monkeypatch):
  runner = _load_runner()
  table = runner.load_libraries()
  causes = tmp_path / "causes.md"
  causes.write_text("## Why tests miss\n\n- chex: typed keys are pytrees here\n")
  monkeypatch.setattr(runner, "CAUSES_MD", str(causes))
  text = runner.results_markdown(table, {})
  assert text.rstrip().endswith("- chex: typed keys are pytrees here")
  monkeypatch.setattr(runner, "CAUSES_MD", str(tmp_path / "absent.md"))
  assert "Why tests miss" not in runner.results_markdown(table, {})


def test_parse_output_reads_steps_and_final_values():
  text = "step 0 loss 1.5\nstep 1 loss 0.25\nmean slope -2\naccuracy 1\n"
  assert runner.parse_example_output(text) == ([1.5, 0.25],
                                              {"mean slope": -2.0, "accuracy": 1.0})


def test_mismatches_name_the_step_and_the_values():
  example = {"losses": [1.0, 0.5], "final": {"accuracy": 1.0}, "rtol": 1e-4}
  assert runner.example_mismatches(example, "step 0 loss 1.00001\nstep 1 loss 0.5\n"
                                   "accuracy 1\n") == []
  assert runner.example_mismatches(example, "step 0 loss 1\nstep 1 loss 0.6\naccuracy 1\n") \
      == ["step 1 loss 0.6, real JAX 0.5"]
  assert runner.example_mismatches(example, "step 0 loss nan\nstep 1 loss 0.5\n"
                                   "accuracy 1\n") == ["step 0 loss nan, real JAX 1"]
  assert runner.example_mismatches(example, "step 0 loss 1\n") == [
      "printed 1 losses, real JAX 2"]
  assert runner.example_mismatches(example, "step 0 loss 1\nstep 1 loss 0.5\n") == [
      "printed final values [], real JAX ['accuracy']"]


def test_examples_table_names_existing_examples_and_ci_runs_them_all():
  examples = runner.load_examples()
  assert set(examples) == {"flax_nnx_mlp", "flax_linen_cnn", "equinox_mlp", "numpyro_nuts"}
  assert [n for n, e in examples.items() if not e["ci"]] == []
  table = runner.load_libraries()
  for name, example in examples.items():
    assert set(example["libraries"]) <= set(table), name


def test_quick_command_narrows_with_k_and_takes_class_ids():
  lib = {"test_paths": ["."], "quick": ["_src/a_test.py::ATest"], "exclude": [],
         "quick_k": "not ATest or\n   test_opt"}
  cmd = runner.pytest_command("py", "/src", lib, quick=True, jobs=1, junit="/r.xml")
  assert cmd[cmd.index("-k") + 1] == "not ATest or test_opt"
  assert cmd[-1] == "/src/_src/a_test.py::ATest"
  assert "-k" not in runner.pytest_command("py", "/src", lib, quick=False, jobs=1,
                                           junit="/r.xml")


def test_ci_flag_is_the_fast_run_on_our_wheels_two_at_a_time():
  args = runner.parse_args(["--ci"])
  assert args.quick and args.sides == ["ours"] and args.workers == 2 and args.timeout == 300
  with pytest.raises(SystemExit):
    runner.parse_args(["--ci", "--jax-only"])
  with pytest.raises(SystemExit):
    runner.parse_args(["--workers", "2"])  # a full run bounds one suite at a time


def test_download_reuses_a_pinned_archive_already_there(tmp_path):
  (tmp_path / "dm_haiku-0.0.17-py3-none-any.whl").write_text("")
  (tmp_path / "flax-0.12.8.tar.gz").write_text("")
  # The interpreter does not exist: reaching pip would fail.
  assert runner.download("/nonexistent/python", "dm-haiku==0.0.17", False, str(tmp_path)) \
      == str(tmp_path / "dm_haiku-0.0.17-py3-none-any.whl")
  assert runner.download("/nonexistent/python", "flax==0.12.8", True, str(tmp_path)) \
      == str(tmp_path / "flax-0.12.8.tar.gz")


def test_quick_checks_tell_a_failed_import_from_a_failed_step():
  progress = runner.Progress()
  python = sys.executable
  broken = {"import": "no_such_module_for_the_test", "step": "pass", "env": {}, "quick": []}
  result = runner.quick_checks(python, "broken", broken, progress)
  assert list(result) == ["import"] and "No module named" in result["import"]
  failing_step = {"import": "json", "step": "assert 1 > 2, 'loss went up'", "env": {},
                  "quick": []}
  result = runner.quick_checks(python, "x", failing_step, progress)
  assert result["import"] == "ok" and "loss went up" in result["step"]
  fine = {"import": "json", "step": "json.dumps([1])", "env": {}, "quick": []}
  assert runner.quick_checks(python, "x", fine, progress) == {"import": "ok", "step": "ok"}
  args = runner.parse_args(["--ci"])
  assert runner.quick_library(python, "ours", "x", failing_step, None, args, progress) == [
      "ours x step: AssertionError: loss went up"]


def test_finished_tests_are_those_with_a_final_report(tmp_path):
  lines = [
      {"$report_type": "TestReport", "nodeid": "a::ran", "when": "setup", "outcome": "passed"},
      {"$report_type": "TestReport", "nodeid": "a::ran", "when": "call", "outcome": "failed"},
      {"$report_type": "TestReport", "nodeid": "a::skip", "when": "setup", "outcome": "skipped"},
      {"$report_type": "TestReport", "nodeid": "a::cut", "when": "setup", "outcome": "passed"},
  ]
  path = tmp_path / "r.jsonl"
  path.write_text("\n".join(json.dumps(line) for line in lines) + '\n{"$rep')
  assert runner.finished_tests(str(path)) == {"a::ran", "a::skip"}


def test_resumed_pytest_deselects_the_finished_tests(tmp_path):
  import subprocess
  suite = tmp_path / "suite"
  suite.mkdir()
  (suite / "test_x.py").write_text("def test_a(): pass\ndef test_b(): pass\ndef test_c(): pass\n")
  (tmp_path / "ecosystem_resume.py").write_text(runner.RESUME_PLUGIN)
  finished = tmp_path / "finished.txt"
  finished.write_text("test_x.py::test_a\ntest_x.py::test_c")
  env = dict(os.environ, JAX_ECOSYSTEM_FINISHED=str(finished), PYTHONPATH=str(tmp_path))
  out = subprocess.run([sys.executable, "-m", "pytest", "-p", "ecosystem_resume", "-v",
                        "-p", "no:cacheprovider", "--rootdir", str(suite), str(suite)],
                       capture_output=True, text=True, env=env, cwd=tmp_path)
  assert "test_x.py::test_b PASSED" in out.stdout
  assert "test_x.py::test_a" not in out.stdout and "test_x.py::test_c" not in out.stdout
  assert "1 passed, 2 deselected" in out.stdout


def test_resume_without_a_report_log_deselects_the_first_tests_counted(tmp_path):
  # The earlier parts ran on another machine: only their counts are left. They counted
  # 3: the module that fails to import and the first two tests collected.
  import subprocess
  suite = tmp_path / "suite"
  suite.mkdir()
  (suite / "test_a.py").write_text("def test_1(): pass\ndef test_2(): pass\n")
  (suite / "test_b.py").write_text("import no_such_module_here\n")
  (suite / "test_c.py").write_text("def test_3(): pass\ndef test_4(): assert False\n")
  (tmp_path / "ecosystem_resume.py").write_text(runner.RESUME_PLUGIN)
  finished = tmp_path / "finished.txt"
  finished.write_text("")
  env = dict(os.environ, JAX_ECOSYSTEM_FINISHED=str(finished), JAX_ECOSYSTEM_FIRST_DONE="3",
             PYTHONPATH=str(tmp_path))
  out = subprocess.run([sys.executable, "-m", "pytest", "-p", "ecosystem_resume", "-v",
                        "-p", "no:cacheprovider", "--continue-on-collection-errors",
                        "--rootdir", str(suite), str(suite)],
                       capture_output=True, text=True, env=env, cwd=tmp_path)
  assert "test_c.py::test_3 PASSED" in out.stdout and "test_c.py::test_4 FAILED" in out.stdout
  assert "test_a.py::test_" not in out.stdout
  assert "2 deselected" in out.stdout


def test_counts_of_parts_without_a_report_log_add_to_the_log(tmp_path):
  lines = [
      {"$report_type": "CollectReport", "nodeid": "bad_test.py", "outcome": "failed"},
      {"$report_type": "TestReport", "nodeid": "c::3", "when": "call", "outcome": "passed"},
      {"$report_type": "TestReport", "nodeid": "c::4", "when": "call", "outcome": "failed"},
  ]
  path = tmp_path / "r.jsonl"
  path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
  before = {"passed": 2, "failed": 0, "errors": 1, "skipped": 0}
  # The module that failed to import is in `before` already.
  assert runner.counts_so_far(str(path), before) == {"passed": 3, "failed": 1, "errors": 1,
                                                     "skipped": 0}
  assert runner.counts_so_far(str(path), None)["errors"] == 1
  assert runner.counts_so_far(str(tmp_path / "none.jsonl"), before) == before


def test_collection_errors_count_once_across_resumed_parts(tmp_path):
  bad = {"$report_type": "CollectReport", "nodeid": "bad_test.py", "outcome": "failed"}
  path = tmp_path / "r.jsonl"
  path.write_text("\n".join(json.dumps(bad) for _ in range(2)) + "\n")
  assert runner.parse_report_log(str(path))["errors"] == 1


def test_resume_is_for_full_runs():
  with pytest.raises(SystemExit):
    runner.parse_args(["--quick", "--resume"])
  assert runner.parse_args(["--resume", "--jax-only"]).resume
