"""HLO modules that used to crash the CPU plugin (SIGSEGV, double free, reads
past a buffer, LLVM aborts) now fail to compile with XlaRuntimeError naming
the instruction and the rule it breaks. Each runs in a child process, so a
regression shows as a failed test rather than a dead test runner."""

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.needs_wheels

_ADD = """add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
"""


def _scatter(updates: str, dims: str) -> str:
  return f"""HloModule scatter

{_ADD}
ENTRY main {{
  op = f32[3,4]{{1,0}} parameter(0)
  idx = s32[3,1]{{1,0}} parameter(1)
  up = {updates} parameter(2)
  ROOT s = f32[3,4]{{1,0}} scatter(op, idx, up), {dims}, to_apply=add
}}
"""


_DIMS = ("update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
         "index_vector_dim=1")

_CASES = {
    "scatter_dims_to_operand_dims out of range": (
        _scatter("f32[3,4]{1,0}", _DIMS.replace("scatter_dims_to_operand_dims={0}",
                                                "scatter_dims_to_operand_dims={3}")),
        "INVALID_ARGUMENT: .*instruction 's' in computation 'main': "
        "scatter_dims_to_operand_dims entry 3 is out of range for rank 2"),
    "update_window_dims out of range": (
        _scatter("f32[3,4]{1,0}", _DIMS.replace("update_window_dims={1}", "update_window_dims={7}")),
        "update_window_dims entry 7 is out of range for rank 2"),
    "s32 updates into an f32 operand": (
        _scatter("s32[3,4]{1,0}", _DIMS),
        r"scatter update s32\[3,4\] does not have the type of its operand f32\[3,4\]"),
    "300 update rows for 3 index rows": (
        _scatter("f32[300,4]{1,0}", _DIMS),
        r"scatter update dimension 0 has size 300, but the indices s32\[3,1\] give 3 index "
        "vectors there"),
    "u8 init for an f32 reduce-window": (
        f"""HloModule rw

{_ADD}
ENTRY main {{
  x = f32[4,4]{{1,0}} parameter(0)
  z = u8[] constant(0)
  ROOT w = f32[2,2]{{1,0}} reduce-window(x, z), window={{size=2x2 stride=2x2}}, to_apply=add
}}
""", r"reduce-window init value 0 must be a scalar of type f32, got u8\[\]"),
    "broadcast to 2**62 elements": (
        """HloModule big

ENTRY main {
  c = f32[] constant(1)
  ROOT b = f32[4611686018427387904]{0} broadcast(c), dimensions={}
}
""", r"shape f32\[4611686018427387904\] is too large: its size in bytes overflows int64"),
    "a name cut inside a two-byte character": (
        "HloModule m\n\nENTRY main {\n  a = f32[2] parameter(0)\n  ROOT r\u00e9 = f32[2] add(a, a)\n}\n",
        r"(?s)INVALID_ARGUMENT: .*\\xC3"),
}

_DRIVER = textwrap.dedent("""
    import re, sys
    from jaxlib import xla_client
    text, pattern = sys.argv[1], sys.argv[2]
    client = xla_client.make_cpu_client()
    try:
      client.compile_and_load(text, client.devices()[:1])
    except xla_client.XlaRuntimeError as e:
      print("XlaRuntimeError", e)
      sys.exit(0 if re.search(pattern, str(e)) else 3)
    print("compiled without an error")
    sys.exit(4)
""")


@pytest.mark.parametrize("name", list(_CASES))
def test_invalid_module_is_a_clean_error(name):
  text, pattern = _CASES[name]
  proc = subprocess.run([sys.executable, "-c", _DRIVER, text, pattern], capture_output=True,
                        text=True, timeout=300, cwd="/")
  assert proc.returncode == 0, (f"exit {proc.returncode} (negative: killed by a signal)\n"
                                f"{proc.stdout}\n{proc.stderr[-2000:]}")


def test_valid_scatter_still_compiles_and_runs():
  import numpy as np
  from jaxlib import xla_client
  client = xla_client.make_cpu_client()
  exe = client.compile_and_load(_scatter("f32[3,4]{1,0}", _DIMS), client.devices()[:1])
  op = np.zeros((3, 4), np.float32)
  idx = np.array([[2], [0], [2]], np.int32)
  up = np.arange(12, dtype=np.float32).reshape(3, 4)
  (out,) = exe.execute([client.buffer_from_pyval(a) for a in (op, idx, up)])
  want = op.copy()
  np.add.at(want, idx[:, 0], up)
  np.testing.assert_array_equal(np.asarray(out), want)
