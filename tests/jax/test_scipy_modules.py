"""jax.scipy.{linalg matrices and functions, fft, signal, optimize, integrate, cluster}
and jax.ops segment reductions, checked against SciPy / NumPy."""

import numpy as np
import pytest
import scipy.cluster.vq as sp_vq
import scipy.fft as sp_fft
import scipy.integrate as sp_integrate
import scipy.linalg as sl
import scipy.signal as ss

import jax
import jax.numpy as jnp
import jax.ops
import jax.scipy as jsp
import jax.scipy.linalg as jl

RNG = np.random.default_rng(0)


def close(a, b, tol=1e-5):
  np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


# ----------------------------------------------------------------------------- special matrices


def test_toeplitz_circulant_hankel_match_scipy():
  c, r = np.array([1., 2., 3.]), np.array([9., 4., 5., 6.])
  close(jl.toeplitz(c, r), sl.toeplitz(c, r))
  close(jl.toeplitz([1, 2 + 1j, 3.]), sl.toeplitz([1, 2 + 1j, 3.]))
  close(jl.circulant(c), sl.circulant(c))
  close(jl.hankel(c, r), sl.hankel(c, r))
  close(jl.hankel(c), sl.hankel(c))
  batched = jl.toeplitz(np.stack([c, 2 * c]))
  assert batched.shape == (2, 3, 3)
  close(batched[1], sl.toeplitz(2 * c))


def test_toeplitz_traces_and_differentiates():
  g = jax.grad(lambda c: jl.toeplitz(c).sum())(jnp.array([1., 2., 3.]))
  # c[k] appears on the k-th sub- and super-diagonal: 3 - k times each, once for k=0.
  close(g, [3., 4., 2.])
  close(jax.jit(jl.toeplitz)(jnp.array([1., 2.]), jnp.array([1., 5.])), [[1, 5], [2, 1]])


def test_block_diag():
  out = jl.block_diag(np.ones((2, 2)), 3., np.arange(3))
  close(out, sl.block_diag(np.ones((2, 2)), 3., np.arange(3)))
  assert out.dtype == jnp.float32
  with pytest.raises(ValueError, match="two or fewer dimensions"):
    jl.block_diag(np.ones((2, 2, 2)))


@pytest.mark.parametrize("k", [2, 3, 4, 5, 7])
def test_companions_and_fiedler(k):
  a = np.arange(1., k + 1.)
  close(jl.companion(a), sl.companion(a))
  close(jl.fiedler_companion(a), sl.fiedler_companion(a))
  close(jl.fiedler(a), sl.fiedler(a))


@pytest.mark.parametrize("m,n", [(3, 5), (5, 3), (4, 4), (1, 3)])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolution_matrix(m, n, mode):
  a = np.arange(1., m + 1.)
  mat = jl.convolution_matrix(a, n, mode)
  close(mat, sl.convolution_matrix(a, n, mode))
  v = RNG.normal(size=n)
  close(mat @ v, np.convolve(a, v, mode), 1e-4)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_static_size_matrices(n):
  close(jl.dft(n, "sqrtn"), sl.dft(n, "sqrtn"))
  close(jl.helmert(n, True), sl.helmert(n, True))
  close(jl.helmert(n), sl.helmert(n))
  close(jl.hilbert(n), sl.hilbert(n))
  close(jl.invhilbert(n), sl.invhilbert(n), 1e-3)
  np.testing.assert_array_equal(jl.invhilbert(n, exact=True), sl.invhilbert(n, exact=True))
  for kind in ("symmetric", "lower", "upper"):
    np.testing.assert_array_equal(jl.pascal(n, kind), sl.pascal(n, kind))
    np.testing.assert_array_equal(jl.invpascal(n, kind), sl.invpascal(n, kind))


def test_hadamard_and_leslie():
  np.testing.assert_array_equal(jl.hadamard(8), sl.hadamard(8))
  with pytest.raises(ValueError, match="power of 2"):
    jl.hadamard(6)
  f, s = [0.1, 2, 1, 0.1], [0.2, 0.8, 0.7]
  close(jl.leslie(f, s), sl.leslie(f, s))
  with pytest.raises(ValueError, match="one less"):
    jl.leslie(f, f)


# ----------------------------------------------------------------------------- matrix functions


