"""Sharding in types: how the Explicit mesh axes that split operands split results.

An aval over a mesh with Explicit axes records, per dimension, the mesh axes that
split it (`aval.sharding`, a NamedSharding over the AbstractMesh). Every primitive's
abstract eval passes through `propagate` (installed in core) when an operand has
such a sharding: a rule below gives the results' shardings, and operations whose
layouts do not combine raise `ShardingTypeError`, as JAX's rules do. Primitives
without a rule keep what their abstract eval produced when it is a valid layout
(calls of jaxprs, expansions), else their results are unsplit.

Values are computed by the same programs as without shardings; the runtime then
places each result of an eager op or a jit as its type says (see
`execution.place_by_type`), and `reshard_p` changes a value's type and placement.
"""

from __future__ import annotations

import math

from jax._src import core
from jax._src import execution
from jax._src import prng
from jax._src.core import ShapedArray, ShardingTypeError
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lax import clamp
from jax._src.lax import convolution
from jax._src.lax import elementwise
from jax._src.lax import linalg
from jax._src.lax import reduce_precision
from jax._src.lax import reductions
from jax._src.lax import shape as lax_shape
from jax._src.lax import slicing
from jax._src.lax import sorting
from jax._src.lax import special
from jax._src.lax import special_gamma
from jax._src.lowering import hlo
from jax._src.sharding import NamedSharding, PartitionSpec, reshape_split

rules: dict[core.Primitive, object] = {}


# ----------------------------------------------------------------------------- helpers


def dims_of(aval) -> tuple:
  """Per dimension, the tuple of mesh axes splitting it (empty when unsplit)."""
  s = core.explicit_sharding(aval)
  if s is None:
    return ((),) * aval.ndim
  return s.spec.axes_by_dim(aval.ndim)


def _spec_str(dims) -> str:
  return str(tuple(None if not d else d[0] if len(d) == 1 else d for d in dims))


def with_dims(aval, mesh, dims, what: str = ""):
  """`aval` typed as split by `dims` over `mesh`; a layout that uses a mesh axis twice or
  does not divide a dimension is a ShardingTypeError."""
  used = [n for d in dims for n in d]
  if len(set(used)) != len(used):
    raise ShardingTypeError(f"{what} produces an illegally sharded result: "
                            f"{_typed_str(aval, dims)}")
  for size, names in zip(aval.shape, dims):
    k = math.prod(mesh.shape[n] for n in names)
    if size % k:
      raise ShardingTypeError(f"{what} produces a result whose dimension of size {size} "
                              f"cannot be split {k} ways over mesh axes {names}")
  return ShapedArray(aval.shape, aval.dtype, aval.weak_type,
                     sharding=NamedSharding(mesh, _full_spec(dims)))


def _full_spec(dims) -> PartitionSpec:
  return PartitionSpec(*(None if not d else d[0] if len(d) == 1 else tuple(d) for d in dims))


def _typed_str(aval, dims) -> str:
  out = [str(s) + ("" if not d else "@" + (d[0] if len(d) == 1 else "(" + ",".join(d) + ")"))
         for s, d in zip(aval.shape, dims)]
  return f"{core.dtype_short_name(aval.dtype)}[{','.join(out)}]"


def _valid(aval, mesh) -> bool:
  s = core.explicit_sharding(aval)
  if s is None or s.mesh != mesh:
    return False
  return all(size % math.prod(mesh.shape[n] for n in names) == 0
             for size, names in zip(aval.shape, dims_of(aval)))


def propagate(prim: core.Primitive, avals, params, out):
  """The results of `prim` on `avals`, typed with their shardings."""
  meshes = []
  for a in avals:
    s = core.explicit_sharding(a)
    if s is not None and s.mesh not in meshes:
      meshes.append(s.mesh)
  if len(meshes) > 1:
    raise ShardingTypeError(f"{prim.name} got operands sharded over different meshes: "
                            f"{meshes}")
  mesh = meshes[0]
  rule = rules.get(prim)
  if rule is not None:
    return rule(mesh, avals, out, **params)
  outs = out if prim.multiple_results else [out]
  typed = [o if not isinstance(o, ShapedArray) or _valid(o, mesh)
           else with_dims(o, mesh, ((),) * o.ndim) for o in outs]
  return typed if prim.multiple_results else typed[0]


core.sharding_hooks["propagate"] = propagate


# ----------------------------------------------------------------------------- rules


