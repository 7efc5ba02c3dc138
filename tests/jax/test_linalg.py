"""jax.lax.linalg, jax.numpy.linalg and jax.scipy.linalg against numpy/scipy,
derivatives against finite differences, batching against a Python loop."""

import contextlib
import warnings

import numpy as np
import pytest
import scipy.linalg

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
from jax import lax

RNG = np.random.default_rng(0)


def _rand(*shape, dtype=np.float64):
  x = RNG.standard_normal(shape)
  if np.issubdtype(dtype, np.complexfloating):
    x = x + 1j * RNG.standard_normal(shape)
  return x.astype(dtype)


def _spd(n, batch=()):
  m = _rand(*batch, n, n)
  return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


def _well_conditioned(n, batch=()):
  return _rand(*batch, n, n) + 4 * np.eye(n)


class _x64:
  """Turns on 64-bit types for the block."""


  def __enter__(self):
    self.old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)

  def __exit__(self, *exc):
    jax.config.update("jax_enable_x64", self.old)


def _numerical_grad(f, x, eps=1e-3):
  x = np.asarray(x, np.float64)
  g = np.zeros_like(x)
  for idx in np.ndindex(x.shape):
    d = np.zeros_like(x)
    d[idx] = eps
    g[idx] = (f(x + d) - f(x - d)) / (2 * eps)
  return g


def test_cholesky_matches_numpy_and_zeroes_upper():
  a = _spd(4, (2,)).astype(np.float32)
  l = jnp.linalg.cholesky(a)
  np.testing.assert_allclose(l, np.linalg.cholesky(a), rtol=1e-4, atol=1e-5)
  u = jnp.linalg.cholesky(a, upper=True)
  np.testing.assert_allclose(u, np.swapaxes(np.linalg.cholesky(a), -1, -2), rtol=1e-4, atol=1e-5)


def test_cholesky_not_positive_definite_is_nan():
  assert np.all(np.isnan(jnp.linalg.cholesky(-np.eye(3, dtype=np.float32))))


def test_cholesky_rejects_non_square():
  with pytest.raises(ValueError, match=r"must have shape \[..., n, n\]"):
    jnp.linalg.cholesky(jnp.ones((2, 3)))


def test_solve_inv_det_slogdet():
  a = _well_conditioned(4).astype(np.float32)
  b = _rand(4, 2).astype(np.float32)
  np.testing.assert_allclose(jnp.linalg.solve(a, b), np.linalg.solve(a, b), rtol=1e-4, atol=1e-5)
  np.testing.assert_allclose(jnp.linalg.solve(a, b[:, 0]), np.linalg.solve(a, b[:, 0]),
                             rtol=1e-4, atol=1e-5)
  np.testing.assert_allclose(jnp.linalg.inv(a), np.linalg.inv(a), rtol=1e-4, atol=1e-5)
  np.testing.assert_allclose(jnp.linalg.det(a), np.linalg.det(a), rtol=1e-4)
  sign, logdet = jnp.linalg.slogdet(a)
  ref_sign, ref_logdet = np.linalg.slogdet(a)
  np.testing.assert_allclose(sign, ref_sign)
  np.testing.assert_allclose(logdet, ref_logdet, rtol=1e-4)


def test_det_of_permutation_and_singular():
  p = np.array([[0., 1., 0.], [1., 0., 0.], [0., 0., 1.]], np.float32)
  assert float(jnp.linalg.det(p)) == -1.0
  sign, logdet = jnp.linalg.slogdet(np.zeros((3, 3), np.float32))
  assert float(sign) == 0.0 and float(logdet) == -np.inf
  assert jnp.linalg.det(jnp.array([[1, 2], [3, 4]])).dtype == jnp.float32


def test_batched_solve_broadcasts_batch_dims():
  a = _well_conditioned(3, (2, 1)).astype(np.float32)
  b = _rand(4, 3, 2).astype(np.float32)
  np.testing.assert_allclose(jnp.linalg.solve(a, b), np.linalg.solve(a, b), rtol=1e-4, atol=1e-5)


