"""stax.GeneralConvTranspose, nn.initializers.delta_orthogonal and nn.scaled_matmul."""

import ml_dtypes
import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax
from jax.example_libraries import stax

pytestmark = pytest.mark.usefixtures("backend")


def test_general_conv_transpose_layer():
  init, apply = stax.GeneralConvTranspose(("NHWC", "HWIO", "NHWC"), 4, (3, 3), strides=(2, 2),
                                          padding="SAME")
  shape, (w, b) = init(jax.random.key(0), (1, 5, 5, 2))
  assert shape == (1, 10, 10, 4) and w.shape == (3, 3, 2, 4) and b.shape == (1, 1, 1, 4)
  x = jax.random.normal(jax.random.key(1), (1, 5, 5, 2))
  out = apply((w, b), x)
  want = lax.conv_transpose(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")) + b
  np.testing.assert_allclose(out, want, rtol=1e-6)
  assert jax.jit(apply)((w, b), x).shape == shape


def test_delta_orthogonal():
  k = jax.nn.initializers.delta_orthogonal(scale=2.)(jax.random.key(0), (3, 3, 4, 5))
  center = np.asarray(k)[1, 1]
  np.testing.assert_allclose(center @ center.T, 4 * np.eye(4), atol=1e-5)
  assert float(jnp.abs(k).sum() - jnp.abs(k[1, 1]).sum()) == 0.
  with pytest.raises(ValueError, match="fan_in"):
    jax.nn.initializers.delta_orthogonal()(jax.random.key(0), (3, 3, 5, 4))
  with pytest.raises(ValueError, match="3D, 4D or 5D"):
    jax.nn.initializers.delta_orthogonal()(jax.random.key(0), (4, 5))


def test_scaled_matmul():
  rng = np.random.default_rng(0)
  lhs = rng.standard_normal((2, 3, 8)).astype(np.float32)
  rhs = rng.standard_normal((2, 4, 8)).astype(np.float32)
  ls = rng.random((2, 3, 2)).astype(np.float32)
  rs = rng.random((2, 4, 2)).astype(np.float32)
  out = jax.nn.scaled_matmul(lhs, rhs, ls, rs)
  want = np.einsum("bmk,bnk->bmn", lhs * np.repeat(ls, 4, 2), rhs * np.repeat(rs, 4, 2))
  np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
  assert out.dtype == jnp.float32
  g = jax.grad(lambda l: jax.nn.scaled_matmul(l, rhs, ls, rs).sum())(lhs)
  np.testing.assert_allclose(g, np.repeat(ls, 4, 2) * (rhs * np.repeat(rs, 4, 2)).sum(1)[:, None],
                             rtol=1e-5)
  with pytest.raises(ValueError, match="3-D"):
    jax.nn.scaled_matmul(lhs[0], rhs, ls, rs)


def _reference_quantized_dot(a, b, block, data_type, scale_of):
  """numpy: each 1-D block of a row of `a` (and column of `b`) scaled, cast with ml_dtypes."""
  def q(x):  # quantize along the last axis
    blocks = x.reshape(x.shape[:-1] + (-1, block))
    amax = np.abs(blocks).max(-1, keepdims=True)
    s = scale_of(amax / float(ml_dtypes.finfo(data_type).max))
    s = np.where(s == 0, 1, s)
    return ((blocks / s).astype(data_type).astype(np.float32) * s).reshape(x.shape)
  return q(a) @ q(b.T).T


def test_scaled_dot_general_mxfp8_matches_a_numpy_reference():
  rng = np.random.default_rng(0)
  a = rng.standard_normal((4, 64)).astype(np.float32)
  b = rng.standard_normal((64, 8)).astype(np.float32)
  dn = (((1,), (0,)), ((), ()))
  out = jax.nn.scaled_dot_general(a, b, dn)
  pow2_up = lambda s: np.exp2(np.ceil(np.log2(np.maximum(s, 2.0 ** -127))))
  want = _reference_quantized_dot(a, b, 32, ml_dtypes.float8_e4m3fn, pow2_up)
  np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
  assert out.dtype == jnp.float32
  np.testing.assert_allclose(out, a @ b, atol=0.1 * np.abs(a @ b).max())   # fp8 accuracy
  np.testing.assert_allclose(jax.jit(lambda x, y: jax.nn.scaled_dot_general(x, y, dn))(a, b),
                             out, rtol=1e-6)
  g = jax.grad(lambda x: jax.nn.scaled_dot_general(x, b, dn).sum())(a)
  np.testing.assert_allclose(g, np.ones((4, 8)) @ b.T, atol=0.1 * np.abs(b).sum(1).max())


def test_scaled_dot_general_configs():
  cfg = jax.nn.get_scaled_dot_general_config("mxfp8")
  assert cfg.block_size == 32 and cfg.data_type == jnp.float8_e4m3fn
  nv = jax.nn.get_scaled_dot_general_config("nvfp4", global_scale=2.0)
  assert nv.block_size == 16 and float(nv.global_scale) == 2.0
  with pytest.raises(ValueError, match="Unsupported mode"):
    jax.nn.get_scaled_dot_general_config("int3")
  a = np.ones((2, 20), np.float32)
  with pytest.raises(ValueError, match="multiple of the block size"):
    jax.nn.scaled_dot_general(a, a.T, (((1,), (0,)), ((), ())))
