"""In-place host views of CPU buffers: numpy's __array__ and DLPack export
share the buffer's memory, keep it alive past delete() and donation, and fall
back to copies where a view would be wrong."""

import gc

import ml_dtypes
import numpy as np
import pytest

pytestmark = pytest.mark.needs_wheels

xla_client = pytest.importorskip("jaxlib.xla_client")

DOUBLE = """HloModule double, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

ENTRY main.1 {
  p = f32[4]{0} parameter(0)
  ROOT d = f32[4]{0} add(p, p)
}
"""

# The same, declaring its parameter a donor: as in PJRT, a program says which
# arguments it may consume, and a call can only hold them back.
DOUBLE_DONATING = DOUBLE.replace(
    "HloModule double,", "HloModule double, input_output_alias={ {}: (0, {}, may-alias) },")


@pytest.fixture(scope="module")
def client():
  return xla_client.make_cpu_client()


def _put(client, value):
  # Copied, so the buffer's memory is the plugin's own (zero-copy buffers are
  # in test_zero_copy.py).
  return client.buffer_from_pyval(np.asarray(value), client.devices()[0], force_copy=True)


def test_numpy_view_is_in_place_and_read_only(client):
  x = _put(client, np.arange(6, dtype=np.float32).reshape(2, 3))
  view = np.asarray(x)
  assert view.ctypes.data == x.unsafe_buffer_pointer()
  assert not view.flags.writeable
  np.testing.assert_array_equal(view, np.arange(6).reshape(2, 3))
  with pytest.raises(ValueError, match="read-only"):
    view[0, 0] = 1


def test_view_outlives_delete(client):
  x = _put(client, np.array([1.5, 2.5, 3.5], np.float64))
  view = np.asarray(x)
  x.delete()
  assert x.is_deleted()
  gc.collect()
  np.testing.assert_array_equal(view, [1.5, 2.5, 3.5])
  with pytest.raises(Exception, match="deleted"):
    x._host_view()


def test_copies_where_asked_or_needed(client):
  x = _put(client, np.array([1, 2, 3], np.int32))
  copied = np.array(x, copy=True)
  assert copied.flags.writeable and copied.ctypes.data != x.unsafe_buffer_pointer()
  converted = np.asarray(x, dtype=np.float64)
  np.testing.assert_array_equal(converted, [1.0, 2.0, 3.0])
  with pytest.raises(ValueError, match="in place"):
    x.__array__(dtype=np.float64, copy=False)
  # numpy has no bfloat16 of its own: the buffer is copied into an ml_dtypes array.
  b = _put(client, np.array([1.0, -2.0], ml_dtypes.bfloat16))
  values = np.asarray(b)
  assert values.dtype == ml_dtypes.bfloat16 and values.tolist() == [1.0, -2.0]
  empty = _put(client, np.zeros((0, 3), np.float32))
  assert np.asarray(empty).shape == (0, 3)


def test_viewed_buffer_is_not_reused_by_donation(client):
  exe = client.compile_and_load(DOUBLE_DONATING, client.devices()[:1])
  x = _put(client, np.array([1, 2, 3, 4], np.float32))
  view = np.asarray(x)
  (out,) = exe.execute([x], donated=[0])
  # The output may not take over memory that numpy still reads.
  assert out.unsafe_buffer_pointer() != view.ctypes.data
  np.testing.assert_array_equal(view, [1, 2, 3, 4])
  np.testing.assert_array_equal(np.asarray(out), [2, 4, 6, 8])
  # Without a view, donation hands the argument's memory to the output.
  y = _put(client, np.array([1, 2, 3, 4], np.float32))
  y_pointer = y.unsafe_buffer_pointer()
  (out,) = exe.execute([y], donated=[0])
  assert y.is_deleted() and out.unsafe_buffer_pointer() == y_pointer


def test_dlpack_export_is_in_place(client):
  x = _put(client, np.arange(5, dtype=np.int64))
  assert x.__dlpack_device__() == (1, 0)
  imported = np.from_dlpack(x)
  assert imported.ctypes.data == x.unsafe_buffer_pointer()
  np.testing.assert_array_equal(imported, np.arange(5))
  x.delete()
  gc.collect()
  np.testing.assert_array_equal(imported, np.arange(5))
  with pytest.raises(BufferError, match="stream"):
    _put(client, np.ones(2, np.float32)).__dlpack__(stream=7)
