"""Windowed reductions: reduce_window (HLO `reduce-window`) and its gradients.

`reduce_window_sum/max/min` are primitives of their own so that they carry
exact derivative rules; `lax.reduce_window` routes a monoid (add, max, min with
their identity as the init value) to them and anything else to a generic
variadic primitive whose body is the traced Python function.

Sums are linear: the transpose spreads each output cotangent back over its
window, which is again a windowed sum over the cotangent padded with the
strides as interior padding. For max/min the tangent of a window is the
tangent at the element the window selected (`select_and_gather_add`, lowered
as a variadic reduce-window over (value, tangent) pairs); its transpose
scatters cotangents back to those elements with HLO `select-and-scatter`, the
classic gradient of max pooling.
"""

from __future__ import annotations

import operator
from typing import Callable, Sequence

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src import tree_util
from jax._src.core import ShapedArray
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.interpreters import partial_eval as pe
from jax._src.lax import convolution
from jax._src.lax import elementwise as ew
from jax._src.lax import generic_reduce
from jax._src.lax import shape as lax_shape
from jax._src.lax.utils import standard_primitive
from jax._src.lowering import hlo
from jax._src.lax import elementwise as lax_ew


def _dilate(size: int, d: int) -> int:
  return 0 if size == 0 else 1 + d * (size - 1)


