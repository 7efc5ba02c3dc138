"""jax.ref / jax.new_ref: mutable references read and written in program order, eagerly
and inside jit, grad and vmap; dynamic slices; the errors for unsupported uses."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp

pytestmark = pytest.mark.usefixtures("backend")


def test_eager_reads_and_writes():
  r = jax.new_ref(jnp.zeros(4))
  assert isinstance(r, jax.Ref) and r.shape == (4,) and r.dtype == jnp.float32
  r[1] = 5.
  jax.ref.addupdate(r, (), 1.)
  np.testing.assert_array_equal(r[...], [1., 6., 1., 1.])
  assert float(jax.ref.swap(r, 0, 9.)) == 1.
  np.testing.assert_array_equal(jax.ref.get(r, jax.ds(1, 2)), [6., 1.])
  jax.ref.set(r, jax.ds(2, 2), jnp.array([7., 8.]))
  np.testing.assert_array_equal(jax.freeze(r), [9., 6., 7., 8.])
  with pytest.raises(ValueError, match="frozen or freed"):
    r[0]


def test_empty_ref_and_free():
  r = jax.empty_ref(jax.ShapeDtypeStruct((2, 3), jnp.int32))
  assert r.shape == (2, 3) and r.dtype == jnp.int32 and r.aval == jax.ref.AbstractRef(
      jax.core.ShapedArray((2, 3), jnp.int32))
  np.testing.assert_array_equal(r[...], np.zeros((2, 3)))
  jax.free_ref(r)
  with pytest.raises(ValueError, match="freed"):
    r[0] = 1


def _accumulate(x):
  r = jax.new_ref(jnp.zeros(3))
  for i in range(3):
    r[i] = x * i
  r[jax.ds(0, 2)] = jnp.ones(2) * x
  return jax.freeze(r).sum()


def test_refs_inside_transformations():
  assert float(_accumulate(2.)) == 8.
  assert float(jax.jit(_accumulate)(2.)) == 8.
  assert float(jax.grad(_accumulate)(2.)) == 4.
  np.testing.assert_array_equal(jax.vmap(_accumulate)(jnp.arange(3.)), [0., 4., 8.])


def test_reading_an_outer_ref_in_jit_and_refusing_writes():
  r = jax.new_ref(jnp.arange(3.))
  np.testing.assert_array_equal(jax.jit(lambda x: r[...] + x)(1.), [1., 2., 3.])
  with pytest.raises(NotImplementedError, match="inner transformation"):
    jax.jit(lambda x: r.__setitem__(0, x))(1.)
  leaked = []
  jax.jit(lambda x: leaked.append(jax.new_ref(x)) or x)(1.)
  with pytest.raises(ValueError, match="outside the transformation"):
    leaked[0][...]


def test_strided_dynamic_slice_read():
  r = jax.new_ref(jnp.arange(10))
  np.testing.assert_array_equal(r[jax.ds(1, 3, 2)], [1, 3, 5])
  np.testing.assert_array_equal(jax.jit(lambda i: r[jax.ds(i, 2)])(4), [4, 5])
  with pytest.raises(TypeError, match="Ref"):
    jax.ref.get(jnp.ones(2))


def test_refs_passed_to_jit_are_read_and_written_inside():
  r = jax.new_ref(jnp.zeros(3))

  @jax.jit
  def accumulate(r, x):
    r[...] = r[...] + x
    return r[...].sum()

  assert float(accumulate(r, jnp.ones(3))) == 3.0
  np.testing.assert_array_equal(r[...], [1.0, 1.0, 1.0])
  assert float(accumulate(r, jnp.ones(3))) == 6.0  # the cached trace writes back too
  np.testing.assert_array_equal(r[...], [2.0, 2.0, 2.0])
  counter = jax.new_ref(jnp.int32(0))

  @jax.jit
  def bump(c):
    c[...] += 1

  assert bump(counter) is None
  bump(counter)
  assert int(counter[...]) == 2
  assert str(jax.typeof(counter)) == "Ref{int32[]}"
  with pytest.raises(ValueError, match="same Ref"):
    jax.jit(lambda a, b: None)(r, r)
  # Inside an outer jit the Ref passed through an inner one is still written.
  outer = jax.new_ref(jnp.zeros(2))

  @jax.jit
  def twice(ref):
    bump_vec(ref)
    bump_vec(ref)

  bump_vec = jax.jit(lambda ref: ref.__setitem__(..., ref[...] + 1))
  twice(outer)
  np.testing.assert_array_equal(outer[...], [2.0, 2.0])
