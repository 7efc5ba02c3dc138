"""jnp set operations, polynomials and the smaller functions (extras), against NumPy."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import errors

I = np.array([3, 1, 2, 1, 3, 5, 0], np.int32)
F = np.array([1.0, np.nan, 2.0, np.nan, 1.0, -0.5], np.float32)


def _eq(got, want):
  got, want = np.asarray(got), np.asarray(want)
  assert got.shape == want.shape, (got.shape, want.shape)
  np.testing.assert_array_equal(got, want)


# ----------------------------------------------------------------------------- unique & sets


def test_unique_all_outputs_match_numpy(backend):
  got = jnp.unique(I, return_index=True, return_inverse=True, return_counts=True)
  for g, w in zip(got, np.unique(I, True, True, True)):
    _eq(g, w.astype(np.int32))
  _eq(jnp.unique(F), np.unique(F))  # NaNs merge (equal_nan=True)
  assert np.isnan(np.asarray(jnp.unique(F, equal_nan=False))).sum() == 2
  m = np.array([[1, 2], [0, 1], [1, 2]], np.int32)
  vals, inv = jnp.unique(m, axis=0, return_inverse=True)
  wv, wi = np.unique(m, axis=0, return_inverse=True)
  _eq(vals, wv)
  _eq(inv, wi.astype(np.int32))
  _eq(jnp.unique(m, axis=1), np.unique(m, axis=1))
  # axis=None: the inverse has the input's shape, so unique[inverse] rebuilds it.
  v2, inv2 = jnp.unique(m, return_inverse=True)
  _eq(v2[inv2], m)


def test_unique_with_size_under_jit_and_vmap(backend):
  f = jax.jit(lambda x: jnp.unique(x, size=7, fill_value=-1, return_counts=True))
  vals, counts = f(I)
  _eq(vals, [0, 1, 2, 3, 5, -1, -1])
  _eq(counts, [1, 2, 1, 2, 1, 0, 0])
  _eq(jax.jit(lambda x: jnp.unique(x, size=3))(I), [0, 1, 2])  # truncated
  _eq(jax.vmap(lambda r: jnp.unique(r, size=3))(np.array([[1, 1, 2], [3, 3, 3]])),
      [[1, 2, 1], [3, 3, 3]])  # default fill: the smallest unique value
  with pytest.raises(errors.ConcretizationTypeError):
    jax.jit(jnp.unique)(I)


def test_unique_array_api_variants(backend):
  r = jnp.unique_all(F)
  assert r._fields == ("values", "indices", "inverse_indices", "counts")
  assert np.isnan(np.asarray(r.values)).sum() == 2  # NaNs stay distinct here
  c = jnp.unique_counts(I)
  _eq(c.counts, [1, 2, 1, 2, 1])
  inv = jnp.unique_inverse(I)
  _eq(inv.values[inv.inverse_indices], I)
  _eq(jnp.unique_values(I), np.unique(I))


def test_isin_and_set_ops(backend):
  a, b = np.array([[1, 5], [2, 9]], np.int32), np.array([5, 2, 7], np.int32)
  _eq(jnp.isin(a, b), np.isin(a, b))
  _eq(jnp.isin(a, b, invert=True), np.isin(a, b, invert=True))
  x, y = I, np.array([5, 3, 9, 9], np.int32)
  _eq(jnp.union1d(x, y), np.union1d(x, y).astype(np.int32))
  _eq(jnp.setdiff1d(x, y), np.setdiff1d(x, y))
  _eq(jnp.setxor1d(x, y), np.setxor1d(x, y).astype(np.int32))
  _eq(jnp.intersect1d(x, y), np.intersect1d(x, y))
  for g, w in zip(jnp.intersect1d(x, y, return_indices=True),
                  np.intersect1d(x, y, return_indices=True)):
    _eq(g, w.astype(np.int32))
  # Mixed dtypes promote; weak Python scalars keep the array's dtype.
  assert jnp.union1d(x, np.array([1.5], np.float32)).dtype == np.float32
  assert jnp.isin(jnp.float32(1.0), 1).dtype == np.bool_
  got = jax.jit(lambda p, q: jnp.setdiff1d(p, q, size=5, fill_value=0))(x, y)
  _eq(got, [0, 1, 2, 0, 0])
  _eq(jax.jit(lambda p, q: jnp.intersect1d(p, q, size=2))(x, y), [3, 5])


# ----------------------------------------------------------------------------- polynomials


def test_polyval_matches_numpy_and_differentiates(backend):
  p = np.array([1.0, -2.0, 3.0], np.float32)
  x = np.linspace(-1, 1, 5).astype(np.float32)
  np.testing.assert_allclose(jnp.polyval(p, x), np.polyval(p, x), rtol=1e-6)
  np.testing.assert_allclose(jax.jit(jnp.polyval)(p, x), np.polyval(p, x), rtol=1e-6)
  assert float(jax.grad(lambda t: jnp.polyval(p, t))(2.0)) == pytest.approx(2.0)
  assert jnp.polyval(jnp.array([1, 2]), 3).dtype == jnp.array(0).dtype
  np.testing.assert_allclose(jax.vmap(jnp.polyval, (0, None))(np.stack([p, -p]), 2.0),
                             [3.0, -3.0])


def test_poly_arithmetic(backend):
  p, q = np.array([1.0, -2.0, 3.0], np.float32), np.array([1.0, 1.0], np.float32)
  _eq(jnp.polyadd(p, q), np.polyadd(p, q))
  _eq(jnp.polysub(p, q), np.polysub(p, q))
  _eq(jnp.polymul(p, q), np.polymul(p, q))
  u, v = np.array([1.0, 3.0, 5.0, 7.0], np.float32), np.array([2.0, 1.0], np.float32)
  quo, rem = jnp.polydiv(u, v)
  wq, wr = np.polydiv(u, v)
  np.testing.assert_allclose(quo, wq)
  np.testing.assert_allclose(rem[-1:], wr)
  np.testing.assert_allclose(rem[:-1], 0)
  _eq(jnp.polyder(u, 2), np.polyder(u, 2))
  np.testing.assert_allclose(jnp.polyint(u, 2, k=[1.0, 2.0]), np.polyint(u, 2, k=[1.0, 2.0]),
                             rtol=1e-6)
  _eq(jnp.poly(np.array([1.0, 2.0, 3.0], np.float32)), np.poly([1.0, 2.0, 3.0]))
  with pytest.raises(ValueError, match="1-D"):
    jnp.polyadd(np.ones((2, 2)), q)


def test_polyfit(backend):
  x = np.arange(6.0).astype(np.float32)
  y = 2 * x**2 - x + 0.5
  np.testing.assert_allclose(jnp.polyfit(x, y, 2), [2.0, -1.0, 0.5], atol=1e-4)
  y2 = np.stack([y, 3 * x + 1], axis=1)
  np.testing.assert_allclose(jnp.polyfit(x, y2, 1)[:, 1], [3.0, 1.0], atol=1e-4)
  with pytest.raises(TypeError, match="same length"):
    jnp.polyfit(x, y[:3], 1)


# ----------------------------------------------------------------------------- extras


def test_dtype_predicates():
  assert jnp.iscomplexobj(jnp.ones(2, jnp.complex64)) and not jnp.iscomplexobj(np.ones(2))
  assert jnp.isrealobj(3.0)
  assert jnp.isdtype(jnp.float32, "real floating")
  assert jnp.isdtype(jnp.int8, ("bool", "signed integer"))
  assert not jnp.isdtype(jnp.uint8, "signed integer")
  assert jnp.isdtype(np.bool_, np.bool_) and not jnp.isdtype(np.bool_, "numeric")
  with pytest.raises(ValueError, match="Unrecognized"):
    jnp.isdtype(jnp.float32, "floats")
  assert jnp.isscalar(3) and jnp.isscalar(jnp.float32(2)) and not jnp.isscalar([1])
  assert not jnp.isscalar(jnp.ones(2))
  assert jnp.bool is jnp.bool_ and jnp.single is jnp.float32 and jnp.csingle is jnp.complex64
  assert jnp.dtype(jnp.float8_e4m3fn) == np.dtype("float8_e4m3fn")
  assert jnp.euler_gamma == pytest.approx(np.euler_gamma)


def test_copy_astype_iscomplex(backend):
  c = np.array([1 + 0j, 2 + 1j], np.complex64)
  _eq(jnp.iscomplex(c), [False, True])
  _eq(jnp.isreal(c), [True, False])
  y = jnp.copy(jnp.arange(3))
  _eq(y, [0, 1, 2])
  z = jnp.astype(jnp.arange(3), jnp.float32)
  assert z.dtype == np.float32 and not z.weak_type
  _eq(jax.jit(jnp.copy)(np.ones(2, np.float32)), np.ones(2))


def test_array_api_aliases(backend):
  x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
  _eq(jnp.permute_dims(x, (2, 0, 1)), np.transpose(x, (2, 0, 1)))
  _eq(jnp.concat([x, x], axis=1), np.concatenate([x, x], axis=1))
  parts = jnp.unstack(x, axis=1)
  assert len(parts) == 3
  _eq(parts[2], x[:, 2])
  _eq(jnp.rollaxis(x, 2), np.rollaxis(x, 2))
  _eq(jnp.rollaxis(x, 0, 3), np.rollaxis(x, 0, 3))
  _eq(jnp.fabs(np.array([-1.5, 2], np.float32)), [1.5, 2])
  _eq(jnp.spacing(np.array([1.0, -2.0], np.float32)),
      np.spacing(np.array([1.0, -2.0], np.float32)))
  a, v = np.arange(6.0).reshape(2, 3), np.array([1.0, -1.0, 2.0])
  np.testing.assert_allclose(jnp.vecdot(a, v), a @ v)
  np.testing.assert_allclose(jnp.matvec(a, v), a @ v)
  np.testing.assert_allclose(jnp.vecmat(np.array([1.0, 2.0]), a), np.array([1.0, 2.0]) @ a)
  cz = np.array([1j, 2.0])
  np.testing.assert_allclose(jnp.vecdot(cz, cz), np.vdot(cz, cz))
  with pytest.raises(ValueError):
    jnp.unstack(jnp.float32(1))


def test_index_helpers(backend):
  for g, w in zip(jnp.tril_indices(3, 1, 4), np.tril_indices(3, 1, 4)):
    _eq(g, w.astype(np.int32))
  ones = np.ones((3, 2))
  for g, w in zip(jnp.triu_indices_from(ones, -1), np.triu_indices_from(ones, -1)):
    _eq(g, w.astype(np.int32))
  _eq(jnp.diag_indices(3, 3)[2], [0, 1, 2])
  _eq(jnp.diag_indices_from(np.ones((2, 2)))[0], [0, 1])
  for g, w in zip(jnp.mask_indices(3, jnp.triu, 1), np.mask_indices(3, np.triu, 1)):
    _eq(g, w.astype(np.int32))
  _eq(jnp.fromfunction(lambda i, j: i * 10 + j, (2, 3)),
      np.fromfunction(lambda i, j: i * 10 + j, (2, 3)))
  idx = np.array([5, 7, 0], np.int32)
  for g, w in zip(jnp.unravel_index(idx, (2, 4)), np.unravel_index(idx, (2, 4))):
    _eq(g, w.astype(np.int32))
  mi = (np.array([1, 0]), np.array([2, 3]))
  _eq(jnp.ravel_multi_index(mi, (2, 4)), np.ravel_multi_index(mi, (2, 4)))
  _eq(jnp.ravel_multi_index(mi, (2, 4), order="F"), np.ravel_multi_index(mi, (2, 4), order="F"))
  _eq(jnp.ravel_multi_index((np.array([3]), np.array([-1])), (2, 4), mode="wrap"), [7])
  with pytest.raises(ValueError, match="invalid entry"):
    jnp.ravel_multi_index((np.array([3]), np.array([0])), (2, 4))
  with pytest.raises(errors.ConcretizationTypeError):
    jax.jit(lambda i: jnp.ravel_multi_index((i, i), (2, 4)))(np.array([1]))


def test_windows_and_i0(backend):
  for name in ("bartlett", "blackman", "hamming", "hanning"):
    for m in (0, 1, 6):
      np.testing.assert_allclose(getattr(jnp, name)(m), getattr(np, name)(m), atol=1e-6)
  np.testing.assert_allclose(jnp.kaiser(7, 3.0), np.kaiser(7, 3.0), rtol=1e-5)
  x = np.array([-2.0, 0.0, 0.5, 3.0], np.float32)
  np.testing.assert_allclose(jnp.i0(x), np.i0(x), rtol=1e-5)


def test_packbits_unpackbits(backend):
  a = np.array([[1, 0, 1, 1, 0, 0, 0, 1, 1, 1], [0] * 9 + [1]], np.uint8)
  for axis in (None, 1):
    for order in ("big", "little"):
      _eq(jnp.packbits(a, axis, order), np.packbits(a, axis, bitorder=order))
  _eq(jnp.packbits(a.astype(bool), 0), np.packbits(a.astype(bool), 0))
  b = np.array([[3, 200], [7, 1]], np.uint8)
  for axis in (None, 0, 1):
    _eq(jnp.unpackbits(b, axis), np.unpackbits(b, axis))
  _eq(jnp.unpackbits(b, 1, count=-3, bitorder="little"),
      np.unpackbits(b, 1, count=-3, bitorder="little"))
  _eq(jnp.unpackbits(b, 0, count=20), np.unpackbits(b, 0, count=20))
  _eq(jax.jit(jnp.unpackbits)(b), np.unpackbits(b))
  with pytest.raises(TypeError):
    jnp.unpackbits(b.astype(np.int32))


def test_block_put_along_axis_fill_diagonal(backend):
  a, b = np.ones((2, 2), np.float32), np.zeros((2, 1), np.float32)
  c = np.full((1, 3), 2.0, np.float32)
  _eq(jnp.block([[a, b], [c]]), np.block([[a, b], [c]]))
  _eq(jnp.block([1.0, np.array([2.0, 3.0])]), np.block([1.0, np.array([2.0, 3.0])]))
  with pytest.raises(ValueError, match="mismatched"):
    jnp.block([[a], b])
  x = np.zeros((3, 3), np.float32)
  idx = np.array([[1], [0], [2]])
  want = x.copy()
  np.put_along_axis(want, idx, 5.0, axis=1)
  _eq(jnp.put_along_axis(x, idx, 5.0, axis=1, inplace=False), want)
  with pytest.raises(ValueError, match="inplace"):
    jnp.put_along_axis(x, idx, 5.0, axis=1)
  for shape, wrap in (((5, 3), True), ((5, 3), False), ((3, 3), False)):
    want = np.zeros(shape, np.float32)
    np.fill_diagonal(want, [1.0, 2.0], wrap=wrap)
    _eq(jnp.fill_diagonal(jnp.zeros(shape), jnp.array([1.0, 2.0]), wrap, inplace=False), want)


def test_unwrap(backend):
  p = np.array([0.0, 3.0, 6.5, 0.2, -3.1], np.float32)
  np.testing.assert_allclose(jnp.unwrap(p), np.unwrap(p), rtol=1e-5, atol=1e-5)
  q = np.array([[0.0, 5.0], [1.0, -4.0]], np.float32)
  np.testing.assert_allclose(jnp.unwrap(q, axis=0, period=4.0),
                             np.unwrap(q, axis=0, period=4.0), rtol=1e-5)
  # The corrections are piecewise constant, so the gradient passes straight through.
  g = jax.grad(lambda t: (jnp.unwrap(t) * np.arange(5.0)).sum())(p)
  np.testing.assert_allclose(g, np.arange(5.0))


# ----------------------------------------------------------------------------- histograms


def test_histogramdd_and_histogram2d(backend):
  r = np.random.RandomState(0)
  s = r.rand(40, 3).astype(np.float32)
  h, edges = jnp.histogramdd(s, bins=(3, 4, 2))
  hn, en = np.histogramdd(s, bins=(3, 4, 2))
  np.testing.assert_allclose(h, hn)
  for g, w in zip(edges, en):
    np.testing.assert_allclose(g, w, rtol=1e-6)
  h, _ = jnp.histogramdd(s, bins=3, range=[(0, 1)] * 3, density=True)
  np.testing.assert_allclose(h, np.histogramdd(s, bins=3, range=[(0, 1)] * 3, density=True)[0],
                             rtol=1e-5)
  w = r.rand(40).astype(np.float32)
  h, xe, ye = jnp.histogram2d(s[:, 0], s[:, 1], bins=[3, 5], weights=w)
  hn, xn, yn = np.histogram2d(s[:, 0], s[:, 1], bins=[3, 5], weights=w)
  np.testing.assert_allclose(h, hn, rtol=1e-5)
  np.testing.assert_allclose(ye, yn, rtol=1e-6)
  edges = np.array([0, 0.5, 1.0], np.float32)
  np.testing.assert_allclose(jnp.histogram2d(s[:, 0], s[:, 1], bins=edges)[0],
                             np.histogram2d(s[:, 0], s[:, 1], bins=edges)[0])
  f = jax.jit(lambda a, b: jnp.histogram2d(a, b, bins=4, range=[(0, 1), (0, 1)])[0])
  assert float(f(s[:, 0], s[:, 1]).sum()) == 40.0
  with pytest.raises(ValueError, match="2-D"):
    jnp.histogramdd(s[:, 0])


# ----------------------------------------------------------------------------- host helpers


def test_index_tricks_and_host_constructors(backend):
  _eq(jnp.r_[1:4, 0, np.array([7, 8])], np.r_[1:4, 0, np.array([7, 8])])
  _eq(jnp.r_["0,2", [1, 2, 3], [4, 5, 6]], np.r_["0,2", [1, 2, 3], [4, 5, 6]])
  _eq(jnp.r_["0,2,0", [1, 2, 3], [4, 5, 6]], np.r_["0,2,0", [1, 2, 3], [4, 5, 6]])
  _eq(jnp.c_[np.array([1, 2, 3]), np.array([4, 5, 6])],
      np.c_[np.array([1, 2, 3]), np.array([4, 5, 6])])
  np.testing.assert_allclose(jnp.r_[-1:1:5j], np.r_[-1:1:5j])
  _eq(jnp.frombuffer(b"\x01\x02", dtype=np.uint8), [1, 2])
  _eq(jnp.fromstring("1 2 3", dtype=np.float32, sep=" "), [1, 2, 3])
  with pytest.raises(NotImplementedError):
    jnp.fromiter(iter([1, 2]), np.int32)
  f = jnp.frompyfunc(lambda a, b: a * b + 1, 2, 1)
  assert f.nin == 2 and f.nout == 1
  _eq(f(jnp.arange(3), 2), [1, 3, 5])
  path = jnp.einsum_path("ij,jk,kl->il", np.ones((2, 3)), np.ones((3, 4)), np.ones((4, 5)))
  assert path[0][0] == "einsum_path" and len(path[0]) == 3
  with jnp.printoptions(precision=2):
    assert jnp.get_printoptions()["precision"] == 2


# ----------------------------------------------------------------------------- parameters


def test_creation_parameters(backend):
  assert jnp.array([1, 2], ndmin=3).shape == (1, 1, 2)
  assert jnp.array(3.0, ndmin=1).shape == (1,)
  with pytest.raises(TypeError):
    jnp.array(1, None, True)
  z = jnp.zeros_like(jax.ShapeDtypeStruct((2, 3), jnp.int32))
  assert z.shape == (2, 3) and z.dtype == np.int32
  assert jnp.full_like(jax.ShapeDtypeStruct((2,), jnp.float32), 7.0).tolist() == [7.0, 7.0]
  sds = jax.ShapeDtypeStruct((2, 3), jnp.float32)
  assert (jnp.shape(sds), jnp.ndim(sds), jnp.size(sds), jnp.size(sds, -1)) == ((2, 3), 2, 6, 3)
  dev = jax.devices()[-1]
  for x in (jnp.zeros(3, device=dev), jnp.arange(3, device=dev), jnp.eye(2, device=dev),
            jnp.asarray(np.ones(2), device=dev), jnp.ones_like(np.ones(2), device=dev),
            jnp.linspace(0, 1, 3, device=dev)):
    assert x.sharding.device_set == {dev}
  with pytest.raises(ValueError, match="Only one"):
    jnp.zeros(2, device=dev, out_sharding=jax.sharding.SingleDeviceSharding(dev))


def test_reduction_and_shape_parameters(backend):
  a = np.arange(12.0, dtype=np.float32).reshape(3, 4)
  m = a.mean(1, keepdims=True)
  np.testing.assert_allclose(jnp.var(a, 1, mean=m), np.var(a, 1))
  np.testing.assert_allclose(jnp.std(a, 1, ddof=1, mean=m), np.std(a, 1, ddof=1), rtol=1e-6)
  np.testing.assert_allclose(jnp.nanstd(a, mean=a.mean(keepdims=True)), np.std(a), rtol=1e-6)
  assert jnp.size(a, 1) == 4 and jnp.size(a, -2) == 3
  assert jnp.concatenate([a, a], dtype=jnp.int32).dtype == np.int32
  assert jnp.stack([a, a], dtype=jnp.float16).dtype == np.float16
  assert jnp.argsort(a, dtype=jnp.int16).dtype == np.int16
  assert jnp.dot(np.array([100, 100], np.int8), np.array([2, 2], np.int8),
                 preferred_element_type=jnp.int32) == 400
  c = np.array([1j, 2.0], np.complex64)
  assert complex(jnp.vdot(c, c)) == pytest.approx(np.vdot(c, c))
  _eq(jnp.trim_zeros(np.array([[0, 0, 0], [0, 1, 0]]), "b", axis=1),
      np.trim_zeros(np.array([[0, 0, 0], [0, 1, 0]]), "b", axis=1))
  x = np.random.RandomState(1).rand(3, 6)
  np.testing.assert_allclose(jnp.cov(x, dtype=jnp.float32), np.cov(x), rtol=1e-5)
  assert jnp.corrcoef(x, dtype=jnp.float16).dtype == np.float16
  idx = np.array([[0, -1]])
  vals = np.array([[1.0, 2.0, 3.0]], np.float32)
  _eq(jnp.take_along_axis(vals, idx, 1), [[1.0, 3.0]])
  got = jnp.take_along_axis(vals, idx, 1, wrap_negative_indices=False)
  assert np.isnan(np.asarray(got)[0, 1])
  assert jnp.linalg.matrix_rank(np.eye(3), hermitian=True) == 3
  assert not hasattr(jnp, "round_")


def test_einsum_dot_general_hook(backend):
  from jax import lax
  calls = []

  def dot_general(x, y, dn, precision=None, preferred_element_type=None):
    calls.append(dn)
    return lax.dot_general(x, y, dn)

  a, b = np.arange(6.0).reshape(2, 3), np.ones((3, 2))
  np.testing.assert_allclose(jnp.einsum("ij,jk->ik", a, b, _dot_general=dot_general), a @ b)
  assert calls == [(((1,), (0,)), ((), ()))]


def test_new_functions_reject_python_sequences():
  # As in JAX, lists and tuples must be converted explicitly.
  for fn in (lambda: jnp.unique([1, 2]), lambda: jnp.polyval([1.0, 2.0], 3.0),
             lambda: jnp.copy((1, 2)), lambda: jnp.isin(np.ones(2), [1.0]),
             lambda: jnp.histogramdd([[0.0, 1.0]]), lambda: jnp.sum([1, 2, 3]),
             lambda: jnp.mean((1.0, 2.0)), lambda: jnp.argmax([1, 2]), lambda: jnp.any([True]),
             lambda: jnp.var([1.0]), lambda: jnp.max([[1], [2]])):
    with pytest.raises(TypeError, match="requires ndarray or scalar arguments"):
      fn()


def test_weighted_quantiles(backend):
  r = np.random.RandomState(0)
  a, w = r.rand(4, 7).astype(np.float32), r.rand(4, 7).astype(np.float32)
  q = np.array([0.0, 0.25, 0.5, 0.9, 1.0], np.float32)
  for axis in (None, 1, 0):
    np.testing.assert_allclose(
        jnp.quantile(a, q, axis=axis, method="inverted_cdf", weights=w),
        np.quantile(a, q, axis=axis, method="inverted_cdf", weights=w))
  w1 = r.rand(7).astype(np.float32)
  np.testing.assert_allclose(
      jnp.percentile(a, 30, axis=1, method="inverted_cdf", weights=w1, keepdims=True),
      np.percentile(a, 30, axis=1, method="inverted_cdf", weights=w1, keepdims=True))
  an = a.copy()
  an[0, 2] = np.nan
  np.testing.assert_allclose(
      jnp.nanquantile(an, q, axis=1, method="inverted_cdf", weights=w),
      np.nanquantile(an, q, axis=1, method="inverted_cdf", weights=w))
  assert np.isnan(np.asarray(jnp.quantile(an, 0.5, axis=1, method="inverted_cdf", weights=w))[0])
  with pytest.raises(ValueError, match="inverted_cdf"):
    jnp.quantile(a, 0.5, weights=w)
  f = jax.jit(lambda x, ww: jnp.quantile(x, 0.5, method="inverted_cdf", weights=ww))
  np.testing.assert_allclose(f(a, w), np.quantile(a, 0.5, method="inverted_cdf", weights=w))


def _sorted_roots(r):
  r = np.asarray(r)
  return r[np.lexsort((r.imag.round(3), r.real.round(3)))]


def test_roots(backend):
  for coeffs in ([1.0, -6.0, 11.0, -6.0], [1.0, 0.0, 1.0], [0.0, 2.0, -3.0, 1.0, 0.0, 0.0],
                 [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]):
    p = np.array(coeffs, np.float32)
    got = jnp.roots(p)
    assert got.dtype == np.complex64
    np.testing.assert_allclose(_sorted_roots(got), _sorted_roots(np.roots(p)), atol=1e-3)
  f = jax.jit(lambda c: jnp.roots(c, strip_zeros=False))
  np.testing.assert_allclose(_sorted_roots(f(np.array([1.0, -3.0, 2.0], np.float32))), [1, 2],
                             atol=1e-5)
  assert np.isnan(np.asarray(jnp.roots(np.array([0.0, 1.0, -2.0]), strip_zeros=False))).all()
  with pytest.raises(errors.ConcretizationTypeError):
    jax.jit(jnp.roots)(np.array([1.0, -3.0, 2.0], np.float32))


def test_eig_eigvals_and_poly_of_matrix(backend):
  r = np.random.RandomState(0)
  for n in (1, 5):
    a = r.randn(n, n).astype(np.float32)
    np.testing.assert_allclose(_sorted_roots(jnp.linalg.eigvals(a)),
                               _sorted_roots(np.linalg.eigvals(a)), atol=1e-5)
  a = r.randn(4, 4).astype(np.float32)
  w, v = jnp.linalg.eig(a)
  assert w.dtype == np.complex64 and v.shape == (4, 4)
  np.testing.assert_allclose(a @ np.asarray(v), np.asarray(v) * np.asarray(w), atol=1e-5)
  np.testing.assert_allclose(np.linalg.norm(np.asarray(v), axis=0), 1, rtol=1e-5)
  rot = np.array([[0.0, 1.0], [-1.0, 0.0]], np.float32)  # complex pair from real input
  np.testing.assert_allclose(_sorted_roots(jnp.linalg.eigvals(rot)), [-1j, 1j], atol=1e-6)
  stack = r.randn(3, 3, 3).astype(np.float32)
  assert jnp.linalg.eig(stack).eigenvectors.shape == (3, 3, 3)
  np.testing.assert_allclose(_sorted_roots(jnp.linalg.eig(stack).eigenvalues[1]),
                             _sorted_roots(np.linalg.eigvals(stack[1])), atol=1e-5)
  m = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
  np.testing.assert_allclose(jnp.poly(m), np.poly(m), atol=1e-4)
  with pytest.raises(ValueError, match=r"square|\[\.\.\., n, n\]"):
    jnp.linalg.eigvals(np.ones((2, 3), np.float32))


def test_iscomplexobj_answers_for_scalar_types_by_their_dtype():
  assert jnp.iscomplexobj(jnp.complex64) and not jnp.iscomplexobj(jnp.float32)
  assert jnp.iscomplexobj(1j) and not jnp.iscomplexobj([1, 2])
  assert jnp.iscomplexobj(jnp.ones(2, jnp.complex64)) and not jnp.iscomplexobj(jnp.ones(2))
