"""The TPU plugin without TPUs: its compile-only client (mock=True with a
topology) compiles the HLO conformance corpus to TPU-minded optimised HLO
(bf16 dot operands, tiled layouts, tiled memory sizes) and refuses to execute;
jax skips the plugin with one warning; asking for tpu explicitly, with no chips
or with chips but no libtpu, fails with a message naming what is missing.

Runs against installed wheels (jax, jaxlib, jaxlib-cpu and jaxlib-tpu)."""

import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.needs_wheels


@pytest.fixture(scope="module")
def tpu_env(wheel_venv):
  return wheel_venv("%d.%d" % sys.version_info[:2], ["jax", "jaxlib-tpu"])


def _run(python, code, env=None):
  full_env = {k: v for k, v in os.environ.items() if k not in ("TPU_LIBRARY_PATH", "JAX_PLATFORMS")}
  full_env.update(env or {})
  return subprocess.run([python, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                        env=full_env, cwd="/")


_LOAD = """
    import json, os, sys
    import numpy as np
    from jaxlib import plugin_support as ps, xla_client as xc
    import jax_plugins.xla_tpu as tpu
    ps.load_pjrt_plugin_dynamically("tpu", tpu.library_path())
"""


@pytest.fixture(scope="module")
def corpus_report(tpu_env, conformance_dir):
  """{case: {"hlo": optimised HLO, "stats": {...}} or {"error": message}},
  every corpus module compiled by a v5e:2x2 compile-only client."""
  proc = _run(tpu_env, _LOAD + f"""
    corpus = {os.path.join(conformance_dir, "hlo")!r}
    client = xc.make_c_api_client("tpu", {{"mock": True, "topology": "v5e:2x2"}})
    report = {{}}
    for case in sorted(os.listdir(corpus)):
      with open(os.path.join(corpus, case, "module.hlo")) as f:
        text = f.read()
      try:
        exe = client.compile_and_load(text, client.devices()[:1])
      except xc.XlaRuntimeError as e:
        report[case] = {{"error": str(e)}}
        continue
      report[case] = {{"hlo": exe.hlo_modules()[0], "stats": exe.get_compiled_memory_stats()}}
    print(json.dumps(report))
  """)
  assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
  return json.loads(proc.stdout)


# An array shape of rank >= 1 with its layout: "f32[3,5]{1,0:T(8,128)}".
_ARRAY_SHAPE = re.compile(r"\b[a-z0-9]+\[\d[\d,]*\]\{([^}]*)\}")


def test_every_corpus_module_compiles_to_tiled_hlo(corpus_report):
  errors = {case: r["error"] for case, r in corpus_report.items() if "error" in r}
  assert not errors, errors
  assert len(corpus_report) >= 200
  total = 0
  for case, r in corpus_report.items():
    layouts = _ARRAY_SHAPE.findall(r["hlo"])
    untiled = [l for l in layouts if ":T(" not in l]
    assert not untiled, (case, untiled, r["hlo"])
    total += len(layouts)
  assert total > 5 * len(corpus_report), total


def test_matmul_reads_bf16_and_sizes_are_tiled(corpus_report):
  r = corpus_report["dot_matmul"]
  assert "bf16[8,32]{1,0:T(8,128)(2,1)} convert(a.1)" in r["hlo"], r["hlo"]
  assert "bf16[32,12]{1,0:T(8,128)(2,1)} convert(b.1)" in r["hlo"], r["hlo"]
  assert "f32[8,12]{1,0:T(8,128)} dot(a.1.bf16, b.1.bf16)" in r["hlo"], r["hlo"]
  # f32[8,32] and f32[32,12] pad to 8x128 and 32x128 tiles, the f32[8,12] result to 8x128.
  assert r["stats"]["argument_size_in_bytes"] == 8 * 128 * 4 + 32 * 128 * 4
  assert r["stats"]["output_size_in_bytes"] == 8 * 128 * 4
  assert r["stats"]["temp_size_in_bytes"] == 8 * 128 * 2 + 32 * 128 * 2


def test_only_default_precision_f32_products_become_bf16(corpus_report):
  assert "bf16" in corpus_report["conv2d_nchw_valid"]["hlo"]
  assert " convert(" not in corpus_report["dot_s32"]["hlo"]
  # A dot already in bf16 with f32 accumulation needs no convert.
  hlo = corpus_report["dot_bf16_f32_acc"]["hlo"]
  assert "bf16" in hlo and ".bf16 = " not in hlo, hlo


def test_compile_only_client_devices_and_refusals(tpu_env):
  proc = _run(tpu_env, _LOAD + """
    c = xc.make_c_api_client("tpu", {"mock": True, "topology": "v4:2x2x2"})
    print("devices", len(c.devices()), c.platform, c.devices()[0].device_kind)
    exe = c.compile_and_load('''HloModule m, entry_computation_layout={(f32[3,5]{1,0})->f32[3,5]{1,0}}
    ENTRY main {
      p = f32[3,5]{1,0} parameter(0)
      ROOT n = f32[3,5]{1,0} negate(p)
    }''', c.devices()[:1])
    stats = exe.get_compiled_memory_stats()
    print("stats", stats["argument_size_in_bytes"], stats["output_size_in_bytes"])
    print("record", exe.serialize().split(b"\\n")[:3])
    for what, call in (("execute", lambda: exe.execute([])),
                       ("transfer", lambda: c.buffer_from_pyval(np.ones(3, np.float32)))):
      try:
        call()
      except xc.XlaRuntimeError as e:
        print(what, e)
    try:
      xc.make_c_api_client("tpu", {"mock": True, "topology": "2x2x1"})
    except xc.XlaRuntimeError as e:
      print("topology", e)
  """)
  out = proc.stdout
  assert proc.returncode == 0, out + proc.stderr
  assert "devices 8 tpu TPU v4 (compile-only)" in out
  assert "stats 4096 4096" in out
  assert "record [b'xla-tpu-compile-only 1', b'topology v4:2x2x2', b'device_kind TPU v4 (compile-only)']" in out
  assert ("execute FAILED_PRECONDITION: compile-only client: no TPU to execute on (this tpu client "
          "was created with mock=True for topology v4:2x2x2)") in out
  assert "pip install libtpu" in out
  assert "transfer FAILED_PRECONDITION: compile-only client: no TPU to transfer buffers to" in out
  assert 'topology INVALID_ARGUMENT: TPU topology "2x2x1": no generation' in out


def test_no_tpu_warns_once_and_falls_back_to_cpu(tpu_env, tmp_path):
  proc = _run(tpu_env, """
      import jax, jax.numpy as jnp
      print(jnp.add(1, 1), jax.default_backend())
  """, env={"XLA_TPU_DEVICE_ROOT": str(tmp_path)})
  assert proc.stdout.split() == ["2", "cpu"], proc.stdout + proc.stderr
  assert proc.stderr.count("Platform 'tpu' is skipped") == 1, proc.stderr
  assert "no TPU found" in proc.stderr


def test_requested_tpu_without_chips_raises_the_reason(tpu_env, tmp_path):
  proc = _run(tpu_env, "import jax; jax.devices()",
              env={"JAX_PLATFORMS": "tpu", "XLA_TPU_DEVICE_ROOT": str(tmp_path)})
  assert proc.returncode != 0
  assert "Unable to initialize backend 'tpu'" in proc.stderr
  assert (f"no TPU found: the TPU plugin looks for TPU chips as {tmp_path}/dev/accel* and "
          f"{tmp_path}/dev/vfio/<n> and there are none") in proc.stderr, proc.stderr


def _fake_chips(root, n):
  (root / "dev").mkdir()
  for i in range(n):
    (root / "dev" / f"accel{i}").write_text("")


def test_chips_without_libtpu_name_the_runtime_and_where_it_was_sought(tpu_env, tmp_path):
  _fake_chips(tmp_path, 4)
  site = _run(tpu_env, "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip()
  proc = _run(tpu_env, "import jax; jax.devices()",
              env={"JAX_PLATFORMS": "tpu", "XLA_TPU_DEVICE_ROOT": str(tmp_path)})
  assert proc.returncode != 0
  err = proc.stderr
  assert f"found 4 TPU chips ({tmp_path}/dev/accel0 .. {tmp_path}/dev/accel3, generation unknown)" in err, err
  # The plugin looked next to itself, in the venv's site-packages.
  assert f"{os.path.realpath(site)}/libtpu/libtpu.so does not exist" in err or \
      f"{site}/libtpu/libtpu.so does not exist" in err, err
  assert 'dlopen("libtpu.so")' in err and "pip install libtpu" in err


def test_bogus_libtpu_names_the_file(tpu_env, tmp_path):
  _fake_chips(tmp_path, 1)
  bogus = tmp_path / "libtpu.so"
  bogus.write_bytes(b"not a shared object")
  proc = _run(tpu_env, "import jax; jax.devices()",
              env={"JAX_PLATFORMS": "tpu", "XLA_TPU_DEVICE_ROOT": str(tmp_path),
                   "TPU_LIBRARY_PATH": str(bogus)})
  assert proc.returncode != 0
  assert f"the TPU runtime TPU_LIBRARY_PATH={bogus} could not be loaded: {bogus}" in proc.stderr, \
      proc.stderr


def test_cpu_and_tpu_plugins_in_one_process(tpu_env):
  # The CPU plugin executes while the TPU plugin's compile-only client compiles
  # the same module; each keeps its own copy of the compiler.
  proc = _run(tpu_env, _LOAD + """
    text = '''HloModule m, entry_computation_layout={(f32[2,2]{1,0})->f32[2,2]{1,0}}
    ENTRY main {
      p = f32[2,2]{1,0} parameter(0)
      ROOT d = f32[2,2]{1,0} dot(p, p), lhs_contracting_dims={1}, rhs_contracting_dims={0}
    }'''
    cpu = xc.make_cpu_client()
    tpu_client = xc.make_c_api_client("tpu", {"mock": True})
    tpu_exe = tpu_client.compile_and_load(text, tpu_client.devices()[:1])
    cpu_exe = cpu.compile_and_load(text, cpu.devices()[:1])
    x = np.array([[1, 2], [3, 4]], np.float32)
    out = cpu_exe.execute([cpu.buffer_from_pyval(x, cpu.devices()[0])])
    print(np.asarray(out[0]).tolist())
    print("tpu", "dot(p.bf16, p.bf16)" in tpu_exe.hlo_modules()[0])
  """)
  assert proc.returncode == 0, proc.stdout + proc.stderr
  assert "[[7.0, 10.0], [15.0, 22.0]]" in proc.stdout
  assert "tpu True" in proc.stdout
