"""jax.lax beyond the core primitives: JAX's parameter names, enums, the re-exported
primitives and the functions built from them, against numpy."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

RNG = np.random.default_rng(0)


def close(a, b, tol=1e-5):
  np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


def test_primitives_are_the_objects_the_ops_bind():
  jaxpr = jax.make_jaxpr(lambda x: lax.sin(x) + lax.reduce_sum(x, (0,)))(np.ones(3, np.float32))
  prims = {e.primitive for e in jaxpr.jaxpr.eqns}
  assert lax.sin_p in prims and lax.reduce_sum_p in prims and lax.add_p in prims
  assert lax.sort_p.name == "sort" and lax.while_p.name == "while"


def test_enums_constructible_by_value_and_name():
  assert lax.Precision("highest") is lax.Precision.HIGHEST
  assert lax.Precision(2) is lax.Precision.HIGHEST
  assert lax.FftType(0) is lax.FftType.FFT
  assert lax.GatherScatterMode(1) is lax.GatherScatterMode.CLIP
  assert lax.RoundingMethod(1) is lax.RoundingMethod.TO_NEAREST_EVEN
  assert lax.AccuracyMode(2) is lax.AccuracyMode.HIGHEST
  assert lax.DotAlgorithmPreset.BF16_BF16_F32.accumulation_type == np.float32
  alg = lax.DotAlgorithm(np.float32, np.float32, np.float32)
  assert alg.lhs_component_count == 1 and hash(alg) == hash(lax.DotAlgorithm(*alg))
  assert lax.Tolerance(atol=1e-3).rtol == 0.0
  assert lax.RandomAlgorithm(2) is lax.RandomAlgorithm.RNG_PHILOX
  with pytest.raises(ValueError):
    lax.Precision("nope")


def test_accuracy_and_operand_names():
  x = np.linspace(0.1, 2, 5).astype(np.float32)
  close(lax.exp(x, accuracy=lax.Tolerance(rtol=1e-6)), np.exp(x))
  close(lax.rsqrt(x, accuracy=lax.AccuracyMode.HIGHEST), 1 / np.sqrt(x))
  with pytest.raises(TypeError, match="accuracy"):
    lax.sin(x, accuracy="fast")
  assert lax.convert_element_type(operand=x, new_dtype=np.int32).dtype == np.int32
  assert lax.transpose(operand=np.ones((2, 3)), permutation=(1, 0)).shape == (3, 2)
  assert lax.expand_dims(array=x, dimensions=(0,)).shape == (1, 5)
  assert int(lax.mul(np.int8(100), np.int8(3), out_dtype=np.int32)) == 300
  assert float(lax.nextafter(x1=np.float32(1), x2=np.float32(2))) > 1


def test_out_sharding_places_result():
  dev = jax.devices()[0]
  x = np.ones((2, 3), np.float32)
  out = lax.dot_general(x, x.T, (((1,), (0,)), ((), ())), out_sharding=dev)
  close(out, x @ x.T)
  assert lax.reshape(x, (3, 2), out_sharding=None).shape == (3, 2)
  assert lax.full((2,), 3.0, sharding=dev).devices() == {dev}
  close(lax.dot(x, x.T, precision=lax.DotAlgorithmPreset.F32_F32_F32), x @ x.T)


def test_dynamic_slicing_negative_indices():
  x = jnp.arange(6)
  assert list(lax.dynamic_slice(x, (-2,), (2,))) == [4, 5]
  # Without wrapping, -2 is clamped into bounds like any out-of-range start.
  assert list(lax.dynamic_slice(x, (-2,), (2,), allow_negative_indices=False)) == [0, 1]
  y = lax.dynamic_update_slice_in_dim(operand=x, update=jnp.array([9]), start_index=-1, axis=0)
  assert list(y) == [0, 1, 2, 3, 4, 9]
  f = jax.jit(lambda i: lax.dynamic_index_in_dim(x, i, keepdims=False,
                                                 allow_negative_indices=False))
  assert int(f(-1)) == 0 and int(lax.dynamic_index_in_dim(x, -1, keepdims=False)) == 5


def test_top_k_axis_and_approx():
  x = RNG.standard_normal((4, 6)).astype(np.float32)
  v, i = lax.top_k(x, 2, axis=0)
  close(v, -np.sort(-x, axis=0)[:2])
  close(np.take_along_axis(x, np.asarray(i), 0), v)
  v, i = lax.approx_min_k(x, 3)
  close(v, np.sort(x, axis=1)[:, :3])
  v, _ = jax.jit(lambda x: lax.approx_max_k(x, 2, reduction_dimension=0))(x)
  close(v, -np.sort(-x, axis=0)[:2])
  with pytest.raises(ValueError, match="recall_target"):
    lax.approx_max_k(x, 2, recall_target=0)


def test_shape_helpers():
  x = np.arange(24.0, dtype=np.float32).reshape(4, 6)
  close(lax.slice_in_dim(x, 1, None, 2, axis=1), x[:, 1::2])
  close(lax.index_in_dim(x, -1, axis=0, keepdims=False), x[-1])
  parts = lax.split(x, (1, 2, 3), axis=1)
  for got, want in zip(parts, np.split(x, [1, 3], axis=1)):
    close(got, want)
  with pytest.raises(ValueError, match="Sum of sizes"):
    lax.split(x, (1, 2), axis=1)
  close(lax.stack([x, x + 1], axis=1), np.stack([x, x + 1], axis=1))
  close(lax.unstack(x, axis=1)[2], x[:, 2])
  close(lax.tile(x, (2, 1)), np.tile(x, (2, 1)))
  close(lax.index_take(x, (np.array([0, 3]), np.array([5, 1])), (0, 1)), x[[0, 3], [5, 1]])
  close(lax.broadcast_like(np.arange(6.0), x), np.broadcast_to(np.arange(6.0), x.shape))
  assert lax.broadcast_to_rank(np.ones(3), 3).shape == (1, 1, 3)
  assert lax.empty((2, 3), np.float32).shape == (2, 3)
  assert lax.dtype(1.5) == np.float32
  close(lax.reciprocal(np.float32(4)), 0.25)
  assert int(lax.reduce_xor(np.array([1, 2, 4, 1], np.int32), (0,))) == 6


def test_shape_helpers_grad_and_vmap():
  x = jnp.arange(12.0).reshape(3, 4)
  g = jax.grad(lambda x: jnp.sum(lax.tile(x, (2, 1)) * 2.0) + jnp.sum(lax.split(x, (1, 3), 1)[1]))(x)
  close(g, 4.0 + np.array([[0, 1, 1, 1]] * 3))
  out = jax.vmap(lambda r: lax.stack([r, 2 * r]))(x)
  close(out, np.stack([x, 2 * x], 1))


@pytest.mark.parametrize("dt", [np.int8, np.int16, np.int32, np.uint32, np.uint8])
def test_mulhi(dt):
  info = np.iinfo(dt)
  x = RNG.integers(info.min, info.max, 50, dtype=np.int64).astype(dt)
  y = RNG.integers(info.min, info.max, 50, dtype=np.int64).astype(dt)
  bits = np.dtype(dt).itemsize * 8
  want = ((x.astype(object) * y.astype(object)) >> bits).astype(np.int64).astype(dt)
  np.testing.assert_array_equal(np.asarray(jax.jit(lax.mulhi)(x, y)), want)
  with pytest.raises(TypeError):
    lax.mulhi(np.float32(1), np.float32(2))


def test_batch_matmul():
  a = RNG.standard_normal((2, 3, 4)).astype(np.float32)
  b = RNG.standard_normal((2, 4, 5)).astype(np.float32)
  close(lax.batch_matmul(a, b), a @ b, 1e-4)
  with pytest.raises(ValueError, match="batch"):
    lax.batch_matmul(a, b[:1])


def test_optimization_barrier():
  x = jnp.arange(3.0)
  a, b = jax.jit(lambda x: lax.optimization_barrier((x * 2, x + 1)))(x)
  close(a, [0, 2, 4]) and close(b, [1, 2, 3])
  g = jax.grad(lambda x: jnp.sum(lax.optimization_barrier(x) ** 2))(x)
  close(g, 2 * np.arange(3.0))
  close(jax.vmap(lax.optimization_barrier)(x[:, None]), x[:, None])
  assert lax.optimization_barrier_p.multiple_results


def test_tokens_composite_platform_dependent():
  t = lax.after_all(lax.create_token(), lax.create_token(None))
  assert isinstance(t, type(lax.create_token()))
  with pytest.raises(TypeError):
    lax.after_all(1.0)
  double = lax.composite(lambda x: x * 2, name="my.double")
  close(jax.jit(double)(jnp.arange(3.0)), [0, 2, 4])
  assert lax.platform_dependent(3.0, cpu=lambda x: x + 1, default=lambda x: x) == 4.0
  assert lax.platform_dependent(3.0, tpu=lambda x: x + 1, default=lambda x: x) == 3.0
  with pytest.raises(NotImplementedError):
    lax.platform_dependent(3.0, tpu=lambda x: x)


def test_collectives_under_vmap():
  x = jnp.arange(12.0).reshape(3, 4)
  assert int(jax.vmap(lambda v: lax.axis_size("i") + 0 * v[0], axis_name="i")(x)[0]) == 3
  # psum_scatter: member i keeps block i of the sum.
  y = jnp.arange(9.0).reshape(3, 3)
  close(jax.vmap(lambda v: lax.psum_scatter(v, "i"), axis_name="i")(y), y.sum(0))
  z = jnp.arange(18.0).reshape(3, 6)
  close(jax.vmap(lambda v: lax.psum_scatter(v, "i", tiled=True), axis_name="i")(z),
        z.sum(0).reshape(3, 2))
  # all_to_all on a square block is a transpose of the member axis with split_axis.
  close(jax.vmap(lambda v: lax.all_to_all(v, "i", 0, 0), axis_name="i")(y), y.T)
  w = jnp.arange(18.0).reshape(3, 6)
  got = jax.vmap(lambda v: lax.all_to_all(v, "i", 0, 0, tiled=True), axis_name="i")(w)
  want = w.reshape(3, 3, 2).transpose(1, 0, 2).reshape(3, 6)
  close(got, want)
  close(jax.vmap(lambda v: lax.pbroadcast(v, "i", 2), axis_name="i")(jnp.arange(3.0)), [2, 2, 2])
  close(jax.vmap(lambda v: lax.pshuffle(v, "i", [2, 0, 1]), axis_name="i")(jnp.arange(3.0)),
        [2, 0, 1])
  with pytest.raises(NotImplementedError, match="axis_index_groups"):
    jax.vmap(lambda v: lax.psum(v, "i", axis_index_groups=[[0, 1], [2]]), axis_name="i")(y)
  with pytest.raises(ValueError, match="must match shard count 3"):
    jax.vmap(lambda v: lax.psum_scatter(v, "i"), axis_name="i")(z)


def test_psum_scatter_grad():
  y = jnp.arange(9.0).reshape(3, 3)
  f = lambda y: jnp.sum(jax.vmap(lambda v: lax.psum_scatter(v, "i"), axis_name="i")(y) ** 2)
  # d/dy[j, k] of sum_k (sum_j y[j, k])^2 = 2 * colsum[k]
  close(jax.grad(f)(y), np.broadcast_to(2 * y.sum(0), (3, 3)))


def test_switch_operand_keyword_and_reduce_out_sharding():
  assert float(lax.switch(1, [lambda a: a, lambda a: a + 1], operand=1.0)) == 2.0
  with pytest.raises(TypeError):
    lax.switch(0, [lambda a: a], 1.0, operand=1.0)
  out = lax.reduce(np.arange(6.0, dtype=np.float32), np.float32(0), lax.add, (0,),
                   out_sharding=None)
  assert float(out) == 15.0


def test_conv_shape_helpers():
  assert lax.conv_general_permutations(("NHWC", "HWIO", "NHWC")) == ((0, 3, 1, 2),
                                                                    (3, 2, 0, 1), (0, 3, 1, 2))
  assert lax.conv_shape_tuple((2, 3, 5, 4), (7, 3, 2, 2), (1, 1), "SAME") == (2, 7, 5, 4)
  assert lax.conv_shape_tuple((2, 3, 5, 4), (7, 3, 2, 2), (2, 1), ((0, 0), (0, 0))) == (2, 7, 2, 3)
  lhs, rhs = np.ones((2, 5, 4, 3), np.float32), np.ones((2, 2, 3, 7), np.float32)
  dn = ("NHWC", "HWIO", "NHWC")
  got = lax.conv_general_shape_tuple(lhs.shape, rhs.shape, (2, 1), "VALID", dn)
  assert got == lax.conv_general_dilated(lhs, rhs, (2, 1), "VALID", dimension_numbers=dn).shape
  got = lax.conv_transpose_shape_tuple(lhs.shape, rhs.shape, (2, 2), "SAME", dn)
  assert got == lax.conv_transpose(lhs, rhs, (2, 2), "SAME", dimension_numbers=dn).shape
  assert lax.reduce_window_shape_tuple((5, 6), (2, 3), (1, 2), ((0, 0), (1, 1))) == (4, 3)


def test_conv_general_dilated_patches():
  x = RNG.standard_normal((2, 3, 5, 4)).astype(np.float32)
  p = lax.conv_general_dilated_patches(x, (2, 2), (1, 1), "VALID")
  want = np.stack([x[:, :, i:i + 4, j:j + 3] for i in range(2) for j in range(2)], 2)
  close(p, want.reshape(2, 12, 4, 3))
  xh = np.transpose(x, (0, 2, 3, 1))
  ph = jax.jit(lambda x: lax.conv_general_dilated_patches(
      x, (2, 2), (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC")))(xh)
  close(np.transpose(np.asarray(ph), (0, 3, 1, 2)), want.reshape(2, 12, 4, 3))


def test_conv_transpose_consistent_padding_is_conv_vjp():
  x = RNG.standard_normal((1, 6, 6, 2)).astype(np.float32)
  k = RNG.standard_normal((3, 3, 2, 4)).astype(np.float32)
  dn = ("NHWC", "HWIO", "NHWC")
  y, vjp = jax.vjp(lambda x: lax.conv_general_dilated(x, k, (2, 2), "SAME",
                                                      dimension_numbers=dn), x)
  ct = RNG.standard_normal(y.shape).astype(np.float32)
  got = lax.conv_transpose(ct, k, (2, 2), "SAME", dimension_numbers=dn, transpose_kernel=True,
                           use_consistent_padding=True)
  close(got, vjp(ct)[0], 1e-4)


def test_with_sharding_constraint():
  dev = jax.devices()[0]
  out = lax.with_sharding_constraint({"a": jnp.arange(3.0)}, jax.sharding.SingleDeviceSharding(dev))
  assert out["a"].devices() == {dev}
  close(jax.jit(lambda x: lax.with_sharding_constraint(x * 2, dev))(jnp.arange(3.0)), [0, 2, 4])


class _Specs(dict):
  """A registered container (as flax's State is), holding one target per leaf."""


jax.tree_util.register_pytree_node(
    _Specs, lambda d: (list(d.values()), list(d)), lambda keys, vals: _Specs(zip(keys, vals)))


def test_with_sharding_constraint_takes_registered_containers_as_prefixes():
  mesh = jax.make_mesh((2,), ("x",), axis_types=(AxisType.Auto,), devices=jax.devices()[:2])
  state = _Specs(w=jnp.arange(4.0), b=jnp.arange(2.0))
  with jax.set_mesh(mesh):
    out = lax.with_sharding_constraint(state, _Specs(w=P("x"), b=P()))
  assert out["w"].sharding == NamedSharding(mesh, P("x"))
  assert out["b"].sharding == NamedSharding(mesh, P())
  close(out["w"], np.arange(4.0))


def test_with_sharding_constraint_over_explicit_axes_asserts_the_layout():
  mesh = jax.make_mesh((2,), ("x",), axis_types=(AxisType.Explicit,), devices=jax.devices()[:2])
  with jax.set_mesh(mesh):
    b = jnp.arange(2.0)
    close(lax.with_sharding_constraint(b, P()), [0.0, 1.0])  # replicated matches P()
    with pytest.raises(AssertionError, match=r"The array sharding: P\(None,\) did not match "
                                             r"the sharding provided: P\('x',\)"):
      lax.with_sharding_constraint(jnp.arange(4.0), P("x"))


def _newton_sqrt(a):
  f = lambda x: x * x - a
  solve = lambda f, x0: lax.fori_loop(0, 30, lambda i, x: x - f(x) / (2 * x), x0)
  return lax.custom_root(f, 1.0, solve, lambda g, y: y / g(1.0))


def test_custom_root_implicit_gradient():
  close(_newton_sqrt(2.0), np.sqrt(2.0))
  close(jax.grad(_newton_sqrt)(2.0), 0.5 / np.sqrt(2.0))
  close(jax.jit(jax.grad(_newton_sqrt))(4.0), 0.25)
  close(jax.vmap(_newton_sqrt)(jnp.array([4.0, 9.0])), [2.0, 3.0])


def test_custom_linear_solve_gradients():
  a = np.array([[4.0, 1.0], [2.0, 3.0]], np.float32)
  b = np.array([1.0, 2.0], np.float32)
  w = jnp.array([1.0, 3.0])

  def lin(a, b):
    return lax.custom_linear_solve(lambda x: a @ x, b, lambda mv, r: jnp.linalg.solve(a, r),
                                   transpose_solve=lambda vm, r: jnp.linalg.solve(a.T, r))

  close(lin(a, b), np.linalg.solve(a, b))
  got = jax.grad(lambda a, b: jnp.sum(lin(a, b) * w), (0, 1))(a, b)
  want = jax.grad(lambda a, b: jnp.sum(jnp.linalg.solve(a, b) * w), (0, 1))(a, b)
  close(got[0], want[0])
  close(got[1], want[1])
  no_transpose = lambda b: jnp.sum(lax.custom_linear_solve(
      lambda x: a @ x, b, lambda mv, r: jnp.linalg.solve(a, r)))
  with pytest.raises(TypeError, match="transpose_solve"):
    jax.grad(no_transpose)(b)
