"""Block-scaled low-precision products (`jax.nn.scaled_dot_general`): operands are
quantized in blocks along their contracting dimension (microscaling, e.g. MXFP8: blocks
of 32 values stored as float8_e4m3fn, one power-of-two float8_e8m0fnu scale per block),
multiplied through lax.scaled_dot, and the cotangent is quantized the same way in the
backward pass.

The compilers here have no 8- or 4-bit float element types, so quantized values are
kept in float32 rounded exactly to the grid of the low-precision format (round to
nearest even, saturating at its largest finite value): the products are those of the
quantized operands.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import ml_dtypes
import numpy as np

from jax._src.numpy import namespace as jnp
from jax._src import api
from jax._src import custom_derivatives
from jax._src.lax import linalg as lax_linalg
from jax._src.lax import ragged


@dataclasses.dataclass(frozen=True)
class BlockScaleConfig:
  """How one operand is quantized: blocks of `block_size` values of `data_type`, a scale
  of `scale_type` per block, and an optional global scale (NVFP4)."""
  mode: str
  block_size: int
  data_type: Any
  scale_type: Any
  global_scale: Any = None
  infer_only: bool = False


def get_scaled_dot_general_config(mode: str, global_scale=None) -> BlockScaleConfig:
  """The quantization of `mode`: 'mxfp8' (32-value blocks of float8_e4m3fn with
  float8_e8m0fnu scales) or 'nvfp4' (16-value blocks of float4_e2m1fn with
  float8_e4m3fn scales and a float32 global scale)."""
  if mode == "mxfp8":
    return BlockScaleConfig("mxfp8", 32, jnp.float8_e4m3fn, jnp.float8_e8m0fnu)
  if mode == "nvfp4":
    scale = jnp.asarray(1.0 if global_scale is None else global_scale, jnp.float32)
    return BlockScaleConfig("nvfp4", 16, jnp.float4_e2m1fn, jnp.float8_e4m3fn, scale)
  raise ValueError(f"Unsupported mode: {mode!r} (expected 'mxfp8' or 'nvfp4')")


# format -> (mantissa bits, smallest normal exponent); the largest value comes from finfo.
_GRIDS = {np.dtype(ml_dtypes.float8_e4m3fn): (3, -6), np.dtype(ml_dtypes.float4_e2m1fn): (1, 0),
          np.dtype(ml_dtypes.float8_e5m2): (2, -14)}


def _round_to(x, dtype):
  """x rounded to the nearest value of the low-precision float `dtype` (saturating)."""
  dtype = np.dtype(dtype)
  max_val = float(ml_dtypes.finfo(dtype).max)
  if dtype == np.dtype(ml_dtypes.float8_e8m0fnu):
    # Powers of two only; rounding up keeps x / scale within the data type's range.
    return jnp.exp2(jnp.ceil(jnp.log2(jnp.maximum(x, 2.0 ** -127))))
  mant, min_exp = _GRIDS[dtype]
  exp = jnp.maximum(jnp.floor(jnp.log2(jnp.maximum(jnp.abs(x), 2.0 ** -126))), min_exp)
  step = jnp.exp2(exp - mant)
  return jnp.clip(jnp.round(x / step) * step, -max_val, max_val)


def _quantize(x, config: BlockScaleConfig, axis: int):
  """(values, scales): x along `axis` cut into blocks, each divided by its scale and
  stored in config.data_type; the scales (config.scale_type) have the block count as
  that axis's extent."""
  x = jnp.moveaxis(jnp.asarray(x, jnp.float32), axis, -1)
  k = x.shape[-1]
  if k % config.block_size:
    raise ValueError(f"the contracting dimension ({k}) must be a multiple of the block size "
                     f"{config.block_size}")
  blocks = x.reshape(x.shape[:-1] + (k // config.block_size, config.block_size))
  gscale = 1.0 if config.global_scale is None else config.global_scale
  dtype_max = float(ml_dtypes.finfo(config.data_type).max)
  amax = jnp.max(jnp.abs(blocks), axis=-1, keepdims=True)
  scales = _round_to(amax / (dtype_max * gscale), config.scale_type)
  safe = jnp.where(scales == 0, 1.0, scales) * gscale
  q = _round_to(blocks / safe, config.data_type).reshape(x.shape)
  return jnp.moveaxis(q, -1, axis), jnp.moveaxis(scales[..., 0], -1, axis)


def _dequantized(x, config, axis):
  q, s = _quantize(x, config, axis)
  qm, sm = jnp.moveaxis(q, axis, -1), jnp.moveaxis(s, axis, -1)
  gscale = 1.0 if config.global_scale is None else config.global_scale
  full = qm * jnp.repeat(sm, config.block_size, axis=-1) * gscale
  return jnp.moveaxis(full, -1, axis)


def _scaled(lhs, rhs, dimension_numbers, preferred_element_type, configs):
  (lc, rc), _ = dimension_numbers
  if len(lc) != 1 or len(rc) != 1:
    raise ValueError("scaled_dot_general supports one contracting dimension per operand")
  lq, ls = _quantize(lhs, configs[0], lc[0])
  rq, rs = _quantize(rhs, configs[1], rc[0])
  out = ragged.scaled_dot(lq, rq, lhs_scale=ls, rhs_scale=rs,
                          dimension_numbers=dimension_numbers,
                          preferred_element_type=preferred_element_type)
  for cfg in configs[:2]:
    if cfg.global_scale is not None:
      out = out * cfg.global_scale.astype(out.dtype)
  return out


def scaled_dot_general(lhs, rhs, dimension_numbers, preferred_element_type=jnp.float32,
                       configs=None, implementation=None):
  """dot_general of block-quantized operands (default: MXFP8 for both operands and the
  gradient). `configs` = [lhs, rhs, gradient] BlockScaleConfigs."""
  if implementation not in (None, "xla"):
    raise ValueError(f"implementation must be None or 'xla', got {implementation!r}")
  if configs is None:
    configs = [get_scaled_dot_general_config("mxfp8")] * 3
  if len(configs) != 3:
    raise ValueError("configs must hold three BlockScaleConfigs: lhs, rhs and gradient")
  dn = (tuple(map(tuple, dimension_numbers[0])), tuple(map(tuple, dimension_numbers[1])))

  @custom_derivatives.custom_vjp
  def f(lhs, rhs):
    return _scaled(lhs, rhs, dn, preferred_element_type, configs)

  def fwd(lhs, rhs):
    return f(lhs, rhs), (lhs, rhs)

  def bwd(res, ct):
    lhs, rhs = res
    # The cotangent is quantized along its trailing (free) dimension with the gradient
    # config; the operands' own quantization gives the values it is multiplied with.
    ct_q = ct if ct.shape[-1] % configs[2].block_size else _dequantized(ct, configs[2],
                                                                        ct.ndim - 1)
    lhs_d = _dequantized(lhs, configs[0], dn[0][0][0]).astype(lhs.dtype)
    rhs_d = _dequantized(rhs, configs[1], dn[0][1][0]).astype(rhs.dtype)
    _, pull = api.vjp(lambda a, b: lax_linalg.dot_general(a, b, dn), lhs_d, rhs_d)
    g_lhs, g_rhs = pull(ct_q.astype(ct.dtype))
    return g_lhs.astype(lhs.dtype), g_rhs.astype(rhs.dtype)

  f.defvjp(fwd, bwd)
  return f(jnp.asarray(lhs), jnp.asarray(rhs))
