"""Reduction primitives (reduce_sum/max/min/prod/and/or, argmax/argmin): one block each."""

from __future__ import annotations

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.util import ensure_index_tuple
from jax._src.core import ShapedArray
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lax import elementwise as ew
from jax._src.lax import shape as lax_shape
from jax._src.lax.utils import late_op, register_late_ops, standard_primitive, takes_out_sharding
from jax._src.lowering import hlo
from jax._src.lowering.hlo import ComputationBuilder, HloValue


def _reduce_abstract_eval(name):
  def rule(x, *, axes):
    if any(not 0 <= a < x.ndim for a in axes):
      raise TypeError(f"{name}: axes {axes} out of range for {x.str_short(short_dtypes=True)}")
    return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i not in axes),
                       x.dtype, x.weak_type)
  return rule


def _reduce_batch(prim):
  def rule(axis, vals, dims, *, axes):
    (x,), (d,) = vals, dims
    x = batching.moveaxis(x, d, 0)
    return prim.bind(x, axes=tuple(a + 1 for a in axes)), 0
  return rule


def init_value(kind: str, dtype):
  dtype = np.dtype(dtype)
  if kind == "sum":
    return 0
  if kind == "prod":
    return 1
  if dtype == dtypes.bool_:
    return kind == "min"
  if dtypes.is_float(dtype) or dtypes.is_complex(dtype):
    # Complex numbers order lexicographically: (-inf, 0) is below every other one.
    return dtypes.lowest_value(dtype) if kind == "max" else dtypes.highest_value(dtype)
  info = dtypes.iinfo(dtype)  # ml_dtypes: int4 too
  return info.min if kind == "max" else info.max


def _reduce_lowering(kind: str, opcode: str, bool_opcode: str | None = None):
  def rule(ctx, x, *, axes):
    dtype = x.aval.dtype
    op = bool_opcode if (dtype == dtypes.bool_ and bool_opcode) else opcode
    init = ctx.constant(init_value(kind, dtype), dtype)
    region = ctx.scalar_region(op, dtype)
    dims = ",".join(map(str, axes))
    return ctx.op("reduce", ctx.avals_out[0], x, init,
                  attrs=f"dimensions={{{dims}}}, to_apply={region}")
  return rule


def _canonical_axes(x, axes) -> tuple[int, ...]:
  ndim = core.get_aval(x).ndim
  if axes is None:
    return tuple(range(ndim))
  return tuple(sorted(a % ndim if ndim else a for a in ensure_index_tuple(axes)))


def _expand_to(x, out_aval_shape, axes):
  """Broadcast a reduced value back to the input shape."""
  kept = tuple(i for i in range(len(out_aval_shape)) if i not in axes)
  return lax_shape.broadcast_in_dim(x, out_aval_shape, kept)


# ----------------------------------------------------------------------------- reduce_sum

reduce_sum_p = standard_primitive("reduce_sum", _reduce_abstract_eval("reduce_sum"))


@takes_out_sharding
def reduce_sum(operand, axes=None):
  x = operand
  return reduce_sum_p.bind(x, axes=_canonical_axes(x, axes))


ad.deflinear2(reduce_sum_p, lambda ct, x, *, axes: [_expand_to(ct, x.aval.shape, axes)])
batching.batch_rules[reduce_sum_p] = _reduce_batch(reduce_sum_p)
hlo.lowering_rules[reduce_sum_p] = _reduce_lowering("sum", "add", "or")

# ----------------------------------------------------------------------------- reduce_max / min


def _chooser_jvp(prim):
  # The tangent of the max is the mean of the tangents at the locations of the max.
  def rule(primals, tangents, *, axes):
    (x,), (t,) = primals, tangents
    ans = prim.bind(x, axes=axes)
    shape = core.get_aval(x).shape
    mask = ew.convert_element_type(ew.eq(x, _expand_to(ans, shape, axes)),
                                   core.get_aval(t).dtype)
    count = reduce_sum(mask, axes)
    return ans, ew.div(reduce_sum(ew.mul(t, mask), axes), count)
  return rule


reduce_max_p = standard_primitive("reduce_max", _reduce_abstract_eval("reduce_max"))


def reduce_max(operand, axes=None):
  x = operand
  return reduce_max_p.bind(x, axes=_canonical_axes(x, axes))


ad.jvp_rules[reduce_max_p] = _chooser_jvp(reduce_max_p)
batching.batch_rules[reduce_max_p] = _reduce_batch(reduce_max_p)
hlo.lowering_rules[reduce_max_p] = _reduce_lowering("max", "maximum", "or")

reduce_min_p = standard_primitive("reduce_min", _reduce_abstract_eval("reduce_min"))


def reduce_min(operand, axes=None):
  x = operand
  return reduce_min_p.bind(x, axes=_canonical_axes(x, axes))


ad.jvp_rules[reduce_min_p] = _chooser_jvp(reduce_min_p)
batching.batch_rules[reduce_min_p] = _reduce_batch(reduce_min_p)
hlo.lowering_rules[reduce_min_p] = _reduce_lowering("min", "minimum", "and")

