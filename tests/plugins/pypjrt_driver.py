"""Drives the installed CPU plugin with pypjrt, a PJRT client that is not ours.

Run by test_pypjrt_drives_our_plugin.py with the python of a virtualenv that has
our wheels and pypjrt installed; prints one JSON report on stdout. Each section
records its own failure, so one broken entry point does not hide the others.

pypjrt compiles StableHLO text only (format "mlir"); our plugin reads format
"hlo", a serialized HloModuleProto. So the programs here are written as HLO
text, serialized by jaxlib (_hlo_text_to_module_proto), read back by jaxlib's
own reader for the test to compare, and handed to the plugin through pypjrt's
argument structs with format "hlo". Compile options naming a device come from
jaxlib too (_replicated_compile_options).
"""

import ctypes
import importlib.util
import json
import os
import sys
import traceback

import numpy as np
import pypjrt
from pypjrt import conform, errors
from pypjrt.typing import F32 as PJRT_F32, S32 as PJRT_S32

from jaxlib import _jax

# ---------------------------------------------------------------- programs


def shape(etype: str, dims) -> str:
  """An HLO shape with the row-major layout ({n-1,...,0})."""
  layout = ",".join(str(d) for d in reversed(range(len(dims))))
  return f"{etype}[{','.join(str(d) for d in dims)}]{{{layout}}}"


def module(name: str, params, result: str, body: str, callees: str = "") -> bytes:
  """A module whose entry computation `main` takes `params` ((name, shape)
  pairs, in parameter order), written as HLO text and serialized by jaxlib."""
  layout = f"({', '.join(s for _, s in params)})->{result}"
  decls = "".join(f"  {p} = {s} parameter({i})\n" for i, (p, s) in enumerate(params))
  text = (f"HloModule {name}, entry_computation_layout={{{layout}}}\n\n{callees}"
          f"ENTRY main {{\n{decls}{body}}}\n")
  return _jax._hlo_text_to_module_proto(text)


def binary_program(opcode: str, etype: str, dims) -> bytes:
  s = shape(etype, dims)
  return module(f"jit_{opcode}", [("a", s), ("b", s)], s,
                f"  ROOT {opcode} = {s} {opcode}(a, b)\n")


def dot_program(etype: str, lhs, rhs) -> bytes:
  out = shape(etype, [lhs[0], rhs[1]])
  return module("jit_dot", [("a", shape(etype, lhs)), ("b", shape(etype, rhs))], out,
                f"  ROOT dot = {out} dot(a, b), lhs_contracting_dims={{1}}, "
                "rhs_contracting_dims={0}\n")


def reduce_program(opcode: str, etype: str, dims, axis: int, init) -> bytes:
  scalar = shape(etype, [])
  region = (f"region_{opcode} {{\n  x = {scalar} parameter(0)\n  y = {scalar} parameter(1)\n"
            f"  ROOT {opcode} = {scalar} {opcode}(x, y)\n}}\n\n")
  out = shape(etype, [d for i, d in enumerate(dims) if i != axis])
  return module(f"jit_reduce_{opcode}", [("a", shape(etype, dims))], out,
                f"  init = {scalar} constant({init})\n"
                f"  ROOT reduce = {out} reduce(a, init), dimensions={{{axis}}}, "
                f"to_apply=region_{opcode}\n", callees=region)


def patched(program: bytes, before: bytes, after: bytes) -> bytes:
  """`program` with the bytes in which the serialized programs `before` and
  `after` differ changed as in `after`. All three have the same length, so
  every length prefix in `program` stays valid."""
  assert len(program) == len(before) == len(after), (len(program), len(before), len(after))
  out = bytearray(program)
  for i, (x, y) in enumerate(zip(before, after)):
    if x != y:
      assert out[i] == x, i
      out[i] = y
  assert out != program
  return bytes(out)


# ------------------------------------------------------------------ pypjrt glue


def plugin_path() -> str:
  spec = importlib.util.find_spec("jax_plugins.xla_cpu")
  return os.path.join(list(spec.submodule_search_locations)[0], "xla_cpu_plugin.so")


class HloClient(pypjrt.Client):
  """pypjrt's Client, compiling programs in PJRT's "hlo" format.

  Client.compile sends format "mlir"; this builds the same PJRT_Program and
  PJRT_Client_Compile_Args through pypjrt's own struct layouts with format "hlo".
  `options` is a serialized CompileOptionsProto, or pypjrt.CompileOptions
  (default: pypjrt's defaults) for pypjrt to encode.
  """

  def compile(self, program, *, options=None, cache=None):
    code = program.encode() if isinstance(program, str) else bytes(program)
    if isinstance(options, bytes):
      opts = options
    else:
      opts = (options or pypjrt.CompileOptions()).encode(self._plugin.abi)
    keep = [ctypes.create_string_buffer(b, len(b)) for b in (code, b"hlo", opts)]
    prog = self._plugin.args("PJRT_Program",
                             code=ctypes.cast(keep[0], ctypes.c_void_p), code_size=len(code),
                             format=ctypes.cast(keep[1], ctypes.c_void_p), format_size=3)
    a = self._plugin.args("PJRT_Client_Compile_Args", client=self.address,
                          program=ctypes.addressof(prog),
                          compile_options=ctypes.cast(keep[2], ctypes.c_void_p),
                          compile_options_size=len(opts))
    self._plugin.call("PJRT_Client_Compile", a)
    return pypjrt.Executable(self._plugin, a.executable, self)