def _elementwise(prim):
  def rule(mesh, avals, out, **_):
    merged = [()] * out.ndim
    for a in avals:
      if not isinstance(a, ShapedArray) or a.ndim != out.ndim:
        continue  # scalars broadcast
      for i, d in enumerate(dims_of(a)):
        if a.shape[i] == 1 != out.shape[i]:
          continue  # a size-1 dimension that broadcasts
        if d and merged[i] and d != merged[i]:
          specs = ", ".join(_spec_str(dims_of(b)) for b in avals
                            if isinstance(b, ShapedArray) and b.ndim == out.ndim)
          raise ShardingTypeError(f"{prim.name} got incompatible shardings for "
                                  f"broadcasting: {specs}.")
        merged[i] = merged[i] or d
    return with_dims(out, mesh, merged, prim.name)
  return rule


def _elementwise_multi(prim):
  """Elementwise with several results of the operands' shape (threefry2x32)."""
  single = _elementwise(prim)

  def rule(mesh, avals, out, **params):
    typed = single(mesh, avals, out[0], **params)
    return [o.update(sharding=typed.sharding) for o in out]
  return rule


def _bitcast(mesh, avals, out, **_):
  # Between widths the last dimension appears or goes; the others keep their splits.
  dims = list(dims_of(avals[0]))[:out.ndim]
  return with_dims(out, mesh, dims + [()] * (out.ndim - len(dims)), "bitcast_convert_type")


def _cumulative(mesh, avals, out, *, axis, reverse):
  x = avals[0]
  if dims_of(x)[axis]:
    raise ShardingTypeError("Input should be unsharded over the axis being reduced. Got input "
                            f"type={x.str_short(short_dtypes=True)} and axis={axis}")
  return with_dims(out, mesh, dims_of(x), "cumulative reduction")


def _top_k(mesh, avals, out, *, k, **_):
  x = avals[0]
  dims = dims_of(x)
  if dims[-1]:
    raise ShardingTypeError(f"top_k needs the operand unsharded over its last dimension, got "
                            f"{x.str_short(short_dtypes=True)}")
  return [with_dims(o, mesh, dims, "top_k") for o in out]


def _gather(mesh, avals, out, *, dimension_numbers, slice_sizes, **_):
  """Operand dimensions taken whole keep their split in the output's offset dimensions;
  the index batch dimensions keep the indices' split. An operand split along a dimension
  it is indexed or sliced along gives an unsplit result."""
  operand, indices = avals
  dn = dimension_numbers
  od, idims = dims_of(operand), dims_of(indices)
  out_dims = [()] * out.ndim
  dropped = set(dn.collapsed_slice_dims) | set(getattr(dn, "operand_batching_dims", ()))
  kept = [d for d in range(operand.ndim) if d not in dropped]
  for pos, d in zip(dn.offset_dims, kept):
    if od[d] and slice_sizes[d] == operand.shape[d] and d not in dn.start_index_map:
      out_dims[pos] = od[d]
  batch_out = [p for p in range(out.ndim) if p not in dn.offset_dims]
  index_batch = [d for d in range(indices.ndim) if d != indices.ndim - 1]
  paired = dict(zip(getattr(dn, "start_indices_batching_dims", ()),
                    getattr(dn, "operand_batching_dims", ())))
  for pos, d in zip(batch_out, index_batch):
    # A batch dimension shared by operand and indices is split as either of them is.
    out_dims[pos] = idims[d] or (od[paired[d]] if d in paired else ())
  used = [n for d in out_dims for n in d]
  if len(set(used)) != len(used):
    out_dims = [()] * out.ndim
  return with_dims(out, mesh, out_dims, "gather")


def _dynamic_update_slice(mesh, avals, out, **_):
  operand, update = avals[:2]
  if any(dims_of(update)) and dims_of(update) != dims_of(operand):
    raise ShardingTypeError(
        "dynamic_update_slice operand sharding must be equal to update sharding, got operand "
        f"sharding {operand.str_short(short_dtypes=True)} and update sharding {update.str_short(short_dtypes=True)}")
  return with_dims(out, mesh, dims_of(operand), "dynamic_update_slice")


def _conv(mesh, avals, out, *, dimension_numbers, **_):
  lhs, rhs = avals
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  dims = [()] * out.ndim
  dims[out_spec[0]] = dims_of(lhs)[lhs_spec[0]]  # batch
  feature = dims_of(rhs)[rhs_spec[0]]  # output features
  if not set(feature) & set(dims[out_spec[0]]):
    dims[out_spec[1]] = feature
  return with_dims(out, mesh, dims, "conv_general_dilated")