@pytest.mark.parametrize("scale", [0.01, 0.5, 3.0, 30.0])
def test_expm_matches_scipy_across_pade_degrees(scale):
  a = RNG.normal(size=(4, 4)) * scale
  ref = sl.expm(a)
  np.testing.assert_allclose(jl.expm(a), ref, rtol=2e-5 * max(1, scale),
                             atol=2e-5 * np.abs(ref).max())


def test_expm_jit_vmap_and_grad_is_frechet():
  a = RNG.normal(size=(3, 3)).astype(np.float32)
  close(jax.jit(jl.expm)(a), sl.expm(a), 1e-5)
  batch = jl.expm(np.stack([a, 2 * a]))
  close(batch[1], sl.expm(2 * a), 1e-4)
  e = RNG.normal(size=(3, 3))
  expm_a, frechet = jl.expm_frechet(a, e)
  ref_a, ref_f = sl.expm_frechet(a, e)
  close(expm_a, ref_a, 1e-4)
  close(frechet, ref_f, 1e-4)
  # d/dA sum(expm(A)) = L(A^T, ones): the adjoint of the Frechet derivative.
  grad = jax.grad(lambda x: jl.expm(x).sum())(a)
  close(grad, sl.expm_frechet(a.T, np.ones((3, 3)), compute_expm=False), 1e-4)


def test_polar_sylvester_qr_multiply_eigh_tridiagonal():
  a = RNG.normal(size=(4, 3))
  for side in ("right", "left"):
    u, p = jl.polar(a, side)
    ru, rp = sl.polar(a, side)
    close(u, ru, 1e-4)
    close(p, rp, 1e-4)
  a, b, q = RNG.normal(size=(3, 3)), RNG.normal(size=(2, 2)), RNG.normal(size=(3, 2))
  close(jl.solve_sylvester(a, b, q), sl.solve_sylvester(a, b, q), 1e-4)
  m, c = RNG.normal(size=(5, 3)), RNG.normal(size=(4, 5))
  out, r = jl.qr_multiply(m, c)
  ref_out, ref_r = sl.qr_multiply(m, c)
  # Q and R are unique up to the signs of R's diagonal.
  signs = np.sign(np.diag(ref_r)) * np.sign(np.diag(np.asarray(r)))
  close(np.asarray(out) * signs, ref_out, 1e-4)
  d, e = RNG.normal(size=5), RNG.normal(size=4)
  close(jl.eigh_tridiagonal(d, e, eigvals_only=True),
        sl.eigh_tridiagonal(d, e, eigvals_only=True), 1e-4)
  with pytest.raises(NotImplementedError):
    jl.eigh_tridiagonal(d, e)


# ----------------------------------------------------------------------------- fft


@pytest.mark.parametrize("n", [1, 2, 5, 8])
@pytest.mark.parametrize("norm", [None, "ortho"])
def test_dct_idct_match_scipy(n, norm):
  x = RNG.normal(size=(3, n)).astype(np.float32)
  close(jsp.fft.dct(x, norm=norm), sp_fft.dct(x, norm=norm), 1e-4)
  close(jsp.fft.idct(x, norm=norm), sp_fft.idct(x, norm=norm), 1e-4)
  close(jsp.fft.idct(jsp.fft.dct(x, norm=norm), norm=norm), x, 1e-4)


def test_dctn_sizes_axes_and_transforms():
  x = RNG.normal(size=(4, 5, 6)).astype(np.float32)
  close(jsp.fft.dctn(x), sp_fft.dctn(x), 1e-3)
  close(jsp.fft.idctn(x, norm="ortho", axes=(0, 2)), sp_fft.idctn(x, norm="ortho", axes=(0, 2)))
  close(jsp.fft.dct(x, n=8, axis=1), sp_fft.dct(x, n=8, axis=1), 1e-4)
  close(jsp.fft.dctn(x, s=(3, 7)), sp_fft.dctn(x, s=(3, 7)), 1e-4)
  close(jax.jit(jsp.fft.dct)(x), sp_fft.dct(x), 1e-4)
  # dct is linear: its gradient of sum is the row sums of the DCT matrix.
  close(jax.grad(lambda v: jsp.fft.dct(v).sum())(x[0, 0]), sp_fft.dct(np.eye(6)).sum(1), 1e-4)
  with pytest.raises(NotImplementedError):
    jsp.fft.dct(x, type=3)


# ----------------------------------------------------------------------------- signal


