"""The TPU plugin is Google's libtpu, found and registered by jaxlib-tpu.

On a machine without TPU chips: libtpu is found (the `libtpu` package, or
TPU_LIBRARY_PATH) and registered as PJRT plugin "tpu" without reaching for a
cloud metadata server; creating the TPU client fails with libtpu's own reason
and jax falls back to the CPU with a warning; compile-only topologies
(`jax.experimental.topologies`) give TPU devices that jax programs compile for
ahead of time, through libtpu, and that refuse to run anything.

Runs against installed wheels (jax, jaxlib, jaxlib-cpu, jaxlib-tpu) and libtpu
from the package index, which jaxlib-tpu requires: a missing libtpu fails.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.needs_wheels

# What real JAX 0.10.2 reports on libtpu 0.0.52 for
# jax.jit(lambda x: jnp.sin(x) @ x.T) on one f32[128,128] argument placed on
# device 0 of get_topology_desc("v5e:2x2", "tpu"), compiled ahead of time
# (compiled.memory_analysis()).
REAL_JAX_MEMORY = {"argument_size_in_bytes": 65536, "output_size_in_bytes": 65536,
                   "temp_size_in_bytes": 0, "alias_size_in_bytes": 0,
                   "generated_code_size_in_bytes": 1141248}


@pytest.fixture(scope="module")
def tpu_env(wheel_venv):
  if sys.version_info < (3, 11):
    pytest.fail("libtpu 0.0.52 (PJRT C API 0.117) exists for Python 3.11 and newer; run "
                "the TPU tests with one", pytrace=False)
  return wheel_venv("%d.%d" % sys.version_info[:2], ["jax", "jaxlib-tpu"])


def _clean_env(extra=None):
  env = {k: v for k, v in os.environ.items()
         if not k.startswith("TPU_") and k not in ("JAX_PLATFORMS", "PJRT_NAMES_AND_LIBRARY_PATHS")}
  env.update(extra or {})
  return env


def _run(python, code, env=None, timeout=600):
  return subprocess.run([python, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                        env=_clean_env(env), cwd="/", timeout=timeout)


def _json_of(proc):
  assert proc.returncode == 0, proc.stdout + proc.stderr
  return json.loads(proc.stdout.strip().splitlines()[-1])


def test_libtpu_is_found_and_registered(tpu_env):
  proc = _run(tpu_env, """
    import json, os
    import jax_plugins.xla_tpu as tpu
    from jax._src import xla_bridge
    xla_bridge.discover_plugins()
    reg = xla_bridge._registrations["tpu"]
    from jax._src import lib
    plugin = lib.plugin_support.loaded_plugin("tpu")
    print(json.dumps({"path": tpu.library_path(), "registered": reg.library_path,
                      "foreign": reg.foreign, "c_api": list(plugin.c_api_version),
                      "env": {k: os.environ.get(k) for k in tpu.SINGLE_HOST_ENVIRONMENT}}))
  """)
  out = _json_of(proc)
  assert out["path"].endswith(os.path.join("libtpu", "libtpu.so")), out
  assert out["registered"] == out["path"]
  assert out["foreign"] is True  # not ours: checked by its PJRT version range only
  assert out["c_api"][0] == 0 and out["c_api"][1] >= 117, out
  assert out["env"] == {"TPU_SKIP_MDS_QUERY": "1", "TPU_WORKER_ID": "0",
                        "TPU_WORKER_HOSTNAMES": "localhost", "TPU_HOST_BOUNDS": "1,1,1"}


def test_single_host_environment_leaves_a_configured_slice_alone(tpu_env):
  # The user (or a pod's launcher) set one of libtpu's slice variables: none is changed.
  proc = _run(tpu_env, """
    import json, os
    import jax_plugins.xla_tpu as tpu
    env = {"TPU_WORKER_HOSTNAMES": "host-a,host-b"}
    print(json.dumps({"set": tpu.configure_environment(env), "env": env}))
  """)
  out = _json_of(proc)
  assert out == {"set": {}, "env": {"TPU_WORKER_HOSTNAMES": "host-a,host-b"}}


def test_without_chips_jax_falls_back_to_cpu_with_libtpus_reason(tpu_env):
  proc = _run(tpu_env, """
    import json, time, warnings
    start = time.time()
    with warnings.catch_warnings(record=True) as caught:
      warnings.simplefilter("always")
      import jax, jax.numpy as jnp
      devices = jax.devices()
      value = float(jnp.sum(jnp.arange(4.0)))
    print(json.dumps({"platform": devices[0].platform, "value": value,
                      "seconds": time.time() - start,
                      "warnings": [str(w.message) for w in caught]}))
  """)
  out = _json_of(proc)
  assert out["platform"] == "cpu" and out["value"] == 6.0
  tpu_warnings = [w for w in out["warnings"] if "Platform 'tpu' is skipped" in w]
  assert len(tpu_warnings) == 1, out["warnings"]
  assert "libtpu.so" in tpu_warnings[0]
  assert "TPU initialization failed" in tpu_warnings[0], tpu_warnings
  assert "Falling back to the next backend" in tpu_warnings[0]
  # A metadata-server lookup outside a Cloud TPU VM retries for minutes.
  assert out["seconds"] < 60, out


def test_asking_for_tpu_without_chips_raises_libtpus_reason(tpu_env):
  proc = _run(tpu_env, """
    import jax
    jax.devices()
  """, env={"JAX_PLATFORMS": "tpu"})
  assert proc.returncode != 0
  assert "Unable to initialize backend 'tpu'" in proc.stderr, proc.stderr[-2000:]
  assert "TPU initialization failed" in proc.stderr, proc.stderr[-2000:]


def test_missing_libtpu_is_named(tpu_env):
  proc = _run(tpu_env, """
    import jax
    jax.devices()
  """, env={"JAX_PLATFORMS": "tpu", "TPU_LIBRARY_PATH": "/nonexistent/libtpu.so"})
  assert proc.returncode != 0
  assert "TPU_LIBRARY_PATH=/nonexistent/libtpu.so names no file" in proc.stderr, proc.stderr


_TOPOLOGY = """
    import json, warnings
    warnings.simplefilter("ignore")
    import numpy as np
    import jax, jax.numpy as jnp
    from jax.experimental import topologies
    topo = topologies.get_topology_desc("v5e:2x2", "tpu")
    device = topo.devices[0]
    one_device = jax.sharding.SingleDeviceSharding(device)