# ----------------------------------------------------------------------------- reduce_prod

reduce_prod_p = standard_primitive("reduce_prod", _reduce_abstract_eval("reduce_prod"))


def reduce_prod(operand, axes=None):
  x = operand
  return reduce_prod_p.bind(x, axes=_canonical_axes(x, axes))


def _reduce_prod_jvp(primals, tangents, *, axes):
  # d prod = sum_i t_i * prod_{j != i} x_j, computed as prod(x with x_i replaced by t_i)
  # summed over i would be quadratic; use ans / x, which is exact when no x_i is zero.
  (x,), (t,) = primals, tangents
  ans = reduce_prod_p.bind(x, axes=axes)
  shape = core.get_aval(x).shape
  return ans, reduce_sum(ew.mul(t, ew.div(_expand_to(ans, shape, axes), x)), axes)


ad.jvp_rules[reduce_prod_p] = _reduce_prod_jvp
batching.batch_rules[reduce_prod_p] = _reduce_batch(reduce_prod_p)
hlo.lowering_rules[reduce_prod_p] = _reduce_lowering("prod", "multiply", "and")

# ----------------------------------------------------------------------------- reduce_and / or

reduce_and_p = standard_primitive("reduce_and", _reduce_abstract_eval("reduce_and"))


def reduce_and(operand, axes=None):
  x = operand
  return reduce_and_p.bind(x, axes=_canonical_axes(x, axes))


ad.defjvp_zero(reduce_and_p)
batching.batch_rules[reduce_and_p] = _reduce_batch(reduce_and_p)
hlo.lowering_rules[reduce_and_p] = _reduce_lowering("min", "and")

reduce_or_p = standard_primitive("reduce_or", _reduce_abstract_eval("reduce_or"))


def reduce_or(operand, axes=None):
  x = operand
  return reduce_or_p.bind(x, axes=_canonical_axes(x, axes))


ad.defjvp_zero(reduce_or_p)
batching.batch_rules[reduce_or_p] = _reduce_batch(reduce_or_p)
hlo.lowering_rules[reduce_or_p] = _reduce_lowering("max", "or")


# ----------------------------------------------------------------------------- argmax / argmin


def _argminmax_abstract_eval(x, *, axes, index_dtype):
  (axis,) = axes
  if not 0 <= axis < x.ndim or x.shape[axis] == 0:
    raise ValueError(f"argmin/argmax on an empty or missing axis {axis} of {x.str_short(short_dtypes=True)}")
  return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i != axis), index_dtype)


def _argminmax_lowering(direction: str):
  """A variadic reduce over (value, index); NaN wins, ties pick the lower index."""

  def rule(ctx, x, *, axes, index_dtype):
    (axis,) = axes
    vt, it = ShapedArray((), x.aval.dtype), ShapedArray((), index_dtype)
    pred = ShapedArray((), dtypes.bool_)
    name = ctx.module.region_name()
    sub = ComputationBuilder(ctx.module, name)
    p = "reduce"
    a, ai = sub.parameter(0, vt, p), sub.parameter(1, it, p)
    b, bi = sub.parameter(2, vt, p), sub.parameter(3, it, p)
    better = sub.op(p, "compare", pred, [a, b], f"direction={direction}")
    if dtypes.is_float(x.aval.dtype):
      nan = sub.op(p, "compare", pred, [a, a], "direction=NE")
      better = sub.op(p, "or", pred, [better, nan])
    val = sub.op(p, "select", vt, [better, a, b])
    eq = sub.op(p, "compare", pred, [a, b], "direction=EQ")
    lower = sub.op(p, "compare", pred, [ai, bi], "direction=LT")
    tie = sub.op(p, "and", pred, [eq, lower])
    pick = sub.op(p, "or", pred, [better, tie])
    idx = sub.op(p, "select", it, [pick, ai, bi])
    ctx.module.computations.append(sub.finish([val, idx]))
    iota_1d = ctx.op("iota", ShapedArray((x.aval.shape[axis],), index_dtype),
                     attrs="iota_dimension=0")
    iota = ctx.op("broadcast", x.aval.update(dtype=index_dtype, weak_type=False), iota_1d,
                  attrs=f"dimensions={{{axis}}}")
    init = ctx.constant(init_value("max" if direction == "GT" else "min", x.aval.dtype),
                        x.aval.dtype)
    zero = ctx.constant(0, index_dtype)
    out_v = ctx.avals_out[0].update(dtype=x.aval.dtype)
    tuple_shape = f"({hlo.shape_str(out_v)}, {hlo.shape_str(ctx.avals_out[0])})"
    red = ctx.comp.emit(ctx.prefix, tuple_shape, "reduce", [x.name, iota.name, init.name, zero.name],
                        f"dimensions={{{axis}}}, to_apply={name}")
    return ctx.op("get-tuple-element", ctx.avals_out[0], HloValue(red, out_v), attrs="index=1")

  return rule


def _argminmax_batch(prim):
  def rule(axis, vals, dims, *, axes, index_dtype):
    (x,), (d,) = vals, dims
    x = batching.moveaxis(x, d, 0)
    return prim.bind(x, axes=(axes[0] + 1,), index_dtype=index_dtype), 0
  return rule


