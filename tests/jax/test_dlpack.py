"""jax arrays and numpy/DLPack: zero-copy export of CPU arrays, imports."""

import gc

import numpy as np
import pytest

import jax
import jax.dlpack
import jax.numpy as jnp

pytestmark = pytest.mark.usefixtures("backend")


def test_numpy_view_of_a_jax_array_survives_delete():
  x = jnp.arange(8, dtype=jnp.float32) * 2
  host = np.asarray(x)
  assert not host.flags.writeable
  x.delete()
  gc.collect()
  np.testing.assert_array_equal(host, np.arange(8) * 2)


def test_np_array_copy_is_writable():
  x = jnp.ones(3)
  y = np.array(x, copy=True)
  y[0] = 5
  np.testing.assert_array_equal(np.asarray(x), [1, 1, 1])


def test_numpy_imports_jax_arrays_through_dlpack():
  x = jnp.linspace(0, 1, 5)
  assert x.__dlpack_device__() == (1, 0)
  y = np.from_dlpack(x)
  assert y.ctypes.data == x.unsafe_buffer_pointer()
  np.testing.assert_allclose(y, np.linspace(0, 1, 5), rtol=1e-6)


def test_jax_imports_dlpack_producers():
  src = np.arange(12, dtype=np.int32).reshape(3, 4)
  for fn in (jnp.from_dlpack, jax.dlpack.from_dlpack):
    y = fn(src)
    assert isinstance(y, jax.Array) and y.dtype == np.int32
    np.testing.assert_array_equal(y, src)
  # A jax array round-trips unchanged.
  x = jnp.arange(3.0)
  assert jnp.from_dlpack(x) is x
  with pytest.raises(TypeError, match="__dlpack__"):
    jnp.from_dlpack([1, 2, 3])
