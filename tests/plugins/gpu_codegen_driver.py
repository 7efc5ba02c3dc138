"""Compiles every module of the HLO conformance corpus through the compile-only
CUDA and ROCm clients of the installed plugins, dumping the generated code.

Run by test_gpu_codegen.py with the Python of a virtualenv that has jax,
jaxlib-cuda12 and jaxlib-rocm6 installed:

  python gpu_codegen_driver.py <corpus>/hlo <out_dir> <report.json>

For each configuration (cuda sm_80 and sm_90, rocm gfx90a and gfx942) and each
case it sets XLA_FLAGS=--xla_dump_to=<out_dir>/<config>/<case>, creates a client
(which reads XLA_FLAGS), compiles module.hlo and records either the kernels of
the compilation (from the executable's serialized record) or the error.
"""

import json
import os
import sys

from jaxlib import xla_client as xc

CONFIGS = {
    "cuda-sm_80": ("cuda", {"compute_capability": "8.0"}),
    "cuda-sm_90": ("cuda", {"compute_capability": "9.0"}),
    "rocm-gfx90a": ("rocm", {"gfx_arch": "gfx90a"}),
    "rocm-gfx942": ("rocm", {"gfx_arch": "gfx942"}),
}


def kernels_of(serialized: bytes) -> list[str]:
  """Kernel names from the "kernel <name> ..." lines of the serialized record."""
  header = serialized.split(b"\ncode ", 1)[0].decode()
  return [line.split()[1] for line in header.splitlines() if line.startswith("kernel ")]


def compile_case(platform: str, options: dict, hlo: str, dump: str) -> dict:
  os.makedirs(dump, exist_ok=True)
  os.environ["XLA_FLAGS"] = f"--xla_dump_to={dump}"
  client = xc.make_c_api_client(platform, dict(options, mock=True))
  try:
    exe = client.compile_and_load(hlo, client.devices()[:1])
  except xc.XlaRuntimeError as e:
    return {"status": "error", "error": str(e)}
  stats = exe.get_compiled_memory_stats()
  return {"status": "ok", "kernels": kernels_of(exe.serialize()), "dump": dump,
          "code_size": stats["generated_code_size_in_bytes"]}


def main(corpus: str, out_dir: str, report: str) -> None:
  for platform in ("cuda", "rocm"):
    xc.make_gpu_client(platform_name=platform, mock=True)  # loads the plugin
  cases = sorted(c for c in os.listdir(corpus) if os.path.isfile(os.path.join(corpus, c, "module.hlo")))
  results = {}
  for config, (platform, options) in CONFIGS.items():
    results[config] = {}
    for case in cases:
      with open(os.path.join(corpus, case, "module.hlo"), encoding="utf-8") as f:
        hlo = f.read()
      results[config][case] = compile_case(platform, options, hlo,
                                           os.path.join(out_dir, config, case))
  with open(report, "w", encoding="utf-8") as f:
    json.dump(results, f, indent=1)


if __name__ == "__main__":
  main(*sys.argv[1:])
