"""lax.reduce: reduction with a user-given (possibly variadic) reduction function.

The Python function is traced on scalars into a jaxpr that becomes the HLO
`reduce` body. When the function is one of the lax monoids (add, mul, max, min,
and, or) applied to one operand and the init value is that monoid's identity,
the reduction is routed to the dedicated primitive (reduce_sum, ...) so that it
gets their exact derivative rules. The generic primitive differentiates by
rewriting the reduction as a balanced tree of elementwise applications of the
function, whose JVP follows from the function's own.
"""

from __future__ import annotations

import functools
from typing import Callable, Sequence

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src import tree_util
from jax._src.core import ShapedArray
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.interpreters import partial_eval as pe
from jax._src.lax import elementwise as ew
from jax._src.lax import reductions as lax_red
from jax._src.lax import shape as lax_shape
from jax._src.lax.utils import place, standard_primitive
from jax._src.lowering import hlo

# ----------------------------------------------------------------------------- monoids


def _monoid_identity(kind: str, dtype):
  dtype = np.dtype(dtype)
  if kind == "sum":
    return 0
  if kind == "prod":
    return 1
  if kind in ("and", "or"):
    return kind == "and" if dtype == dtypes.bool_ else (-1 if kind == "and" else 0)
  if dtype == dtypes.bool_:
    return kind == "min"
  if dtypes.is_inexact(dtype):
    return dtypes.lowest_value(dtype) if kind == "max" else dtypes.highest_value(dtype)
  info = dtypes.iinfo(dtype)  # ml_dtypes: int4 too
  return info.min if kind == "max" else info.max


def _monoid_reducers():
  return {
      ew.add: ("sum", lax_red.reduce_sum),
      ew.mul: ("prod", lax_red.reduce_prod),
      ew.max: ("max", lax_red.reduce_max),
      ew.min: ("min", lax_red.reduce_min),
      ew.bitwise_and: ("and", lax_red.reduce_and),
      ew.bitwise_or: ("or", lax_red.reduce_or),
  }


def _monoid_reducer(computation: Callable, init, dtype):
  """The dedicated reduction for `computation` if `init` is its (concrete) identity."""
  try:
    kind, reducer = _monoid_reducers()[computation]
  except (KeyError, TypeError):
    return None
  if kind in ("and", "or") and np.dtype(dtype) != dtypes.bool_:
    return None  # reduce_and/or are logical; bitwise reductions of ints go generic
  value = core.concrete_value(init)
  if value is None or np.shape(value) != ():
    return None
  identity = _monoid_identity(kind, dtype)
  if np.asarray(value, dtype) != np.asarray(identity, dtype):
    return None
  return reducer


# ----------------------------------------------------------------------------- the primitive


def _reduce_abstract_eval(*avals, jaxpr, dimensions):
  n = len(avals) // 2
  operands, inits = avals[:n], avals[n:]
  shape = operands[0].shape
  for o in operands:
    if o.shape != shape:
      raise ValueError(f"reduce: operands must have the same shape, got "
                       f"{', '.join(a.str_short(short_dtypes=True) for a in operands)}")
  for o, i in zip(operands, inits):
    if i.shape != () or i.dtype != o.dtype:
      raise TypeError(f"reduce: init value {i.str_short(short_dtypes=True)} must be a scalar of the operand's "
                      f"dtype {o.str_short(short_dtypes=True)}")
  if any(not 0 <= d < len(shape) for d in dimensions):
    raise ValueError(f"reduce: dimensions {dimensions} out of range for shape {shape}")
  out_shape = tuple(s for i, s in enumerate(shape) if i not in dimensions)
  return [ShapedArray(out_shape, o.dtype, o.weak_type) for o in operands]


reduce_p = standard_primitive("reduce", _reduce_abstract_eval, multiple_results=True)


