"""lax.conv_general_dilated and friends, lax.reduce_window, lax.reduce, lax.reduce_precision."""

import itertools

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax

RNG = np.random.default_rng(0)


def _conv_ref(x, w, strides, padding, lhs_dil, rhs_dil, groups=1):
  """Direct NCHW/OIHW convolution in numpy (loops over output positions)."""
  n, c, *sp = x.shape
  o, i, *ks = w.shape
  # Dilate the input, then pad (negative pads crop).
  dil = np.zeros([n, c] + [(s - 1) * d + 1 for s, d in zip(sp, lhs_dil)], x.dtype)
  dil[(slice(None), slice(None)) + tuple(slice(None, None, d) for d in lhs_dil)] = x
  pad_width = [(0, 0), (0, 0)] + [(max(lo, 0), max(hi, 0)) for lo, hi in padding]
  xp = np.pad(dil, pad_width)
  xp = xp[(slice(None), slice(None)) + tuple(
      slice(max(-lo, 0), xp.shape[2 + k] - max(-hi, 0)) for k, (lo, hi) in enumerate(padding))]
  kd = [(k - 1) * d + 1 for k, d in zip(ks, rhs_dil)]
  out_sp = [(p - k) // s + 1 for p, k, s in zip(xp.shape[2:], kd, strides)]
  out = np.zeros([n, o] + out_sp, np.float64)
  og = o // groups
  for pos in itertools.product(*map(range, out_sp)):
    window = xp[(slice(None), slice(None)) + tuple(
        slice(p * s, p * s + k, d) for p, s, k, d in zip(pos, strides, kd, rhs_dil))]
    for g in range(groups):
      patch = window[:, g * i:(g + 1) * i]
      kern = w[g * og:(g + 1) * og]
      axes = list(range(1, patch.ndim))
      out[(slice(None), slice(g * og, (g + 1) * og)) + pos] = np.tensordot(patch, kern,
                                                                         (axes, axes))
  return out


def _rand(*shape):
  return RNG.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("strides,padding,lhs_dil,rhs_dil,groups", [
    ((1, 1), ((1, 1), (1, 1)), (1, 1), (1, 1), 1),
    ((2, 1), ((1, 0), (0, 2)), (1, 1), (1, 2), 1),
    ((1, 2), ((0, 1), (2, 1)), (2, 1), (1, 1), 2),
    ((2, 2), ((-1, 0), (1, 1)), (1, 1), (2, 1), 2),
])
def test_conv_matches_direct_loop(backend, strides, padding, lhs_dil, rhs_dil, groups):
  x, w = _rand(2, 4, 7, 6), _rand(6, 4 // groups, 3, 2)
  got = lax.conv_general_dilated(x, w, strides, padding, lhs_dil, rhs_dil,
                                 feature_group_count=groups)
  want = _conv_ref(x, w, strides, padding, lhs_dil, rhs_dil, groups)
  np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_string_padding_and_layouts(backend):
  x, w = _rand(1, 2, 6, 5), _rand(3, 2, 3, 2)
  same = lax.conv_general_dilated(x, w, (2, 1), "SAME")
  pads = lax.padtype_to_pads((6, 5), (3, 2), (2, 1), "SAME")
  assert pads == [(0, 1), (0, 1)]
  np.testing.assert_allclose(same, _conv_ref(x, w, (2, 1), pads, (1, 1), (1, 1)), rtol=1e-4,
                             atol=1e-4)
  assert lax.padtype_to_pads((6,), (3,), (2,), "SAME_LOWER") == [(1, 0)]
  # The same convolution in NHWC / HWIO layout.
  nhwc = lax.conv_general_dilated(np.transpose(x, (0, 2, 3, 1)), np.transpose(w, (2, 3, 1, 0)),
                                  (2, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
  np.testing.assert_allclose(np.transpose(nhwc, (0, 3, 1, 2)), same, rtol=1e-5, atol=1e-5)
  np.testing.assert_allclose(lax.conv(x, w, (1, 1), "VALID"),
                             _conv_ref(x, w, (1, 1), [(0, 0)] * 2, (1, 1), (1, 1)), rtol=1e-4,
                             atol=1e-4)


def test_dimension_numbers_from_strings():
  dn = lax.conv_dimension_numbers((1, 5, 5, 3), (3, 3, 3, 8), ("NHWC", "HWIO", "NHWC"))
  assert dn == lax.ConvDimensionNumbers((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
  assert lax.conv_dimension_numbers((1, 2, 3), (1, 2, 3), None).lhs_spec == (0, 1, 2)


def test_lowering_prints_xla_conv_attributes():
  f = lambda x, w: lax.conv_general_dilated(x, w, (2, 2), [(1, 1), (1, 1)], rhs_dilation=(2, 1),
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                            feature_group_count=2)
  text = jax.jit(f).lower(jnp.ones((1, 8, 8, 4)), jnp.ones((3, 3, 2, 6))).as_text()
  assert "convolution(" in text
  assert "window={size=3x3 stride=2x2 pad=1_1x1_1 rhs_dilate=2x1}" in text
  assert "dim_labels=b01f_01io->b01f" in text and "feature_group_count=2" in text


def test_conv_errors():
  with pytest.raises(ValueError, match="feature_group_count"):
    lax.conv_general_dilated(np.ones((1, 3, 4, 4), np.float32), np.ones((2, 2, 3, 3), np.float32),
                             (1, 1), "VALID", feature_group_count=2)
  with pytest.raises(TypeError, match="same dtypes"):
    lax.conv(np.ones((1, 1, 4, 4), np.float32), np.ones((1, 1, 3, 3), np.int32), (1, 1), "VALID")
  with pytest.raises(ValueError, match="String padding"):
    lax.conv_general_dilated(np.ones((1, 1, 4, 4), np.float32), np.ones((1, 1, 3, 3), np.float32),
                             (1, 1), "SAME", lhs_dilation=(2, 2))
  # Padding that removes more than the whole input is an error, as in JAX, not an
  # empty result.
  with pytest.raises(ValueError, match=r"Negative padding is larger than the size of the "
                     r"corresponding dimension: got padding=\(\(-5, 0\),\) for lhs_shape\[2:\]=\(3,\)"):
    lax.conv_general_dilated(np.ones((1, 1, 3), np.float32), np.ones((1, 1, 1), np.float32), (1,),
                             [(-5, 0)])
  # Padding down to exactly nothing, or to less than the window, is a valid empty output.
  assert lax.conv_general_dilated(np.ones((1, 1, 3), np.float32), np.ones((1, 1, 2), np.float32),
                                  (1,), [(-2, 0)]).shape == (1, 1, 0)


def _numeric_grad(f, x, eps=1e-3):
  x = np.asarray(x, np.float64)
  g = np.zeros_like(x)
  for idx in np.ndindex(x.shape):
    d = np.zeros_like(x)
    d[idx] = eps
    g[idx] = (f(x + d) - f(x - d)) / (2 * eps)
  return g


@pytest.mark.parametrize("groups", [1, 2])
def test_conv_gradients_match_finite_differences(backend, groups):
  x, w = _rand(1, 2, 5, 4), _rand(4, 2 // groups, 2, 3)
  kw = dict(window_strides=(2, 1), padding=((1, 0), (1, 1)), rhs_dilation=(1, 2),
            feature_group_count=groups)
  ct = _rand(*lax.conv_general_dilated(x, w, **kw).shape)
  loss = lambda x, w: jnp.sum(lax.conv_general_dilated(x, w, **kw) * ct)
  gx, gw = jax.grad(loss, (0, 1))(x, w)
  ref = lambda a, b: float(np.sum(_conv_ref(a, b, kw["window_strides"], kw["padding"], (1, 1),
                                            kw["rhs_dilation"], groups) * ct))
  np.testing.assert_allclose(gx, _numeric_grad(lambda a: ref(a, w), x), rtol=1e-3, atol=1e-3)
  np.testing.assert_allclose(gw, _numeric_grad(lambda b: ref(x, b), w), rtol=1e-3, atol=1e-3)


def test_conv_vmap_over_input_and_kernel(backend):
  x, w = _rand(3, 1, 2, 5, 5), _rand(3, 4, 2, 3, 3)
  f = lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME")
  got = jax.vmap(f)(x, w)
  for b in range(3):
    np.testing.assert_allclose(got[b], f(x[b], w[b]), rtol=1e-5, atol=1e-5)
  got = jax.vmap(f, in_axes=(None, 0))(x[0], w)
  np.testing.assert_allclose(got[1], f(x[0], w[1]), rtol=1e-5, atol=1e-5)


def test_conv_transpose_is_gradient_of_strided_conv(backend):
  # conv_transpose with transpose_kernel computes the input-gradient of a strided conv.
  x, w = _rand(1, 6, 6, 2), _rand(3, 3, 2, 4)
  dn = ("NHWC", "HWIO", "NHWC")
  fwd = lambda x: lax.conv_general_dilated(x, w, (2, 2), "SAME", dimension_numbers=dn)
  y, vjp = jax.vjp(fwd, x)
  ct = _rand(*y.shape)
  got = lax.conv_transpose(ct, w, (2, 2), "SAME", dimension_numbers=dn, transpose_kernel=True)
  np.testing.assert_allclose(got, vjp(ct)[0], rtol=1e-4, atol=1e-4)


# ----------------------------------------------------------------------------- reduce_window


def _window_ref(x, fn, dims, strides, pads, init):
  xp = np.pad(x, pads, constant_values=init)
  out_shape = [(n - d) // s + 1 for n, d, s in zip(xp.shape, dims, strides)]
  out = np.empty(out_shape, x.dtype)
  for pos in np.ndindex(*out_shape):
    out[pos] = fn(xp[tuple(slice(p * s, p * s + d) for p, s, d in zip(pos, strides, dims))])
  return out


@pytest.mark.parametrize("op,init,ref", [(lax.add, 0.0, np.sum), (lax.max, -np.inf, np.max),
                                         (lax.min, np.inf, np.min)])
def test_reduce_window_monoids(backend, op, init, ref):
  x = _rand(4, 7)
  got = lax.reduce_window(x, init, op, (2, 3), (1, 2), "SAME")
  pads = lax.padtype_to_pads((4, 7), (2, 3), (1, 2), "SAME")
  np.testing.assert_allclose(got, _window_ref(x, ref, (2, 3), (1, 2), pads, init), rtol=1e-6)


def test_reduce_window_generic_function(backend):
  x = np.arange(1, 9, dtype=np.float32)
  got = lax.reduce_window(x, 1.0, lambda a, b: a * b + 0.0, (3,), (1,), "VALID")
  np.testing.assert_allclose(got, [6, 24, 60, 120, 210, 336])


def test_reduce_window_gradients(backend):
  x = np.array([[1.0, 5.0, 2.0, 0.0], [3.0, 4.0, 8.0, 7.0]], np.float32)
  g = jax.grad(lambda v: jnp.sum(lax.reduce_window(v, -jnp.inf, lax.max, (2, 2), (2, 2),
                                                   "VALID")))(x)
  np.testing.assert_array_equal(g, [[0, 1, 0, 0], [0, 0, 1, 0]])
  g = jax.grad(lambda v: jnp.sum(lax.reduce_window(v, 0.0, lax.add, (1, 3), (1, 1),
                                                   "VALID")))(x)
  np.testing.assert_array_equal(g, [[1, 2, 2, 1], [1, 2, 2, 1]])
  text = jax.jit(jax.grad(lambda v: jnp.sum(lax.reduce_window(
      v, -jnp.inf, lax.max, (2, 2), (2, 2), "VALID")))).lower(x).as_text()
  assert "select-and-scatter(" in text


def test_reduce_window_lowering_text():
  f = lambda v: lax.reduce_window(v, 0.0, lax.add, (1, 3), (1, 2), ((0, 0), (1, 1)))
  text = jax.jit(f).lower(jnp.ones((2, 8))).as_text()
  assert "reduce-window(" in text and "window={size=1x3 stride=1x2 pad=0_0x1_1}" in text


# ----------------------------------------------------------------------------- lax.reduce


def test_reduce_variadic_argmax(backend):
  x = np.array([[3.0, 7.0, 7.0, 1.0], [2.0, 0.0, 5.0, 5.0]], np.float32)
  idx = lax.broadcasted_iota(jnp.int32, x.shape, 1)

  def pick(a, b):
    take_a = (a[0] > b[0]) | ((a[0] == b[0]) & (a[1] < b[1]))
    return lax.select(take_a, a[0], b[0]), lax.select(take_a, a[1], b[1])

  v, i = lax.reduce((x, idx), (-jnp.inf, jnp.int32(0)), pick, (1,))
  np.testing.assert_array_equal(v, [7, 5])
  np.testing.assert_array_equal(i, [1, 2])
  assert v.dtype == np.float32 and i.dtype == np.int32


def test_reduce_monoids_use_dedicated_primitives():
  jaxpr = str(jax.make_jaxpr(lambda x: lax.reduce(x, 1.0, lax.mul, (0,)))(jnp.ones(3)))
  assert "reduce_prod" in jaxpr
  jaxpr = str(jax.make_jaxpr(lambda x: lax.reduce(x, 2.0, lax.mul, (0,)))(jnp.ones(3)))
  assert "reduce_prod" not in jaxpr  # not the identity: the generic reduce keeps the init


def test_reduce_generic_grad_and_vmap(backend):
  x = _rand(3, 4)
  f = lambda v: lax.reduce(v, 2.0, lax.mul, (1,))
  np.testing.assert_allclose(f(x), 2 * np.prod(x, 1), rtol=1e-5)
  g = jax.grad(lambda v: jnp.sum(f(v)))(x)
  np.testing.assert_allclose(g, 2 * np.prod(x, 1, keepdims=True) / x, rtol=1e-4)
  np.testing.assert_allclose(jax.vmap(f)(np.stack([x, -x])), [f(x), f(-x)], rtol=1e-5)


def test_reduce_errors():
  with pytest.raises(TypeError, match="does not match"):
    lax.reduce(np.ones(3, np.float32), np.int32(0), lax.add, (0,))
  with pytest.raises(ValueError, match="tree structure"):
    lax.reduce((np.ones(3), np.ones(3)), 0.0, lax.add, (0,))
  with pytest.raises(ValueError, match="out of range"):
    lax.reduce(np.ones(3, np.float32), 0.0, lax.add, (1,))


def test_reduce_precision(backend):
  x = np.array([1.0 + 2.0 ** -12, 65504.0 * 2, 0.1], np.float32)
  got = lax.reduce_precision(x, 5, 10)
  np.testing.assert_array_equal(got, x.astype(np.float16).astype(np.float32))


def test_conv_general_dilated_local_unshared_filters():
  from jax import lax
  rng = np.random.default_rng(0)
  x = rng.standard_normal((2, 3, 5, 6)).astype(np.float32)       # NCHW
  oh, ow = 4, 4
  w = rng.standard_normal((4, 3 * 2 * 3, oh, ow)).astype(np.float32)  # a filter per position
  out = lax.conv_general_dilated_local(x, w, (1, 1), "VALID", (2, 3))
  want = np.zeros((2, 4, oh, ow), np.float32)
  for i in range(oh):
    for j in range(ow):
      patch = x[:, :, i:i + 2, j:j + 3].reshape(2, -1)              # (C, kh, kw) C-major
      want[:, :, i, j] = patch @ w[:, :, i, j].T
  np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
  # The same in NHWC/HWIO layouts, and shared filters agree with conv_general_dilated.
  out_h = lax.conv_general_dilated_local(x.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0),
                                         (1, 1), "VALID", (2, 3),
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))
  np.testing.assert_allclose(out_h, want.transpose(0, 2, 3, 1), rtol=1e-5, atol=1e-5)
  shared = rng.standard_normal((4, 3, 2, 3)).astype(np.float32)
  tiled = np.broadcast_to(shared.reshape(4, 18)[:, :, None, None], (4, 18, oh, ow))
  np.testing.assert_allclose(lax.conv_general_dilated_local(x, tiled, (1, 1), "VALID", (2, 3)),
                             lax.conv_general_dilated(x, shared, (1, 1), "VALID"),
                             rtol=1e-5, atol=1e-5)
  g = jax.grad(lambda w_: lax.conv_general_dilated_local(x, w_, (1, 1), "VALID",
                                                         (2, 3)).sum())(w)
  assert g.shape == w.shape
  with pytest.raises(ValueError, match="fused input features"):
    lax.conv_general_dilated_local(x, w[:, :5], (1, 1), "VALID", (2, 3))
def test_convolution_precision_reaches_the_hlo(backend):
  import jax
  import jax.numpy as jnp
  x, w = jnp.ones((1, 2, 5, 5)), jnp.ones((3, 2, 3, 3))
  f = jax.jit(lambda x, w: jax.lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                                        precision=jax.lax.Precision.HIGHEST))
  assert "operand_precision={highest,highest}" in f.lower(x, w).as_text()
  assert float(f(x, w)[0, 0, 2, 2]) == 18.0
  plain = jax.jit(lambda x, w: jax.lax.conv_general_dilated(x, w, (1, 1), "SAME"))
  assert "operand_precision" not in plain.lower(x, w).as_text()