@pytest.mark.parametrize("s1,s2", [((7,), (3,)), ((3,), (7,)), ((5, 6), (2, 3)),
                                   ((4, 5, 3), (2, 2, 2))])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_correlate_fftconvolve(s1, s2, mode):
  a = RNG.normal(size=s1).astype(np.float32)
  b = RNG.normal(size=s2).astype(np.float32)
  close(jsp.signal.convolve(a, b, mode), ss.convolve(a, b, mode), 1e-4)
  close(jsp.signal.correlate(a, b, mode), ss.correlate(a, b, mode), 1e-4)
  close(jsp.signal.fftconvolve(a, b, mode), ss.fftconvolve(a, b, mode), 1e-4)


def test_signal_complex_2d_axes_and_transforms():
  a = RNG.normal(size=5) + 1j * RNG.normal(size=5)
  b = RNG.normal(size=3) + 1j * RNG.normal(size=3)
  close(jsp.signal.correlate(a, b), ss.correlate(a, b), 1e-4)
  close(jsp.signal.fftconvolve(a, b, "same"), ss.fftconvolve(a, b, "same"), 1e-4)
  a2, b2 = RNG.normal(size=(6, 7)), RNG.normal(size=(3, 2))
  close(jsp.signal.convolve2d(a2, b2, "same"), ss.convolve2d(a2, b2, "same"), 1e-4)
  close(jsp.signal.correlate2d(a2, b2, "valid"), ss.correlate2d(a2, b2, "valid"), 1e-4)
  x, y = RNG.normal(size=(3, 8)), RNG.normal(size=(3, 4))
  close(jsp.signal.fftconvolve(x, y, axes=1), ss.fftconvolve(x, y, axes=1), 1e-4)
  grad = jax.grad(lambda u: jsp.signal.convolve(u, b2).sum())(jnp.asarray(a2, jnp.float32))
  close(grad, np.full(a2.shape, b2.sum()), 1e-4)
  with pytest.raises(ValueError, match="mode"):
    jsp.signal.convolve(a2, b2, "bogus")
  with pytest.raises(NotImplementedError):
    jsp.signal.convolve2d(a2, b2, boundary="wrap")


@pytest.mark.parametrize("bp", [0, [5, 12]])
def test_detrend(bp):
  x = RNG.normal(size=(3, 20)) + np.arange(20)
  close(jsp.signal.detrend(x, bp=bp), ss.detrend(x, bp=bp), 1e-4)
  close(jsp.signal.detrend(x.T, axis=0, type="constant"), ss.detrend(x.T, axis=0, type="constant"),
        1e-4)


# ----------------------------------------------------------------------------- optimize


def _rosen(x):
  return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def test_minimize_bfgs_finds_rosenbrock_minimum():
  res = jsp.optimize.minimize(_rosen, jnp.array([-1.2, 1.0]), method="BFGS")
  assert isinstance(res, jsp.optimize.OptimizeResults)
  assert bool(res.success) and int(res.status) == 0
  close(res.x, [1.0, 1.0], 1e-3)
  assert float(res.fun) < 1e-6
  assert 0 < int(res.nit) < 200


def test_minimize_args_jit_vmap():
  def q(x, a):
    return jnp.sum((x - a) ** 2) + x[0] * x[1]

  # Stationary point: 2(x0 - a0) + x1 = 0, 2(x1 - a1) + x0 = 0.
  def exact(a):
    return np.linalg.solve([[2., 1., 0], [1., 2., 0], [0, 0, 2.]], 2 * np.asarray(a))

  solve = lambda a: jsp.optimize.minimize(q, jnp.zeros(3), (a,), method="BFGS").x
  close(jax.jit(solve)(jnp.array([1., 2., 3.])), exact([1., 2., 3.]), 1e-4)
  batch = jax.vmap(solve)(jnp.array([[1., 2., 3.], [0., 1., 0.]]))
  close(batch[1], exact([0., 1., 0.]), 1e-4)
  with pytest.raises(ValueError, match="not recognized"):
    jsp.optimize.minimize(q, jnp.zeros(3), (1.0,), method="Nelder-Mead")


# ----------------------------------------------------------------------------- small modules


