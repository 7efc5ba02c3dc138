"""lax.select_and_scatter_p: per-window selection with any comparator, scatter with any combiner."""

import itertools

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax
from jax._src.lax.windowed_reductions import select_and_scatter


def _reference(operand, select, dims, strides, padding, source, init, scatter):
  """XLA's rule: the first element of a window is kept until `select(kept, e)` is false."""
  out = np.full(operand.shape, init, dtype=source.dtype)
  for w in itertools.product(*(range(n) for n in source.shape)):
    best = None
    for off in itertools.product(*(range(d) for d in dims)):
      pos = tuple(i * s + o - lo for i, s, o, (lo, _) in zip(w, strides, off, padding))
      if any(p < 0 or p >= n for p, n in zip(pos, operand.shape)):
        continue  # padding is never selected
      if best is None or not select(operand[best], operand[pos]):
        best = pos
    out[best] = scatter(out[best], source[w])
  return out


CASES = [
    # (operand shape, window, strides, padding)
    ((6,), (2,), (2,), ((0, 0),)),
    ((5,), (3,), (1,), ((1, 1),)),
    ((4, 5), (2, 3), (1, 2), ((0, 0), (1, 1))),
]


@pytest.mark.parametrize("shape,dims,strides,padding", CASES)
@pytest.mark.parametrize("kind", ["max_add", "min_mul", "max_max"])
def test_matches_reference(backend, shape, dims, strides, padding, kind):
  rng = np.random.RandomState(0)
  operand = rng.permutation(np.prod(shape)).reshape(shape).astype(np.float32)
  out_shape = tuple((n + lo + hi - d) // s + 1
                    for n, d, s, (lo, hi) in zip(shape, dims, strides, padding))
  source = (rng.rand(*out_shape) + 0.5).astype(np.float32)
  select, scatter, init = {
      "max_add": (lambda a, b: a >= b, lambda a, b: a + b, 0.0),
      "min_mul": (lambda a, b: a <= b, lambda a, b: a * b, 1.0),
      "max_max": (lambda a, b: a >= b, lambda a, b: np.maximum(a, b), -1.0),
  }[kind]
  jselect = {"max_add": lax.ge, "min_mul": lax.le, "max_max": lax.ge}[kind]
  jscatter = {"max_add": lax.add, "min_mul": lax.mul, "max_max": lax.max}[kind]
  want = _reference(operand, select, dims, strides, padding, source, np.float32(init), scatter)
  f = lambda x, s: select_and_scatter(x, jselect, dims, strides, padding, s, init, jscatter)
  np.testing.assert_allclose(np.asarray(f(operand, source)), want, rtol=1e-6)
  np.testing.assert_allclose(np.asarray(jax.jit(f)(operand, source)), want, rtol=1e-6)


def test_vmap_and_agrees_with_select_and_scatter_add(backend):
  rng = np.random.RandomState(1)
  xs = rng.rand(3, 8).astype(np.float32)
  ss = rng.rand(3, 4).astype(np.float32)
  f = lambda x, s: select_and_scatter(x, lax.ge, (2,), (2,), ((0, 0),), s, 0.0, lax.add)
  got = jax.vmap(f)(xs, ss)
  want = np.stack([_reference(x, lambda a, b: a >= b, (2,), (2,), ((0, 0),), s, np.float32(0),
                              lambda a, b: a + b) for x, s in zip(xs, ss)])
  np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
  add = lax.select_and_scatter_add_p.bind(
      ss[0], xs[0], select_max=True, window_dimensions=(2,), window_strides=(2,),
      padding=((0, 0),), window_dilation=(1,))
  np.testing.assert_allclose(np.asarray(got[0]), np.asarray(add), rtol=1e-6)
  assert "select_and_scatter" in str(jax.make_jaxpr(f)(xs[0], ss[0]))


def test_errors(backend):
  x, s = jnp.ones(6), jnp.ones(2)
  with pytest.raises(TypeError, match="window output shape"):
    select_and_scatter(x, lax.ge, (2,), (2,), ((0, 0),), s, 0.0, lax.add)
  with pytest.raises(TypeError, match="select function must return"):
    select_and_scatter(x, lax.add, (2,), (2,), ((0, 0),), jnp.ones(3), 0.0, lax.add)
  with pytest.raises(NotImplementedError, match="differentiation"):
    jax.grad(lambda s: select_and_scatter(x, lax.ge, (2,), (2,), ((0, 0),), s, 0.0,
                                          lax.add).sum())(jnp.ones(3))