def test_lu_reconstructs_with_permutation():
  a = _rand(4, 4).astype(np.float32)
  packed, pivots, perm = lax.linalg.lu(a)
  l = np.tril(packed, -1) + np.eye(4)
  u = np.triu(packed)
  np.testing.assert_allclose(l @ u, a[np.asarray(perm)], rtol=1e-4, atol=1e-5)
  ref_lu, ref_piv = scipy.linalg.lu_factor(a)
  np.testing.assert_array_equal(pivots, ref_piv)
  np.testing.assert_allclose(packed, ref_lu, rtol=1e-4, atol=1e-5)


def test_scipy_lu_and_lu_solve():
  a = _well_conditioned(4)
  b = _rand(4)
  with _x64():
    p, l, u = jsl.lu(a)
    np.testing.assert_allclose(np.asarray(p) @ np.asarray(l) @ np.asarray(u), a, atol=1e-10)
    factors = jsl.lu_factor(a)
    for trans in (0, 1):
      np.testing.assert_allclose(jsl.lu_solve(factors, b, trans=trans),
                                 scipy.linalg.lu_solve(scipy.linalg.lu_factor(a), b, trans=trans),
                                 rtol=1e-10)


def test_qr_modes_and_invariants():
  a = _rand(5, 3).astype(np.float32)
  q, r = jnp.linalg.qr(a)
  assert q.shape == (5, 3) and r.shape == (3, 3)
  np.testing.assert_allclose(q @ r, a, rtol=1e-4, atol=1e-5)
  np.testing.assert_allclose(q.T @ q, np.eye(3), atol=1e-5)
  np.testing.assert_allclose(np.abs(np.diag(r)), np.abs(np.diag(np.linalg.qr(a)[1])), rtol=1e-4)
  qc, rc = jnp.linalg.qr(a, mode="complete")
  assert qc.shape == (5, 5) and rc.shape == (5, 3)
  np.testing.assert_allclose(qc @ rc, a, rtol=1e-4, atol=1e-5)
  assert jnp.linalg.qr(a, mode="r").shape == (3, 3)
  with pytest.raises(ValueError, match="Unsupported QR decomposition mode 'bad'"):
    jnp.linalg.qr(a, mode="bad")


def test_eigh_and_eigvalsh():
  a = _spd(4).astype(np.float32)
  w, v = jnp.linalg.eigh(a)
  np.testing.assert_allclose(w, np.linalg.eigvalsh(a), rtol=1e-4)
  np.testing.assert_allclose((v * w) @ v.T, a, rtol=1e-4, atol=1e-4)
  np.testing.assert_allclose(jnp.linalg.eigvalsh(a), np.linalg.eigvalsh(a), rtol=1e-4)


def test_complex_eigh_and_cholesky():
  with _x64():
    m = _rand(3, 3, dtype=np.complex128)
    a = m @ m.conj().T + 3 * np.eye(3)
    w, v = jnp.linalg.eigh(a)
    np.testing.assert_allclose(w, np.linalg.eigvalsh(a), rtol=1e-10)
    np.testing.assert_allclose(jnp.linalg.cholesky(a), np.linalg.cholesky(a), rtol=1e-10)


def test_svd_modes():
  a = _rand(2, 4, 3).astype(np.float32)
  u, s, vh = jnp.linalg.svd(a, full_matrices=False)
  np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-4)
  np.testing.assert_allclose((u * s[..., None, :]) @ vh, a, rtol=1e-4, atol=1e-5)
  uf, sf, vhf = jnp.linalg.svd(a)
  assert uf.shape == (2, 4, 4) and vhf.shape == (2, 3, 3)
  np.testing.assert_allclose(jnp.linalg.svd(a, compute_uv=False), s, rtol=1e-5)


def test_rank_pinv_lstsq():
  a = np.array([[1., 2.], [2., 4.], [0., 1.]], np.float32)
  assert int(jnp.linalg.matrix_rank(a)) == 2
  assert int(jnp.linalg.matrix_rank(np.outer([1., 2.], [3., 4.]).astype(np.float32))) == 1
  np.testing.assert_allclose(jnp.linalg.pinv(a), np.linalg.pinv(a), rtol=1e-4, atol=1e-5)
  b = np.array([1., 2., 3.], np.float32)
  x, _, rank, s = jnp.linalg.lstsq(a, b)
  np.testing.assert_allclose(x, np.linalg.lstsq(a, b, rcond=None)[0], rtol=1e-4, atol=1e-5)