def _reduction(mesh, avals, out, *, axes, **_):
  (x,) = avals
  dims = [d for i, d in enumerate(dims_of(x)) if i not in axes]
  return with_dims(out, mesh, dims, "reduction")


def _transpose(mesh, avals, out, *, permutation):
  dims = dims_of(avals[0])
  return with_dims(out, mesh, [dims[p] for p in permutation], "transpose")


def _broadcast_in_dim(mesh, avals, out, *, shape, broadcast_dimensions, **_):
  x = avals[0]
  dims = [()] * len(shape)
  for i, (d, names) in enumerate(zip(broadcast_dimensions, dims_of(x))):
    # A dimension of size 1 that is broadcast to a larger one is not split.
    dims[d] = names if x.shape[i] == shape[d] else ()
  return with_dims(out, mesh, dims, "broadcast_in_dim")


def _squeeze(mesh, avals, out, *, dimensions):
  dims = [d for i, d in enumerate(dims_of(avals[0])) if i not in dimensions]
  return with_dims(out, mesh, dims, "squeeze")


def _resized(what: str):
  """Slicing-like ops keep each split when the new size is still divisible by it."""
  def rule(mesh, avals, out, **_):
    x = avals[0]
    dims = dims_of(x)
    for size, names in zip(out.shape, dims):
      k = math.prod(mesh.shape[n] for n in names)
      if names and size % k:
        spec = ",".join(names)
        raise ShardingTypeError(
            f"{what} on sharded dims where out dim ({size}) is not divisible by mesh axes "
            f"({k}) with spec ({spec}) is not implemented. Got input type={x.str_short(short_dtypes=True)} "
            f"and output shape={out.shape}")
    return with_dims(out, mesh, dims, what)
  return rule


def _sort(mesh, avals, out, *, dimension, **_):
  for a in avals:
    if dims_of(a)[dimension]:
      raise ShardingTypeError(
          f"Arguments to sort must be unsharded over the sorting dimension. Got arg "
          f"sharding={a.sharding} and sorting dimension={dimension}")
  merged = _elementwise(sorting.sort_p)(mesh, avals, out[0])
  return [o.update(sharding=merged.sharding) for o in out]


def _reshape(mesh, avals, out, *, new_sizes, dimensions):
  x = avals[0]
  dims = reshape_split(x.shape, dims_of(x), tuple(new_sizes), mesh.shape)
  # A reshape whose split has no counterpart leaves the result unsplit; lax.reshape
  # refuses it unless given an out_sharding, internal reshapes (transposes) need it.
  return with_dims(out, mesh, dims or ((),) * out.ndim, "reshape")


def _dot_general(mesh, avals, out, *, dimension_numbers, **_):
  lhs, rhs = avals
  (lc, rc), (lb, rb) = dimension_numbers
  ld, rd = dims_of(lhs), dims_of(rhs)
  batch = []
  for a, b in zip(lb, rb):
    if ld[a] and rd[b] and ld[a] != rd[b]:
      raise ShardingTypeError(
          "dot_general requires lhs batch dimensions and rhs batch dimensions to have the "
          f"consistent sharding, got {_spec_str([ld[a] for a in lb])} and "
          f"{_spec_str([rd[b] for b in rb])}.")
    batch.append(ld[a] or rd[b])
  free_l = [ld[d] for d in range(lhs.ndim) if d not in lc and d not in lb]
  free_r = [rd[d] for d in range(rhs.ndim) if d not in rc and d not in rb]
  # Split contracting dimensions leave partial sums that are added up across the mesh:
  # the result is not split over those axes (lax.dot_general refuses this unless given
  # an out_sharding; here it is what transposes of products need).
  dims = batch + free_l + free_r
  try:
    return with_dims(out, mesh, dims, "dot_general")
  except ShardingTypeError:
    raise ShardingTypeError(
        f"dot_general operation with inputs: {lhs.str_short(short_dtypes=True)}, {rhs.str_short(short_dtypes=True)} produces "
        f"an illegally sharded result: {_typed_str(out, dims)}") from None