def test_trapezoid_and_vq():
  y, x = RNG.normal(size=(3, 5)), np.sort(RNG.normal(size=5))
  close(jsp.integrate.trapezoid(y, x), sp_integrate.trapezoid(y, x))
  close(jsp.integrate.trapezoid(y, dx=0.5, axis=0), sp_integrate.trapezoid(y, dx=0.5, axis=0))
  obs, book = RNG.normal(size=(10, 3)), RNG.normal(size=(4, 3))
  code, dist = jsp.cluster.vq.vq(obs, book)
  ref_code, ref_dist = sp_vq.vq(obs, book)
  np.testing.assert_array_equal(code, ref_code)
  close(dist, ref_dist)


def test_segment_reductions():
  data = jnp.arange(12.).reshape(6, 2)
  ids = jnp.array([0, 2, 2, 0, 5, 1])

  def ref(op, init, n):
    out = np.full((n, 2), init)
    for row, i in zip(np.asarray(data), np.asarray(ids)):
      if i < n:
        out[i] = op(out[i], row)
    return out

  close(jax.ops.segment_sum(data, ids, 4), ref(np.add, 0., 4))
  close(jax.ops.segment_prod(data, ids, 3), ref(np.multiply, 1., 3))
  close(jax.ops.segment_max(data, ids), ref(np.maximum, -np.inf, 6))
  close(jax.ops.segment_min(data, ids, 4), ref(np.minimum, np.inf, 4))
  assert int(jax.ops.segment_min(jnp.arange(6), ids, 4)[3]) == np.iinfo(np.int32).max
  close(jax.jit(jax.ops.segment_sum, static_argnums=2)(data, ids, 3), ref(np.add, 0., 3))
  grad = jax.grad(lambda d: jax.ops.segment_max(d, ids, 3).sum())(data)
  close(grad, [[0, 0], [0, 0], [1, 1], [1, 1], [0, 0], [1, 1]])
  assert jax.vmap(lambda d: jax.ops.segment_sum(d, ids, 3))(jnp.stack([data, data])).shape == (
      2, 3, 2)
  with pytest.raises(ValueError, match="num_segments must be given"):
    jax.jit(jax.ops.segment_sum)(data, ids)


# ----------------------------------------------------------------------------- sparse.linalg


def test_krylov_solvers():
  import jax.scipy.sparse.linalg as sla
  b_mat = RNG.normal(size=(6, 6)).astype(np.float32)
  spd = b_mat @ b_mat.T + 6 * np.eye(6, dtype=np.float32)
  general = RNG.normal(size=(6, 6)).astype(np.float32) + 4 * np.eye(6, dtype=np.float32)
  b = RNG.normal(size=6).astype(np.float32)
  ref_spd, ref_gen = np.linalg.solve(spd, b), np.linalg.solve(general, b)
  close(sla.cg(spd, b)[0], ref_spd, 1e-4)
  close(sla.cg(lambda x: spd @ x, b, M=np.diag(1 / np.diag(spd)))[0], ref_spd, 1e-4)
  close(sla.bicgstab(general, b)[0], ref_gen, 1e-4)
  close(sla.gmres(general, b)[0], ref_gen, 1e-4)
  close(sla.gmres(general, b, restart=3)[0], ref_gen, 1e-4)
  close(jax.jit(lambda v: sla.gmres(general, v)[0])(b), ref_gen, 1e-4)
  close(jax.vmap(lambda v: sla.cg(spd, v)[0])(np.stack([b, 2 * b]))[1], 2 * ref_spd, 1e-4)
  with pytest.raises(ValueError, match="square"):
    sla.cg(np.ones((2, 3)), b)


# ----------------------------------------------------------------------------- ndimage


@pytest.mark.parametrize("mode,scipy_mode", [("constant", "grid-constant"), ("nearest", "nearest"),
                                             ("wrap", "grid-wrap"), ("mirror", "mirror"),
                                             ("reflect", "reflect")])
@pytest.mark.parametrize("order", [0, 1])
def test_map_coordinates_modes(mode, scipy_mode, order):
  import scipy.ndimage as sp_nd
  import jax.scipy.ndimage as nd
  img = RNG.normal(size=(4, 5)).astype(np.float32)
  # Coordinates chosen off the half-integers, where order-0 rounding conventions differ.
  coords = [np.linspace(-3, 6, 23).astype(np.float32), np.linspace(-2.7, 7.3, 23).astype(np.float32)]
  ref = sp_nd.map_coordinates(img.astype(np.float64), np.array(coords, np.float64), order=order,
                              mode=scipy_mode, cval=1.5)
  close(nd.map_coordinates(img, coords, order, mode=mode, cval=1.5), ref)


