"""Zero-copy transfers from numpy (HostBufferSemantics.ZERO_COPY; PJRT kImmutableZeroCopy):
an aligned C-contiguous array becomes the CPU buffer's memory, stays alive as
long as the buffer reads it, and is never written; everything else is copied."""

import gc
import subprocess
import sys
import textwrap
import threading
import weakref

import numpy as np
import pytest

pytestmark = pytest.mark.needs_wheels

xla_client = pytest.importorskip("jaxlib.xla_client")
Semantics = xla_client.HostBufferSemantics

DOUBLE = """HloModule double, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

ENTRY main.1 {
  p = f32[4]{0} parameter(0)
  ROOT d = f32[4]{0} add(p, p)
}
"""

DOUBLE_ALIASED = DOUBLE.replace("HloModule double,",
                                "HloModule double, input_output_alias={ {}: (0, {}, may-alias) },")


@pytest.fixture(scope="module")
def client():
  return xla_client.make_cpu_client()


def _at_offset(values, offset):
  """A C-contiguous copy of `values` whose data starts `offset` bytes past a
  64-byte boundary (its base, an uint8 array, owns the memory)."""
  values = np.asarray(values)
  raw = np.empty(values.nbytes + 128, np.uint8)
  start = (-raw.ctypes.data) % 64 + offset
  out = raw[start:start + values.nbytes].view(values.dtype).reshape(values.shape)
  out[...] = values
  assert out.ctypes.data % 64 == offset and out.flags.c_contiguous
  return out


def _put(client, value, **kwargs):
  return client.buffer_from_pyval(value, client.devices()[0], **kwargs)


def _owner(array):
  """The object that owns `array`'s memory, for a weak reference."""
  return array if array.base is None else array.base


@pytest.mark.parametrize("offset", [0, 16, 48])
def test_aligned_array_is_the_buffers_memory(client, offset):
  a = _at_offset(np.arange(12, dtype=np.float32).reshape(3, 4), offset)
  x = _put(client, a)
  assert x.unsafe_buffer_pointer() == a.ctypes.data
  np.testing.assert_array_equal(np.asarray(x), a)


def test_ordinary_numpy_allocations_qualify(client):
  # numpy's allocations come from malloc: 16-byte aligned, which is all the
  # CPU kernels assume.
  a = np.arange(1000, dtype=np.float64)
  assert a.ctypes.data % 16 == 0
  assert _put(client, a).unsafe_buffer_pointer() == a.ctypes.data


def test_buffer_keeps_the_array_alive_until_deleted(client):
  a = _at_offset(np.arange(4, dtype=np.float32), 16)
  alive = weakref.ref(_owner(a))
  x = _put(client, a)
  del a
  gc.collect()
  assert alive() is not None
  np.testing.assert_array_equal(np.asarray(x), [0, 1, 2, 3])
  x.delete()
  gc.collect()
  assert alive() is None


def test_dropping_the_buffer_releases_the_array(client):
  a = np.arange(6, dtype=np.int32)
  before = sys.getrefcount(a)
  x = _put(client, a)
  assert x.unsafe_buffer_pointer() == a.ctypes.data
  assert sys.getrefcount(a) > before
  del x
  gc.collect()
  assert sys.getrefcount(a) == before


def test_numpy_view_of_a_zero_copy_buffer_holds_the_array(client):
  a = np.arange(5, dtype=np.float32)
  alive = weakref.ref(a)
  x = _put(client, a)
  view = np.asarray(x)
  assert view.ctypes.data == a.ctypes.data and not view.flags.writeable
  del a
  x.delete()
  gc.collect()
  assert alive() is not None
  np.testing.assert_array_equal(view, [0, 1, 2, 3, 4])
  del view
  gc.collect()
  assert alive() is None


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int8, np.complex64,
                                   np.bool_])
def test_computations_read_zero_copy_buffers(client, dtype):
  n = 37  # not a multiple of any vector width
  rng = np.random.default_rng(0)
  a = _at_offset((rng.standard_normal(n) * 10).astype(dtype), 16)
  b = _at_offset((rng.standard_normal(n) * 10).astype(dtype), 32)
  etype = {np.float32: "f32", np.float64: "f64", np.int32: "s32", np.int8: "s8",
           np.complex64: "c64", np.bool_: "pred"}[dtype]
  op = "or" if dtype is np.bool_ else "multiply"
  hlo = f"""HloModule m, entry_computation_layout={{({etype}[{n}]{{0}}, {etype}[{n}]{{0}})->{etype}[{n}]{{0}}}}
ENTRY main.1 {{
  a = {etype}[{n}]{{0}} parameter(0)
  b = {etype}[{n}]{{0}} parameter(1)
  ROOT r = {etype}[{n}]{{0}} {op}(a, b)
}}"""
  exe = client.compile_and_load(hlo, client.devices()[:1])
  xa, xb = _put(client, a), _put(client, b)
  assert xa.unsafe_buffer_pointer() == a.ctypes.data
  (out,) = exe.execute([xa, xb])
  want = (a | b) if dtype is np.bool_ else a * b
  np.testing.assert_array_equal(np.asarray(out), want)


