"""Our CPU plugin driven by a PJRT client that is not ours: pypjrt (a pure
Python ctypes client built on OpenXLA's struct layouts, installed from the
package index into a fresh virtualenv beside our wheels).

pypjrt loads `jax_plugins/xla_cpu/xla_cpu_plugin.so` from the installed
jaxlib-cpu wheel, creates a client with two devices, moves arrays in and out,
compiles HloModuleProtos (format "hlo") and runs them, and meets our errors;
pypjrt's own conformance suite runs too. The work happens in
pypjrt_driver.py, in one subprocess of that virtualenv; these tests check its
report against numpy and against what the C API promises.

Runs against installed wheels (jax, jaxlib, jaxlib-cpu) and needs the package
index for pypjrt: without it the tests fail, they do not skip."""

import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.needs_wheels

PYPJRT = "pypjrt==0.1.1"
DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pypjrt_driver.py")

# PJRT_Buffer_Type codes.
PJRT_F32, PJRT_S32 = 11, 4


@pytest.fixture(scope="module")
def pypjrt_env(tmp_path_factory, build_py, dist_dir, dist_wheel, python_for):
  """Python of a fresh venv after `pip install jax` (ours, from dist/) and
  `pip install pypjrt==0.1.1` (from the index)."""
  version = "%d.%d" % sys.version_info[:2]
  python = python_for(version)
  dist_wheel("jax")
  dist_wheel("jaxlib", python=version)
  dist_wheel("jaxlib-cpu")
  path = tmp_path_factory.mktemp("venv-pypjrt")
  try:
    vpython = build_py.make_venv(str(path / "venv"), python, ["jax"], dist_dir)
  except build_py.BuildError as e:
    pytest.fail(str(e), pytrace=False)
  # pypjrt 0.1.1 requires nothing (jax and numpy are only extras); --no-deps
  # keeps pip from ever resolving a jax from the index over ours.
  pip = subprocess.run([vpython, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        "--no-deps", PYPJRT], capture_output=True, text=True)
  if pip.returncode != 0:
    pytest.fail(f"pip install {PYPJRT} failed (it comes from the package index):\n"
                f"{pip.stdout}\n{pip.stderr}", pytrace=False)
  yield vpython
  shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def report(pypjrt_env):
  env = {k: v for k, v in os.environ.items()
         if k not in ("PYPJRT_PLUGIN", "TPU_LIBRARY_PATH", "XLA_FLAGS")}
  proc = subprocess.run([pypjrt_env, DRIVER], capture_output=True, text=True, env=env, cwd="/",
                        timeout=600)
  assert proc.returncode == 0, (
      f"the pypjrt driver exited with {proc.returncode}\nstdout:\n{proc.stdout[-4000:]}\n"
      f"stderr:\n{proc.stderr[-4000:]}")
  return json.loads(proc.stdout)


def section(report, name):
  """The part of the report a section wrote; its traceback if it raised."""
  if name in report["failures"]:
    pytest.fail(f"section {name!r} raised under pypjrt:\n{report['failures'][name]}",
                pytrace=False)
  return report[name]


def test_pypjrt_loads_our_plugin_at_our_api_version(report, repo_root, jax_version, pypjrt_env):
  header = open(os.path.join(repo_root, "xla", "pjrt", "c", "pjrt_c_api.h"),
                encoding="utf-8").read()
  major = int(re.search(r"#define PJRT_API_MAJOR (\d+)", header).group(1))
  minor = int(re.search(r"#define PJRT_API_MINOR (\d+)", header).group(1))
  assert report["pypjrt_version"] == "0.1.1"
  assert report["plugin_path"].endswith(os.path.join("jax_plugins", "xla_cpu",
                                                     "xla_cpu_plugin.so"))
  assert report["plugin_path"].startswith(os.path.dirname(os.path.dirname(pypjrt_env)))
  assert report["api_version"] == [major, minor]
  assert report["abi_exact"], "pypjrt fell back to another header version for our plugin"
  assert report["attributes"]["platform_names"] == "cpu"
  assert report["attributes"]["plugin_version"] == jax_version
  assert report["failures"] == {}