def test_matrix_power():
  sq = _well_conditioned(3).astype(np.float32)
  np.testing.assert_allclose(jnp.linalg.matrix_power(sq, 3), np.linalg.matrix_power(sq, 3),
                             rtol=1e-4)
  np.testing.assert_allclose(jnp.linalg.matrix_power(sq, -2), np.linalg.matrix_power(sq, -2),
                             rtol=1e-3, atol=1e-5)


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
def test_matrix_norms(ord):
  a = _rand(3, 4).astype(np.float32)
  np.testing.assert_allclose(jnp.linalg.norm(a, ord=ord), np.linalg.norm(a, ord=ord), rtol=1e-4)


@pytest.mark.parametrize("ord", [None, 0, 1, 2, 3, np.inf, -np.inf])
def test_vector_norms(ord):
  x = _rand(2, 5).astype(np.float32)
  np.testing.assert_allclose(jnp.linalg.norm(x, ord=ord, axis=1, keepdims=True),
                             np.linalg.norm(x, ord=ord, axis=1, keepdims=True), rtol=1e-4)


def test_norm_errors():
  with pytest.raises(ValueError, match="Invalid order 'fro' for vector norm"):
    jnp.linalg.norm(jnp.ones(3), ord="fro")
  with pytest.raises(ValueError, match="Invalid order '3' for matrix norm"):
    jnp.linalg.norm(jnp.ones((2, 2)), ord=3)
  with pytest.raises(ValueError, match="Improper number of axes for norm"):
    jnp.linalg.norm(jnp.ones((2, 2, 2)), ord=2)


def test_array_api_helpers():
  a = np.arange(12.0, dtype=np.float32).reshape(2, 2, 3) - 5
  np.testing.assert_allclose(jnp.linalg.vector_norm(a), np.linalg.norm(a.ravel()), rtol=1e-6)
  np.testing.assert_allclose(jnp.linalg.matrix_norm(a[..., :2]),
                             np.linalg.norm(a[..., :2], axis=(-2, -1)), rtol=1e-6)
  np.testing.assert_allclose(jnp.linalg.trace(a[..., :2]), np.trace(a[..., :2], axis1=-2, axis2=-1))
  np.testing.assert_allclose(jnp.linalg.matrix_transpose(a), np.swapaxes(a, -1, -2))
  with pytest.raises(ValueError, match="one-dimensional"):
    jnp.linalg.outer(a, a)


def test_scipy_cho_solve_and_solve_triangular():
  a = _spd(4).astype(np.float32)
  b = _rand(4, 2).astype(np.float32)
  for lower in (True, False):
    c = jsl.cho_factor(a, lower=lower)
    np.testing.assert_allclose(jsl.cho_solve(c, b), np.linalg.solve(a, b), rtol=1e-3, atol=1e-5)
  l = np.linalg.cholesky(a)
  for trans in (0, 1, "C"):
    np.testing.assert_allclose(jsl.solve_triangular(l, b[:, 0], lower=True, trans=trans),
                               scipy.linalg.solve_triangular(l, b[:, 0], lower=True, trans=trans),
                               rtol=1e-4, atol=1e-5)
  np.testing.assert_allclose(jsl.solve(a, b, assume_a="pos"), np.linalg.solve(a, b), rtol=1e-3)
  np.testing.assert_allclose(jsl.cholesky(a), scipy.linalg.cholesky(a), rtol=1e-4, atol=1e-5)


def test_triangular_solve_right_side_unit_diagonal():
  a = np.tril(_rand(3, 3)) + 3 * np.eye(3)
  b = _rand(2, 3)
  x = lax.linalg.triangular_solve(a.astype(np.float32), b.astype(np.float32), left_side=False,
                                  lower=True, unit_diagonal=True)
  unit = np.tril(a, -1) + np.eye(3)
  np.testing.assert_allclose(np.asarray(x) @ unit, b, rtol=1e-4, atol=1e-5)


def test_grad_cholesky_logdet_matches_finite_differences():
  a0 = _spd(3)

  def f(a):
    return jnp.sum(jnp.log(jnp.diag(jnp.linalg.cholesky(a))))

  with _x64():
    g = jax.grad(f)(a0)
    num = _numerical_grad(lambda a: float(f(a)), a0, 1e-5)
  np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-7)


