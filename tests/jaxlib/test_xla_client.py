"""jaxlib's xla_client API on the installed wheels, driving the CPU plugin."""

import gc

import ml_dtypes
import numpy as np
import pytest

pytestmark = pytest.mark.needs_wheels

xla_client = pytest.importorskip("jaxlib.xla_client")

ADD = """HloModule add, entry_computation_layout={(f32[2,3]{1,0}, f32[2,3]{1,0})->f32[2,3]{1,0}}

ENTRY main.1 {
  a = f32[2,3]{1,0} parameter(0)
  b = f32[2,3]{1,0} parameter(1)
  ROOT c = f32[2,3]{1,0} add(a, b)
}
"""

TWO_OUTPUTS = """HloModule two, entry_computation_layout={(s32[4]{0})->(s32[4]{0}, s32[])}

region_0.1 {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] add(x, y)
}

ENTRY main.2 {
  p = s32[4]{0} parameter(0)
  m = s32[4]{0} multiply(p, p)
  z = s32[] constant(0)
  r = s32[] reduce(p, z), dimensions={0}, to_apply=region_0.1
  ROOT t = (s32[4]{0}, s32[]) tuple(m, r)
}
"""


@pytest.fixture(scope="module")
def client():
  return xla_client.make_cpu_client()


def test_client_identity(client):
  assert client.platform == "cpu"
  assert client.runtime_type == "pjrt_c_api"
  assert client.process_index() == 0
  assert client.device_count() == len(client.devices()) >= 1
  d = client.devices()[0]
  assert d.platform == "cpu" and d.device_kind == "cpu" and d.id == 0
  assert d.client.platform == "cpu"
  assert d.default_memory().kind == "device"
  assert d.memory("device").kind == "device"
  with pytest.raises(ValueError, match="no memory of kind 'nope'"):
    d.memory("nope")
  assert set(d.memory_stats()) >= {"bytes_in_use", "peak_bytes_in_use"}


def test_compile_execute_matches_numpy(client):
  exe = client.compile_and_load(ADD, client.devices()[:1])
  a = np.arange(6, dtype=np.float32).reshape(2, 3)
  b = np.full((2, 3), 0.5, np.float32)
  out = exe.execute([client.buffer_from_pyval(a), client.buffer_from_pyval(b)])
  assert len(out) == 1
  np.testing.assert_array_equal(np.asarray(out[0]), a + b)
  assert out[0].shape == (2, 3) and out[0].dtype == np.float32


COLUMN_MAJOR = """HloModule cm, entry_computation_layout={(f32[2,3]{0,1})->f32[3,2]{0,1}}

ENTRY main.1 {
  p = f32[2,3]{0,1} parameter(0)
  c = f32[2,3]{1,0} copy(p)
  ROOT t = f32[3,2]{0,1} transpose(c), dimensions={1,0}
}
"""


def test_non_default_layouts_compute_logical_values(client):
  # Buffers cross the C API row-major; layouts in the text choose nothing about
  # the values, and the compiled module reports the row-major layouts it uses.
  exe = client.compile_and_load(COLUMN_MAJOR, client.devices()[:1])
  a = np.arange(6, dtype=np.float32).reshape(2, 3)
  (out,) = exe.execute([client.buffer_from_pyval(a)])
  np.testing.assert_array_equal(np.asarray(out), a.T)
  optimized = exe.hlo_modules()[0]
  assert "{0,1}" not in optimized and "copy(" not in optimized
  assert "entry_computation_layout={(f32[2,3]{1,0})->f32[3,2]{1,0}}" in optimized


def test_tuple_outputs_are_flattened(client):
  exe = client.compile_and_load(TWO_OUTPUTS, client.devices()[:1])
  p = np.array([1, -2, 3, 4], np.int32)
  m, r = exe.execute([client.buffer_from_pyval(p)])
  np.testing.assert_array_equal(np.asarray(m), p * p)
  assert np.asarray(r).shape == () and int(np.asarray(r)) == 6


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int32, np.int64, np.uint64,
                                   np.float16, ml_dtypes.bfloat16, np.float32, np.float64,
                                   np.complex64])
def test_buffer_round_trip(client, dtype):
  x = (np.arange(12) % 5).astype(dtype).reshape(3, 4)
  buf = client.buffer_from_pyval(x)
  assert buf.dtype == np.dtype(dtype) and buf.shape == (3, 4)
  np.testing.assert_array_equal(np.asarray(buf), x)


def test_non_contiguous_and_scalar_inputs(client):
  x = np.arange(12, dtype=np.float32).reshape(3, 4).T
  np.testing.assert_array_equal(np.asarray(client.buffer_from_pyval(x)), x)
  s = client.buffer_from_pyval(np.float32(2.5))
  assert s.shape == () and float(np.asarray(s)) == 2.5