argmax_p = standard_primitive("argmax", _argminmax_abstract_eval)
argmin_p = standard_primitive("argmin", _argminmax_abstract_eval)
for _prim, _dir in ((argmax_p, "GT"), (argmin_p, "LT")):
  ad.defjvp_zero(_prim)
  batching.batch_rules[_prim] = _argminmax_batch(_prim)
  hlo.lowering_rules[_prim] = _argminmax_lowering(_dir)


def argmax(operand, axis: int, index_dtype=np.int32):
  x = operand
  return argmax_p.bind(x, axes=(int(axis),), index_dtype=np.dtype(index_dtype))


def argmin(operand, axis: int, index_dtype=np.int32):
  x = operand
  return argmin_p.bind(x, axes=(int(axis),), index_dtype=np.dtype(index_dtype))


# ----------------------------------------------------------------------------- cumulative reductions
# cumsum/cumprod/cummax/cummin/cumlogsumexp are primitives (so jaxprs stay small and
# eager calls compile once) lowered through the parallel-prefix `associative_scan`;
# their JVPs differentiate that same expansion.


def _logaddexp(x, y):
  # max + log1p(exp(-|x - y|)), with equal infinities giving that infinity (not nan)
  amax = ew.max(x, y)
  delta = ew.sub(x, y)
  finite = ew.eq(delta, delta)
  safe = ew.select(finite, delta, ew.const_like(delta, 0))
  return ew.select(finite, ew.add(amax, ew.log1p(ew.exp(ew.neg(ew.abs(safe))))), amax)


def _cumulative_combiner(kind: str, dtype):
  if kind == "sum":
    return ew.bitwise_or if dtype == dtypes.bool_ else ew.add
  if kind == "prod":
    return ew.bitwise_and if dtype == dtypes.bool_ else ew.mul
  if kind == "max":
    return ew.bitwise_or if dtype == dtypes.bool_ else ew.max
  if kind == "min":
    return ew.bitwise_and if dtype == dtypes.bool_ else ew.min
  return _logaddexp


def _cumulative_expansion(kind):
  def expand(x, *, axis, reverse):
    combine = _cumulative_combiner(kind, core.get_aval(x).dtype)
    return late_op("associative_scan")(combine, x, reverse=reverse, axis=axis)
  return expand


def _cumulative_abstract_eval(name, float_only=False):
  def rule(x, *, axis, reverse):
    if not 0 <= axis < x.ndim:
      raise ValueError(f"{name}: axis {axis} is out of bounds for {x.str_short(short_dtypes=True)}")
    if float_only and not dtypes.is_float(x.dtype):
      raise TypeError(f"{name} requires a floating-point operand, got {x.str_short(short_dtypes=True)}")
    return x
  return rule


def _cumulative_batch(prim):
  def rule(axis_data, vals, dims, *, axis, reverse):
    (x,), (d,) = vals, dims
    x = batching.moveaxis(x, d, 0)
    return prim.bind(x, axis=axis + 1, reverse=reverse), 0
  return rule


def _cumulative_jvp(prim, expand):
  def rule(primals, tangents, *, axis, reverse):
    (x,), (t,) = primals, tangents
    _, (t_out,) = ad.jvp_flat(lambda v: [expand(v, axis=axis, reverse=reverse)], [x], [t])
    return prim.bind(x, axis=axis, reverse=reverse), t_out
  return rule


def _cumulative_primitive(kind: str):
  name = f"cum{kind}"
  prim = standard_primitive(name, _cumulative_abstract_eval(name, kind == "logsumexp"))
  expand = _cumulative_expansion(kind)
  batching.batch_rules[prim] = _cumulative_batch(prim)
  hlo.lowering_rules[prim] = hlo.lower_fun(expand)
  if kind == "sum":
    ad.deflinear2(prim, lambda ct, x, *, axis, reverse: [
        prim.bind(ct, axis=axis, reverse=not reverse)])
  else:
    ad.jvp_rules[prim] = _cumulative_jvp(prim, expand)
  return prim


cumsum_p = _cumulative_primitive("sum")
cumprod_p = _cumulative_primitive("prod")
cummax_p = _cumulative_primitive("max")
cummin_p = _cumulative_primitive("min")
cumlogsumexp_p = _cumulative_primitive("logsumexp")


def _cumulative(prim):
  def fn(operand, axis: int = 0, reverse: bool = False):
    ndim = core.get_aval(operand).ndim
    if not -ndim <= axis < ndim:
      raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return prim.bind(operand, axis=int(axis) % ndim, reverse=bool(reverse))
  fn.__name__ = prim.name
  return fn


cumsum = _cumulative(cumsum_p)
cumprod = _cumulative(cumprod_p)
cummax = _cumulative(cummax_p)
cummin = _cumulative(cummin_p)
cumlogsumexp = _cumulative(cumlogsumexp_p)

# lax.shape, below this module, needs reduce_sum (see utils.late_op).
register_late_ops(reduce_sum=reduce_sum)