def test_devices(report):
  assert section(report, "platform_name") == "cpu"
  assert report["process_index"] == 0
  devices = section(report, "devices")
  assert [d["id"] for d in devices] == [0, 1]
  assert [d["local_hardware_id"] for d in devices] == [0, 1]
  for d in devices:
    assert d["kind"] == "cpu"
    assert d["process_index"] == 0
    assert d["memories"] == ["device"]
    assert d["default_memory"] == "device"


def test_host_to_device_and_back(report):
  transfers = section(report, "round_trip")
  assert sorted((t["device"], t["dtype"]) for t in transfers) == [
      (0, "float32"), (0, "int32"), (1, "float32"), (1, "int32")]
  for t in transfers:
    sent = np.array(t["sent"], dtype=t["dtype"])
    np.testing.assert_array_equal(np.array(t["back"], dtype=t["dtype"]), sent)
    assert t["dims"] == list(sent.shape)
    assert t["element_type"] == {"float32": PJRT_F32, "int32": PJRT_S32}[t["dtype"]]
    assert t["buffer_device"] == t["device"]
    assert t["on_cpu"] is True


# What each program computes, in numpy; the driver writes the programs as HLO
# text, our jaxlib serializes them as HloModuleProtos and reads each back as
# exactly the text below.
NUMPY = {
    "add_f32": np.add,
    "add_s32": np.add,
    "multiply_f32": np.multiply,
    "dot_f32": np.matmul,
    "dot_s32": np.matmul,
    "reduce_sum_f32": lambda a: a.sum(axis=1),
    "reduce_max_s32": lambda a: a.max(axis=0),
}

HLO = {
    "add_f32": """\
HloModule jit_add, entry_computation_layout={(f32[2,3]{1,0}, f32[2,3]{1,0})->f32[2,3]{1,0}}

ENTRY main {
  a = f32[2,3]{1,0} parameter(0)
  b = f32[2,3]{1,0} parameter(1)
  ROOT add = f32[2,3]{1,0} add(a, b)
}
""",
    "add_s32": """\
HloModule jit_add, entry_computation_layout={(s32[5]{0}, s32[5]{0})->s32[5]{0}}

ENTRY main {
  a = s32[5]{0} parameter(0)
  b = s32[5]{0} parameter(1)
  ROOT add = s32[5]{0} add(a, b)
}
""",
    "multiply_f32": """\
HloModule jit_multiply, entry_computation_layout={(f32[2,3]{1,0}, f32[2,3]{1,0})->f32[2,3]{1,0}}

ENTRY main {
  a = f32[2,3]{1,0} parameter(0)
  b = f32[2,3]{1,0} parameter(1)
  ROOT multiply = f32[2,3]{1,0} multiply(a, b)
}
""",
    "dot_f32": """\
HloModule jit_dot, entry_computation_layout={(f32[2,3]{1,0}, f32[3,4]{1,0})->f32[2,4]{1,0}}

ENTRY main {
  a = f32[2,3]{1,0} parameter(0)
  b = f32[3,4]{1,0} parameter(1)
  ROOT dot = f32[2,4]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
""",
    "dot_s32": """\
HloModule jit_dot, entry_computation_layout={(s32[2,3]{1,0}, s32[3,4]{1,0})->s32[2,4]{1,0}}

ENTRY main {
  a = s32[2,3]{1,0} parameter(0)
  b = s32[3,4]{1,0} parameter(1)
  ROOT dot = s32[2,4]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
""",
    "reduce_sum_f32": """\
HloModule jit_reduce_add, entry_computation_layout={(f32[2,3]{1,0})->f32[2]{0}}

region_add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT add = f32[] add(x, y)
}

ENTRY main {
  a = f32[2,3]{1,0} parameter(0)
  init = f32[] constant(0)
  ROOT reduce = f32[2]{0} reduce(a, init), dimensions={1}, to_apply=region_add
}
""",
    "reduce_max_s32": """\
HloModule jit_reduce_maximum, entry_computation_layout={(s32[4,3]{1,0})->s32[3]{0}}

region_maximum {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT maximum = s32[] maximum(x, y)
}

ENTRY main {
  a = s32[4,3]{1,0} parameter(0)
  init = s32[] constant(-2147483648)
  ROOT reduce = s32[3]{0} reduce(a, init), dimensions={0}, to_apply=region_maximum
}
""",
}


