"""Named-axis collectives under vmap: psum, pmax, pmin, pmean, all_gather, axis_index.

A collective names an axis; the batching rule of the vmap whose `axis_name`
matches reduces (or gathers) over its batch dimension, and the result is
unmapped. A value that is not batched along the named axis reaches the eager
impl, which finds the axis size on the trace stack (psum of an unmapped value is
`size * x`).

Under pmap (jax/_src/pmap.py) the body is traced inside `pmap_axis_env(name, n)`:
the collectives are staged into the jaxpr and lowered to cross-replica HLO
(`all-reduce` with `replica_groups` and a `to_apply` region, `all-gather`,
`collective-permute`, `replica-id`), reading the axis sizes from
`ModuleBuilder.axis_env`.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

import numpy as np

from jax._src import core
from jax._src.core import ShapedArray
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lax import elementwise as ew
from jax._src.lax import reductions
from jax._src.lax import shape as lax_shape
from jax._src.lax import slicing
from jax._src.lowering import hlo
from jax._src import tree_util

# The named axes of the pmaps being traced, innermost last: (name, size).
class _PmapAxes(threading.local):
  """Per thread, like the trace stack the pmap bodies are traced on."""

  def __init__(self):
    self.axes: list[tuple] = []


_pmap_axes = _PmapAxes()


@contextmanager
def pmap_axis_env(name, size: int):
  """Bind `name` to a device axis of `size` while a pmap body is traced."""
  _pmap_axes.axes.append((name, int(size)))
  try:
    yield
  finally:
    _pmap_axes.axes.pop()


def _names(axis_name) -> tuple:
  return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _find_axis_main(name) -> core.MainTrace | None:
  for main in reversed(core.current_trace_stack()):
    if main.trace_type is batching.BatchTrace and main.global_data.name == name:
      return main
  return None


def _pmap_axis_size(name) -> int | None:
  for n, size in reversed(_pmap_axes.axes):
    if n == name:
      return size
  return None


def _unbound(name) -> NameError:
  return NameError(f"unbound axis name: {name}. The name must be given as axis_name= to an "
                   "enclosing vmap or pmap.")


def _axis_main(name) -> core.MainTrace:
  main = _find_axis_main(name)
  if main is None:
    raise _unbound(name)
  return main


def _axis_size(axis_name) -> int:
  size = 1
  for n in _names(axis_name):
    main = _find_axis_main(n)
    if main is not None:
      size *= main.global_data.size
      continue
    pmap_size = _pmap_axis_size(n)
    if pmap_size is None:
      raise _unbound(n)
    size *= pmap_size
  return size


# ----------------------------------------------------------------------------- HLO (pmap)


def _replica_groups(ctx: hlo.LoweringContext, axis_name) -> str:
  """`{{0,1,...,n-1}}` for one axis; with several device axes (a shard_map mesh, replicas
  numbered row-major over the module's `axis_env`), one group per position on the others."""
  groups = _group_ids(ctx, axis_name)
  return "{" + ",".join("{" + ",".join(map(str, g)) + "}" for g in groups) + "}"


def _group_ids(ctx: hlo.LoweringContext, axis_name) -> list[list[int]]:
  env = getattr(ctx.module, "axis_env", None) or {}
  names = _names(axis_name)
  missing = [n for n in names if n not in env]
  if missing:
    raise NameError(f"{ctx.prefix}: axis name {missing[0]!r} is not bound by a pmap; "
                    "collectives over vmap axes are removed by batching before lowering")
  axes = list(env)
  ids = np.arange(int(np.prod([env[a] for a in axes]))).reshape([env[a] for a in axes])
  order = [a for a in axes if a not in names] + list(names)
  size = int(np.prod([env[n] for n in names]))
  return ids.transpose([axes.index(a) for a in order]).reshape(-1, size).tolist()


def _all_reduce_lowering(opcode: str):
  def rule(ctx, x, *, axis_name):
    region = ctx.scalar_region(opcode, x.aval.dtype)
    return ctx.op("all-reduce", ctx.avals_out[0], x,
                  attrs=f"replica_groups={_replica_groups(ctx, axis_name)}, to_apply={region}")
  return rule


def _collective(name: str, reduce, unmapped):
  """A collective whose batching rule applies `reduce(x, dim)` on its own axis."""
  prim = core.Primitive(name)
  prim.def_abstract_eval(lambda x, *, axis_name: x)
  prim.def_impl(lambda x, *, axis_name: unmapped(x, _axis_size(axis_name)))

  def batch(axis, vals, dims, *, axis_name):
    (x,), (d,) = vals, dims
    names = _names(axis_name)
    if axis.name not in names:
      return prim.bind(x, axis_name=axis_name), d
    out = reduce(x, d)
    rest = tuple(n for n in names if n != axis.name)
    if rest:
      out = prim.bind(out, axis_name=rest if len(rest) > 1 else rest[0])
    return out, batching.not_mapped

  batching.batch_rules[prim] = batch
  return prim


psum_p = _collective("psum", lambda x, d: reductions.reduce_sum(x, (d,)),
                     lambda x, n: ew.mul(x, ew.convert_element_type(
                         n, core.get_aval(x).dtype, True)))
# Every member's value adds into every member's result, so each member's cotangent is the
# sum of all members' (as in JAX: under pmap the gradient of psum(x) is the axis size).
ad.deflinear(psum_p, lambda ct, x, *, axis_name: [psum_p.bind(ct, axis_name=axis_name)])
hlo.lowering_rules[psum_p] = _all_reduce_lowering("add")

pmax_p = _collective("pmax", lambda x, d: reductions.reduce_max(x, (d,)), lambda x, n: x)
hlo.lowering_rules[pmax_p] = _all_reduce_lowering("maximum")

pmin_p = _collective("pmin", lambda x, d: reductions.reduce_min(x, (d,)), lambda x, n: x)
hlo.lowering_rules[pmin_p] = _all_reduce_lowering("minimum")


def _tree_apply(prim, x, axis_name):
  _axis_size(axis_name)  # the name must be bound by an enclosing vmap or pmap
  return tree_util.tree_map(lambda v: prim.bind(v, axis_name=axis_name), x)


def _no_groups(name: str, axis_index_groups) -> None:
  if axis_index_groups is not None:
    raise NotImplementedError(f"{name}: axis_index_groups is not supported: collectives here "
                              "act on every member of the named axis")


def psum(x, axis_name, *, axis_index_groups=None):
  _no_groups("psum", axis_index_groups)
  return _tree_apply(psum_p, x, axis_name)


def pmax(x, axis_name, *, axis_index_groups=None):
  _no_groups("pmax", axis_index_groups)
  return _tree_apply(pmax_p, x, axis_name)


def pmin(x, axis_name, *, axis_index_groups=None):
  _no_groups("pmin", axis_index_groups)
  return _tree_apply(pmin_p, x, axis_name)


def axis_size(axis_name) -> int:
  """The number of members of the named axis (the product, for a tuple of names)."""
  return _axis_size(axis_name)


def pmean(x, axis_name, *, axis_index_groups=None):
  _no_groups("pmean", axis_index_groups)
  n = _axis_size(axis_name)
  return tree_util.tree_map(lambda v: ew.div(v, ew.convert_element_type(
      n, core.get_aval(v).dtype, True)), psum(x, axis_name))


# ----------------------------------------------------------------------------- axis_index

axis_index_p = core.Primitive("axis_index")
axis_index_p.def_abstract_eval(lambda *, axis_name: ShapedArray((), np.int32))


def _axis_index_impl(*, axis_name):
  raise _unbound(axis_name)


def _axis_index_lowering(ctx, *, axis_name):
  _replica_groups(ctx, axis_name)  # checks the name is a pmap axis
  rid = ctx.comp.op(ctx.prefix, "replica-id", ShapedArray((), np.uint32), [])
  env = ctx.module.axis_env
  axes = list(env)
  if len(axes) > 1:  # replicas are numbered row-major over several device axes
    i = axes.index(axis_name)
    stride = int(np.prod([env[a] for a in axes[i + 1:]]))
    u32 = ShapedArray((), np.uint32)
    rid = ctx.op("divide", u32, rid, ctx.constant(stride, np.uint32))
    rid = ctx.op("remainder", u32, rid, ctx.constant(env[axis_name], np.uint32))
  return ctx.convert(rid, np.int32)


axis_index_p.def_impl(_axis_index_impl)
ad.defjvp_zero(axis_index_p)
hlo.lowering_rules[axis_index_p] = _axis_index_lowering


def axis_index(axis_name):
  """This member's position along the named axis (an int32 scalar); for a tuple of names,
  the position in their row-major product."""
  names = _names(axis_name)
  if len(names) > 1:
    index = axis_index(names[0])
    for n in names[1:]:
      index = ew.add(ew.mul(index, np.int32(_axis_size(n))), axis_index(n))
    return index
  axis_name = names[0]
  main = _find_axis_main(axis_name)
  if main is None:
    if _pmap_axis_size(axis_name) is None:
      raise _unbound(axis_name)
    return axis_index_p.bind(axis_name=axis_name)
  trace = batching.BatchTrace(main)
  return batching.BatchTracer(trace, lax_shape.iota("int32", main.global_data.size), 0)


# ----------------------------------------------------------------------------- ppermute


def _ppermute_impl(x, *, axis_name, perm):
  # An unmapped value is the same on every member; it survives only a full permutation.
  n = _axis_size(axis_name)
  if sorted(d for _, d in perm) != list(range(n)):
    raise NotImplementedError("ppermute of a value that does not vary over the axis, with a "
                              "partial permutation")
  return x


ppermute_p = core.Primitive("ppermute")
ppermute_p.def_abstract_eval(lambda x, *, axis_name, perm: x)
ppermute_p.def_impl(_ppermute_impl)


def _ppermute_batch(axis, vals, dims, *, axis_name, perm):
  (x,), (d,) = vals, dims
  if axis.name != axis_name:
    return ppermute_p.bind(x, axis_name=axis_name, perm=perm), d
  x = batching.moveaxis(x, d, 0)
  shape = core.get_aval(x).shape
  row = lambda i: lax_shape.slice(x, (i,) + (0,) * (len(shape) - 1), (i + 1,) + shape[1:])
  source = {dst: src for src, dst in perm}
  rows = [row(source[i]) if i in source else ad.zeros_like(row(0)) for i in range(axis.size)]
  return lax_shape.concatenate(rows, 0), 0


def _ppermute_lowering(ctx, x, *, axis_name, perm):
  groups = _group_ids(ctx, axis_name)  # positions along the axis -> replica ids, per group
  pairs = ",".join(f"{{{g[s]},{g[d]}}}" for g in groups for s, d in perm)
  return ctx.op("collective-permute", ctx.avals_out[0], x,
                attrs=f"source_target_pairs={{{pairs}}}")


batching.batch_rules[ppermute_p] = _ppermute_batch
ad.deflinear(ppermute_p, lambda ct, x, *, axis_name, perm: [
    ppermute_p.bind(ct, axis_name=axis_name, perm=tuple((d, s) for s, d in perm))])
hlo.lowering_rules[ppermute_p] = _ppermute_lowering


def ppermute(x, axis_name, perm):
  """Send each member's `x` to the members named by `perm`, a list of (source, target)."""
  perm = tuple((int(s), int(d)) for s, d in perm)
  n = _axis_size(axis_name)
  srcs, dsts = [s for s, _ in perm], [d for _, d in perm]
  if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
    raise ValueError(f"ppermute sources and destinations must be unique, got {list(perm)}")
  if any(not 0 <= i < n for i in srcs + dsts):
    raise ValueError(f"ppermute indices must lie in [0, {n}) for axis {axis_name!r}, "
                     f"got {list(perm)}")
  return tree_util.tree_map(lambda v: ppermute_p.bind(v, axis_name=axis_name, perm=perm), x)


# ----------------------------------------------------------------------------- all_gather


def _all_gather_abstract_eval(x, *, axis_name, axis, tiled, size):
  shape = list(x.shape)
  if tiled:
    shape[axis] *= size
  else:
    shape.insert(axis, size)
  return ShapedArray(tuple(shape), x.dtype, x.weak_type)


all_gather_p = core.Primitive("all_gather")
all_gather_p.def_abstract_eval(_all_gather_abstract_eval)


def _all_gather_unmapped(x, *, axis_name, axis, tiled, size):
  aval = core.get_aval(x)
  shape = list(aval.shape)
  shape.insert(axis, size)
  out = lax_shape.broadcast_in_dim(x, tuple(shape), tuple(i for i in range(len(shape)) if i != axis))
  if tiled:
    shape[axis:axis + 2] = [shape[axis] * shape[axis + 1]]
    out = lax_shape.reshape(out, tuple(shape))
  return out


all_gather_p.def_impl(_all_gather_unmapped)


def _all_gather_batch(axis_data, vals, dims, *, axis_name, axis, tiled, size):
  (x,), (d,) = vals, dims
  if axis_data.name != axis_name:
    return all_gather_p.bind(x, axis_name=axis_name, axis=axis, tiled=tiled, size=size), d
  out = batching.moveaxis(x, d, axis)
  if tiled:
    shape = list(core.get_aval(out).shape)
    shape[axis:axis + 2] = [shape[axis] * shape[axis + 1]]
    out = lax_shape.reshape(out, tuple(shape))
  return out, batching.not_mapped


def _all_gather_lowering(ctx, x, *, axis_name, axis, tiled, size):
  groups = _replica_groups(ctx, axis_name)
  if not tiled:  # gather along a new unit axis
    shape = list(x.aval.shape)
    shape.insert(axis, 1)
    x = ctx.op("reshape", x.aval.update(shape=tuple(shape)), x)
  return ctx.op("all-gather", ctx.avals_out[0], x,
                attrs=f"replica_groups={groups}, dimensions={{{axis}}}")


batching.batch_rules[all_gather_p] = _all_gather_batch


def _all_gather_transpose(ct, x, *, axis_name, axis, tiled, size):
  # Member j's block went to every member: its cotangent is the sum of their cotangents
  # for block j (a reduce-scatter).
  total = psum_p.bind(ct, axis_name=axis_name)
  chunk = core.get_aval(ct).shape[axis] // size
  mine = _take_chunk(total, axis_index(axis_name), axis, chunk)
  return [mine if tiled else lax_shape.squeeze(mine, (axis,))]


ad.deflinear(all_gather_p, _all_gather_transpose)
hlo.lowering_rules[all_gather_p] = _all_gather_lowering
ad.jvp_rules[all_gather_p] = lambda primals, tangents, **params: (
    all_gather_p.bind(primals[0], **params), all_gather_p.bind(tangents[0], **params))


def all_gather(x, axis_name, *, axis_index_groups=None, axis: int = 0, tiled: bool = False,
               to=None):
  """Every member receives the stack (or concatenation, if tiled) of all members' `x`.

  `to` names the varying-ness of the result in JAX's shard_map type system, which
  values here do not carry: every choice gives the same values.
  """
  _no_groups("all_gather", axis_index_groups)
  size = _axis_size(axis_name)

  def gather(v):
    nd = core.get_aval(v).ndim
    return all_gather_p.bind(v, axis_name=axis_name, axis=int(axis) % (nd + 1),
                             tiled=bool(tiled), size=size)

  return tree_util.tree_map(gather, x)



# ----------------------------------------------------------------------------- built on the above
# Each member's share of a gathered or reduced value, selected with its axis_index:
# correct under vmap and pmap alike, with derivatives from the parts.


def _take_chunk(v, index, dim: int, chunk: int):
  return slicing.dynamic_slice_in_dim(v, ew.mul(index, np.int32(chunk)), chunk, dim)


def psum_scatter(x, axis_name, *, scatter_dimension: int = 0, axis_index_groups=None,
                 tiled: bool = False):
  """psum, of which member i keeps the i-th block along `scatter_dimension`.

  Untiled, that dimension must have the axis size and is removed.
  """
  _no_groups("psum_scatter", axis_index_groups)
  n = _axis_size(axis_name)

  def scatter(v):
    aval = core.get_aval(v)
    dim = int(scatter_dimension) % max(aval.ndim, 1)
    size = aval.shape[dim] if aval.ndim else 0
    if tiled and size % n:
      raise ValueError(f"tiled reduce_scatter operand scatter dimension size {size} must be "
                       f"divisible by shard_count {n}")
    if not tiled and size != n:
      raise ValueError(f"reduce_scatter operand scatter dimension size {size} must match "
                       f"shard count {n} (or use tiled=True)")
    total = psum_p.bind(v, axis_name=axis_name)
    out = _take_chunk(total, axis_index(axis_name), dim, size // n)
    return out if tiled else lax_shape.squeeze(out, (dim,))

  return tree_util.tree_map(scatter, x)


# ----------------------------------------------------------------------------- all_to_all


def _all_to_all_abstract_eval(x, *, axis_name, split_axis, concat_axis, axis_size, tiled):
  shape = list(x.shape)
  if tiled:
    shape[split_axis] //= axis_size
    shape[concat_axis] *= axis_size
  else:
    del shape[split_axis]
    shape.insert(concat_axis, axis_size)
  return ShapedArray(tuple(shape), x.dtype, x.weak_type)


all_to_all_p = core.Primitive("all_to_all")
all_to_all_p.def_abstract_eval(_all_to_all_abstract_eval)


def _all_to_all_impl(x, *, axis_name, **_):
  raise _unbound(axis_name)  # outside vmap/pmap/shard_map there are no members to exchange with


all_to_all_p.def_impl(_all_to_all_impl)


def _merge_dims(v, dim: int):
  shape = list(core.get_aval(v).shape)
  shape[dim:dim + 2] = [shape[dim] * shape[dim + 1]]
  return lax_shape.reshape(v, tuple(shape))


def _all_to_all_expand(x, *, axis_name, split_axis, concat_axis, axis_size, tiled):
  """all_to_all written with all_gather and axis_index: how it lowers for devices."""
  size = core.get_aval(x).shape[split_axis]
  gathered = all_gather_p.bind(x, axis_name=axis_name, axis=0, tiled=False, size=axis_size)
  mine = _take_chunk(gathered, axis_index_p.bind(axis_name=axis_name), split_axis + 1,
                     size // axis_size)  # (members, *x with this member's block)
  if not tiled:
    return batching.moveaxis(lax_shape.squeeze(mine, (split_axis + 1,)), 0, concat_axis)
  return _merge_dims(batching.moveaxis(mine, 0, concat_axis), concat_axis)


def _all_to_all_batch(axis_data, vals, dims, *, axis_name, split_axis, concat_axis, axis_size,
                      tiled):
  (x,), (d,) = vals, dims
  x = batching.moveaxis(x, d, 0)
  if axis_data.name != axis_name:  # another axis: the exchange happens per batch element
    return all_to_all_p.bind(x, axis_name=axis_name, split_axis=split_axis + 1,
                             concat_axis=concat_axis + 1, axis_size=axis_size, tiled=tiled), 0
  # The mapped axis is the members' axis: member i's block j ends at member j, position i.
  if tiled:
    shape = list(core.get_aval(x).shape)
    shape[split_axis + 1:split_axis + 2] = [axis_size, shape[split_axis + 1] // axis_size]
    x = lax_shape.reshape(x, tuple(shape))
  y = batching.moveaxis(x, split_axis + 1, 0)  # (receiving member, sending member, ...)
  y = batching.moveaxis(y, 1, concat_axis + 1)
  return (_merge_dims(y, concat_axis + 1) if tiled else y), 0


def _all_to_all_transpose(ct, x, *, axis_name, split_axis, concat_axis, axis_size, tiled):
  # The exchange is a permutation of blocks: its transpose exchanges back.
  return [all_to_all_p.bind(ct, axis_name=axis_name, split_axis=concat_axis,
                            concat_axis=split_axis, axis_size=axis_size, tiled=tiled)]


batching.batch_rules[all_to_all_p] = _all_to_all_batch
ad.deflinear(all_to_all_p, _all_to_all_transpose)
hlo.lowering_rules[all_to_all_p] = hlo.lower_fun(_all_to_all_expand, False)


def all_to_all(x, axis_name, split_axis: int, concat_axis: int, *, axis_index_groups=None,
               tiled: bool = False):
  """Member i's block j along `split_axis` goes to member j, which concatenates the blocks
  it receives along `concat_axis` in member order.

  Untiled, `split_axis` must have the axis size: it is removed and a new axis of that
  size is inserted at `concat_axis`.
  """
  _no_groups("all_to_all", axis_index_groups)
  n = _axis_size(axis_name)

  def exchange(v):
    aval = core.get_aval(v)
    split = int(split_axis) % aval.ndim
    size = aval.shape[split]
    if tiled and size % n:
      raise ValueError(f"The size of all_to_all split_axis ({size}) has to be divisible by the "
                       f"size of the named axis axis_name ({n})")
    if not tiled and size != n:
      raise ValueError("all_to_all requires the size of the mapped axis axis_name to equal "
                       f"x.shape[split_axis], but they are {n} and {size} respectively.")
    names = _names(axis_name)
    if len(names) == 1:
      return all_to_all_p.bind(v, axis_name=names[0], split_axis=split,
                               concat_axis=int(concat_axis) % aval.ndim, axis_size=n,
                               tiled=bool(tiled))
    # Several axes at once: the exchange over their product, from all_gather.
    gathered = all_gather(v, axis_name, axis=0)  # (n, *v.shape): member j's value at j
    mine = _take_chunk(gathered, axis_index(axis_name), split + 1, size // n)
    if not tiled:
      mine = lax_shape.squeeze(mine, (split + 1,))  # (n, *rest)
      concat = int(concat_axis) % (aval.ndim)
      return batching.moveaxis(mine, 0, concat)
    concat = int(concat_axis) % aval.ndim
    mine = batching.moveaxis(mine, 0, concat)  # the member axis just before concat's
    shape = list(core.get_aval(mine).shape)
    shape[concat:concat + 2] = [shape[concat] * shape[concat + 1]]
    return lax_shape.reshape(mine, tuple(shape))

  return tree_util.tree_map(exchange, x)


def pswapaxes(x, axis_name, axis, *, axis_index_groups=None):
  """Swaps the named axis with positional `axis` (whose size must be the axis size)."""
  return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)


def pshuffle(x, axis_name, perm):
  """Member i receives the value of member perm[i]."""
  perm = [int(p) for p in perm]
  if sorted(perm) != list(range(len(perm))):
    raise ValueError(f"pshuffle: perm must be a permutation of range({len(perm)}), got {perm}")
  return ppermute(x, axis_name, list(zip(perm, range(len(perm)))))


def pbroadcast(x, axis_name, source):
  """Every member receives the value of member `source`."""
  n = _axis_size(axis_name)
  if not 0 <= int(source) < n:
    raise ValueError(f"pbroadcast: source {source} is not in [0, {n})")
  return tree_util.tree_map(
      lambda v: lax_shape.squeeze(
          lax_shape.slice(all_gather(v, axis_name, axis=0), (int(source),) + (0,) * core.get_aval(v).ndim,
                          (int(source) + 1,) + core.get_aval(v).shape), (0,)), x)