def _register() -> None:
  for module in (elementwise, special, special_gamma, reduce_precision):
    for prim in vars(module).values():
      if isinstance(prim, core.Primitive) and prim is not elementwise.bitcast_convert_type_p:
        rules[prim] = _elementwise(prim)
  rules[clamp.clamp_p] = _elementwise(clamp.clamp_p)
  rules[ad.add_any_p] = _elementwise(ad.add_any_p)
  rules[prng.threefry2x32_p] = _elementwise_multi(prng.threefry2x32_p)
  rules[elementwise.bitcast_convert_type_p] = _bitcast
  for prim in (reductions.cumsum_p, reductions.cumprod_p, reductions.cummax_p,
               reductions.cummin_p, reductions.cumlogsumexp_p):
    rules[prim] = _cumulative
  rules[sorting.top_k_p] = _top_k
  rules[slicing.gather_p] = _gather
  rules[slicing.dynamic_update_slice_p] = _dynamic_update_slice
  rules[convolution.conv_general_dilated_p] = _conv
  for prim in (reductions.reduce_sum_p, reductions.reduce_max_p, reductions.reduce_min_p,
               reductions.reduce_prod_p, reductions.reduce_and_p, reductions.reduce_or_p,
               reductions.argmax_p, reductions.argmin_p):
    rules[prim] = _reduction
  rules[lax_shape.transpose_p] = _transpose
  rules[lax_shape.broadcast_in_dim_p] = _broadcast_in_dim
  rules[lax_shape.squeeze_p] = _squeeze
  rules[lax_shape.slice_p] = _resized("slicing")
  rules[slicing.dynamic_slice_p] = _resized("dynamic_slice")
  rules[lax_shape.pad_p] = _resized("padding")
  rules[lax_shape.concatenate_p] = _elementwise(lax_shape.concatenate_p)
  rules[sorting.sort_p] = _sort
  rules[lax_shape.reshape_p] = _reshape
  rules[linalg.dot_general_p] = _dot_general


_register()


# ----------------------------------------------------------------------------- reshard


def _reshard_abstract_eval(x, *, sharding):
  return ShapedArray(x.shape, x.dtype, x.weak_type, sharding=sharding)


def _reshard_impl(x, *, sharding):
  if sharding is None:
    # The type stops saying how it is split; an Array's type follows its placement, which
    # stays as it is.
    return x
  target = NamedSharding(execution.concrete_mesh(sharding.mesh, [x]), sharding.spec)
  return execution.device_put(x, target)


reshard_p = core.Primitive("reshard")
reshard_p.def_impl(_reshard_impl)
reshard_p.def_abstract_eval(_reshard_abstract_eval)
rules[reshard_p] = lambda mesh, avals, out, *, sharding: out
# Moving data between devices is the identity on values.
hlo.lowering_rules[reshard_p] = lambda ctx, x, *, sharding: x
ad.deflinear2(reshard_p, lambda ct, x, *, sharding: [reshard(
    ct, _sharding_of(x.aval if ad.is_undefined_primal(x) else core.get_aval(x)))])


def _reshard_batch(axis, vals, dims, *, sharding):
  (x,), (d,) = vals, dims
  if d is None or sharding is None:
    return reshard_p.bind(x, sharding=sharding), d
  aval = core.get_aval(x)
  entries = list(sharding.spec.axes_by_dim(aval.ndim - 1))
  # The batch dimension keeps its split unless the new layout uses those axes (as in JAX).
  kept = dims_of(aval)[d]
  used = {n for e in entries for n in e}
  entries.insert(d, () if used & set(kept) else kept)
  return reshard_p.bind(x, sharding=NamedSharding(sharding.mesh, _full_spec(entries))), d


batching.batch_rules[reshard_p] = _reshard_batch


def _sharding_of(aval) -> NamedSharding:
  s = core.explicit_sharding(aval)
  if s is not None:
    return s
  return aval.sharding


def reshard(x, sharding: NamedSharding):
  """`x` typed (and, when run, placed) as split by `sharding` over its mesh's Explicit
  axes; `sharding` may be over a concrete or an abstract mesh."""
  aval = core.get_aval(x)
  typed = core.sharding_hooks["canonical_sharding"](sharding, aval.ndim)
  if typed is None and core.explicit_sharding(aval) is None:
    return x  # no Explicit axis before or after: nothing in the type to change
  return reshard_p.bind(x, sharding=typed)


execution.traced_placement["reshard"] = reshard
core.sharding_hooks["reshard"] = reshard