def test_program_bytes_are_the_intended_hlo(report):
  decoded = section(report, "decoded")
  assert sorted(decoded) == sorted(HLO)
  for name, text in HLO.items():
    assert decoded[name].strip() == text.strip(), name


@pytest.mark.parametrize("program", sorted(NUMPY))
def test_program_runs_and_matches_numpy(report, program):
  runs = section(report, "execute")
  args = [np.array(a["value"], dtype=a["dtype"]) for a in report["arguments"][program]]
  expected = NUMPY[program](*args)
  code = {np.dtype(np.float32): PJRT_F32, np.dtype(np.int32): PJRT_S32}[expected.dtype]
  for device in (0, 1):
    run = runs[f"{program}@{device}"]
    assert run["num_outputs"] == 1
    assert run["output_types"] == [code]
    assert run["element_type"] == code
    assert run["dims"] == list(expected.shape)
    assert run["device"] == device
    got = np.array(run["value"], dtype=expected.dtype)
    if expected.dtype == np.float32:
      np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    else:
      np.testing.assert_array_equal(got, expected)


def test_every_program_has_a_numpy_reference(report):
  assert sorted(section(report, "arguments")) == sorted(NUMPY)


def test_executable_serialized_and_reloaded_through_pypjrt(report):
  reloaded = section(report, "serialize")
  args = [np.array(a["value"], dtype=a["dtype"]) for a in report["arguments"]["dot_f32"]]
  assert reloaded["bytes"] > 0
  assert reloaded["num_outputs"] == 1
  np.testing.assert_allclose(np.array(reloaded["value"], np.float32), args[0] @ args[1],
                             rtol=1e-6)


def test_bad_programs_and_arguments_are_pjrt_errors(report):
  errors = section(report, "errors")
  expected = {
      "garbage_bytes": "malformed HloModuleProto",
      "empty_program": "module has no name",
      "shape_mismatch": "instruction 'add' in computation 'main': operands have different "
                        "dimensions: f32[3] vs f32[4]",
      "unknown_opcode": "unknown opcode 'frobnicate'",
      "mlir_format": 'compiles programs in format "hlo" (a serialized HloModuleProto); got '
                     'format "mlir"',
      "too_few_arguments": "expected 2 arguments, got 1",
      "wrong_element_type": "argument 1 has shape s32[2,3] but the computation expects "
                            "f32[2,3]",
  }
  for case, message in expected.items():
    error = errors[case]
    assert error["type"] == "InvalidArgument" and error["code"] == 3, (case, error)
    assert message in error["message"], (case, error)
  # The client still compiles and runs after all of them.
  assert errors["after_errors"] == [[2.0] * 3] * 2


