"""lax.conv_general_dilated_local: an unshared convolution, against a numpy loop
over output positions and against conv_general_dilated when every position holds
the same kernel."""

import numpy as np
import pytest

import jax
from jax import lax


def _local_reference(x, w, stride, filt):
  """NCHW input, OIHW local kernel with spatial = output positions and I = (C, window)."""
  n, c, h, wd = x.shape
  kh, kw = filt
  oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
  out = np.zeros((n, w.shape[0], oh, ow), np.float64)
  for y in range(oh):
    for z in range(ow):
      patch = x[:, :, y * stride:y * stride + kh, z * stride:z * stride + kw].reshape(n, -1)
      out[:, :, y, z] = patch @ w[:, :, y, z].T
  return out


def test_matches_a_loop_over_output_positions(backend):
  rng = np.random.RandomState(0)
  x = rng.randn(2, 3, 6, 5).astype(np.float32)
  filt, stride = (3, 2), 1
  oh, ow = 4, 4
  w = rng.randn(4, 3 * 3 * 2, oh, ow).astype(np.float32)
  out = lax.conv_general_dilated_local(x, w, (stride, stride), "VALID", filt)
  np.testing.assert_allclose(out, _local_reference(x, w, stride, filt), rtol=1e-4, atol=1e-4)
  jitted = jax.jit(lambda a, b: lax.conv_general_dilated_local(a, b, (1, 1), "VALID", filt))
  np.testing.assert_allclose(jitted(x, w), out, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dn", [None, ("NHWC", "HWIO", "NHWC")])
def test_shared_kernels_give_the_ordinary_convolution(backend, dn):
  rng = np.random.RandomState(1)
  kernel = rng.randn(5, 2, 3, 3).astype(np.float32)           # OIHW
  x = rng.randn(1, 2, 7, 6).astype(np.float32)                 # NCHW
  ref = lax.conv_general_dilated(x, kernel, (1, 1), "SAME")    # (1, 5, 7, 6)
  flat = kernel.reshape(5, 2 * 9)                              # I major, then window
  local = np.broadcast_to(flat[:, :, None, None], (5, 18, 7, 6)).copy()
  if dn is None:
    out = lax.conv_general_dilated_local(x, local, (1, 1), "SAME", (3, 3))
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)
  else:
    out = lax.conv_general_dilated_local(x.transpose(0, 2, 3, 1), local.transpose(2, 3, 1, 0),
                                         (1, 1), "SAME", (3, 3), dimension_numbers=dn)
    np.testing.assert_allclose(out, np.asarray(ref).transpose(0, 2, 3, 1), rtol=1e-4, atol=1e-4)


def test_gradient_flows_to_each_position_kernel(backend):
  rng = np.random.RandomState(2)
  x = rng.randn(1, 1, 4, 4).astype(np.float32)
  w = rng.randn(1, 4, 3, 3).astype(np.float32)
  g = jax.grad(lambda w: lax.conv_general_dilated_local(x, w, (1, 1), "VALID", (2, 2)).sum())(w)
  # d(sum)/dw[o, k, y, z] is the patch value at (y, z).
  for y in range(3):
    for z in range(3):
      np.testing.assert_allclose(g[0, :, y, z], x[0, 0, y:y + 2, z:z + 2].reshape(-1), rtol=1e-5)