def _window_out_shape(shape, window_dimensions, window_strides, padding, base_dilation,
                      window_dilation):
  out = []
  for n, w, s, (lo, hi), bd, wd in zip(shape, window_dimensions, window_strides, padding,
                                       base_dilation, window_dilation):
    padded = _dilate(n, bd) + lo + hi
    wdil = _dilate(w, wd)
    out.append((padded - wdil) // s + 1 if padded >= wdil else 0)
  return tuple(out)


def _check_window(aval, window_dimensions, window_strides, padding, base_dilation,
                  window_dilation, name):
  nd = aval.ndim
  for what, v in (("window_dimensions", window_dimensions), ("window_strides", window_strides),
                  ("padding", padding), ("base_dilation", base_dilation),
                  ("window_dilation", window_dilation)):
    if len(v) != nd:
      raise TypeError(f"{name}: {what} {tuple(v)} must have one entry per operand dimension "
                      f"({aval.str_short(short_dtypes=True)})")
  for what, v in (("window_dimensions", window_dimensions), ("window_strides", window_strides),
                  ("base_dilation", base_dilation), ("window_dilation", window_dilation)):
    if any(x < 1 for x in v):
      raise TypeError(f"{name}: {what} must be positive, got {tuple(v)}")


def _window_params_attr(window_dimensions, window_strides, padding, base_dilation,
                        window_dilation) -> str:
  return convolution.window_attr(window_dimensions, window_strides, padding, base_dilation,
                                 window_dilation)


# ----------------------------------------------------------------------------- monoid primitives


def _rw_abstract_eval(name):
  def rule(x, *, window_dimensions, window_strides, padding, base_dilation, window_dilation):
    _check_window(x, window_dimensions, window_strides, padding, base_dilation, window_dilation,
                  name)
    shape = _window_out_shape(x.shape, window_dimensions, window_strides, padding, base_dilation,
                              window_dilation)
    return ShapedArray(shape, x.dtype, x.weak_type)
  return rule


def _identity(kind: str, dtype):
  dtype = np.dtype(dtype)
  if kind == "sum":
    return 0
  if dtype == dtypes.bool_:
    return kind == "min"
  if dtypes.is_inexact(dtype):
    return dtypes.lowest_value(dtype) if kind == "max" else dtypes.highest_value(dtype)
  info = dtypes.iinfo(dtype)  # ml_dtypes: int4 too
  return info.min if kind == "max" else info.max


def _rw_lowering(kind: str, opcode: str, bool_opcode: str):
  def rule(ctx, x, **params):
    dtype = x.aval.dtype
    op = bool_opcode if dtype == dtypes.bool_ else opcode
    init = ctx.constant(_identity(kind, dtype), dtype)
    region = ctx.scalar_region(op, dtype)
    return ctx.op("reduce-window", ctx.avals_out[0], x, init,
                  attrs=f"{_window_params_attr(**params)}, to_apply={region}")
  return rule


def _rw_batch(prim):
  def rule(axis, vals, dims, *, window_dimensions, window_strides, padding, base_dilation,
           window_dilation):
    (x,), (d,) = vals, dims
    x = batching.moveaxis(x, d, 0)
    out = prim.bind(x, window_dimensions=(1, *window_dimensions),
                    window_strides=(1, *window_strides), padding=((0, 0), *padding),
                    base_dilation=(1, *base_dilation), window_dilation=(1, *window_dilation))
    return out, 0
  return rule


reduce_window_sum_p = standard_primitive("reduce_window_sum", _rw_abstract_eval("reduce_window_sum"))
reduce_window_max_p = standard_primitive("reduce_window_max", _rw_abstract_eval("reduce_window_max"))
reduce_window_min_p = standard_primitive("reduce_window_min", _rw_abstract_eval("reduce_window_min"))


def _reduce_window_sum_transpose(ct, x, *, window_dimensions, window_strides, padding,
                                 base_dilation, window_dilation):
  in_shape = x.aval.shape
  ct_shape = core.get_aval(ct).shape
  pads = convolution.lhs_vjp_padding(in_shape, window_dimensions, window_strides, ct_shape,
                                      padding, base_dilation, window_dilation)
  cfg = [(lo, hi, s - 1) for (lo, hi), s in zip(pads, window_strides)]
  zero = lax_shape.full((), 0, core.get_aval(ct).dtype)
  padded = lax_shape.pad(ct, zero, cfg)
  ones = (1,) * len(in_shape)
  out = reduce_window_sum_p.bind(padded, window_dimensions=window_dimensions,
                                 window_strides=base_dilation,
                                 padding=((0, 0),) * len(in_shape), base_dilation=ones,
                                 window_dilation=window_dilation)
  return [out]


ad.deflinear2(reduce_window_sum_p, _reduce_window_sum_transpose)
batching.batch_rules[reduce_window_sum_p] = _rw_batch(reduce_window_sum_p)
hlo.lowering_rules[reduce_window_sum_p] = _rw_lowering("sum", "add", "or")
batching.batch_rules[reduce_window_max_p] = _rw_batch(reduce_window_max_p)
hlo.lowering_rules[reduce_window_max_p] = _rw_lowering("max", "maximum", "or")
batching.batch_rules[reduce_window_min_p] = _rw_batch(reduce_window_min_p)
hlo.lowering_rules[reduce_window_min_p] = _rw_lowering("min", "minimum", "and")

# ----------------------------------------------------------------------------- select_and_gather_add


def _sga_abstract_eval(t, x, *, select_max, window_dimensions, window_strides, padding,
                       base_dilation, window_dilation):
  if t.shape != x.shape:
    raise TypeError(f"select_and_gather_add: tangent {t.str_short(short_dtypes=True)} and operand "
                    f"{x.str_short(short_dtypes=True)} must have the same shape")
  shape = _window_out_shape(x.shape, window_dimensions, window_strides, padding, base_dilation,
                            window_dilation)
  return ShapedArray(shape, t.dtype, t.weak_type)


select_and_gather_add_p = standard_primitive("select_and_gather_add", _sga_abstract_eval)


def _sga_lowering(ctx, t, x, *, select_max, **params):
  vt, tt = ShapedArray((), x.aval.dtype), ShapedArray((), t.aval.dtype)
  pred = ShapedArray((), dtypes.bool_)
  name = ctx.module.region_name()
  sub = hlo.ComputationBuilder(ctx.module, name)
  p = ctx.prefix
  a, at = sub.parameter(0, vt, p), sub.parameter(1, tt, p)
  b, bt = sub.parameter(2, vt, p), sub.parameter(3, tt, p)
  pick_a = sub.op(p, "compare", pred, [a, b], f"direction={'GE' if select_max else 'LE'}")
  val = sub.op(p, "select", vt, [pick_a, a, b])
  tan = sub.op(p, "select", tt, [pick_a, at, bt])
  ctx.module.computations.append(sub.finish([val, tan]))
  init_v = ctx.constant(_identity("max" if select_max else "min", x.aval.dtype), x.aval.dtype)
  init_t = ctx.constant(0, t.aval.dtype)
  out_t = ctx.avals_out[0]
  out_v = out_t.update(dtype=x.aval.dtype, weak_type=False)
  shape = hlo.tuple_str([hlo.shape_str(out_v), hlo.shape_str(out_t)])
  red = ctx.comp.emit(p, shape, "reduce-window", [x.name, t.name, init_v.name, init_t.name],
                      f"{_window_params_attr(**params)}, to_apply={name}")
  return hlo.HloValue(ctx.comp.emit(p, hlo.shape_str(out_t), "get-tuple-element", [red],
                                    "index=1"), out_t)


def _sga_transpose(ct, t, x, *, select_max, window_dimensions, window_strides, padding,
                   base_dilation, window_dilation):
  if any(d != 1 for d in base_dilation):
    raise NotImplementedError("the gradient of max/min reduce_window with base_dilation is "
                              "not implemented")
  out = select_and_scatter_add(ct, x, select_max, window_dimensions, window_strides, padding,
                               window_dilation)
  return [out, None]


def _sga_jvp(primals, tangents, **params):
  t, x = primals
  tt, _ = tangents
  return select_and_gather_add_p.bind(t, x, **params), select_and_gather_add_p.bind(tt, x, **params)


def _sga_batch(axis, vals, dims, *, select_max, window_dimensions, window_strides, padding,
               base_dilation, window_dilation):
  t, x = (batching.bdim_at_front(v, d, axis.size) for v, d in zip(vals, dims))
  out = select_and_gather_add_p.bind(
      t, x, select_max=select_max, window_dimensions=(1, *window_dimensions),
      window_strides=(1, *window_strides), padding=((0, 0), *padding),
      base_dilation=(1, *base_dilation), window_dilation=(1, *window_dilation))
  return out, 0


ad.jvp_rules[select_and_gather_add_p] = _sga_jvp
ad.transpose_rules[select_and_gather_add_p] = _sga_transpose
batching.batch_rules[select_and_gather_add_p] = _sga_batch
hlo.lowering_rules[select_and_gather_add_p] = _sga_lowering


def _chooser_jvp(prim, select_max: bool):
  def rule(primals, tangents, **params):
    (x,), (t,) = primals, tangents
    out = prim.bind(x, **params)
    return out, select_and_gather_add_p.bind(t, x, select_max=select_max, **params)
  return rule


ad.jvp_rules[reduce_window_max_p] = _chooser_jvp(reduce_window_max_p, True)
ad.jvp_rules[reduce_window_min_p] = _chooser_jvp(reduce_window_min_p, False)

# ----------------------------------------------------------------------------- select_and_scatter_add


def _sas_abstract_eval(source, operand, *, select_max, window_dimensions, window_strides, padding,
                       window_dilation):
  want = _window_out_shape(operand.shape, window_dimensions, window_strides, padding,
                           (1,) * operand.ndim, window_dilation)
  if source.shape != want:
    raise TypeError(f"select_and_scatter_add: source {source.str_short(short_dtypes=True)} must have the window "
                    f"output shape {want}")
  return ShapedArray(operand.shape, source.dtype, source.weak_type)


select_and_scatter_add_p = standard_primitive("select_and_scatter_add", _sas_abstract_eval)


def select_and_scatter_add(source, operand, select_max, window_dimensions, window_strides,
                           padding, window_dilation=None):
  nd = core.get_aval(operand).ndim
  return select_and_scatter_add_p.bind(
      source, operand, select_max=bool(select_max), window_dimensions=tuple(window_dimensions),
      window_strides=tuple(window_strides), padding=tuple(map(tuple, padding)),
      window_dilation=tuple(window_dilation) if window_dilation else (1,) * nd)


def _sas_lowering(ctx, source, operand, *, select_max, window_dimensions, window_strides, padding,
                  window_dilation):
  if any(d != 1 for d in window_dilation):
    raise NotImplementedError("select-and-scatter with window dilation is not supported")
  vt = ShapedArray((), operand.aval.dtype)
  pred = ShapedArray((), dtypes.bool_)
  sel = ctx.module.region_name()
  sub = hlo.ComputationBuilder(ctx.module, sel)
  a, b = sub.parameter(0, vt, ctx.prefix), sub.parameter(1, vt, ctx.prefix)
  root = sub.op(ctx.prefix, "compare", pred, [a, b], f"direction={'GE' if select_max else 'LE'}")
  ctx.module.computations.append(sub.finish(root))
  scatter = ctx.scalar_region("add", source.aval.dtype)
  init = ctx.constant(0, source.aval.dtype)
  window = convolution.window_attr(window_dimensions, window_strides, padding,
                                   (1,) * len(window_dimensions), (1,) * len(window_dimensions))
  return ctx.op("select-and-scatter", ctx.avals_out[0], operand, source, init,
                attrs=f"{window}, select={sel}, scatter={scatter}")


def _sas_transpose(ct, source, operand, *, select_max, window_dimensions, window_strides, padding,
                   window_dilation):
  out = select_and_gather_add_p.bind(
      ct, operand, select_max=select_max, window_dimensions=window_dimensions,
      window_strides=window_strides, padding=padding, base_dilation=(1,) * len(window_dimensions),
      window_dilation=window_dilation)
  return [out, None]


def _sas_jvp(primals, tangents, **params):
  source, operand = primals
  ts, _ = tangents
  return (select_and_scatter_add_p.bind(source, operand, **params),
          select_and_scatter_add_p.bind(ts, operand, **params))


def _sas_batch(axis, vals, dims, *, select_max, window_dimensions, window_strides, padding,
               window_dilation):
  s, x = (batching.bdim_at_front(v, d, axis.size) for v, d in zip(vals, dims))
  out = select_and_scatter_add_p.bind(
      s, x, select_max=select_max, window_dimensions=(1, *window_dimensions),
      window_strides=(1, *window_strides), padding=((0, 0), *padding),
      window_dilation=(1, *window_dilation))
  return out, 0


ad.jvp_rules[select_and_scatter_add_p] = _sas_jvp
ad.transpose_rules[select_and_scatter_add_p] = _sas_transpose
batching.batch_rules[select_and_scatter_add_p] = _sas_batch
hlo.lowering_rules[select_and_scatter_add_p] = _sas_lowering

# ----------------------------------------------------------------------------- generic reduce_window


def _generic_abstract_eval(*avals, jaxpr, window_dimensions, window_strides, padding,
                           base_dilation, window_dilation):
  n = len(avals) // 2
  operands, inits = avals[:n], avals[n:]
  for o in operands:
    if o.shape != operands[0].shape:
      raise TypeError("reduce_window: operands must have the same shape")
    _check_window(o, window_dimensions, window_strides, padding, base_dilation, window_dilation,
                  "reduce_window")
  for o, i in zip(operands, inits):
    if i.shape != () or i.dtype != o.dtype:
      raise TypeError(f"reduce_window: init value {i.str_short(short_dtypes=True)} must be a scalar of the "
                      f"operand dtype {o.dtype.name}")
  shape = _window_out_shape(operands[0].shape, window_dimensions, window_strides, padding,
                            base_dilation, window_dilation)
  return [ShapedArray(shape, o.dtype, o.weak_type) for o in operands]


reduce_window_p = standard_primitive("reduce_window", _generic_abstract_eval, multiple_results=True)


def _generic_lowering(ctx, *args, jaxpr, **params):
  return generic_reduce.lower_with_reducer(ctx, args, jaxpr, "reduce-window",
                                           _window_params_attr(**params))


def _generic_batch(axis, vals, dims, *, jaxpr, window_dimensions, window_strides, padding,
                   base_dilation, window_dilation):
  n = len(vals) // 2
  if any(d is not batching.not_mapped for d in dims[n:]):
    raise NotImplementedError("vmap of reduce_window over batched init values is not supported")
  ops = [batching.bdim_at_front(v, d, axis.size) for v, d in zip(vals[:n], dims[:n])]
  outs = reduce_window_p.bind(*ops, *vals[n:], jaxpr=jaxpr,
                              window_dimensions=(1, *window_dimensions),
                              window_strides=(1, *window_strides), padding=((0, 0), *padding),
                              base_dilation=(1, *base_dilation),
                              window_dilation=(1, *window_dilation))
  return outs, [0] * n


def _generic_jvp(primals, tangents, **params):
  raise NotImplementedError("differentiation of lax.reduce_window with a custom reduction "
                            "function is not implemented; use lax.add, lax.max or lax.min with "
                            "their identity as the init value")


ad.jvp_rules[reduce_window_p] = _generic_jvp
batching.batch_rules[reduce_window_p] = _generic_batch
hlo.lowering_rules[reduce_window_p] = _generic_lowering

# ----------------------------------------------------------------------------- public API


def _canonical_params(operand_shape, window_dimensions, window_strides, padding, base_dilation,
                      window_dilation):
  nd = len(operand_shape)
  dims = tuple(operator.index(d) for d in window_dimensions)
  strides = tuple(operator.index(s) for s in window_strides)
  base = (1,) * nd if base_dilation is None else tuple(operator.index(d) for d in base_dilation)
  wdil = (1,) * nd if window_dilation is None else tuple(operator.index(d) for d in window_dilation)
  if isinstance(padding, str):
    in_shape = [_dilate(n, b) for n, b in zip(operand_shape, base)]
    window = [_dilate(w, d) for w, d in zip(dims, wdil)]
    pads = convolution.padtype_to_pads(in_shape, window, strides, padding)
  else:
    pads = padding
  pads = tuple((operator.index(lo), operator.index(hi)) for lo, hi in pads)
  return dict(window_dimensions=dims, window_strides=strides, padding=pads, base_dilation=base,
              window_dilation=wdil)


def _monoid_prim(computation, init, dtype):
  table = {lax_ew.add: ("sum", reduce_window_sum_p), lax_ew.max: ("max", reduce_window_max_p),
           lax_ew.min: ("min", reduce_window_min_p)}
  try:
    kind, prim = table[computation]
  except (KeyError, TypeError):
    return None
  value = core.concrete_value(init)
  if value is None or np.shape(value) != ():
    return None
  if np.asarray(value, dtype) != np.asarray(_identity(kind, dtype), dtype):
    return None
  return prim


def reduce_window(operand, init_value, computation: Callable, window_dimensions: Sequence[int],
                  window_strides: Sequence[int], padding, base_dilation=None,
                  window_dilation=None):
  """Reduce each window of `operand` with `computation` (pytrees of operands allowed)."""
  flat_ops, tree = tree_util.tree_flatten(operand)
  flat_inits, init_tree = tree_util.tree_flatten(init_value)
  if tree != init_tree:
    raise ValueError(f"reduce_window: operands {tree} and init values {init_tree} must have the "
                     "same tree structure")
  flat_ops = [x if hasattr(x, "dtype") or isinstance(x, core.Tracer) else np.asarray(x)
              for x in flat_ops]
  avals = [core.get_aval(x) for x in flat_ops]
  params = _canonical_params(avals[0].shape, window_dimensions, window_strides, padding,
                             base_dilation, window_dilation)
  flat_inits = [generic_reduce.as_init(i, a.dtype, "reduce_window") for i, a in zip(flat_inits, avals)]
  if len(flat_ops) == 1:
    prim = _monoid_prim(computation, flat_inits[0], avals[0].dtype)
    if prim is not None:
      return tree.unflatten([prim.bind(flat_ops[0], **params)])
  scalar = tuple(ShapedArray((), a.dtype) for a in avals)
  jaxpr = generic_reduce.traced_reducer(computation, tree, scalar, "reduce_window")
  outs = reduce_window_p.bind(*flat_ops, *flat_inits, jaxpr=jaxpr, **params)
  return tree.unflatten(outs)


def _monoid_api(prim):
  def fn(operand, window_dimensions, window_strides, padding, base_dilation=None,
         window_dilation=None):
    params = _canonical_params(core.get_aval(operand).shape, window_dimensions, window_strides,
                               padding, base_dilation, window_dilation)
    return prim.bind(operand, **params)
  return fn


reduce_window_sum = _monoid_api(reduce_window_sum_p)
reduce_window_max = _monoid_api(reduce_window_max_p)
reduce_window_min = _monoid_api(reduce_window_min_p)

# ----------------------------------------------------------------------------- select_and_scatter
# The general form of select_and_scatter_add: `select(a, b)` (true keeps `a`) picks one
# element per window of `operand`; the window's `source` value is combined into that
# position with `scatter(accumulated, value)`, starting from `init_value` everywhere.


def _scalar_jaxpr(fun: Callable, arg_dtypes, out_dtype, what: str) -> core.ClosedJaxpr:
  avals = [ShapedArray((), d) for d in arg_dtypes]
  jaxpr, consts = pe.trace_to_jaxpr_dynamic(lambda *xs: [fun(*xs)], avals)
  closed, hoisted = pe.close_jaxpr(jaxpr, consts)
  if hoisted:
    raise TypeError(f"select_and_scatter: the {what} function closes over a traced value")
  out = closed.out_avals[0]
  if out.shape != () or out.dtype != out_dtype:
    raise TypeError(f"select_and_scatter: the {what} function must return a {out_dtype} scalar, "
                    f"got {out.str_short(short_dtypes=True)}")
  return closed


def _ss_abstract_eval(operand, source, init_value, *, select_jaxpr, scatter_jaxpr,
                      window_dimensions, window_strides, padding):
  nd = operand.ndim
  _check_window(operand, window_dimensions, window_strides, padding, (1,) * nd, (1,) * nd,
                "select_and_scatter")
  want = _window_out_shape(operand.shape, window_dimensions, window_strides, padding,
                           (1,) * nd, (1,) * nd)
  if source.shape != want:
    raise TypeError(f"select_and_scatter: source {source.str_short(short_dtypes=True)} must have the window "
                    f"output shape {want}")
  if init_value.shape != () or init_value.dtype != source.dtype:
    raise TypeError(f"select_and_scatter: init_value {init_value.str_short(short_dtypes=True)} must be a scalar "
                    f"of the source dtype {source.dtype.name}")
  return ShapedArray(operand.shape, source.dtype, source.weak_type)


select_and_scatter_p = standard_primitive("select_and_scatter", _ss_abstract_eval)


def _region(ctx, jaxpr: core.ClosedJaxpr, dtypes_in) -> str:
  name = ctx.module.region_name()
  sub = hlo.ComputationBuilder(ctx.module, name)
  params = [sub.parameter(i, ShapedArray((), d), ctx.prefix) for i, d in enumerate(dtypes_in)]
  outs = hlo.lower_jaxpr_into(sub, jaxpr.jaxpr, jaxpr.consts, params)
  ctx.module.computations.append(sub.finish(outs[0]))
  return name


def _ss_lowering(ctx, operand, source, init_value, *, select_jaxpr, scatter_jaxpr,
                 window_dimensions, window_strides, padding):
  sel = _region(ctx, select_jaxpr, [operand.aval.dtype] * 2)
  scatter = _region(ctx, scatter_jaxpr, [source.aval.dtype] * 2)
  nd = len(window_dimensions)
  window = convolution.window_attr(window_dimensions, window_strides, padding, (1,) * nd,
                                   (1,) * nd)
  return ctx.op("select-and-scatter", ctx.avals_out[0], operand, source, init_value,
                attrs=f"{window}, select={sel}, scatter={scatter}")


def _ss_batch(axis, vals, dims, *, window_dimensions, window_strides, padding, **jaxprs):
  if dims[2] is not batching.not_mapped:
    raise NotImplementedError("vmap of select_and_scatter over a batched init_value is not "
                              "supported")
  x, s = (batching.bdim_at_front(v, d, axis.size) for v, d in zip(vals[:2], dims[:2]))
  out = select_and_scatter_p.bind(
      x, s, vals[2], window_dimensions=(1, *window_dimensions),
      window_strides=(1, *window_strides), padding=((0, 0), *padding), **jaxprs)
  return out, 0


def _ss_jvp(primals, tangents, **params):
  raise NotImplementedError("differentiation of select_and_scatter with custom select/scatter "
                            "functions is not implemented (select_and_scatter_add has "
                            "derivatives)")


ad.jvp_rules[select_and_scatter_p] = _ss_jvp
batching.batch_rules[select_and_scatter_p] = _ss_batch
hlo.lowering_rules[select_and_scatter_p] = _ss_lowering


def select_and_scatter(operand, select: Callable, window_dimensions, window_strides, padding,
                       source, init_value, scatter: Callable):
  """Binds select_and_scatter_p with `select`/`scatter` traced on scalars."""
  o, s = core.get_aval(operand), core.get_aval(source)
  init_value = ew.convert_element_type(init_value, s.dtype)
  if isinstance(padding, str):
    raise TypeError("select_and_scatter takes explicit (low, high) padding pairs, got "
                    f"{padding!r}")
  return select_and_scatter_p.bind(
      operand, source, init_value,
      select_jaxpr=_scalar_jaxpr(select, [o.dtype] * 2, np.dtype(np.bool_), "select"),
      scatter_jaxpr=_scalar_jaxpr(scatter, [s.dtype] * 2, s.dtype, "scatter"),
      window_dimensions=tuple(int(d) for d in window_dimensions),
      window_strides=tuple(int(d) for d in window_strides),
      padding=tuple((int(lo), int(hi)) for lo, hi in padding))