# pypjrt's conformance suite reports, per check, pass, fail, unsupported (the
# plugin does not offer it: PJRT_Error UNIMPLEMENTED or an absent extension)
# or skip (a prerequisite is missing). Every check not listed here must pass.
# A check that starts passing also fails this test: update the lists.
NO_TOPOLOGY = "the CPU plugin has no topology description (PJRT_Client_TopologyDescription)"
NOT_OFFERED = {
    "client.topology_description": ("unsupported", NO_TOPOLOGY),
    "topology.from_client": ("unsupported", NO_TOPOLOGY),
    "topology.create_by_name": ("unsupported", "no compile-only topologies for CPU "
                                "(PJRT_TopologyDescription_Create)"),
    "device.clear_memory_stats": ("unsupported", "PJRT_Device_ClearMemoryStats is not "
                                  "implemented (PJRT_Device_MemoryStats is)"),
    "device.execute_context": ("unsupported", "no execute contexts "
                               "(PJRT_ExecuteContext_Create): custom calls carry no user data"),
    "transfer.async_host_to_device": ("unsupported", "no chunked uploads "
                                      "(PJRT_Client_CreateBuffersForAsyncHostToDevice)"),
    "abi.unknown_slot_is_clean_error": ("skip", "the plugin fills every slot of the table "
                                        "pypjrt knows, so there is no slot beyond it to try"),
    "plugin.xla_version_present": ("skip", "attributes name plugin_version, not an OpenXLA "
                                   "xla_version"),
    "plugin.stablehlo_version_range": ("skip", "the plugin reads HLO, not StableHLO"),
    "triton.compile": ("skip", "no Triton extension on CPU"),
    "device.coords": ("skip", "CPU devices have no mesh coordinates"),
    "topology.device_descriptions": ("skip", NO_TOPOLOGY),
    "topology.fingerprint": ("skip", NO_TOPOLOGY),
    "topology.serialize": ("skip", NO_TOPOLOGY),
    "topology.deserialize": ("skip", NO_TOPOLOGY),
    "topology.client_free_compile": ("skip", NO_TOPOLOGY),
    "abi_version.extension_present": ("skip", "no AbiVersion extension: serialized executables "
                                      "carry the plugin version and CPU features instead"),
    "abi_version.executable_proto": ("skip", "no AbiVersion extension"),
    "abi_version.is_compatible_with_executable": ("skip", "no AbiVersion extension"),
    "layouts.buffer_and_default": ("skip", "no Layouts extension"),
    "layouts.executable_parameters": ("skip", "no Layouts extension"),
    "stream.external_ready_events": ("skip", "no Stream extension on CPU"),
}
# Only reached once a program compiles.
NOT_OFFERED_FOR_EXECUTABLES = {
    "compile.fingerprint": ("unsupported", "PJRT_Executable_Fingerprint is not implemented"),
    "compile.cost_analysis": ("unsupported", "PJRT_Executable_GetCostAnalysis is not "
                              "implemented"),
}
# pypjrt's suite compiles StableHLO text (format "mlir"); the plugin reads
# format "hlo" only and says so, and everything that needs the executable skips.
MLIR_REFUSED = {
    "compile.stablehlo_text": ("fail", 'InvalidArgument: this plugin compiles programs in '
                               'format "hlo" (a serialized HloModuleProto); got format "mlir"'),
    **{check: ("skip", "no compiled executable") for check in (
        "compile.num_outputs", "compile.output_element_types", "compile.output_dimensions",
        "compile.fingerprint", "compile.compiled_memory_stats", "compile.cost_analysis",
        "compile.serialize", "compile.optimized_program", "compile.deserialize_and_load",
        "execute.single_device", "execute.device_complete_events")},
}


def _not_passing(conformance):
  return {check: result for check, (result, _) in conformance["checks"].items()
          if result != "pass"}


def test_conformance_suite_as_shipped(report):
  conformance = section(report, "conformance")
  assert conformance["platform"] == "cpu"
  expected = {**NOT_OFFERED, **MLIR_REFUSED}
  assert _not_passing(conformance) == {c: r for c, (r, _) in expected.items()}
  failed = conformance["checks"]["compile.stablehlo_text"][1]
  assert failed == MLIR_REFUSED["compile.stablehlo_text"][1]
  assert conformance["counts"]["fail"] == 1
  assert conformance["checks"]["execute.single_device"] == ["skip", "no compiled executable"]
  # What needs no program passes: buffers, devices, memories, errors.
  for check in ("client.create", "client.addressable_devices", "errors.error_code_reported",
                "device.memory_stats", "buffer.from_host", "buffer.memory_layout",
                "buffer.ready_event", "buffer.external_reference_count"):
    assert conformance["checks"][check][0] == "pass", (check, conformance["checks"][check])


def test_conformance_suite_with_hlo_programs(report):
  # The same suite, its one program (a 4-element f32 add) given as an
  # HloModuleProto and compiled with format "hlo": no failures at all.
  conformance = section(report, "conformance_hlo")
  expected = {**NOT_OFFERED, **NOT_OFFERED_FOR_EXECUTABLES}
  assert _not_passing(conformance) == {c: r for c, (r, _) in expected.items()}
  assert conformance["counts"]["fail"] == 0
  checks = conformance["checks"]
  assert checks["execute.single_device"] == ["pass", "[11, 22, 33, 44]"]
  for check in ("compile.stablehlo_text", "compile.num_outputs", "compile.output_element_types",
                "compile.output_dimensions", "compile.compiled_memory_stats",
                "compile.serialize", "compile.optimized_program",
                "compile.deserialize_and_load", "execute.device_complete_events"):
    assert checks[check][0] == "pass", (check, checks[check])
  assert checks["compile.num_outputs"][1] == "1"
  assert checks["compile.output_element_types"][1] == str(PJRT_F32)
  assert checks["errors.error_code_reported"] == ["pass", "InvalidArgument (code 3)"]