def lower_with_reducer(ctx, args, jaxpr, opcode: str, attrs: str):
  """`opcode` ("reduce", "reduce-window") over operands then inits `args`,
  with `jaxpr` lowered as its scalar `to_apply` region; one value per operand."""
  n = len(args) // 2
  scalar_avals = [ShapedArray((), a.aval.dtype) for a in args[:n]]
  name = ctx.module.region_name()
  sub = hlo.ComputationBuilder(ctx.module, name)
  params = [sub.parameter(i, a, ctx.prefix) for i, a in enumerate(scalar_avals + scalar_avals)]
  outs = hlo.lower_jaxpr_into(sub, jaxpr.jaxpr, jaxpr.consts, params)
  ctx.module.computations.append(sub.finish(outs[0] if n == 1 else outs))
  attrs = f"{attrs}, to_apply={name}"
  out_avals = ctx.avals_out
  if n == 1:
    return [ctx.op(opcode, out_avals[0], *args, attrs=attrs)]
  shape = hlo.tuple_str([hlo.shape_str(a) for a in out_avals])
  red = ctx.comp.emit(ctx.prefix, shape, opcode, [a.name for a in args], attrs)
  return [hlo.HloValue(ctx.comp.emit(ctx.prefix, hlo.shape_str(a), "get-tuple-element", [red],
                                     f"index={i}"), a) for i, a in enumerate(out_avals)]


def _reduce_lowering(ctx, *args, jaxpr, dimensions):
  dims = ",".join(map(str, dimensions))
  return lower_with_reducer(ctx, args, jaxpr, "reduce", f"dimensions={{{dims}}}")


def _combine(jaxpr: core.ClosedJaxpr, xs: Sequence, ys: Sequence) -> list:
  """Apply the scalar reduction function elementwise to equally shaped arrays."""
  shape = core.get_aval(xs[0]).shape
  fun = core.jaxpr_as_fun(jaxpr)
  if not shape:
    return fun(*xs, *ys)
  size = int(np.prod(shape))
  flat = [lax_shape.reshape(v, (size,)) for v in (*xs, *ys)]
  outs = batching.vmap_fun(lambda *a: fun(*a))(*flat)
  return [lax_shape.reshape(o, shape) for o in outs]


def _tree_reduce(operands, inits, jaxpr, dimensions):
  """The reduction as a balanced tree of elementwise combines along one flattened axis."""
  n = len(operands)
  shape = core.get_aval(operands[0]).shape
  kept = [i for i in range(len(shape)) if i not in dimensions]
  out_shape = tuple(shape[i] for i in kept)
  size = int(np.prod([shape[d] for d in dimensions], dtype=np.int64))
  perm = (*kept, *dimensions)
  xs = [lax_shape.reshape(lax_shape.transpose(x, perm), (*out_shape, size)) for x in operands]
  axis = len(out_shape)

  def take(x, start, stop):
    starts = [0] * (axis + 1)
    limits = [*out_shape, stop]
    starts[axis] = start
    return lax_shape.slice(x, tuple(starts), tuple(limits))

  while size > 1:
    half = size // 2
    paired = _combine(jaxpr, [take(x, 0, half) for x in xs],
                      [take(x, half, 2 * half) for x in xs])
    if size % 2:
      paired = [lax_shape.concatenate([p, take(x, 2 * half, size)], axis)
                for p, x in zip(paired, xs)]
    xs, size = paired, half + size % 2
  init_b = [lax_shape.broadcast_in_dim(i, out_shape, ()) for i in inits]
  if size == 0:
    return init_b
  xs = [lax_shape.reshape(x, out_shape) for x in xs]
  del n
  return _combine(jaxpr, init_b, xs)


def _reduce_jvp(primals, tangents, *, jaxpr, dimensions):
  n = len(primals) // 2
  tangents = [ad.zeros_like(p) if t is None else t for p, t in zip(primals, tangents)]
  fun = lambda *args: _tree_reduce(args[:n], args[n:], jaxpr, dimensions)
  outs = reduce_p.bind(*primals, jaxpr=jaxpr, dimensions=dimensions)
  _, t_out = ad.jvp_flat(fun, primals, tangents)
  return outs, t_out


def _reduce_batch(axis, vals, dims, *, jaxpr, dimensions):
  n = len(vals) // 2
  if any(d is not batching.not_mapped for d in dims[n:]):
    raise NotImplementedError("vmap of lax.reduce over batched init values is not supported")
  operands = [batching.bdim_at_front(v, d, axis.size) for v, d in zip(vals[:n], dims[:n])]
  outs = reduce_p.bind(*operands, *vals[n:], jaxpr=jaxpr,
                       dimensions=tuple(d + 1 for d in dimensions))
  return outs, [0] * n


ad.jvp_rules[reduce_p] = _reduce_jvp
batching.batch_rules[reduce_p] = _reduce_batch
hlo.lowering_rules[reduce_p] = _reduce_lowering

