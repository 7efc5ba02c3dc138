"""Vectorization (vmap) as a trace.

A `BatchTracer` holds a value with one extra axis, `batch_dim` (or `not_mapped`).
`batch_rules[prim](vals, dims, **params) -> (out, out_dim)` (lists for multiple
results) say how to run a primitive on batched values. The main trace carries an
`AxisData` (size and name) so that named-axis collectives can be added for pmap
later without changing this interface.

Registrars: `defvectorized` (elementwise unary: the batch axis passes through),
`defbroadcasting` (elementwise n-ary: move batch axes to the front and give the
unbatched operands a batch axis).
"""

from __future__ import annotations

import inspect

from typing import Any, Callable, NamedTuple, Sequence

from jax._src import core
from jax._src import tree_util
from jax._src.core import Tracer
from jax._src.interpreters import partial_eval as pe
from jax._src.name_stack import transform_name_stack

batch_rules: dict[core.Primitive, Callable] = {}


not_mapped = None  # a batch dim of None means "this value has no batch axis"


class AxisData(NamedTuple):
  size: int
  name: Any  # hashable axis name or None


# The shape primitives that move batch axes are defined in lax, a layer above;
# jax._src.lax.shape registers them here (name -> function) when it is imported.
_shape_ops: dict[str, Callable] = {}


def register_shape_ops(**ops: Callable) -> None:
  _shape_ops.update(ops)


def _shape_op(name: str) -> Callable:
  op = _shape_ops.get(name)
  if op is None:
    raise RuntimeError(f"vmap needs jax._src.lax.shape imported (it registers `{name}`)")
  return op


def moveaxis(x, src: int, dst: int):
  if src == dst:
    return x
  ndim = core.get_aval(x).ndim
  perm = [i for i in range(ndim) if i != src]
  perm.insert(dst, src)
  return _shape_op("transpose")(x, tuple(perm))


def bdim_at_front(x, bdim, size: int):
  """Move `bdim` to axis 0, broadcasting (materializing) unbatched values."""
  if bdim is not_mapped:
    aval = core.get_aval(x)
    return _shape_op("broadcast_in_dim")(x, (size, *aval.shape), tuple(range(1, aval.ndim + 1)))
  return moveaxis(x, bdim, 0)


class SpecMatchError(ValueError):
  """An output batched at `src` whose out_axes spec `dst` is None; `leaf_idx` (set by
  vmap_flat) says which output leaf."""

  def __init__(self, src, dst, leaf_idx=None):
    super().__init__(f"vmap: an output that varies over the mapped axis (batched on axis "
                     f"{src}) has out_axes={dst}")
    self.src, self.dst, self.leaf_idx = src, dst, leaf_idx


def matchaxis(x, src, dst, size: int):
  """Put the batch axis of `x` at `dst` (materializing it if `src` is not_mapped)."""
  if dst is not_mapped:
    if src is not_mapped:
      return x
    raise SpecMatchError(src, dst)
  dst %= core.get_aval(x).ndim + (src is not_mapped)
  if src is not_mapped:
    aval = core.get_aval(x)
    out_shape = list(aval.shape)
    out_shape.insert(dst, size)
    dims = tuple(i for i in range(len(out_shape)) if i != dst)
    return _shape_op("broadcast_in_dim")(x, tuple(out_shape), dims)
  return moveaxis(x, src, dst)


class BatchTracer(Tracer):
  __slots__ = ("val", "batch_dim")

  def __init__(self, trace, val, batch_dim):
    self._trace = trace
    self.val = val
    self.batch_dim = batch_dim

  @property
  def aval(self):
    aval = core.get_aval(self.val)
    if self.batch_dim is not_mapped:
      return aval
    return core.remove_dim(aval, self.batch_dim)

  def full_lower(self):
    if self.batch_dim is not_mapped:
      return core.full_lower(self.val)
    return self


class BatchTrace(core.Trace):
  @property
  def axis_data(self) -> AxisData:
    return self.main.global_data

  def pure(self, val):
    return BatchTracer(self, val, not_mapped)

  lift = pure

  def process_primitive(self, primitive, tracers, params):
    vals = [t.val for t in tracers]
    dims = [t.batch_dim for t in tracers]
    if all(d is not_mapped for d in dims):
      return primitive.bind(*vals, **params)
    rule = batch_rules.get(primitive)
    if rule is None:
      raise NotImplementedError(f"batching rule for '{primitive.name}' not implemented")
    out, out_dim = rule(self.axis_data, vals, dims, **params)
    if primitive.multiple_results:
      return [BatchTracer(self, o, d) for o, d in zip(out, out_dim)]
    return BatchTracer(self, out, out_dim)