def test_map_coordinates_rounding_jit_grad():
  import jax.scipy.ndimage as nd
  # Recorded from JAX 0.10.2: halves round up, integer results round half up.
  np.testing.assert_array_equal(
      nd.map_coordinates(np.arange(10, dtype=np.int32) * 3, [np.array([0.4, 2.6, 7.5, 8.5])], 1),
      [1, 8, 23, 26])
  close(nd.map_coordinates(np.arange(10.), [np.array([0.5, 1.5, 2.5, 3.5])], 0), [1, 2, 3, 4])
  f = lambda x: nd.map_coordinates(jnp.arange(6.) ** 2, [x], 1)
  close(jax.jit(f)(jnp.array([1.25])), [1 + 0.25 * 3])
  close(jax.grad(lambda x: f(x).sum())(jnp.array([1.25, 3.5])), [3., 7.])
  with pytest.raises(NotImplementedError, match="order"):
    nd.map_coordinates(np.ones(3), [np.zeros(2)], 3)


# ----------------------------------------------------------------------------- interpolate


@pytest.mark.parametrize("method", ["linear", "nearest"])
@pytest.mark.parametrize("fill_value", [np.nan, None])
def test_regular_grid_interpolator(method, fill_value):
  import scipy.interpolate as sp_interp
  import jax.scipy.interpolate as ji
  x, y = np.sort(RNG.random(5)), np.sort(RNG.random(4)) * 3
  values = RNG.normal(size=(5, 4, 2))
  pts = np.stack([RNG.random(10) * 1.2 - 0.1, RNG.random(10) * 3], -1)
  ours = ji.RegularGridInterpolator((x, y), values, method, fill_value=fill_value)(pts)
  ref = sp_interp.RegularGridInterpolator((x, y), values, method, bounds_error=False,
                                          fill_value=fill_value)(pts)
  np.testing.assert_array_equal(np.isnan(ours), np.isnan(ref))
  close(np.nan_to_num(ours), np.nan_to_num(ref), 1e-4)


def test_regular_grid_interpolator_jit_grad():
  import jax.scipy.interpolate as ji
  f = ji.RegularGridInterpolator((np.arange(3.), np.arange(4.)),
                                 np.add.outer(2 * np.arange(3.), 5 * np.arange(4.)))
  pts = jnp.array([[0.5, 1.5], [1.25, 2.0]])
  close(jax.jit(lambda f, p: f(p))(f, pts), [8.5, 12.5])
  # The data is linear (2x + 5y), so the interpolant's gradient is exactly (2, 5).
  close(jax.grad(lambda p: f(p).sum())(pts), [[2., 5.], [2., 5.]])
  with pytest.raises(NotImplementedError):
    ji.RegularGridInterpolator((np.arange(3.),), np.ones(3), bounds_error=True)


# ----------------------------------------------------------------------------- spectral


@pytest.mark.parametrize("kw", [dict(nperseg=16),
                                dict(nperseg=20, noverlap=5, nfft=33, window="hamming",
                                     scaling="spectrum"),
                                dict(nperseg=16, detrend="linear", return_onesided=False)])
def test_csd_welch(kw):
  x = RNG.normal(size=(2, 100)).astype(np.float32)
  y = RNG.normal(size=(2, 100)).astype(np.float32)
  for ours, ref in [(jsp.signal.csd(x, y, **kw), ss.csd(x, y, **kw)),
                    (jsp.signal.welch(x, **kw), ss.welch(x, **kw))]:
    close(ours[0], ref[0])
    assert ours[1].shape == ref[1].shape
    close(ours[1], ref[1], 1e-5)
  f, p = jsp.signal.welch(x.T, nperseg=16, axis=0)
  close(p, ss.welch(x.T, nperseg=16, axis=0)[1])


@pytest.mark.parametrize("kw", [dict(nperseg=16), dict(nperseg=15, noverlap=4, boundary="even"),
                                dict(nperseg=16, boundary=None, padded=False),
                                dict(nperseg=16, boundary="odd", window="blackman", nfft=20)])
