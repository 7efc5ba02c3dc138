"""Very long chains of fused elementwise ops compile and give numpy's values.

The code generator used to recurse once per fused op and overflowed the
stack at about 3,000 ops (2,000 for jit of grad); JAX compiles far longer chains.
"""

import numpy as np

import jax
import jax.numpy as jnp

_SCALE = np.float32(1.0001)


def _chain(x, n):
  for _ in range(n):
    x = jnp.sin(x) * _SCALE
  return x


def _numpy_chain(x, n):
  """The forward values x_0..x_n and the derivative d x_n / d x_0, in float32."""
  xs = [np.asarray(x, np.float32)]
  for _ in range(n):
    xs.append((np.sin(xs[-1]) * _SCALE).astype(np.float32))
  grad = np.ones_like(xs[0])
  for xi in xs[:-1]:
    grad = (grad * (np.cos(xi) * _SCALE)).astype(np.float32)
  return xs[-1], grad


def test_jit_of_a_10000_op_chain_matches_numpy():
  x = np.linspace(-1.0, 1.0, 8, dtype=np.float32)
  got = jax.jit(lambda v: _chain(v, 10000))(x)
  want, _ = _numpy_chain(x, 10000)
  np.testing.assert_allclose(np.asarray(got), want, rtol=2e-4)


def test_jit_of_grad_of_a_3000_op_chain_matches_numpy():
  x = np.linspace(-1.0, 1.0, 8, dtype=np.float32)
  got = jax.jit(jax.grad(lambda v: _chain(v, 3000).sum()))(x)
  _, want = _numpy_chain(x, 3000)
  np.testing.assert_allclose(np.asarray(got), want, rtol=2e-3)


def test_deep_nesting_of_index_changing_ops_matches_numpy():
  # Producers read at another index (here reverse) nest in the emitter; past a
  # bound the planner gives one of them a kernel of its own, so this compiles.
  def f(v):
    for _ in range(3001):
      v = jnp.flip(v) + 1
    return v

  x = np.arange(5, dtype=np.float32)
  want = x[::-1] + 3001  # an odd number of flips
  np.testing.assert_array_equal(np.asarray(jax.jit(f)(x)), want)