def vmap_flat(fun: Callable, axis_data: AxisData, in_dims: Sequence, out_dims: Sequence | None,
              args: Sequence):
  """Run `fun` batched; `out_dims` None means: batch axis 0 for every output.

  `out_dims` may also be a callable, called after `fun` has run (when the output
  structure is known), returning the list of output dims.
  """
  with core.new_main(BatchTrace, axis_data) as main, transform_name_stack("vmap"):
    trace = BatchTrace(main)
    tracers_in = [BatchTracer(trace, x, d) if d is not not_mapped else x
                  for x, d in zip(args, in_dims)]
    outs = fun(*tracers_in)
    tracers_out = [core.full_raise(trace, o) for o in outs]
    vals, dims = [t.val for t in tracers_out], [t.batch_dim for t in tracers_out]
  if out_dims is None:
    out_dims = [0] * len(vals)
  elif callable(out_dims):
    out_dims = out_dims()
  matched = []
  for i, (v, d, od) in enumerate(zip(vals, dims, out_dims)):
    try:
      matched.append(matchaxis(v, d, od, axis_data.size))
    except SpecMatchError as e:
      e.leaf_idx = i
      raise
  return matched


def vmap_jaxpr(closed: core.ClosedJaxpr, axis_data: AxisData, in_dims: Sequence,
               args: Sequence | None = None):
  """A jaxpr taking batched inputs (batched at `in_dims`) whose outputs are batched at 0.

  `args`, the batched values when the caller has them, give the inputs' types (how mesh
  axes split the batch dimension, which the jaxpr's own types cannot say)."""

  def batched_aval(aval, d):
    if d is not_mapped:
      return aval
    return core.insert_dim(aval, d, axis_data.size)

  avals = [batched_aval(a, d) for a, d in zip(closed.in_avals, in_dims)]
  if args is not None:
    avals = [_arg_type(x, a) for x, a in zip(args, avals)]
  fun = lambda *args: vmap_flat(core.jaxpr_as_fun(closed), axis_data, in_dims, None, args)
  jaxpr, consts = pe.trace_to_jaxpr_dynamic(fun, avals)
  new, hoisted = pe.close_jaxpr(jaxpr, consts)
  assert not hoisted
  return new


def _arg_type(x, aval):
  """`x`'s own type when it is an array type of `aval`'s shape and dtype, else `aval`."""
  own = core.get_aval(x)
  if (type(own) is type(aval) and getattr(own, "shape", None) == aval.shape
      and own.dtype == aval.dtype):
    return own
  return aval


# ----------------------------------------------------------------------------- registrars


def defvectorized(prim: core.Primitive) -> None:
  batch_rules[prim] = lambda axis, vals, dims, **params: (prim.bind(*vals, **params), dims[0])


def defbroadcasting(prim: core.Primitive, size_one: bool = True) -> None:
  """An elementwise n-ary primitive. Its operands have one shape, or are rank-0 beside
  arrays (unbatched rank-0 operands stay as they are); with `size_one`, size-1
  dimensions broadcast too (JAX's n-ary ops), so an unbatched operand gets a size-1 batch
  dimension and a batched rank-0 one size-1 dimensions, where without it both are
  broadcast to the full batched shape."""
  def rule(axis, vals, dims, **params):
    ranks = [core.get_aval(v).ndim - (d is not not_mapped) for v, d in zip(vals, dims)]
    if all(d == dims[0] for d in dims) and len(set(ranks)) == 1:
      return prim.bind(*vals, **params), dims[0]
    out_rank = max(ranks)
    moved = [_batch_operand(v, d, r, out_rank, axis.size, size_one)
             for v, d, r in zip(vals, dims, ranks)]
    if out_rank and not size_one:
      shape = next(core.get_aval(m).shape for m in moved if core.get_aval(m).ndim > out_rank)
      moved = [_shape_op("broadcast_in_dim")(m, shape, (0,))
               if r == 0 and d is not not_mapped else m
               for m, d, r in zip(moved, dims, ranks)]
    return prim.bind(*moved, **params), 0

  batch_rules[prim] = rule