# ----------------------------------------------------------------------------- public API


@functools.lru_cache(maxsize=256)
def _cached_reducer_jaxpr(computation, in_tree, avals, op_name):
  def flat(*leaves):
    n = len(leaves) // 2
    a, b = in_tree.unflatten(leaves[:n]), in_tree.unflatten(leaves[n:])
    out_leaves, out_tree = tree_util.tree_flatten(computation(a, b))
    if out_tree != in_tree:
      raise TypeError(f"{op_name}: the reduction function must return the structure of its "
                      f"operands {in_tree}, got {out_tree}")
    return out_leaves

  jaxpr, consts = pe.trace_to_jaxpr_dynamic(flat, list(avals) + list(avals))
  closed, hoisted = pe.close_jaxpr(jaxpr, consts)
  if hoisted:
    raise TypeError(f"{op_name}: the reduction function closes over a traced value; pass it as "
                    "an operand instead")
  out_avals = [v.aval for v in closed.jaxpr.outs]
  for a, o in zip(avals, out_avals):
    if a.shape != o.shape or a.dtype != o.dtype:
      raise TypeError(f"{op_name}: the reduction function returns {o.str_short(short_dtypes=True)} for an "
                      f"operand of type {a.str_short(short_dtypes=True)}")
  return closed


def traced_reducer(computation, in_tree, avals, op_name: str):
  """The reduction function of reduce/reduce_window traced on scalars:
  (a..., b...) -> out..., cached when the function is hashable."""
  try:
    return _cached_reducer_jaxpr(computation, in_tree, avals, op_name)
  except TypeError as e:
    if "unhashable" not in str(e):
      raise
    return _cached_reducer_jaxpr.__wrapped__(computation, in_tree, avals, op_name)


def as_init(init, dtype, op_name: str):
  """A scalar init value in the operand dtype (weak-typed values convert)."""
  aval = core.get_aval(init)
  if aval.shape != ():
    raise TypeError(f"{op_name}: init values must be scalars, got {aval.str_short(short_dtypes=True)}")
  if aval.dtype != dtype:
    if not aval.weak_type:
      raise TypeError(f"{op_name}: init value of type {aval.str_short(short_dtypes=True)} does not match the "
                      f"operand dtype {np.dtype(dtype).name}")
    init = ew.convert_element_type(init, dtype)
  return init


def _dimensions(dimensions, ndim: int) -> tuple[int, ...]:
  dims = tuple(int(d) for d in dimensions)
  for d in dims:
    if not 0 <= d < ndim:
      raise ValueError(f"reduce: dimension {d} out of range for an operand of rank {ndim}")
  if len(set(dims)) != len(dims):
    raise ValueError(f"reduce: duplicate dimensions {dims}")
  return tuple(sorted(dims))


def reduce(operands, init_values, computation: Callable, dimensions: Sequence[int],  # noqa: A001
           out_sharding=None):
  """Reduce `operands` over `dimensions` with `computation`, starting from `init_values`."""
  return place(_reduce(operands, init_values, computation, dimensions), out_sharding)


def _reduce(operands, init_values, computation, dimensions):
  flat_ops, tree = tree_util.tree_flatten(operands)
  flat_inits, init_tree = tree_util.tree_flatten(init_values)
  if tree != init_tree:
    raise ValueError(f"reduce: operands {tree} and init_values {init_tree} must have the same "
                     "tree structure")
  if not flat_ops:
    raise ValueError("reduce: at least one operand is required")
  flat_ops = [x if hasattr(x, "dtype") or isinstance(x, core.Tracer) else np.asarray(x)
              for x in flat_ops]
  avals = [core.get_aval(x) for x in flat_ops]
  dims = _dimensions(dimensions, avals[0].ndim)
  flat_inits = [as_init(i, a.dtype, "reduce") for i, a in zip(flat_inits, avals)]
  if len(flat_ops) == 1:
    reducer = _monoid_reducer(computation, flat_inits[0], avals[0].dtype)
    if reducer is not None:
      return tree.unflatten([reducer(flat_ops[0], dims)])
  scalar_avals = tuple(ShapedArray((), a.dtype) for a in avals)
  jaxpr = traced_reducer(computation, tree, scalar_avals, "reduce")
  outs = reduce_p.bind(*flat_ops, *flat_inits, jaxpr=jaxpr,
                       dimensions=dims)
  return tree.unflatten(outs)
