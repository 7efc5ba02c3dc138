"""The `sort` primitive (several operands sorted together by their first `num_keys`)
and the functions built on it: sort, sort_key_val, top_k.

Floats sort in total order with every NaN last and -0.0 equal to +0.0 (NaNs and
zeros are canonicalized before a TOTALORDER compare); complex numbers sort by real
part, then imaginary part; several keys sort lexicographically.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.core import ShapedArray
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lax import shape as lax_shape
from jax._src.lax.utils import standard_primitive
from jax._src.lowering import hlo

_PRED = ShapedArray((), np.dtype(bool))


# ----------------------------------------------------------------------------- sort


def _sort_abstract_eval(*operands, dimension, is_stable, num_keys):
  if not operands:
    raise TypeError("sort requires at least one operand")
  shape = operands[0].shape
  if any(o.shape != shape for o in operands):
    raise TypeError("sort requires all operands to have the same shape, got "
                    + ", ".join(o.str_short(short_dtypes=True) for o in operands))
  if not 0 <= dimension < max(len(shape), 1):
    raise ValueError(f"sort dimension {dimension} out of range for shape {shape}")
  if not 1 <= num_keys <= len(operands):
    raise ValueError(f"num_keys={num_keys} must be between 1 and the number of operands "
                     f"({len(operands)})")
  return list(operands)


sort_p = standard_primitive("sort", _sort_abstract_eval, multiple_results=True)


def sort(operand, dimension: int = -1, is_stable: bool = True, num_keys: int = 1):
  """Sort `operand` (an array, or a sequence sorted together) along `dimension`."""
  if isinstance(operand, (list, tuple)):
    operands = list(operand)
    if not operands:
      raise TypeError("sort requires at least one operand")
  else:
    operands = [operand]
  ndim = core.get_aval(operands[0]).ndim
  if ndim == 0:
    raise TypeError("sort requires operands of rank >= 1, got a scalar")
  if not -ndim <= dimension < ndim:
    raise ValueError(f"sort dimension {dimension} out of range for rank {ndim}")
  num_keys = int(num_keys)
  if not 1 <= num_keys <= len(operands):
    raise ValueError(f"num_keys={num_keys} must be between 1 and the number of operands "
                     f"({len(operands)})")
  out = sort_p.bind(*operands, dimension=int(dimension) % ndim, is_stable=bool(is_stable),
                    num_keys=num_keys)
  if isinstance(operand, tuple):
    return tuple(out)
  return list(out) if isinstance(operand, list) else out[0]


def sort_key_val(keys, values, dimension: int = -1, is_stable: bool = True):
  """Sort `keys` along `dimension` and move `values` the same way."""
  k, v = sort((keys, values), dimension, is_stable, num_keys=1)
  return k, v


def _iota_like(x, dimension: int, dtype=np.int32):
  return lax_shape.broadcasted_iota(dtype, core.get_aval(x).shape, dimension)


def sort_permutation(keys: Sequence, dimension: int, is_stable: bool = True):
  """The indices that sort `keys` (lexicographically) along `dimension`."""
  out = sort_p.bind(*keys, _iota_like(keys[0], dimension), dimension=dimension,
                    is_stable=is_stable, num_keys=len(keys))
  return out[-1]


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
  # Tangents ride along with the (primal) keys, so they move exactly as the primals do.
  out = sort_p.bind(*primals, dimension=dimension, is_stable=is_stable, num_keys=num_keys)
  keys = primals[:num_keys]
  moved = sort_p.bind(*keys, *tangents, dimension=dimension, is_stable=is_stable,
                      num_keys=num_keys)
  return out, moved[num_keys:]


def _sort_transpose(cts, *operands, dimension, is_stable, num_keys):
  keys, rest = operands[:num_keys], operands[num_keys:]
  if any(ad.is_undefined_primal(k) for k in keys):
    raise NotImplementedError("sort is not linear in its keys")
  perm = sort_permutation(list(keys), dimension, is_stable)
  # Sorting (perm, ct) by perm applies the inverse permutation to ct.
  out = [None] * num_keys
  for x, ct in zip(rest, cts[num_keys:]):
    if not ad.is_undefined_primal(x):
      out.append(None)
      continue
    ct = ad.instantiate_zeros(ct, x.aval)
    out.append(sort_p.bind(perm, ct, dimension=dimension, is_stable=is_stable, num_keys=1)[1])
  return out


def _sort_batch(axis, vals, dims, *, dimension, is_stable, num_keys):
  moved = [batching.bdim_at_front(v, d, axis.size) for v, d in zip(vals, dims)]
  out = sort_p.bind(*moved, dimension=dimension + 1, is_stable=is_stable, num_keys=num_keys)
  return out, [0] * len(out)


# ------------------------------------------------------------------ comparator lowering


def _canonical_float(sub: hlo.ComputationBuilder, x: hlo.HloValue, consts) -> hlo.HloValue:
  """Every NaN becomes the same NaN and -0.0 becomes +0.0, as JAX does before comparing."""
  nan, zero = consts
  is_nan = sub.op("ne", "compare", _PRED, [x, x], "direction=NE")
  is_zero = sub.op("eq", "compare", _PRED, [x, zero], "direction=EQ")
  no_neg_zero = sub.op("select_n", "select", x.aval, [is_zero, zero, x])
  return sub.op("select_n", "select", x.aval, [is_nan, nan, no_neg_zero])


def _key_parts(sub, a: hlo.HloValue, b: hlo.HloValue):
  """[(a_part, b_part, is_float)] compared lexicographically for one key."""
  dtype = a.aval.dtype
  if dtypes.is_complex(dtype):
    part = ShapedArray((), np.finfo(dtype).dtype)
    out = []
    for opcode in ("real", "imag"):
      pa = sub.op(opcode, opcode, part, [a])
      pb = sub.op(opcode, opcode, part, [b])
      out.append((pa, pb, True))
    return out
  return [(a, b, dtypes.is_float(dtype))]


def _build_comparator(ctx: hlo.LoweringContext, avals, num_keys: int) -> str:
  name = ctx.module.region_name()
  sub = hlo.ComputationBuilder(ctx.module, name)
  params = [(sub.parameter(2 * i, ShapedArray((), a.dtype), "sort"),
             sub.parameter(2 * i + 1, ShapedArray((), a.dtype), "sort"))
            for i, a in enumerate(avals)]
  float_consts: dict = {}

  def consts_for(dtype):
    if dtype not in float_consts:
      float_consts[dtype] = (sub.constant(np.nan, dtype), sub.constant(0, dtype))
    return float_consts[dtype]

  parts = []
  for a, b in params[:num_keys]:
    for pa, pb, is_float in _key_parts(sub, a, b):
      if is_float:
        consts = consts_for(pa.aval.dtype)
        pa, pb = _canonical_float(sub, pa, consts), _canonical_float(sub, pb, consts)
      parts.append((pa, pb, is_float))
  # lt(a, b) = lt0 or (eq0 and (lt1 or (eq1 and ...))), built from the last key up.
  result = None
  for pa, pb, is_float in reversed(parts):
    order = ", type=TOTALORDER" if is_float else ""
    lt = sub.op("lt_to", "compare", _PRED, [pa, pb], f"direction=LT{order}")
    if result is None:
      result = lt
      continue
    eq = sub.op("eq_to", "compare", _PRED, [pa, pb], f"direction=EQ{order}")
    tie = sub.op("and", "and", _PRED, [eq, result])
    result = sub.op("or", "or", _PRED, [lt, tie])
  ctx.module.computations.append(sub.finish(result))
  return name


def _sort_lowering(ctx: hlo.LoweringContext, *operands, dimension, is_stable, num_keys):
  comparator = _build_comparator(ctx, [o.aval for o in operands], num_keys)
  attrs = (f"dimensions={{{dimension}}}, is_stable={'true' if is_stable else 'false'}, "
           f"to_apply={comparator}")
  if len(operands) == 1:
    return [ctx.op("sort", ctx.avals_out[0], *operands, attrs=attrs)]
  shape = hlo.tuple_str([hlo.shape_str(a) for a in ctx.avals_out])
  name = ctx.comp.emit(ctx.prefix, shape, "sort", [o.name for o in operands], attrs)
  tup = hlo.HloValue(name, ctx.avals_out[0])
  return [ctx.op("get-tuple-element", a, tup, attrs=f"index={i}")
          for i, a in enumerate(ctx.avals_out)]


ad.jvp_rules[sort_p] = _sort_jvp
ad.transpose_rules[sort_p] = _sort_transpose
batching.batch_rules[sort_p] = _sort_batch
hlo.lowering_rules[sort_p] = _sort_lowering


# ----------------------------------------------------------------------------- top_k


def _top_k_abstract_eval(x, *, k):
  if x.ndim == 0:
    raise TypeError("top_k operand must have rank >= 1")
  if not 0 <= k <= x.shape[-1]:
    raise ValueError(f"k argument to top_k must be in [0, {x.shape[-1]}], got {k}")
  shape = (*x.shape[:-1], k)
  return [ShapedArray(shape, x.dtype, x.weak_type), ShapedArray(shape, np.dtype(np.int32))]


top_k_p = standard_primitive("top_k", _top_k_abstract_eval, multiple_results=True)


def top_k(operand, k: int, *, axis: int = -1):
  """The `k` largest entries along `axis` (stable: ties keep lower indices first)."""
  k = int(k)
  if k < 0:
    raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
  ndim = core.get_aval(operand).ndim
  axis = int(axis)
  if ndim and not -ndim <= axis < ndim:
    raise ValueError(f"top_k: axis {axis} is out of bounds for an operand of rank {ndim}")
  axis = axis % ndim if ndim else axis
  if ndim == 0 or axis == ndim - 1:
    return tuple(top_k_p.bind(operand, k=k))
  # The primitive works on the last axis: move `axis` there and back.
  perm = tuple(d for d in range(ndim) if d != axis) + (axis,)
  inverse = tuple(perm.index(d) for d in range(ndim))
  values, indices = top_k_p.bind(lax_shape.transpose(operand, perm), k=k)
  return lax_shape.transpose(values, inverse), lax_shape.transpose(indices, inverse)


def _top_k_jvp(primals, tangents, *, k):
  (x,), (t,) = primals, tangents
  vals, idx = top_k_p.bind(x, k=k)
  dim = core.get_aval(x).ndim - 1
  # The tangent moves with the descending order of x; keep its first k entries.
  _, moved = sort_p.bind(lax_shape.rev(x, (dim,)), lax_shape.rev(t, (dim,)), dimension=dim, is_stable=True,
                         num_keys=1)
  moved = lax_shape.rev(moved, (dim,))
  aval = core.get_aval(x)
  return [vals, idx], [lax_shape.slice(moved, (0,) * aval.ndim, (*aval.shape[:-1], k)),
                       ad.zeros_like(idx)]


def _top_k_batch(axis, vals, dims, *, k):
  (x,), (d,) = vals, dims
  ndim = core.get_aval(x).ndim
  if d == ndim - 1:  # keep the sorted axis last
    x = batching.moveaxis(x, d, 0)
    d = 0
  return top_k_p.bind(x, k=k), [d, d]


def _top_k_lowering(ctx: hlo.LoweringContext, x, *, k):
  shape = hlo.tuple_str([hlo.shape_str(a) for a in ctx.avals_out])
  name = ctx.comp.emit(ctx.prefix, shape, "topk", [x.name], f"k={k}, largest=true")
  tup = hlo.HloValue(name, ctx.avals_out[0])
  return [ctx.op("get-tuple-element", a, tup, attrs=f"index={i}")
          for i, a in enumerate(ctx.avals_out)]


ad.jvp_rules[top_k_p] = _top_k_jvp
batching.batch_rules[top_k_p] = _top_k_batch
hlo.lowering_rules[top_k_p] = _top_k_lowering