def _batch_operand(v, d, rank: int, out_rank: int, size: int, size_one: bool):
  """Operand `v` of logical rank `rank` with its batch axis (of `size`) at the front."""
  if d is not_mapped:
    if rank == 0 and out_rank:
      return v
    if size_one:
      shape = core.get_aval(v).shape
      return _shape_op("broadcast_in_dim")(v, (1, *shape), tuple(range(1, rank + 1)))
    return bdim_at_front(v, d, size)
  v = moveaxis(v, d, 0)
  if rank == 0 and out_rank and size_one:
    return _shape_op("broadcast_in_dim")(v, (size,) + (1,) * out_rank, (0,))
  return v


def _inconsistent_sizes_message(fun, args, kwargs, leaves, dims) -> str:
  """JAX's message: the mapped axes grouped by size, each with the argument it is in."""
  try:
    params = list(inspect.signature(fun).parameters)
  except (TypeError, ValueError):
    params = []
  paths = [p for p, _ in tree_util.tree_flatten_with_path((args, kwargs))[0]]

  def where(i: int) -> str:
    path = paths[i]
    pos = path[1]
    if path[0].idx == 0:  # a positional argument
      name = params[pos.idx] if pos.idx < len(params) else f"args[{pos.idx}]"
    else:
      name = pos.key
    aval = core.get_aval(leaves[i])
    return (f"axis {dims[i]} of argument {name}{tree_util.keystr(path[2:])} of type "
            f"{aval.str_short()}")

  groups: dict[int, list[int]] = {}
  for i, d in enumerate(dims):
    if d is not None:
      groups.setdefault(core.get_aval(leaves[i]).shape[d], []).append(i)
  most = max(len(ix) for ix in groups.values())
  lines = [f"one axis had size {n}: {where(ix[0])}" if len(ix) == 1 else
           f"{'most' if len(ix) == most else 'some'} axes ({len(ix)} of them) had size {n}, "
           f"e.g. {where(ix[0])}" for n, ix in groups.items()]
  return ("vmap got inconsistent sizes for array axes to be mapped:\n" +
          ";\n".join(f"  * {line}" for line in lines))


def vmap_fun(fun: Callable, in_axes=0, out_axes=0, axis_name=None, axis_size=None) -> Callable:
  """`fun` vectorized over the axes `in_axes` of its arguments (the body of `jax.vmap`)."""

  def batched(*args, **kwargs):
    # As documented for JAX's vmap: keyword arguments are always mapped over axis 0.
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    axes = tree_util.prefix_per_leaf(
        in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args), args) + \
        [0] * len(tree_util.tree_leaves(kwargs))
    dims, sizes = [], set()
    for x, ax in zip(leaves, axes):
      if ax is None:
        dims.append(None)
        continue
      ndim = core.get_aval(x).ndim
      if not -ndim <= ax < ndim:
        raise ValueError(f"vmap: in_axes={ax} is out of bounds for an argument of rank {ndim}")
      dims.append(ax % ndim)
      sizes.add(core.get_aval(x).shape[ax % ndim])
    if len(sizes) > 1:
      raise ValueError(_inconsistent_sizes_message(fun, args, kwargs, leaves, dims))
    if not sizes and axis_size is None:
      raise ValueError("vmap must have at least one non-None value in in_axes")
    size = sizes.pop() if sizes else axis_size
    store = tree_util.OutTreeStore()

    def flat(*xs):
      args, kwargs = in_tree.unflatten(xs)
      out_leaves, store.value = tree_util.tree_flatten(fun(*args, **kwargs))
      return out_leaves

    def out_dims():
      if out_axes is None or isinstance(out_axes, int):
        # One axis for every output leaf; no need to rebuild the output (a custom
        # node rebuilt from placeholder leaves may flatten differently).
        return [out_axes] * store.value.num_leaves
      out = store.value.unflatten([0] * store.value.num_leaves)
      return [None if a is None else a for a in tree_util.prefix_per_leaf(out_axes, out)]

    try:
      outs = vmap_flat(flat, AxisData(size, axis_name), dims, out_dims, leaves)
    except SpecMatchError as e:
      path = _out_axes_path(out_axes, store.value, e.leaf_idx)
      raise ValueError(f"at vmap out_axes{tree_util.keystr(path)}, got axis spec {e.dst} "
                       f"but output was batched on axis {e.src}") from None
    return store.value.unflatten(outs)

  return batched


def _out_axes_path(out_axes, out_tree, leaf_idx: int) -> tuple:
  """The key path of output leaf `leaf_idx` (JAX's out_axes error names it)."""
  out = out_tree.unflatten(range(out_tree.num_leaves))
  paths = [p for p, _ in tree_util.tree_flatten_with_path(out)[0]]
  return paths[leaf_idx] if leaf_idx is not None and leaf_idx < len(paths) else ()