"""


def test_topology_devices(tpu_env):
  # JAX_PLATFORMS=cpu, as ahead-of-time compiles on a build machine run: describing
  # TPU devices needs the plugin, not a TPU client.
  proc = _run(tpu_env, _TOPOLOGY + """
    mesh = topologies.make_mesh(topo, (2, 2), ("x", "y"))
    print(json.dumps({
        "devices": [[d.id, d.process_index, d.platform, d.device_kind, str(d), d.coords,
                     d.core_on_chip] for d in topo.devices],
        "mesh": [[d.id for d in row] for row in mesh.devices],
        "axis_names": list(mesh.axis_names),
        "repr": repr(device),
        "default": jax.default_backend(),
        "attached": [d.platform for d in topologies.get_attached_topology().devices],
        "cpu_devices": jax.device_count()}))
  """, env={"JAX_PLATFORMS": "cpu"})
  out = _json_of(proc)
  assert out["devices"] == [
      [0, 0, "tpu", "TPU v5 lite", "TPU_0(process=0,(0,0,0,0))", [0, 0, 0], 0],
      [1, 0, "tpu", "TPU v5 lite", "TPU_1(process=0,(1,0,0,0))", [1, 0, 0], 0],
      [2, 0, "tpu", "TPU v5 lite", "TPU_2(process=0,(0,1,0,0))", [0, 1, 0], 0],
      [3, 0, "tpu", "TPU v5 lite", "TPU_3(process=0,(1,1,0,0))", [1, 1, 0], 0]]
  assert sorted(sum(out["mesh"], [])) == [0, 1, 2, 3] and out["axis_names"] == ["x", "y"]
  assert out["repr"] == "TpuDevice(id=0, process_index=0, coords=(0,0,0), core_on_chip=0)"
  # The attached topology is the default backend's devices (as many as the
  # environment asks the CPU plugin for).
  assert out["default"] == "cpu" and out["attached"] == ["cpu"] * out["cpu_devices"]


def test_aot_compile_memory_analysis_matches_real_jax(tpu_env):
  proc = _run(tpu_env, _TOPOLOGY + """
    arg = jax.ShapeDtypeStruct((128, 128), jnp.float32, sharding=one_device)
    compiled = jax.jit(lambda x: jnp.sin(x) @ x.T).lower(arg).compile()
    stats = compiled.memory_analysis()
    exe = compiled.runtime_executable()
    print(json.dumps({
        "memory": {k: getattr(stats, k) for k in (
            "argument_size_in_bytes", "output_size_in_bytes", "temp_size_in_bytes",
            "alias_size_in_bytes", "generated_code_size_in_bytes")},
        "text": compiled.as_text(),
        "code_size": exe.size_of_generated_code_in_bytes(),
        "serialized": len(exe.serialize()),
        "compile_only": exe.is_compile_only,
        "input_device": str(*compiled.input_shardings[0][0].device_set)}))
  """)
  out = _json_of(proc)
  assert out["memory"] == REAL_JAX_MEMORY
  assert out["compile_only"] is True
  assert out["code_size"] > 0 and out["serialized"] > 0
  # libtpu's optimized program, read back as HLO text: TPU-tiled layouts.
  assert out["text"].startswith("HloModule jit__lambda")
  assert "f32[128,128]{1,0:T(8,128)}" in out["text"]
  assert out["input_device"] == "TPU_0(process=0,(0,0,0,0))"


def test_compile_only_devices_refuse_to_run(tpu_env):
  proc = _run(tpu_env, _TOPOLOGY + """
    arg = jax.ShapeDtypeStruct((8,), jnp.float32, sharding=one_device)
    compiled = jax.jit(lambda x: x * 2).lower(arg).compile()
    errors = {}
    for what, action in [("call", lambda: compiled(np.ones(8, np.float32))),
                         ("device_put", lambda: jax.device_put(np.ones(8, np.float32), device))]:
      try:
        action()
        errors[what] = None
      except Exception as e:
        errors[what] = f"{type(e).__name__}: {e}"
    print(json.dumps(errors))
  """)
  out = _json_of(proc)
  for what in ("call", "device_put"):
    assert out[what] is not None, what
    assert "compile-only" in out[what] and "v5e:2x2" in out[what], out[what]
    assert out[what].startswith("XlaRuntimeError: FAILED_PRECONDITION"), out[what]


def test_programs_compile_for_v5e(tpu_env):
  proc = _run(tpu_env, _TOPOLOGY + """
    from jax import lax
    def spec(shape, dtype=jnp.float32):
      return jax.ShapeDtypeStruct(shape, dtype, sharding=one_device)
    def scan_sum(xs):
      return lax.scan(lambda c, x: (c + x, c * x), jnp.zeros(xs.shape[1:]), xs)
    programs = {
        "elementwise": (lambda x, y: jnp.tanh(x) * y + jnp.exp(-x), [spec((256, 256))] * 2),
        "dot": (lambda a, b: a @ b, [spec((256, 512), jnp.bfloat16), spec((512, 128), jnp.bfloat16)]),
        "conv": (lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                                       dimension_numbers=("NHWC", "HWIO", "NHWC")),
                 [spec((8, 32, 32, 16)), spec((3, 3, 16, 32))]),
        "reduce": (lambda x: (jnp.sum(x, axis=0), jnp.max(x)), [spec((1024, 128))]),
        "scan": (scan_sum, [spec((16, 128))]),
        "softmax": (lambda x: jax.nn.softmax(x, axis=-1), [spec((64, 1000))]),
    }
    report = {}
    for name, (fn, args) in programs.items():
      compiled = jax.jit(fn).lower(*args).compile()
      stats = compiled.memory_analysis()
      try:
        text = compiled.runtime_executable()._optimized_hlo()
      except Exception as e:
        text = str(e)
      report[name] = {"code": stats.generated_code_size_in_bytes,
                      "arguments": stats.argument_size_in_bytes, "text": text}
    print(json.dumps(report))
  """)
  out = _json_of(proc)
  assert sorted(out) == ["conv", "dot", "elementwise", "reduce", "scan", "softmax"]
  for name, r in out.items():
    assert r["code"] > 0, (name, r)
  # libtpu's optimized programs read back as HLO text: TPU tiles, memory spaces
  # (S(1)), asynchronous copies. The conv program's copies change precision
  # (f32 to bf16), which XLA's verifier allows TPU programs and ours does not.
  for name in ("elementwise", "dot", "reduce", "scan", "softmax"):
    assert out[name]["text"].startswith("HloModule "), (name, out[name]["text"][:500])
    assert ":T(" in out[name]["text"], name
  assert "S(1)" in out["dot"]["text"] and "copy-start(" in out["dot"]["text"]
  assert "does not match the inferred shape" in out["conv"]["text"], out["conv"]["text"][:500]
  assert out["elementwise"]["arguments"] == 2 * 256 * 256 * 4
  assert out["dot"]["arguments"] == (256 * 512 + 512 * 128) * 2


def test_compile_only_compiles_bypass_the_persistent_cache(tpu_env, tmp_path):
  # A compile-only client cannot load an executable: with a cache folder set, its
  # compiles neither read nor write entries (and warn about nothing).
  code = _TOPOLOGY + f"""
    jax.config.update("jax_compilation_cache_dir", {str(tmp_path)!r})
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    with warnings.catch_warnings(record=True) as caught:
      warnings.simplefilter("always")
      arg = jax.ShapeDtypeStruct((128, 128), jnp.float32, sharding=one_device)
      stats = jax.jit(lambda x: jnp.sin(x) @ x.T).lower(arg).compile().memory_analysis()
    print(json.dumps({{"code": stats.generated_code_size_in_bytes,
                      "warnings": [str(w.message) for w in caught]}}))
  """
  for _ in range(2):
    out = _json_of(_run(tpu_env, code))
    assert out == {"code": REAL_JAX_MEMORY["generated_code_size_in_bytes"], "warnings": []}
  assert os.listdir(tmp_path) == []


def test_topology_errors_say_what_is_wrong(tpu_env):
  proc = _run(tpu_env, """
    import json, warnings
    warnings.simplefilter("ignore")
    from jax.experimental import topologies
    out = {}
    for name, platform in [("v9z:2x2", "tpu"), ("x", "cpu"), ("v5e:2x2", "nosuch")]:
      try:
        topologies.get_topology_desc(name, platform)
        out[platform] = None
      except Exception as e:
        out[platform] = f"{type(e).__name__}: {e}"
    print(json.dumps(out))
  """)
  out = _json_of(proc)
  # libtpu's own reason for a name it does not know.
  assert out["tpu"].startswith("XlaRuntimeError: INVALID_ARGUMENT"), out
  assert "v9z" in out["tpu"], out
  # Our CPU plugin describes no topologies.
  assert out["cpu"].startswith("NotImplementedError: The cpu plugin"), out
  assert "PJRT_TopologyDescription_Create" in out["cpu"], out
  assert out["nosuch"].startswith("BackendError: No installed plugin provides platform 'nosuch'")