_GRAD_CASES = {
    "solve": lambda a: jnp.sum(jnp.linalg.solve(a, jnp.arange(3.0))),
    "det": lambda a: jnp.linalg.det(a),
    "eigh": lambda a: (jnp.sum(jnp.linalg.eigh(a + a.T)[0] ** 2)
                       + jnp.linalg.eigh(a + a.T)[1][0, 0] ** 2),
    "qr": lambda a: jnp.sum(jnp.linalg.qr(a)[0] ** 3) + jnp.sum(jnp.linalg.qr(a)[1]),
    "svd": lambda a: jnp.sum(jnp.linalg.svd(a, compute_uv=False) ** 3),
    "svd_uv": lambda a: jnp.sum(jnp.abs(jnp.linalg.svd(a[:, :2], full_matrices=False)[0])),
    "solve_triangular": lambda a: jnp.sum(jsl.solve_triangular(a, a[:, 0] ** 2, lower=True)),
}


@pytest.mark.parametrize("name", sorted(_GRAD_CASES))
def test_grad_matches_finite_differences(name):
  f = _GRAD_CASES[name]
  a0 = _well_conditioned(3)
  with _x64():
    g = jax.grad(f)(a0)
    num = _numerical_grad(lambda a: float(f(a)), a0, 1e-6)
  np.testing.assert_allclose(g, num, rtol=1e-4, atol=1e-6)


def test_vmap_matches_loop():
  a = _spd(3, (2,)).astype(np.float32)
  out = jax.vmap(jnp.linalg.cholesky)(a)
  for i in range(2):
    np.testing.assert_allclose(out[i], np.linalg.cholesky(a[i]), rtol=1e-4, atol=1e-5)
  b = _rand(3, 2).astype(np.float32)
  x = jax.vmap(jnp.linalg.solve, in_axes=(0, None))(a, b)
  np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-4, atol=1e-5)
  s = jax.vmap(lambda m: jnp.linalg.svd(m, compute_uv=False), in_axes=1)(np.swapaxes(a, 0, 1))
  np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-4)


def test_empty_matrices():
  assert float(jnp.linalg.det(jnp.ones((0, 0)))) == 1.0
  assert jnp.linalg.svd(jnp.ones((3, 0)), compute_uv=False).shape == (0,)
  u, s, vh = jnp.linalg.svd(jnp.ones((3, 0)))
  np.testing.assert_array_equal(u, np.eye(3))
  assert jnp.linalg.eigvalsh(jnp.ones((0, 0))).shape == (0,)


def test_unsupported_dtype_is_a_clear_error():
  with pytest.raises(TypeError, match="floating-point or complex"):
    lax.linalg.cholesky(jnp.eye(2, dtype=jnp.int32), symmetrize_input=False)
  with pytest.raises(NotImplementedError, match="float16"):
    jax.jit(lambda x: lax.linalg.qr(x)).lower(jnp.eye(2, dtype=jnp.float16)).as_text()


def test_hlo_uses_lapack_custom_calls():
  text = jax.jit(jnp.linalg.eigh).lower(jnp.eye(3)).as_text()
  assert 'custom_call_target="lapack_ssyevd_ffi"' in text
  assert "backend_config={mode = 86 : ui8, uplo = 76 : ui8}" in text


# The text real JAX prints for lax.linalg.lu on CPU (trimmed to the custom call):
# column-major operand layouts, typed-FFI attributes, output aliasing.
_GETRF_HLO = """HloModule jit_lu, entry_computation_layout={(f32[2,3,3]{2,1,0})->(f32[2,3,3]{2,1,0}, s32[2,3]{1,0}, s32[2]{0})}

ENTRY main.1 {
  x.1 = f32[2,3,3]{2,1,0} parameter(0)
  lu.1 = (f32[2,3,3]{1,2,0}, s32[2,3]{1,0}, s32[2]{0}) custom-call(x.1), custom_call_target="lapack_sgetrf_ffi", operand_layout_constraints={f32[2,3,3]{1,2,0}}, output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, frontend_attributes={num_batch_dims="1"}, backend_config={}
  lu.2 = f32[2,3,3]{1,2,0} get-tuple-element(lu.1), index=0
  lu.3 = s32[2,3]{1,0} get-tuple-element(lu.1), index=1
  lu.4 = s32[2]{0} get-tuple-element(lu.1), index=2
  ROOT tuple.1 = (f32[2,3,3]{2,1,0}, s32[2,3]{1,0}, s32[2]{0}) tuple(lu.2, lu.3, lu.4)
}
"""


