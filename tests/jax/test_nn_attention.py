"""jax.nn.dot_product_attention against a NumPy reference (float64), and
standardize(algorithm=)."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp

RNG = np.random.default_rng(0)
Q = RNG.normal(size=(2, 3, 4, 8)).astype(np.float32)
K = RNG.normal(size=(2, 5, 2, 8)).astype(np.float32)
V = RNG.normal(size=(2, 5, 2, 8)).astype(np.float32)


def reference(q, k, v, bias=None, keep=None, scale=None, q_lens=None):
  """Grouped-query attention written out head by head."""
  q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
  b, t, n, h = q.shape
  s, kh = k.shape[1], k.shape[2]
  scale = 1 / np.sqrt(h) if scale is None else scale
  out = np.zeros((b, t, n, h))
  lse = np.zeros((b, t, n))
  for bi in range(b):
    for ni in range(n):
      kv = ni // (n // kh)
      logits = q[bi, :, ni] @ k[bi, :, kv].T * scale
      if bias is not None:
        logits = logits + np.broadcast_to(bias, (b, n, t, s))[bi, ni]
      if keep is not None:
        logits = np.where(np.broadcast_to(keep, (b, n, t, s))[bi, ni], logits, -1e30)
      m = logits.max(-1, keepdims=True)
      p = np.exp(logits - m)
      lse[bi, :, ni] = (m + np.log(p.sum(-1, keepdims=True)))[:, 0]
      out[bi, :, ni] = (p / p.sum(-1, keepdims=True)) @ v[bi, :, kv]
  if q_lens is not None:
    out[np.arange(t)[None, :] >= np.asarray(q_lens)[:, None]] = 0
  return out, lse


def close(a, b, tol=2e-5):
  np.testing.assert_allclose(np.asarray(a, np.float64), b, rtol=tol, atol=tol)


def test_plain_bias_mask_scale():
  close(jax.nn.dot_product_attention(Q, K, V), reference(Q, K, V)[0])
  bias = RNG.normal(size=(1, 4, 3, 5)).astype(np.float32)
  keep = RNG.random((2, 1, 3, 5)) > 0.3
  keep[..., 0] = True
  out = jax.nn.dot_product_attention(Q, K, V, bias, keep, scale=0.3)
  close(out, reference(Q, K, V, bias, keep, 0.3)[0])


def test_causal_window_lengths_and_residual():
  t, s = np.arange(3)[:, None], np.arange(5)[None, :]
  out, res = jax.nn.dot_product_attention(Q, K, V, is_causal=True, return_residual=True)
  ref_out, ref_lse = reference(Q, K, V, keep=t >= s)
  close(out, ref_out)
  close(res, ref_lse)
  close(jax.nn.dot_product_attention(Q, K, V, local_window_size=(1, 0)),
        reference(Q, K, V, keep=(s >= t - 1) & (s <= t))[0])
  close(jax.nn.dot_product_attention(Q, K, V, local_window_size=1),
        reference(Q, K, V, keep=(s >= t - 1) & (s <= t + 1))[0])
  q_lens, kv_lens = np.array([2, 3]), np.array([3, 5])
  keep = (s < kv_lens[:, None, None, None])
  out = jax.nn.dot_product_attention(Q, K, V, query_seq_lengths=q_lens,
                                     key_value_seq_lengths=kv_lens)
  close(out, reference(Q, K, V, keep=keep, q_lens=q_lens)[0])
  assert np.all(np.asarray(out)[0, 2] == 0)


def test_fully_masked_rows_average_values():
  out = jax.nn.dot_product_attention(Q, K, V, mask=np.zeros((1, 1, 3, 5), bool))
  mean_v = np.repeat(V.mean(1), 2, axis=1)  # query head n reads kv head n // 2
  close(out, np.broadcast_to(mean_v[:, None], out.shape))


def test_unbatched_jit_vmap_grad_and_bf16():
  close(jax.nn.dot_product_attention(Q[0], K[0], V[0]), reference(Q, K, V)[0][0])
  close(jax.jit(jax.nn.dot_product_attention, static_argnames="is_causal")(Q, K, V,
                                                                        is_causal=True),
        reference(Q, K, V, keep=np.tri(3, 5, dtype=bool))[0])
  per_example = np.stack([reference(Q[i:i + 1], K[i:i + 1], V[i:i + 1])[0][0]
                          for i in range(2)])
  close(jax.vmap(jax.nn.dot_product_attention)(Q, K, V), per_example)
  # The output is linear in v: d sum(out) / dv[s] = sum over queries of probabilities.
  g = jax.grad(lambda v: jax.nn.dot_product_attention(Q, K, v).sum())(V)
  assert g.shape == V.shape
  close(g.sum(axis=(1, 3)), np.full((2, 2), 3 * 2 * 8.0), 1e-4)
  low = jax.nn.dot_product_attention(*(x.astype(jnp.bfloat16) for x in (Q, K, V)))
  assert low.dtype == jnp.bfloat16
  close(low.astype(np.float32), reference(Q, K, V)[0], 3e-2)


def test_bad_inputs():
  with pytest.raises(ValueError, match="multiple"):
    jax.nn.dot_product_attention(Q[:, :, :3], K, V)
  with pytest.raises(ValueError, match="rank"):
    jax.nn.dot_product_attention(Q[0, 0], K, V)
  with pytest.raises(NotImplementedError, match="GPU"):
    jax.nn.dot_product_attention(Q, K, V, implementation="cudnn")


def test_standardize_stable_algorithm_avoids_cancellation():
  x = (1e4 + np.array([[1., 2., 3., 4.]])).astype(np.float32)
  ref = (x - 1e4 - 2.5) / np.sqrt(1.25 + 1e-5)
  close(jax.nn.standardize(x, algorithm="stable"), ref, 1e-3)
  # E[x^2] - E[x]^2 loses the variance entirely at this offset in float32.
  assert not np.allclose(np.asarray(jax.nn.standardize(x)), ref, atol=0.1)
  close(jax.nn.standardize(x[0] - 1e4, algorithm="stable"), ref[0], 1e-4)
  with pytest.raises(ValueError, match="algorithm"):
    jax.nn.standardize(x, algorithm="exact")
