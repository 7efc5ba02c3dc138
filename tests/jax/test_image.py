"""jax.image.resize / scale_and_translate: values recorded from JAX 0.10.2 and
properties every resampler must keep."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp


def close(a, b, tol=1e-5):
  np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


def test_recorded_values():
  close(jax.image.resize(np.arange(12, dtype=np.float32).reshape(3, 4), (5, 3), "cubic"),
        [[-0.111955315, 1.1981136, 2.5081823], [1.4138118, 2.7238803, 4.0339484],
         [4.1899314, 5.5, 6.810068], [6.966052, 8.27612, 9.586188],
         [8.49182, 9.801888, 11.111957]])
  squares = np.array([0., 1, 4, 9, 16, 25, 36, 49], np.float32)
  close(jax.image.resize(squares, (3,), "lanczos3"), [0.6574593, 12.249999, 38.301464])
  close(jax.image.resize(squares[:4], (6,), "linear"), [0., 0.5, 1.5, 3.5, 6.5, 9.])
  close(jax.image.scale_and_translate(squares[:4], (5,), (0,), jnp.array([1.5]),
                                      jnp.array([0.5]), "cubic"),
        [-0.125, 0.080961995, 0.6979413, 2.250001, 4.8237996])


def test_nearest_linear_properties():
  img = np.arange(6, dtype=np.float32).reshape(2, 3)
  # Nearest doubling repeats every pixel; integer input keeps its dtype.
  np.testing.assert_array_equal(jax.image.resize(img, (4, 6), "nearest"),
                                np.repeat(np.repeat(img, 2, 0), 2, 1))
  assert jax.image.resize(img.astype(np.int32), (4, 6), "nearest").dtype == jnp.int32
  # Resampling a constant image gives the constant for every kernel.
  for method in ("linear", "cubic", "lanczos3", "lanczos5", jax.image.ResizeMethod.LINEAR):
    close(jax.image.resize(np.full((5, 7), 3.0, np.float32), (3, 11), method), np.full((3, 11), 3))


def test_jit_grad_vmap_and_errors():
  img = np.random.default_rng(0).normal(size=(2, 6, 7, 3)).astype(np.float32)
  f = lambda x: jax.image.resize(x, (2, 9, 4, 3), "linear")
  close(jax.jit(f)(img), f(img))
  # Each output pixel's weights sum to one, so d sum(out) / d img sums to the output size.
  close(jax.grad(lambda x: f(x).sum())(img).sum(), 2 * 9 * 4 * 3, 1e-3)
  per = jax.vmap(lambda x: jax.image.resize(x, (9, 4, 3), "linear"))(img)
  close(per, f(img))
  with pytest.raises(ValueError, match="Unknown resize method"):
    jax.image.resize(img, (2, 9, 4, 3), "bogus")
  with pytest.raises(ValueError, match="shape must have length"):
    jax.image.resize(img, (9, 4), "linear")
