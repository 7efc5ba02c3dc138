"""Drives the installed CPU plugin with pypjrt, a PJRT client that is not ours.

Run by test_pypjrt_drives_our_plugin.py with the python of a virtualenv that has
our wheels and pypjrt installed; prints one JSON report on stdout. Each section
records its own failure, so one broken entry point does not hide the others.

pypjrt compiles StableHLO text only (format "mlir"); our plugin reads format
"hlo", a serialized HloModuleProto. So the programs here are HloModuleProtos
written by a small encoder below (field numbers from OpenXLA's hlo.proto and
xla_data.proto), checked against their HLO text with jaxlib's own reader, and
handed to the plugin through pypjrt's argument structs with format "hlo".
"""

import ctypes
import importlib.util
import json
import os
import struct
import sys
import traceback

import numpy as np
import pypjrt
from pypjrt import conform, errors
from pypjrt.typing import F32 as PJRT_F32, S32 as PJRT_S32

from jaxlib import _jax

# ---------------------------------------------------------------- protobuf wire


def _varint(n: int) -> bytes:
  if n < 0:
    n += 1 << 64  # int32/int64 fields: negative numbers take ten bytes
  out = bytearray()
  while True:
    low = n & 0x7F
    n >>= 7
    if n:
      out.append(low | 0x80)
    else:
      out.append(low)
      return bytes(out)


def _int(field: int, value: int) -> bytes:
  return _varint(field << 3) + _varint(value)


def _len(field: int, payload: bytes) -> bytes:
  return _varint(field << 3 | 2) + _varint(len(payload)) + payload


def _ints(field: int, values) -> bytes:
  values = list(values)
  return _len(field, b"".join(_varint(v) for v in values)) if values else b""


# -------------------------------------------------------------- HloModuleProto

PRED, S32, F32 = 1, 4, 11  # xla.PrimitiveType


def shape_proto(etype: int, dims) -> bytes:
  """ShapeProto with the row-major layout ({n-1,...,0})."""
  return (_int(2, etype) + _ints(3, dims) +
          _len(5, _ints(1, reversed(range(len(dims))))))


def scalar_literal(etype: int, value) -> bytes:
  payload = {F32: lambda v: _len(8, struct.pack("<f", v)),
             S32: lambda v: _ints(4, [v])}[etype](value)
  return _len(1, shape_proto(etype, [])) + payload


class Computation:
  """Instructions of one HloComputationProto; ids are unique in the module."""

  def __init__(self, module: "Module", name: str):
    self.module, self.name = module, name
    self.id = module.new_id()
    self.instructions: list[bytes] = []
    self.params: list[bytes] = []

  def op(self, name: str, opcode: str, shape: bytes, operands=(), extra: bytes = b"") -> int:
    iid = self.module.new_id()
    self.instructions.append(
        _len(1, name.encode()) + _len(2, opcode.encode()) + _len(3, shape) +
        _int(35, iid) + _ints(36, operands) + extra)
    return iid

  def param(self, number: int, name: str, shape: bytes) -> int:
    self.params.append(shape)
    return self.op(name, "parameter", shape, extra=_int(9, number))

  def program_shape(self, result: bytes) -> bytes:
    return b"".join(_len(1, p) for p in self.params) + _len(2, result)

  def finish(self, root: int, result: bytes) -> bytes:
    self.root, self.result = root, result
    return (_len(1, self.name.encode()) + b"".join(_len(2, i) for i in self.instructions) +
            _len(4, self.program_shape(result)) + _int(5, self.id) + _int(6, root))


class Module:

  def __init__(self, name: str):
    self.name = name
    self._next = 0
    self.computations: list[bytes] = []

  def new_id(self) -> int:
    self._next += 1
    return self._next

  def add(self, computation: Computation, root: int, result: bytes) -> None:
    self.computations.append(computation.finish(root, result))

  def serialize(self, entry: Computation) -> bytes:
    """The entry is the last computation added (callees come first)."""
    return (_len(1, self.name.encode()) + _len(2, entry.name.encode()) +
            b"".join(_len(3, c) for c in self.computations) +
            _len(4, entry.program_shape(entry.result)) + _int(5, 1) + _int(6, entry.id))


def binary_program(opcode: str, etype: int, dims) -> bytes:
  m = Module(f"jit_{opcode}")
  e = Computation(m, "main")
  s = shape_proto(etype, dims)
  a, b = e.param(0, "a", s), e.param(1, "b", s)
  m.add(e, e.op(opcode, opcode, s, [a, b]), s)
  return m.serialize(e)


def dot_program(etype: int, lhs, rhs) -> bytes:
  m = Module("jit_dot")
  e = Computation(m, "main")
  a = e.param(0, "a", shape_proto(etype, lhs))
  b = e.param(1, "b", shape_proto(etype, rhs))
  out = shape_proto(etype, [lhs[0], rhs[1]])
  numbers = _len(30, _ints(1, [1]) + _ints(2, [0]))  # DotDimensionNumbers
  m.add(e, e.op("dot", "dot", out, [a, b], numbers), out)
  return m.serialize(e)