def test_hlo_text_custom_call_runs_on_the_cpu_plugin():
  from jaxlib import xla_client
  client = xla_client.make_cpu_client()
  dev = client.devices()[0]
  a = _rand(2, 3, 3).astype(np.float32)
  a[1] = [[1, 2, 3], [2, 4, 6], [1, 0, 1]]  # singular: info reports the zero pivot
  exe = client.compile_and_load(_GETRF_HLO, [dev])
  lu, ipiv, info = [np.asarray(o) for o in exe.execute([client.buffer_from_pyval(a, dev)])]
  for i in range(2):
    with warnings.catch_warnings():
      warnings.simplefilter("ignore", scipy.linalg.LinAlgWarning)  # a[1] is singular on purpose
      ref_lu, ref_piv = scipy.linalg.lu_factor(a[i], check_finite=False)
    np.testing.assert_allclose(lu[i], ref_lu, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(ipiv[i], ref_piv + 1)  # LAPACK's 1-based pivots
  assert info[0] == 0 and info[1] == 3


def test_unknown_custom_call_target_is_a_compile_error():
  from jaxlib import xla_client
  client = xla_client.make_cpu_client()
  text = _GETRF_HLO.replace("lapack_sgetrf_ffi", "lapack_sgetrf_nope")
  with pytest.raises(Exception, match='target "lapack_sgetrf_nope" is not registered'):
    client.compile_and_load(text, client.devices()[:1])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_matmul_einsum_and_grad(dtype):
  tol = 1e-5 if dtype == np.complex64 else 1e-12
  with _x64() if dtype == np.complex128 else contextlib.nullcontext():
    a, b = _rand(3, 4, dtype=dtype), _rand(4, 5, dtype=dtype)
    np.testing.assert_allclose(np.asarray(jnp.matmul(a, b)), a @ b, rtol=tol, atol=tol)
    np.testing.assert_allclose(np.asarray(jax.jit(jnp.dot)(a, b)), a @ b, rtol=tol, atol=tol)
    x = _rand(2, 3, 3, dtype=dtype)
    np.testing.assert_allclose(np.asarray(jnp.einsum("bij,bjk->bik", x, x)),
                               np.einsum("bij,bjk->bik", x, x), rtol=tol, atol=tol)
    # grad of real(sum(a @ b)) is the row sums of b on every row (what real JAX 0.10.2 gives).
    g = jax.grad(lambda a: jnp.real(jnp.sum(a @ b)))(a)
    np.testing.assert_allclose(np.asarray(g), np.broadcast_to(b.sum(1), a.shape),
                               rtol=tol, atol=tol)


@pytest.mark.parametrize("n", [128, 256, 512])
def test_svd_of_a_constant_matrix(n):
  # Rank 1 with n - 1 equal (zero) singular values: the divide-and-conquer SVD broke
  # on these (a crash at 128, NaNs at 512) while the executable flushes denormals.
  a = np.full((n, n), 0.1, np.float32)
  u, s, vh = jax.jit(lambda a: jnp.linalg.svd(a, full_matrices=False))(a)
  assert np.isfinite(np.asarray(u)).all() and np.isfinite(np.asarray(vh)).all()
  np.testing.assert_allclose(s[0], 0.1 * n, rtol=1e-5)
  np.testing.assert_allclose(s[1:], 0, atol=1e-4)
  np.testing.assert_allclose((np.asarray(u) * np.asarray(s)) @ np.asarray(vh), a, atol=1e-4)
  # As a cond branch taken eagerly (optax's GaLore projector).
  top = jax.lax.cond(True, lambda: jnp.linalg.svd(a, full_matrices=False)[0][:, :4],
                     lambda: jnp.zeros((n, 4)))
  np.testing.assert_allclose(np.abs(top[:, 0]), 1 / np.sqrt(n), rtol=1e-4)
