"""jax.nn.dot_product_attention: softmax(q k^T * scale + bias, masked) v.

Logits and the softmax are computed in float32 (or wider) whatever the input
dtype, masked logits get a large finite negative value so that a fully masked
row stays finite, and query rows past query_seq_lengths produce zeros.
"""

from __future__ import annotations

import math

import numpy as np

from jax._src.numpy import namespace as jnp


def _check_qkv(query, key, value):
  if query.ndim not in (3, 4) or key.ndim != query.ndim or value.ndim != query.ndim:
    raise ValueError("query, key and value must all be rank 3 (T, N, H) or rank 4 "
                     f"(B, T, N, H), got {query.shape}, {key.shape}, {value.shape}")
  if key.shape != value.shape[:-1] + (key.shape[-1],) or key.shape[:-1] != value.shape[:-1]:
    raise ValueError(f"key and value must agree on batch, length and heads, got "
                     f"{key.shape} and {value.shape}")
  b, _, n, h = query.shape
  if key.shape[0] != b:
    raise ValueError(f"query and key batch sizes differ: {query.shape} vs {key.shape}")
  if key.shape[-1] != h:
    raise ValueError(f"query and key head dims differ: {h} vs {key.shape[-1]}")
  if n % key.shape[-2]:
    raise ValueError(f"The number of query heads ({n}) must be a multiple of the number "
                     f"of key/value heads ({key.shape[-2]})")


def _window(local_window_size):
  if local_window_size is None:
    return None
  if isinstance(local_window_size, int):
    return local_window_size, local_window_size
  left, right = local_window_size
  return int(left), int(right)


def _keep_mask(b, t, s, mask, is_causal, q_lens, kv_lens, window):
  """Boolean (B or 1, N or 1, T, S) mask of the logits that take part, or None."""
  keep = None

  def both(m):
    return m if keep is None else jnp.logical_and(keep, m)

  if mask is not None:
    keep = both(jnp.asarray(mask, bool))
  qi = np.arange(t)[:, None]
  ki = np.arange(s)[None, :]
  if is_causal:
    keep = both(jnp.asarray(qi >= ki)[None, None])
  if window is not None:
    left, right = window
    keep = both(jnp.asarray((ki >= qi - left) & (ki <= qi + right))[None, None])
  if kv_lens is not None:
    kv_lens = jnp.asarray(kv_lens)
    if kv_lens.shape != (b,):
      raise ValueError(f"key_value_seq_lengths must have shape ({b},), got {kv_lens.shape}")
    keep = both((jnp.arange(s)[None, :] < kv_lens[:, None])[:, None, None, :])
  return keep


def _large_negative(dtype):
  # A finite stand-in for -inf: fully masked rows then soften to a uniform average.
  return np.asarray(-0.7 * np.finfo(dtype).max, dtype)


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal: bool = False, query_seq_lengths=None,
                          key_value_seq_lengths=None, local_window_size=None,
                          implementation=None, return_residual: bool = False):
  """Scaled dot-product attention over (B, T, N, H) query and (B, S, K, H) key/value.

  N must be a multiple of K (grouped-query attention). bias and mask broadcast to
  (B, N, T, S); mask keeps the True entries. Returns (B, T, N, H), plus the
  (B, T, N) log-sum-exp of the logits when return_residual.
  """
  if implementation not in (None, "xla"):
    if implementation in ("cudnn", "triton"):
      raise NotImplementedError(f"implementation={implementation!r} needs a GPU backend; "
                                "only 'xla' is available")
    raise ValueError(f"Unsupported implementation option: {implementation!r}")
  query, key, value = (jnp.asarray(x) for x in (query, key, value))
  unbatched = query.ndim == 3
  if unbatched:
    query, key, value = query[None], key[None], value[None]
  _check_qkv(query, key, value)
  b, t, n, h = query.shape
  s, k_heads = key.shape[1], key.shape[2]
  dtype = jnp.result_type(query, key, value)
  if unbatched:
    bias = None if bias is None else jnp.asarray(bias)
    mask = None if mask is None else jnp.asarray(mask)
  scale = 1.0 / math.sqrt(h) if scale is None else scale
  acc = jnp.promote_types(dtype, jnp.float32)

  groups = n // k_heads
  qg = query.reshape(b, t, k_heads, groups, h)
  logits = jnp.einsum("btkgh,bskh->bkgts", qg, key, preferred_element_type=acc)
  logits = logits.reshape(b, n, t, s) * jnp.asarray(scale, acc)
  if bias is not None:
    logits = logits + jnp.asarray(bias).astype(acc)
  keep = _keep_mask(b, t, s, mask, is_causal, query_seq_lengths, key_value_seq_lengths,
                    _window(local_window_size))
  if keep is not None:
    logits = jnp.where(keep, logits, _large_negative(acc))
  top = jnp.max(logits, axis=-1, keepdims=True)
  unnormalized = jnp.exp(logits - top)
  total = jnp.sum(unnormalized, axis=-1, keepdims=True)
  # Normalise by division: top + log(total) would round away log(total) when top is huge.
  probs = (unnormalized / total).astype(dtype)
  lse = top + jnp.log(total)
  out = jnp.einsum("bkgts,bskh->btkgh", probs.reshape(b, k_heads, groups, t, s), value,
                   preferred_element_type=acc).reshape(b, t, n, h).astype(dtype)
  if query_seq_lengths is not None:
    q_lens = jnp.asarray(query_seq_lengths)
    if q_lens.shape != (b,):
      raise ValueError(f"query_seq_lengths must have shape ({b},), got {q_lens.shape}")
    valid = jnp.arange(t)[None, :] < q_lens[:, None]
    out = jnp.where(valid[:, :, None, None], out, jnp.zeros((), dtype))
  residual = jnp.moveaxis(lse[..., 0], 1, 2)
  if unbatched:
    out, residual = out[0], residual[0]
  return (out, residual) if return_residual else out

