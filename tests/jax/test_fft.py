"""lax.fft and jax.numpy.fft against numpy.fft, including gradients and norms."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax

RNG = np.random.default_rng(1)
X = RNG.standard_normal((3, 8)).astype(np.float32)
Z = (RNG.standard_normal((3, 8)) + 1j * RNG.standard_normal((3, 8))).astype(np.complex64)


def _close(got, want, tol=1e-4):
  got = np.asarray(got)
  assert got.shape == np.shape(want)
  np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
def test_one_dimensional_transforms(backend, norm):
  _close(jnp.fft.fft(Z, norm=norm), np.fft.fft(Z, norm=norm))
  _close(jnp.fft.ifft(Z, norm=norm), np.fft.ifft(Z, norm=norm))
  _close(jnp.fft.rfft(X, norm=norm), np.fft.rfft(X, norm=norm))
  _close(jnp.fft.irfft(Z, norm=norm), np.fft.irfft(Z, norm=norm))
  _close(jnp.fft.hfft(Z, n=9, norm=norm), np.fft.hfft(Z, n=9, norm=norm))
  _close(jnp.fft.ihfft(X, norm=norm), np.fft.ihfft(X, norm=norm))


def test_lengths_axes_and_dtypes(backend):
  _close(jnp.fft.fft(X, n=10, axis=0), np.fft.fft(X, n=10, axis=0))
  _close(jnp.fft.rfft(X, n=5), np.fft.rfft(X, n=5))
  _close(jnp.fft.irfft(Z, n=7, axis=0), np.fft.irfft(Z, n=7, axis=0))
  assert jnp.fft.fft(X).dtype == np.complex64
  assert jnp.fft.irfft(Z).dtype == np.float32
  assert jnp.fft.fft(np.arange(4)).dtype == np.complex64


def test_multi_dimensional_transforms(backend):
  a = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
  _close(jnp.fft.fft2(a), np.fft.fft2(a))
  _close(jnp.fft.ifft2(a, s=(4, 3)), np.fft.ifft2(a, s=(4, 3)))
  _close(jnp.fft.fftn(a), np.fft.fftn(a))  # four axes: more than one primitive call
  _close(jnp.fft.rfftn(a, axes=(0, 2)), np.fft.rfftn(a, axes=(0, 2)))
  spec = np.fft.rfftn(a)
  _close(jnp.fft.irfftn(spec, s=a.shape), a)
  _close(jnp.fft.irfft2(np.fft.rfft2(a[0]), s=(4, 5)), a[0])


def test_frequencies_and_shifts(backend):
  _close(jnp.fft.fftfreq(8), np.fft.fftfreq(8))
  _close(jnp.fft.fftfreq(7, d=0.25), np.fft.fftfreq(7, d=0.25))
  _close(jnp.fft.rfftfreq(9, d=0.5), np.fft.rfftfreq(9, d=0.5))
  m = np.arange(15).reshape(3, 5)
  np.testing.assert_array_equal(jnp.fft.fftshift(m), np.fft.fftshift(m))
  np.testing.assert_array_equal(jnp.fft.ifftshift(m, axes=1), np.fft.ifftshift(m, axes=1))
  assert jnp.fft.fftshift(jnp.arange(6)).dtype == jnp.arange(6).dtype


def test_lowering_text():
  text = jax.jit(jnp.fft.rfft).lower(jnp.ones((2, 12))).as_text()
  assert "fft(" in text and "fft_type=RFFT" in text and "fft_length={12}" in text
  text = jax.jit(lambda z: lax.fft(z, "IFFT", (4, 6))).lower(jnp.ones((4, 6), jnp.complex64)).as_text()
  assert "fft_type=IFFT, fft_length={4,6}" in text


def test_gradients_match_finite_differences(backend):
  x = X[0].astype(np.float64)
  losses = [lambda v: jnp.sum(jnp.abs(jnp.fft.rfft(v)) ** 2 * jnp.arange(5.0)),
            lambda v: jnp.sum(jnp.sin(jnp.fft.irfft(jnp.fft.rfft(v) * (1 + 0.5j), n=8))),
            lambda v: jnp.sum(jnp.fft.irfft(v[:5] * 1j + v[3:], n=9) ** 2),
            lambda v: jnp.sum(jnp.imag(jnp.fft.fft(v)) * jnp.arange(8.0))]
  for loss in losses:
    g = np.asarray(jax.grad(loss)(x.astype(np.float32)), np.float64)
    eps = 1e-2
    num = [(float(loss((x + eps * e).astype(np.float32))) - float(loss((x - eps * e).astype(np.float32))))
           / (2 * eps) for e in np.eye(8)]
    np.testing.assert_allclose(g, num, rtol=2e-2, atol=2e-2)


def test_vmap_and_jvp(backend):
  _close(jax.vmap(jnp.fft.fft, in_axes=1, out_axes=1)(Z), np.fft.fft(Z, axis=0))
  t = RNG.standard_normal(8).astype(np.float32)
  _, tan = jax.jvp(jnp.fft.rfft, (X[0],), (t,))
  _close(tan, np.fft.rfft(t))


def test_errors():
  with pytest.raises(ValueError, match="Invalid norm"):
    jnp.fft.fft(Z, norm="bogus")
  with pytest.raises(TypeError, match="complex"):
    jnp.fft.rfft(Z)
  with pytest.raises(ValueError, match="FFT data points"):
    jnp.fft.fft(Z, n=0)
  with pytest.raises(ValueError, match="Unknown FFT type"):
    lax.fft(Z, "DCT", (8,))
