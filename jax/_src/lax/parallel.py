"""Named-axis collectives under vmap: psum, pmax, pmin, pmean, all_gather, axis_index.

A collective names an axis; the batching rule of the vmap whose `axis_name`
matches reduces (or gathers) over its batch dimension, and the result is
unmapped. A value that is not batched along the named axis reaches the eager
impl, which finds the axis size on the trace stack (psum of an unmapped value is
`size * x`). pmap (which would lower these to HLO all-reduce / all-gather on
several devices) is not implemented yet.
"""

from __future__ import annotations

from jax._src import core
from jax._src.core import ShapedArray
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lax import elementwise as ew
from jax._src.lax import reductions
from jax._src.lax import shape as lax_shape


def _names(axis_name) -> tuple:
  return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _axis_main(name) -> core.MainTrace:
  for main in reversed(core.trace_stack):
    if main.trace_type is batching.BatchTrace and main.global_data.name == name:
      return main
  raise NameError(f"unbound axis name: {name}. The name must be given as axis_name= to an "
                  "enclosing vmap.")


def _axis_size(axis_name) -> int:
  size = 1
  for n in _names(axis_name):
    size *= _axis_main(n).global_data.size
  return size


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
pmax_p = _collective("pmax", lambda x, d: reductions.reduce_max(x, (d,)), lambda x, n: x)
pmin_p = _collective("pmin", lambda x, d: reductions.reduce_min(x, (d,)), lambda x, n: x)
ad.deflinear(psum_p, lambda ct, x, *, axis_name: [ct])


def _tree_apply(prim, x, axis_name):
  from jax._src import tree_util
  return tree_util.tree_map(lambda v: prim.bind(v, axis_name=axis_name), x)


def psum(x, axis_name):
  return _tree_apply(psum_p, x, axis_name)


def pmax(x, axis_name):
  return _tree_apply(pmax_p, x, axis_name)


def pmin(x, axis_name):
  return _tree_apply(pmin_p, x, axis_name)


def pmean(x, axis_name):
  from jax._src import tree_util
  n = _axis_size(axis_name)
  return tree_util.tree_map(lambda v: ew.div(v, ew.convert_element_type(
      n, core.get_aval(v).dtype, True)), psum(x, axis_name))


def axis_index(axis_name):
  """This member's position along the named axis (an int32 scalar)."""
  main = _axis_main(axis_name)
  trace = batching.BatchTrace(main)
  return batching.BatchTracer(trace, lax_shape.iota("int32", main.global_data.size), 0)


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


batching.batch_rules[all_gather_p] = _all_gather_batch
ad.jvp_rules[all_gather_p] = lambda primals, tangents, **params: (
    all_gather_p.bind(primals[0], **params), all_gather_p.bind(tangents[0], **params))


def all_gather(x, axis_name, *, axis: int = 0, tiled: bool = False):
  """Every member receives the stack (or concatenation, if tiled) of all members' `x`."""
  from jax._src import tree_util
  size = _axis_size(axis_name)

  def gather(v):
    nd = core.get_aval(v).ndim
    return all_gather_p.bind(v, axis_name=axis_name, axis=int(axis) % (nd + 1),
                             tiled=bool(tiled), size=size)

  return tree_util.tree_map(gather, x)