@pytest.mark.parametrize("module", [DOUBLE, DOUBLE_ALIASED], ids=["may_alias", "declared_alias"])
def test_donation_never_writes_into_the_array(client, module):
  exe = client.compile_and_load(module, client.devices()[:1])
  a = np.array([1, 2, 3, 4], np.float32)
  x = _put(client, a)
  assert x.unsafe_buffer_pointer() == a.ctypes.data
  (out,) = exe.execute([x], donated=[0])
  assert out.unsafe_buffer_pointer() != a.ctypes.data
  np.testing.assert_array_equal(a, [1, 2, 3, 4])
  np.testing.assert_array_equal(np.asarray(out), [2, 4, 6, 8])
  if module is DOUBLE_ALIASED:
    assert x.is_deleted()  # a declared donor is consumed all the same


def _assert_copied(client, make_array, **kwargs):
  # The array is made here, so that only this frame refers to it.
  a = make_array()
  original = a.copy()
  alive = weakref.ref(_owner(a))
  start, end = a.ctypes.data, a.ctypes.data + a.nbytes
  x = _put(client, a, **kwargs)
  assert not start <= x.unsafe_buffer_pointer() < end
  np.testing.assert_array_equal(np.asarray(x), original)
  a[...] = 0  # the buffer has its own memory
  np.testing.assert_array_equal(np.asarray(x), original)
  del a
  gc.collect()
  assert alive() is None  # and holds no reference to the array


def test_non_contiguous_array_is_copied(client):
  _assert_copied(client, lambda: np.arange(16, dtype=np.float32).reshape(4, 4)[:, ::2])
  _assert_copied(client, lambda: np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3)))


@pytest.mark.parametrize("offset", [4, 8, 60])
def test_misaligned_array_is_copied(client, offset):
  _assert_copied(client, lambda: _at_offset(np.arange(9, dtype=np.float32), offset))


@pytest.mark.parametrize("kwargs", [
    {"force_copy": True},
    {"host_buffer_semantics": Semantics.IMMUTABLE_ONLY_DURING_CALL},
    {"host_buffer_semantics": Semantics.IMMUTABLE_UNTIL_TRANSFER_COMPLETES},
], ids=["force_copy", "only_during_call", "until_transfer_completes"])
def test_other_requests_copy(client, kwargs):
  _assert_copied(client, lambda: _at_offset(np.arange(8, dtype=np.int64), 0), **kwargs)


def test_failed_transfer_hands_the_array_back(client):
  other = xla_client.make_cpu_client()
  a = np.arange(4, dtype=np.float32)
  before = sys.getrefcount(a)
  with pytest.raises(xla_client.XlaRuntimeError, match="the device belongs to another client"):
    client.buffer_from_pyval(a, other.devices()[0])
  assert sys.getrefcount(a) == before


def test_buffer_released_on_another_thread(client):
  a = np.arange(64, dtype=np.float32)
  alive = weakref.ref(a)
  x = _put(client, a)
  del a
  thread = threading.Thread(target=x.delete)
  thread.start()
  thread.join()
  gc.collect()
  assert alive() is None


def test_jax_device_put_copies():
  # jax Arrays are immutable: device_put must not alias a numpy array the
  # caller may change later.
  jax = pytest.importorskip("jax")
  a = np.arange(4, dtype=np.float32)
  x = jax.device_put(a)
  (buffer,) = x.device_buffers()
  assert buffer.unsafe_buffer_pointer() != a.ctypes.data
  a[0] = 100
  np.testing.assert_array_equal(np.asarray(x), [0, 1, 2, 3])


def test_interpreter_exits_cleanly_with_live_zero_copy_buffers():
  # Buffers still alive at exit hand their arrays back while the interpreter
  # shuts down; that must neither crash nor hang.
  code = textwrap.dedent("""
      import numpy as np
      from jaxlib import xla_client as xc
      client = xc.make_cpu_client()
      arrays = [np.arange(100, dtype=np.float32) for _ in range(4)]
      buffers = [client.buffer_from_pyval(a, client.devices()[0]) for a in arrays]
      assert buffers[0].unsafe_buffer_pointer() == arrays[0].ctypes.data
      del arrays
      print("ok")
  """)
  proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                        timeout=120, cwd="/")
  assert proc.returncode == 0, proc.stderr
  assert proc.stdout.strip() == "ok"
