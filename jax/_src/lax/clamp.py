"""`lax.clamp(min, x, max)`: one primitive block (HLO `clamp`, NaN-propagating).

`min` and `max` are scalars or arrays of `x`'s shape; Python scalars take `x`'s
dtype.
"""

from __future__ import annotations

from jax._src import core
from jax._src import dtypes
from jax._src.core import ShapedArray
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lax import elementwise as ew
from jax._src.lax import shape as lax_shape
from jax._src.lax.utils import standard_primitive
from jax._src.lowering import hlo


def _clamp_abstract_eval(lo, x, hi):
  for name, bound in (("min", lo), ("max", hi)):
    if bound.shape not in ((), x.shape):
      raise TypeError(f"clamp requires {name} to be a scalar or have the shape of the operand "
                      f"{x.str_short(short_dtypes=True)}, got {bound.str_short(short_dtypes=True)}")
    if bound.dtype != x.dtype:
      raise TypeError(f"clamp requires {name} and the operand to have the same dtype, got "
                      f"{bound.str_short(short_dtypes=True)} and {x.str_short(short_dtypes=True)}")
  if dtypes.is_complex(x.dtype):
    # Complex operands would need an ordering the CPU compiler does not implement.
    raise TypeError(f"clamp does not accept dtype {x.dtype.name}")
  return ShapedArray(x.shape, x.dtype, x.weak_type)


clamp_p = standard_primitive("clamp", _clamp_abstract_eval)


def _as_bound(v, like):
  aval = core.get_aval(like)
  if dtypes.is_python_scalar(v):
    return ew.convert_element_type(v, aval.dtype, aval.weak_type)
  return v


def clamp(min, x, max):  # noqa: A002 (lax names)
  """Elementwise `min(max(x, min), max)`."""
  return clamp_p.bind(_as_bound(min, x), x, _as_bound(max, x))


def _full_shape(v, shape):
  aval = core.get_aval(v)
  return v if aval.shape == tuple(shape) else lax_shape.broadcast_in_dim(v, tuple(shape), ())


def _clamp_jvp(primals, tangents):
  lo, x, hi = primals
  t_lo, t_x, t_hi = tangents
  out = clamp_p.bind(lo, x, hi)
  shape = core.get_aval(x).shape
  lo_b, hi_b = _full_shape(lo, shape), _full_shape(hi, shape)
  zero = lax_shape.full(shape, 0, core.get_aval(x).dtype)
  if not dtypes.is_inexact(core.get_aval(x).dtype):
    return out, zero
  # Ties with a bound give no derivative to anyone, as in JAX.
  pick = lambda cond, t: ew.select(cond, _full_shape(t, shape), zero)
  t = pick(ew.bitwise_and(ew.lt(x, lo_b), ew.lt(lo_b, hi_b)), t_lo)
  t = ew.add(t, pick(ew.bitwise_and(ew.lt(lo_b, x), ew.lt(x, hi_b)), t_x))
  t = ew.add(t, pick(ew.lt(hi_b, x), t_hi))
  return out, t


def _clamp_batch(axis, vals, dims):
  size = axis.size
  lo, x, hi = vals
  ld, xd, hd = dims
  x = batching.bdim_at_front(x, xd, size)
  shape = core.get_aval(x).shape
  # Bounds that are batched (or not scalars) must be materialized to the operand's shape.
  def bound(v, d):
    if d is batching.not_mapped and core.get_aval(v).shape == ():
      return v
    v = batching.bdim_at_front(v, d, size) if d is not batching.not_mapped else v
    vshape = core.get_aval(v).shape
    if d is batching.not_mapped:
      return lax_shape.broadcast_in_dim(v, shape, tuple(range(1, len(shape))))
    if vshape == (size,):
      return lax_shape.broadcast_in_dim(v, shape, (0,))
    return v
  return clamp_p.bind(bound(lo, ld), x, bound(hi, hd)), 0


def _clamp_lowering(ctx, lo, x, hi):
  out = ctx.avals_out[0]
  def full(v):
    if v.aval.shape == out.shape:
      return v
    return ctx.op("broadcast", v.aval.update(shape=out.shape), v, attrs="dimensions={}")
  return ctx.op("clamp", out, full(lo), x, full(hi))


ad.jvp_rules[clamp_p] = _clamp_jvp
batching.batch_rules[clamp_p] = _clamp_batch
hlo.lowering_rules[clamp_p] = _clamp_lowering