PJRT_CODE = {np.dtype(np.float32): PJRT_F32.code, np.dtype(np.int32): PJRT_S32.code}


def upload(client, array: np.ndarray, device):
  array = np.ascontiguousarray(array)
  return client.buffer_from_host(array, PJRT_CODE[array.dtype], list(array.shape), device)


def download(buffer, dtype, shape) -> np.ndarray:
  out = np.empty(shape, dtype)
  buffer.to_host(out)
  return out


def error_info(e: Exception) -> dict:
  return {"type": type(e).__name__, "code": getattr(e, "code", None), "message": str(e)}


# -------------------------------------------------------------------- sections


def section_programs_decode(report):
  """Each program's bytes, as our own jaxlib reads them back into HLO text."""
  report["decoded"] = {name: _jax._decode_program("hlo", proto) for name, (proto, _) in
                       PROGRAMS.items()}
  report["arguments"] = {name: [{"dtype": str(a.dtype), "value": a.tolist()} for a in args]
                         for name, (_, args) in PROGRAMS.items()}


def section_devices(report, client):
  report["platform_name"] = client.platform_name
  report["process_index"] = client.process_index
  with client.devices() as devices:
    report["devices"] = [{"id": d.id, "kind": d.kind, "local_hardware_id": d.local_hardware_id,
                          "process_index": d.process_index,
                          "memories": [m.kind for m in d.memories()],
                          "default_memory": d.default_memory().kind}
                         for d in devices]


def section_round_trip(report, client):
  results = []
  with client.devices() as devices:
    for device in devices:
      for array in (np.arange(6, dtype=np.float32).reshape(2, 3) / 4 - 0.5,
                    np.array([[-7, 0, 2147483647], [-2147483648, 5, 9]], np.int32)):
        with upload(client, array, device) as buf:
          back = download(buf, array.dtype, array.shape)
          results.append({"device": device.id, "dtype": str(array.dtype),
                          "sent": array.tolist(), "back": back.tolist(),
                          "dims": list(buf.dimensions), "element_type": buf.element_type,
                          "expected_element_type": PJRT_CODE[array.dtype],
                          "on_cpu": buf.is_on_cpu(), "buffer_device": buf.device().id})
  report["round_trip"] = results


def section_execute(report, client):
  """Every program on every device: device 0 with pypjrt's default compile
  options, the others with jaxlib's compile options placing the one replica
  on them."""
  results = {}
  with client.devices() as devices:
    for name, (proto, args) in PROGRAMS.items():
      for device in devices:
        options = pypjrt.CompileOptions()
        if device is not devices[0]:
          options = _jax._replicated_compile_options(num_replicas=1, device_ids=[device.id])
        with client.compile(proto, options=options) as exe:
          bufs = [upload(client, a, device) for a in args]
          (out,) = exe.execute_sharded([bufs])[0]
          results[f"{name}@{device.id}"] = {
              "num_outputs": exe.num_outputs, "output_types": exe.output_types(),
              "dims": list(out.dimensions), "element_type": out.element_type,
              "device": out.device().id,
              "value": download(out, args[0].dtype, tuple(out.dimensions)).tolist()}
          for b in [out, *bufs]:
            b.close()
  report["execute"] = results


def section_serialize(report, client):
  """An executable serialized through pypjrt, loaded back and run."""
  proto, args = PROGRAMS["dot_f32"]
  with client.compile(proto) as exe:
    blob = exe.serialize()
  with client.deserialize_executable(blob) as exe, client.device(0) as device:
    bufs = [upload(client, a, device) for a in args]
    (out,) = exe(*bufs)
    report["serialize"] = {"bytes": len(blob), "num_outputs": exe.num_outputs,
                           "value": download(out, np.float32, tuple(out.dimensions)).tolist()}
    for b in [out, *bufs]:
      b.close()


