"""Float sums on CPU add in blocks of 32 as XLA:CPU's do (its tree reduction: windows
of 32 with even padding, then a sum of the partial sums), so results round as they
do under JAX 0.10.2. The values below were recorded from JAX 0.10.2 on CPU."""

import numpy as np

import jax
import jax.numpy as jnp

RNG = np.random.RandomState(0)
A = RNG.standard_normal(50).astype(np.float32) * 100
B = RNG.standard_normal((3, 50)).astype(np.float32)
C = RNG.standard_normal(2000).astype(np.float32)


def test_a_large_head_keeps_the_second_blocks_ones():
  x = np.ones(50, np.float32)
  x[0] = 1e8
  # In order, float drops each 1 added to 1e8; in blocks of 32 (padded 7 at each end),
  # the last 25 ones sum first and survive: JAX 0.10.2 gives 100000024.
  assert float(jnp.sum(x)) == 100000024.0
  assert float(jax.jit(jnp.sum)(x)) == 100000024.0


def test_sums_match_jax_bit_for_bit():
  assert float(jnp.sum(A)) == 702.796630859375
  assert float(jnp.sum(A * A)) == 643279.375
  np.testing.assert_array_equal(np.asarray(jnp.sum(B, 1)),
                                np.float32([-1.0471606254577637, 12.826742172241211,
                                            -4.62544584274292]))
  assert float(jnp.sum(B)) == 7.154134750366211
  # 2000 elements: 63 partial sums, then 2, then one.
  assert float(jnp.sum(C)) == -53.132713317871094


def test_block_order_is_the_tree_of_32():
  def tree_sum(v, w=32):
    def in_order(a):
      s = np.float32(0)
      for e in a:
        s = np.float32(s + e)
      return s
    while len(v) > w:
      n = -(-len(v) // w) * w
      lo = (n - len(v)) // 2
      padded = np.concatenate([np.zeros(lo, np.float32), v,
                               np.zeros(n - len(v) - lo, np.float32)])
      v = np.array([in_order(padded[i:i + w]) for i in range(0, n, w)], np.float32)
    return in_order(v)

  for n in (33, 50, 100, 1025, 3000):
    v = RNG.standard_normal(n).astype(np.float32)
    assert float(jnp.sum(v)) == float(tree_sum(v)), n