def test_deleted_buffer_is_a_clear_error(client):
  buf = client.buffer_from_pyval(np.ones(3, np.float32))
  buf.delete()
  assert buf.is_deleted()
  with pytest.raises(xla_client.XlaRuntimeError, match="deleted"):
    np.asarray(buf)
  # Waiting for it or taking its address is an error too (they used to succeed,
  # the address being 0).
  with pytest.raises(xla_client.XlaRuntimeError,
                     match="FAILED_PRECONDITION: BlockUntilReady: the buffer has been deleted"):
    buf._block_until_ready()
  with pytest.raises(xla_client.XlaRuntimeError,
                     match="FAILED_PRECONDITION: UnsafeBufferPointer: the buffer has been deleted"):
    buf.unsafe_buffer_pointer()
  buf.delete()  # a second delete is harmless


@pytest.mark.parametrize("dims,why", [
    ([2**32, 2**32], r"shape f32\[4294967296,4294967296\] is too large: its element count overflows int64"),
    ([2**62], r"shape f32\[4611686018427387904\] is too large: its size in bytes overflows int64"),
])
def test_buffer_dims_past_int64_are_refused(client, dims, why):
  # The plugin sizes buffers in int64: a product that wraps (to 0 for 2**64
  # elements) used to allocate too little and be read past its end.
  from jaxlib import _jax
  f32 = client.buffer_from_pyval(np.ones(1, np.float32))._type
  with pytest.raises(xla_client.XlaRuntimeError, match="INVALID_ARGUMENT: " + why):
    _jax.buffer_from_bytes(client, np.zeros(0, np.uint8), f32, dims, client.devices()[0], None)


def test_malformed_hlo_names_line_and_column(client):
  bad = ADD.replace("add(a, b)", "add(a, b")
  with pytest.raises(xla_client.XlaRuntimeError) as e:
    client.compile_and_load(bad, client.devices()[:1])
  assert "INVALID_ARGUMENT" in str(e.value)
  # The missing ')' is noticed at the '}' that opens line 7; the caret points at it.
  assert "7:1: expected ',' or ')', got '}'" in str(e.value)


def test_wrong_argument_shape_is_refused(client):
  exe = client.compile_and_load(ADD, client.devices()[:1])
  x = client.buffer_from_pyval(np.ones((3, 3), np.float32))
  with pytest.raises(xla_client.XlaRuntimeError, match="argument 0"):
    exe.execute([x, x])


def test_executable_reports_optimized_hlo_and_memory(client):
  exe = client.compile_and_load(ADD, client.devices()[:1])
  assert "add" in exe.hlo_modules()[0]
  stats = exe.get_compiled_memory_stats()
  assert stats["argument_size_in_bytes"] == 2 * 6 * 4
  assert stats["output_size_in_bytes"] == 6 * 4


def test_objects_outlive_python_references(client):
  exe = client.compile_and_load(ADD, client.devices()[:1])
  bufs = [client.buffer_from_pyval(np.ones((2, 3), np.float32)) for _ in range(2)]
  out = exe.execute(bufs)
  del exe, bufs
  gc.collect()
  np.testing.assert_array_equal(np.asarray(out[0]), np.full((2, 3), 2, np.float32))


def test_extension_version_and_plugin_attributes(client):
  from jaxlib import _jax, version
  assert isinstance(_jax._version, int) and _jax._version >= 1
  attrs = client.plugin.attributes
  assert attrs["plugin_version"] == version.__version__
  assert attrs["platform_names"] == "cpu"
  # PJRT's layout: major 0, and the minor this jaxlib's header declares.
  assert client.plugin.c_api_version == (_jax.pjrt_c_api_major, _jax.pjrt_c_api_minor) == (0, 114)


def test_num_devices_option_makes_virtual_devices():
  from jaxlib import plugin_support
  c = xla_client.make_c_api_client("cpu", {"num_devices": 4}) if plugin_support.pjrt_plugin_loaded(
      "cpu") else xla_client.make_cpu_client(num_devices=4)
  assert [d.id for d in c.devices()] == [0, 1, 2, 3]


def test_live_arrays_lists_undeleted_buffers(client):
  a = client.buffer_from_pyval(np.arange(6, dtype=np.float32).reshape(2, 3))
  b = client.buffer_from_pyval(np.ones((2, 3), np.float32))
  (c,) = client.compile_and_load(ADD).execute([a, b])
  live = client.live_arrays()
  assert all(any(x is y for y in live) for x in (a, b, c))
  b.delete()
  assert not any(x is b for x in client.live_arrays())
  before = len(client.live_arrays())
  del c, live  # `live` held c too
  gc.collect()
  assert len(client.live_arrays()) == before - 1


def test_threads_execute_and_transfer_concurrently(client):
  """Several Python threads run one executable and move buffers at once."""
  import threading
  exe = client.compile_and_load(ADD)
  errors, done = [], []

  def work(seed):
    try:
      rng = np.random.default_rng(seed)
      for _ in range(200):
        x = rng.standard_normal((2, 3)).astype(np.float32)
        y = rng.standard_normal((2, 3)).astype(np.float32)
        (out,) = exe.execute([client.buffer_from_pyval(x), client.buffer_from_pyval(y)])
        np.testing.assert_array_equal(np.asarray(out), x + y)
      done.append(seed)
    except Exception as e:  # reported by the main thread
      errors.append(e)

  threads = [threading.Thread(target=work, args=(s,)) for s in range(8)]
  for t in threads:
    t.start()
  for t in threads:
    t.join()
  assert not errors, errors[0]
  assert sorted(done) == list(range(8))