def section_errors(report, client):
  """Programs that cannot compile or run must come back as PJRT errors.

  jaxlib serializes valid programs only, so the invalid ones are valid ones
  with bytes replaced in place by bytes of the same length."""
  cases = {}
  # f32[3] + f32[4]: a valid f32[3] + f32[3] add, with parameter b's dimension
  # bytes taken from two programs that differ only in that dimension (3 or 4).
  f32_3 = shape("f32", [3])

  def bad(b_dim, operands):
    return module("jit_bad", [("a", f32_3), ("b", shape("f32", [b_dim]))], f32_3,
                  f"  ROOT add = {f32_3} add({operands})\n")

  shape_mismatch = patched(bad(3, "a, b"), bad(3, "a, a"), bad(4, "a, a"))
  # An opcode of the length of "frobnicate" renamed to it.
  s32_3 = shape("s32", [3])
  shift = module("jit_unknown", [("a", s32_3), ("b", s32_3)], s32_3,
                 f"  ROOT shifted = {s32_3} shift-left(a, b)\n")
  assert shift.count(b"shift-left") == 1
  programs = {"garbage_bytes": b"\xff\xff\xff\xff this is not a protobuf",
              "empty_program": b"",
              "shape_mismatch": shape_mismatch,
              "unknown_opcode": shift.replace(b"shift-left", b"frobnicate")}
  for name, proto in programs.items():
    try:
      client.compile(proto).close()
      cases[name] = {"type": None}
    except errors.PjrtError as err:
      cases[name] = error_info(err)
  try:
    pypjrt.Client.compile(client, "module { }").close()  # format "mlir"
    cases["mlir_format"] = {"type": None}
  except errors.PjrtError as err:
    cases["mlir_format"] = error_info(err)

  # Running with the wrong arguments: too few, and the wrong element type.
  add = client.compile(PROGRAMS["add_f32"][0])
  with client.device(0) as device:
    x = upload(client, np.ones((2, 3), np.float32), device)
    wrong = upload(client, np.ones((2, 3), np.int32), device)
    for name, args in (("too_few_arguments", [x]), ("wrong_element_type", [x, wrong])):
      try:
        outs = add.execute_sharded([args])
        cases[name] = {"type": None}
        for b in outs[0]:
          b.close()
      except errors.PjrtError as err:
        cases[name] = error_info(err)
    # The client still works afterwards.
    (out,) = add(x, x)
    cases["after_errors"] = download(out, np.float32, (2, 3)).tolist()
    out.close()
    x.close()
    wrong.close()
  add.close()
  report["errors"] = cases


def section_conformance(report, plugin, hlo: bool):
  """pypjrt's conformance suite, as shipped, or with programs in format "hlo"."""
  saved = conform.ADD_MLIR, conform.Client
  if hlo:
    conform.ADD_MLIR = binary_program("add", "f32", [4])
    conform.Client = HloClient
  try:
    rep = conform.run(plugin)
  finally:
    conform.ADD_MLIR, conform.Client = saved
  report["conformance_hlo" if hlo else "conformance"] = {
      "counts": rep.counts(), "platform": rep.platform,
      "checks": {c.id: [c.result.value, c.detail] for c in rep.checks}}


F32_A = (np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5) * 1.25
F32_B = np.arange(6, 12, dtype=np.float32).reshape(2, 3) / 3
S32_A = np.array([3, -4, 2147483000, -7, 0], np.int32)
S32_B = np.array([9, 4, 700, -2147483000, 11], np.int32)  # 2147483000 + 700 wraps
DOT_A = np.arange(6, dtype=np.float32).reshape(2, 3) - 1
DOT_B = np.arange(12, dtype=np.float32).reshape(3, 4) / 2
S32_M = np.array([[4, -9, 7], [-1, -20, 3], [8, -5, -6], [0, -3, 2]], np.int32)
S32_DOT_A = np.array([[1, -2, 3], [4, 5, -6]], np.int32)
S32_DOT_B = np.arange(12, dtype=np.int32).reshape(3, 4) - 5

PROGRAMS = {
    "add_f32": (binary_program("add", "f32", [2, 3]), [F32_A, F32_B]),
    "add_s32": (binary_program("add", "s32", [5]), [S32_A, S32_B]),
    "multiply_f32": (binary_program("multiply", "f32", [2, 3]), [F32_A, F32_B]),
    "dot_f32": (dot_program("f32", [2, 3], [3, 4]), [DOT_A, DOT_B]),
    "dot_s32": (dot_program("s32", [2, 3], [3, 4]), [S32_DOT_A, S32_DOT_B]),
    "reduce_sum_f32": (reduce_program("add", "f32", [2, 3], 1, 0), [F32_A]),
    "reduce_max_s32": (reduce_program("maximum", "s32", [4, 3], 0, -2147483648), [S32_M]),
}


def main() -> int:
  report = {"pypjrt_version": pypjrt.__version__, "plugin_path": plugin_path(), "failures": {}}
  plugin = pypjrt.Plugin(report["plugin_path"])
  report["api_version"] = list(plugin.api_version)
  report["abi_exact"] = plugin.abi_exact
  report["attributes"] = {k: v if not isinstance(v, tuple) else list(v)
                          for k, v in plugin.attributes.items()}

  def run(name, fn, *args):
    try:
      fn(report, *args)
    except Exception:  # noqa: BLE001 -- recorded, and the test fails on it
      report["failures"][name] = traceback.format_exc()

  run("decode", section_programs_decode)
  plugin.initialize()
  with HloClient(plugin, options={"num_devices": 2}) as client:
    run("devices", section_devices, client)
    run("round_trip", section_round_trip, client)
    run("execute", section_execute, client)
    run("serialize", section_serialize, client)
    run("errors", section_errors, client)
  run("conformance", section_conformance, plugin, False)
  run("conformance_hlo", section_conformance, plugin, True)
  json.dump(report, sys.stdout)
  return 0


if __name__ == "__main__":
  sys.exit(main())
