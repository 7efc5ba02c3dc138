"""lax.all_to_all_p: the all-to-all exchange as a primitive (vmap, pmap, shard_map, AD)."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import Mesh, PartitionSpec as P


def _reference(xs, split_axis, concat_axis, tiled):
  """Member i receives block i (along split_axis) of every member j, placed j-major."""
  n = xs.shape[0]
  outs = []
  for i in range(n):
    blocks = [np.split(xs[j], n, axis=split_axis)[i] for j in range(n)]
    if tiled:
      outs.append(np.concatenate(blocks, axis=concat_axis))
    else:
      outs.append(np.stack([np.squeeze(b, split_axis) for b in blocks], axis=concat_axis))
  return np.stack(outs)


@pytest.mark.parametrize("split_axis,concat_axis,tiled", [
    (0, 0, False), (0, 1, False), (1, 0, False), (0, 1, True), (1, 0, True), (1, 1, True)])
def test_vmap_matches_reference(backend, split_axis, concat_axis, tiled):
  n = 4
  shape = [n, 4, 8] if tiled else [n, n, 3]
  if not tiled and split_axis == 1:
    shape = [n, 3, n]
  xs = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
  f = lambda v: lax.all_to_all(v, "i", split_axis, concat_axis, tiled=tiled)
  got = jax.vmap(f, axis_name="i")(xs)
  np.testing.assert_array_equal(np.asarray(got), _reference(xs, split_axis, concat_axis, tiled))
  got_jit = jax.jit(jax.vmap(f, axis_name="i"))(xs)
  np.testing.assert_array_equal(np.asarray(got_jit), np.asarray(got))


def test_appears_as_primitive_and_batches_over_other_axes(backend):
  xs = np.arange(2 * 3 * 3, dtype=np.float32).reshape(2, 3, 3)
  f = lambda v: lax.all_to_all(v, "i", 0, 0)
  # An inner vmap over another axis: the exchange happens per element of it.
  inner = jax.vmap(jax.vmap(f, axis_name="i"), in_axes=0)
  want = np.stack([_reference(x, 0, 0, False) for x in xs])
  np.testing.assert_array_equal(np.asarray(inner(xs)), want)
  jaxpr = jax.make_jaxpr(lambda x: jax.vmap(lambda v: lax.all_to_all_p.bind(
      v, axis_name="i", split_axis=0, concat_axis=0, axis_size=3, tiled=False),
      axis_name="i")(x))(xs[0])
  assert jaxpr.out_avals[0].shape == (3, 3)
  with pytest.raises(NameError, match="unbound axis name"):
    lax.all_to_all_p.bind(jnp.ones((2, 2)), axis_name="z", split_axis=0, concat_axis=0,
                          axis_size=2, tiled=False)


def test_grad_is_the_reverse_exchange(backend):
  xs = np.arange(16, dtype=np.float32).reshape(4, 4)
  w = np.arange(16, dtype=np.float32).reshape(4, 4) / 10
  f = lambda x: jnp.sum(jax.vmap(lambda v: lax.all_to_all(v, "i", 0, 0), axis_name="i")(x) * w)
  # The exchange here is the transpose, so d/dx sum(x.T * w) = w.T.
  np.testing.assert_allclose(np.asarray(jax.grad(f)(xs)), w.T, rtol=1e-6)


def test_pmap_and_shard_map(backend):
  n = 4
  xs = np.arange(n * n * 2, dtype=np.float32).reshape(n, n, 2)
  got = jax.pmap(lambda v: lax.all_to_all(v, "i", 0, 0), axis_name="i")(xs)
  np.testing.assert_array_equal(np.asarray(got), _reference(xs, 0, 0, False))
  mesh = Mesh(np.array(jax.devices()[:n]), ("x",))
  ys = np.arange(n * 8, dtype=np.float32).reshape(n * 2, 4)
  g = jax.shard_map(lambda b: lax.all_to_all(b, "x", 1, 0, tiled=True), mesh=mesh,
                    in_specs=P("x", None), out_specs=P("x", None))
  got = jax.jit(g)(ys)
  want = _reference(ys.reshape(n, 2, 4), 1, 0, True).reshape(n * n * 2, 1)
  np.testing.assert_array_equal(np.asarray(got), want)