def reduce_program(opcode: str, etype: int, dims, axis: int, init) -> bytes:
  m = Module(f"jit_reduce_{opcode}")
  r = Computation(m, f"region_{opcode}")
  scalar = shape_proto(etype, [])
  x, y = r.param(0, "x", scalar), r.param(1, "y", scalar)
  m.add(r, r.op(opcode, opcode, scalar, [x, y]), scalar)
  e = Computation(m, "main")
  a = e.param(0, "a", shape_proto(etype, dims))
  c = e.op("init", "constant", scalar, extra=_len(8, scalar_literal(etype, init)))
  out_dims = [d for i, d in enumerate(dims) if i != axis]
  out = shape_proto(etype, out_dims)
  m.add(e, e.op("reduce", "reduce", out, [a, c], _ints(14, [axis]) + _ints(38, [r.id])), out)
  return m.serialize(e)


# ------------------------------------------------------------------ pypjrt glue


def plugin_path() -> str:
  spec = importlib.util.find_spec("jax_plugins.xla_cpu")
  return os.path.join(list(spec.submodule_search_locations)[0], "xla_cpu_plugin.so")


class HloClient(pypjrt.Client):
  """pypjrt's Client, compiling programs in PJRT's "hlo" format.

  Client.compile sends format "mlir"; this builds the same PJRT_Program and
  PJRT_Client_Compile_Args through pypjrt's own struct layouts with format "hlo"
  and the compile options pypjrt encodes.
  """

  def compile(self, program, *, options=None, cache=None):
    code = program.encode() if isinstance(program, str) else bytes(program)
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
  options, the others with a device assignment naming them."""
  results = {}
  with client.devices() as devices:
    for name, (proto, args) in PROGRAMS.items():
      for device in devices:
        options = pypjrt.CompileOptions()
        if device is not devices[0]:
          options = pypjrt.CompileOptions(device_assignment=device_assignment_proto(device.id))
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


def device_assignment_proto(device_id: int) -> bytes:
  """DeviceAssignmentProto: one replica, one computation, on `device_id`."""
  return _int(1, 1) + _int(2, 1) + _len(3, _ints(1, [device_id]))


def section_errors(report, client):
  """Programs that cannot compile or run must come back as PJRT errors."""
  cases = {}
  bad_shapes = Module("jit_bad")
  e = Computation(bad_shapes, "main")
  a = e.param(0, "a", shape_proto(F32, [3]))
  b = e.param(1, "b", shape_proto(F32, [4]))
  bad_shapes.add(e, e.op("add", "add", shape_proto(F32, [3]), [a, b]), shape_proto(F32, [3]))
  unknown = Module("jit_unknown")
  e2 = Computation(unknown, "main")
  p = e2.param(0, "a", shape_proto(F32, [3]))
  unknown.add(e2, e2.op("frobnicate", "frobnicate", shape_proto(F32, [3]), [p]),
              shape_proto(F32, [3]))
  programs = {"garbage_bytes": b"\xff\xff\xff\xff this is not a protobuf",
              "empty_program": b"",
              "shape_mismatch": bad_shapes.serialize(e),
              "unknown_opcode": unknown.serialize(e2)}
  for name, proto in programs.items():
    try:
      client.compile(proto).close()
      cases[name] = {"type": None}
    except errors.PjrtError as err:
      cases[name] = error_info(err)
  try:
    HloClient.__mro__[1].compile(client, "module { }").close()  # pypjrt's own: "mlir"
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
    conform.ADD_MLIR = binary_program("add", F32, [4])
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
S32_B = np.array([9, 4, 600, -2147483000, 11], np.int32)
DOT_A = np.arange(6, dtype=np.float32).reshape(2, 3) - 1
DOT_B = np.arange(12, dtype=np.float32).reshape(3, 4) / 2
S32_M = np.array([[4, -9, 7], [-1, -20, 3], [8, -5, -6], [0, -3, 2]], np.int32)
S32_DOT_A = np.array([[1, -2, 3], [4, 5, -6]], np.int32)
S32_DOT_B = np.arange(12, dtype=np.int32).reshape(3, 4) - 5

PROGRAMS = {
    "add_f32": (binary_program("add", F32, [2, 3]), [F32_A, F32_B]),
    "add_s32": (binary_program("add", S32, [5]), [S32_A, S32_B]),
    "multiply_f32": (binary_program("multiply", F32, [2, 3]), [F32_A, F32_B]),
    "dot_f32": (dot_program(F32, [2, 3], [3, 4]), [DOT_A, DOT_B]),
    "dot_s32": (dot_program(S32, [2, 3], [3, 4]), [S32_DOT_A, S32_DOT_B]),
    "reduce_sum_f32": (reduce_program("add", F32, [2, 3], 1, 0.0), [F32_A]),
    "reduce_max_s32": (reduce_program("maximum", S32, [4, 3], 0, -2147483648), [S32_M]),
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