def test_stft_istft_roundtrip(kw):
  x = RNG.normal(size=(2, 100)).astype(np.float32)
  f, t, z = jsp.signal.stft(x, **kw)
  rf, rt, rz = ss.stft(x, **kw)
  close(f, rf)
  close(t, rt)
  assert z.shape == rz.shape
  close(z, rz)
  inv_kw = {k: v for k, v in kw.items() if k in ("nperseg", "noverlap", "nfft", "window")}
  if kw.get("boundary", "zeros") is not None:
    _, back = jsp.signal.istft(rz, **inv_kw)
    close(back, ss.istft(rz, **inv_kw)[1])
    close(back[..., :100], x, 1e-5)


def test_spectral_jit_grad_errors():
  x = jnp.asarray(RNG.normal(size=64), jnp.float32)
  close(jax.jit(lambda v: jsp.signal.welch(v, nperseg=16)[1])(x), ss.welch(x, nperseg=16)[1])
  # Power is quadratic: d sum(Pxx) / dx is finite and scales linearly with x.
  g1 = jax.grad(lambda v: jsp.signal.welch(v, nperseg=16)[1].sum())(x)
  g2 = jax.grad(lambda v: jsp.signal.welch(v, nperseg=16)[1].sum())(2 * x)
  close(g2, 2 * g1, 1e-4)
  with pytest.raises(ValueError, match="noverlap"):
    jsp.signal.welch(x, nperseg=16, noverlap=16)
  with pytest.raises(ValueError, match="Unknown window"):
    jsp.signal.stft(x, window="kaiser")


# ----------------------------------------------------------------------------- spatial.transform


def test_rotation_conversions_match_scipy():
  from scipy.spatial.transform import Rotation as SR
  from jax.scipy.spatial.transform import Rotation as R
  q = RNG.normal(size=(5, 4))
  s, r = SR.from_quat(q), R.from_quat(q)
  close(r.as_matrix(), s.as_matrix())
  close(R.from_matrix(s.as_matrix()).as_quat(canonical=True), s.as_quat(canonical=True))
  close(r.as_rotvec(), s.as_rotvec())
  close(R.from_rotvec(s.as_rotvec()).as_quat(True), s.as_quat(True))
  close(r.as_mrp(), s.as_mrp())
  close(R.from_mrp(s.as_mrp()).as_quat(True), s.as_quat(True))
  close(r.as_quat(scalar_first=True), s.as_quat(scalar_first=True))
  for seq in ("xyz", "ZXZ", "yx", "z"):
    a = RNG.normal(size=(3, len(seq)))
    close(R.from_euler(seq, a).as_quat(True), SR.from_euler(seq, a).as_quat(True))
  close(R.from_euler("xyz", [10, 20, 30], degrees=True).as_matrix(),
        SR.from_euler("xyz", [10, 20, 30], degrees=True).as_matrix())
  v = RNG.normal(size=(5, 3))
  close(r.apply(v), s.apply(v))
  close(r.apply(v, inverse=True), s.apply(v, inverse=True))
  close((r * r.inv()[::-1]).as_quat(True), (s * s.inv()[::-1]).as_quat(True))
  close(r.magnitude(), s.magnitude())
  close(r.mean().as_quat(True), s.mean().as_quat(True))
  assert len(r) == 5 and r[0].single
  with pytest.raises(TypeError):
    len(r[0])


def test_slerp_and_transforms():
  from scipy.spatial.transform import Rotation as SR, Slerp as SS
  from jax.scipy.spatial.transform import Rotation as R, Slerp
  q = RNG.normal(size=(5, 4))
  times = np.array([0, 1, 2.5, 3, 4.])
  ours, ref = Slerp.init(times, R.from_quat(q)), SS(times, SR.from_quat(q))
  t = np.array([0, 0.3, 1.7, 2.9, 4.])
  close(ours(t).as_quat(True), ref(t).as_quat(True))
  assert ours(1.5).single
  close(jax.jit(lambda r: r.as_matrix())(R.from_quat(q)), SR.from_quat(q).as_matrix())
  # At the identity d R(v) / dv_k is the cross-product generator, whose entries sum to 0.
  close(jax.grad(lambda v: R.from_rotvec(v).as_matrix().sum())(jnp.zeros(3)), np.zeros(3))
  g = jax.grad(lambda v: R.from_rotvec(v).as_matrix()[1, 0])(jnp.zeros(3))
  close(g, [0., 0., 1.])
  with pytest.raises(ValueError, match="axis specification"):
    R.from_euler("xYz", [1., 2., 3.])
