"""stax.GeneralConvTranspose, nn.initializers.delta_orthogonal and nn.scaled_matmul."""

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
