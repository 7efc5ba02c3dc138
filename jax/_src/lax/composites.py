"""lax functions built from the primitives: indexing helpers, split/stack/tile, mulhi,
batch_matmul, approx_max_k, the optimization barrier, tokens, composite,
platform_dependent, and the shape arithmetic of windows.

Derivatives, batching and lowering come from the primitives they are written with.
"""

from __future__ import annotations

import enum
import functools
import operator
from typing import Callable, Sequence

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src import tree_util
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lax import elementwise as ew
from jax._src.lax import generic_reduce
from jax._src.lax import linalg as lax_linalg
from jax._src.lax import shape as lax_shape
from jax._src.lax import slicing
from jax._src.lax import sorting
from jax._src.lax.precision import EnumMeta
from jax._src.lax.utils import derived_primitive, place, standard_primitive
from jax._src.sharding import (NamedSharding, PartitionSpec, Sharding, canonical_sharding,
                               get_mesh)
from jax._src.lowering import hlo


def _axis(axis: int, ndim: int, name: str) -> int:
  axis = operator.index(axis)
  if not -ndim <= axis < max(ndim, 1):
    raise ValueError(f"{name}: axis {axis} is out of bounds for an array of rank {ndim}")
  return axis % ndim if ndim else 0


class RandomAlgorithm(enum.IntEnum, metaclass=EnumMeta):
  """The bit generator of rng_bit_generator: the backend's default, Threefry or Philox."""
  RNG_DEFAULT = 0
  RNG_THREE_FRY = 1
  RNG_PHILOX = 2

  def __str__(self):
    return self.name


# ----------------------------------------------------------------------------- indexing


def slice_in_dim(operand, start_index, limit_index, stride: int = 1, axis: int = 0):
  """operand[..., start:limit:stride, ...] along `axis` (None: the whole extent)."""
  shape = core.get_aval(operand).shape
  axis = _axis(axis, len(shape), "slice_in_dim")
  size = shape[axis]
  start, limit, _ = slice(start_index, limit_index).indices(size)
  starts, limits, strides = [0] * len(shape), list(shape), [1] * len(shape)
  starts[axis], limits[axis], strides[axis] = start, max(start, limit), int(stride)
  return lax_shape.slice(operand, starts, limits, strides)


def index_in_dim(operand, index, axis: int = 0, keepdims: bool = True):
  """operand[..., index, ...] along `axis` (a static int; negative counts from the end)."""
  shape = core.get_aval(operand).shape
  axis = _axis(axis, len(shape), "index_in_dim")
  index = operator.index(index)
  if not -shape[axis] <= index < shape[axis]:
    raise IndexError(f"index {index} is out of bounds for axis {axis} with size {shape[axis]}")
  index %= shape[axis]
  out = slice_in_dim(operand, index, index + 1, 1, axis)
  return out if keepdims else lax_shape.squeeze(out, (axis,))


def index_take(src, idxs, axes):
  """src[idxs[0], idxs[1], ...] with each index array on its axis of `axes`."""
  idxs = [ew.convert_element_type(i, np.int32) if not isinstance(i, core.Tracer)
          and np.asarray(i).dtype.kind != "i" else i for i in idxs]
  axes = tuple(operator.index(a) for a in axes)
  if len(idxs) != len(axes):
    raise ValueError(f"index_take: {len(idxs)} index arrays for {len(axes)} axes")
  shape = core.get_aval(src).shape
  batch = lax_shape.broadcast_shapes(*(core.get_aval(i).shape for i in idxs))
  idxs = [lax_shape.broadcast_in_dim(i, batch, tuple(range(len(batch) - core.get_aval(i).ndim,
                                                               len(batch)))) for i in idxs]
  dt = np.result_type(*(core.get_aval(i).dtype for i in idxs))
  indices = lax_shape.concatenate(
      [lax_shape.expand_dims(ew.convert_element_type(i, dt), (len(batch),)) for i in idxs],
      len(batch))
  offset_dims = tuple(range(len(batch), len(batch) + len(shape) - len(axes)))
  dn = slicing.GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=axes,
                                      start_index_map=axes)
  sizes = tuple(1 if d in axes else n for d, n in enumerate(shape))
  return slicing.gather(src, indices, dn, sizes)


# ----------------------------------------------------------------------------- shapes


def split(operand, sizes: Sequence[int], axis: int = 0):
  """Pieces of `operand` along `axis` of the given sizes (which must add up to its extent)."""
  shape = core.get_aval(operand).shape
  axis = _axis(axis, len(shape), "split")
  sizes = [operator.index(s) for s in sizes]
  if any(s < 0 for s in sizes) or sum(sizes) != shape[axis]:
    raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} of the "
                     f"operand shape {shape}")
  return split_p.bind(operand, sizes=tuple(sizes), axis=axis)


def _split(operand, *, sizes, axis):
  out, start = [], 0
  for s in sizes:
    out.append(slice_in_dim(operand, start, start + s, 1, axis))
    start += s
  return out


split_p = derived_primitive("split", _split, multiple_results=True)


def stack(operands: Sequence, axis: int = 0):
  """Arrays of one shape stacked along a new `axis`."""
  operands = list(operands)
  if not operands:
    raise ValueError("stack requires at least one operand")
  ndim = core.get_aval(operands[0]).ndim
  axis = _axis(axis, ndim + 1, "stack")
  return stack_p.bind(*operands, axis=axis)


def _stack(*operands, axis):
  return lax_shape.concatenate([lax_shape.expand_dims(x, (axis,)) for x in operands], axis)


stack_p = derived_primitive("stack", _stack)


def unstack(x, axis: int = 0):
  """The slices of `x` along `axis`, as a list."""
  shape = core.get_aval(x).shape
  axis = _axis(axis, len(shape), "unstack")
  return unstack_p.bind(x, axis=axis)


def _unstack(x, *, axis):
  return [index_in_dim(x, i, axis, keepdims=False) for i in range(core.get_aval(x).shape[axis])]


unstack_p = derived_primitive("unstack", _unstack, multiple_results=True)


def tile(operand, reps: Sequence[int]):
  """`operand` repeated reps[d] times along each dimension d."""
  shape = core.get_aval(operand).shape
  reps = tuple(operator.index(r) for r in reps)
  if len(reps) != len(shape):
    raise ValueError(f"tile: reps {reps} must have one entry per dimension of {shape}")
  if any(r < 0 for r in reps):
    raise ValueError(f"tile: reps must be non-negative, got {reps}")
  return tile_p.bind(operand, reps=reps)


def _tile(operand, *, reps):
  shape = core.get_aval(operand).shape
  # Broadcast to (r0, n0, r1, n1, ...) and merge each pair.
  big = tuple(v for r, n in zip(reps, shape) for v in (r, n))
  out = lax_shape.broadcast_in_dim(operand, big, tuple(range(1, 2 * len(shape), 2)))
  return lax_shape.reshape(out, tuple(r * n for r, n in zip(reps, shape)))


tile_p = derived_primitive("tile", _tile)


def broadcast_like(arr, like_arr):
  """`arr` broadcast (adding leading dimensions) to the shape of `like_arr`."""
  shape, target = core.get_aval(arr).shape, core.get_aval(like_arr).shape
  return lax_shape.broadcast_in_dim(arr, target, tuple(range(len(target) - len(shape),
                                                             len(target))))


def shape_as_value(shape):
  """The dimensions of `shape` as an int32 array (shapes are static here)."""
  dims = tuple(operator.index(d) for d in shape)
  return ew.convert_element_type(np.array(dims, np.int32), np.int32)


def dtype(x):
  """The canonical dtype of `x` (an array or a Python scalar)."""
  return dtypes.canonicalize_dtype(dtypes.dtype(x))


def empty(shape, dtype, *, out_sharding=None):
  """An array of `shape` whose contents are unspecified (zeros here)."""
  return place(lax_shape.full(shape, 0, dtype), out_sharding)


def reciprocal(x):
  """1 / x elementwise."""
  return ew.div(ew.const_like(x, 1), x)


# ----------------------------------------------------------------------------- arithmetic


def reduce_xor(operand, axes):
  """Bitwise xor of the elements over `axes` (booleans and integers)."""
  aval = core.get_aval(operand)
  if not (dtypes.is_integer(aval.dtype) or aval.dtype == np.bool_):
    raise TypeError(f"reduce_xor requires a boolean or integer operand, got {aval.dtype}")
  return reduce_xor_p.bind(operand, axes=tuple(operator.index(a) for a in axes))


def _reduce_xor(operand, *, axes):
  zero = np.zeros((), core.get_aval(operand).dtype)
  return generic_reduce.reduce(operand, zero, ew.bitwise_xor, axes)


reduce_xor_p = derived_primitive("reduce_xor", _reduce_xor)


def mulhi(x, y):
  """The high half of the double-width product of two integers of one type."""
  x, y = ew.match_scalar(x, y)
  dt = core.get_aval(x).dtype
  if not dtypes.is_integer(dt) or dt == np.bool_:
    raise TypeError(f"mulhi requires integer operands, got {dt}")
  return mulhi_p.bind(x, y)


mulhi_p = derived_primitive(
    "mulhi", lambda x, y: _mulhi_halves(x, y, core.get_aval(x).dtype))


def _mulhi_halves(x, y, dt):
  """Schoolbook product of half-width limbs in the unsigned type of the same width, then
  the signed correction: no wider type is needed (64-bit ints may be disabled)."""
  bits = dt.itemsize * 8
  ut = np.dtype(f"uint{bits}")
  ux, uy = (ew.bitcast_convert_type(v, ut) if dt.kind == "i" else v for v in (x, y))
  half = ew.const_like(ux, bits // 2)
  mask = ew.const_like(ux, (1 << (bits // 2)) - 1)
  xl, xh = ew.bitwise_and(ux, mask), ew.shift_right_logical(ux, half)
  yl, yh = ew.bitwise_and(uy, mask), ew.shift_right_logical(uy, half)
  ll, lh, hl, hh = ew.mul(xl, yl), ew.mul(xl, yh), ew.mul(xh, yl), ew.mul(xh, yh)
  mid = ew.add(ew.add(ew.shift_right_logical(ll, half), ew.bitwise_and(lh, mask)),
               ew.bitwise_and(hl, mask))
  hi = ew.add(ew.add(hh, ew.shift_right_logical(lh, half)),
              ew.add(ew.shift_right_logical(hl, half), ew.shift_right_logical(mid, half)))
  if dt.kind == "u":
    return hi
  # signed: hi(x*y) = hi_unsigned - (x<0 ? y : 0) - (y<0 ? x : 0)  (mod 2^bits)
  zero, uzero = ew.const_like(x, 0), ew.const_like(ux, 0)
  hi = ew.sub(hi, ew.select(ew.lt(x, zero), uy, uzero))
  hi = ew.sub(hi, ew.select(ew.lt(y, zero), ux, uzero))
  return ew.bitcast_convert_type(hi, dt)


def batch_matmul(lhs, rhs, precision=None):
  """Matrix products over matching leading batch dimensions: (..., m, k) @ (..., k, n)."""
  la, ra = core.get_aval(lhs), core.get_aval(rhs)
  if la.ndim < 2 or la.ndim != ra.ndim:
    raise ValueError(f"batch_matmul requires operands of equal rank >= 2, got shapes "
                     f"{la.shape} and {ra.shape}")
  if la.shape[:-2] != ra.shape[:-2]:
    raise ValueError(f"batch_matmul requires equal batch dimensions, got shapes {la.shape} and "
                     f"{ra.shape}")
  batch = tuple(range(la.ndim - 2))
  return lax_linalg.dot_general(lhs, rhs, (((la.ndim - 1,), (ra.ndim - 2,)), (batch, batch)),
                                precision=precision)


def approx_max_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
  """The k largest values and their indices along `reduction_dimension`.

  Computed exactly (recall 1, above any `recall_target`).
  """
  return _approx_k(operand, k, reduction_dimension, recall_target, True)


def approx_min_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
  """The k smallest values and their indices along `reduction_dimension` (exact)."""
  return _approx_k(operand, k, reduction_dimension, recall_target, False)


def _approx_k(operand, k, dim, recall_target, largest):
  if not 0 < recall_target <= 1:
    raise ValueError(f"recall_target must be in (0, 1], got {recall_target}")
  aval = core.get_aval(operand)
  if not dtypes.is_inexact(aval.dtype):
    raise TypeError(f"approx_{'max' if largest else 'min'}_k requires a floating-point "
                    f"operand, got {aval.dtype}")
  dim = _axis(dim, aval.ndim, "approx_max_k")
  return tuple(approx_top_k_p.bind(operand, k=operator.index(k), reduction_dimension=dim,
                                   recall_target=float(recall_target), is_max_k=largest))


def _approx_top_k(operand, *, k, reduction_dimension, recall_target, is_max_k):
  # Computed exactly: recall 1 meets every recall_target.
  if is_max_k:
    return list(sorting.top_k(operand, k, axis=reduction_dimension))
  values, indices = sorting.top_k(ew.neg(operand), k, axis=reduction_dimension)
  return [ew.neg(values), indices]


approx_top_k_p = derived_primitive("approx_top_k", _approx_top_k, multiple_results=True)


# ----------------------------------------------------------------------------- barrier


def _optimization_barrier_lowering(ctx, *args):
  tup = ctx.comp.emit(ctx.prefix, hlo.tuple_str(hlo.shape_str(a.aval) for a in args), "tuple",
                      [a.name for a in args], "")
  bar = ctx.comp.emit(ctx.prefix, hlo.tuple_str(hlo.shape_str(a.aval) for a in args),
                      "opt-barrier", [tup], "")
  return [hlo.HloValue(ctx.comp.emit(ctx.prefix, hlo.shape_str(a.aval), "get-tuple-element",
                                     [bar], f"index={i}"), a.aval)
          for i, a in enumerate(args)]


optimization_barrier_p = standard_primitive("optimization_barrier", lambda *avals: list(avals),
                                            multiple_results=True)
hlo.lowering_rules[optimization_barrier_p] = _optimization_barrier_lowering
ad.jvp_rules[optimization_barrier_p] = lambda primals, tangents: (
    optimization_barrier_p.bind(*primals),
    [t for t in tangents])
batching.batch_rules[optimization_barrier_p] = lambda axis, vals, dims: (
    optimization_barrier_p.bind(*vals), list(dims))


def optimization_barrier(operand):
  """`operand` (a pytree) unchanged; the compiler may not move computation across it."""
  leaves, tree = tree_util.tree_flatten(operand)
  return tree.unflatten(optimization_barrier_p.bind(*leaves)) if leaves else operand


# ----------------------------------------------------------------------------- stage


def _stage_abstract_eval(x):
  return core.ShapedArray(x.shape, x.dtype, x.weak_type)


# The identity, as an equation: binding it lifts a constant into the active trace.
stage_p = standard_primitive("stage", _stage_abstract_eval)
ad.deflinear(stage_p, lambda ct, x: [stage_p.bind(ct)])
batching.batch_rules[stage_p] = lambda axis, vals, dims: (stage_p.bind(vals[0]), dims[0])
hlo.lowering_rules[stage_p] = lambda ctx, x: ctx.op("copy", ctx.avals_out[0], x)


def stage(x, /):
  """`x` lifted into the active trace (logically the identity); a jax Array outside traces."""
  core.get_aval(x)  # refuses non-array values with a clear TypeError
  return stage_p.bind(x)


# ----------------------------------------------------------------------------- tokens


class Token:
  """An ordering token (after_all/create_token); carries no data."""

  __slots__ = ()

  def __repr__(self):
    return "Token()"


def create_token(_=None):
  """A fresh ordering token (any argument is ignored, as in JAX)."""
  return Token()


def after_all(*operands):
  """A token ordered after the given tokens."""
  for t in operands:
    if not isinstance(t, Token):
      raise TypeError(f"after_all requires tokens, got {type(t).__name__}")
  return Token()


# ----------------------------------------------------------------------------- composite


def composite(decomposition: Callable, name: str, version: int = 0):
  """Marks `decomposition` as the composite op `name`; calling it runs the decomposition."""
  if not isinstance(name, str) or not name:
    raise ValueError(f"composite: name must be a non-empty string, got {name!r}")
  @functools.wraps(decomposition)
  def call(*args, **kwargs):
    return decomposition(*args, **kwargs)

  call.composite_name, call.composite_version = name, int(version)
  return call


def platform_dependent(*args, default=None, **per_platform):
  """Calls the branch for the platform this runs on ('cpu' here), else `default`."""
  branch = per_platform.get("cpu", default)
  if branch is None:
    raise NotImplementedError(f"platform_dependent: no branch for platform 'cpu' and no "
                              f"default (got branches for {sorted(per_platform)})")
  return branch(*args)


# ----------------------------------------------------------------------------- window shapes


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None):
  """The output shape of a reduce_window with these parameters."""
  n = len(operand_shape)
  base_dilation = base_dilation or (1,) * n
  window_dilation = window_dilation or (1,) * n
  out = []
  for size, w, s, (lo, hi), bd, wd in zip(operand_shape, window_dimensions, window_strides,
                                           padding, base_dilation, window_dilation):
    dilated = (size - 1) * bd + 1 + lo + hi if size else lo + hi
    win = (w - 1) * wd + 1
    out.append(max(0, (dilated - win) // s + 1) if dilated >= win else 0)
  return tuple(out)



def with_sharding_constraint(x, shardings):
  """`x` (a pytree) with each leaf placed as `shardings` (a pytree prefix) says.

  Over Explicit mesh axes the layout is part of the type and this is an assertion that
  it matches. Over Auto axes concrete values are placed, and inside a traced function
  they stay where the computation puts them, as `device_put` does there.
  """
  # A PartitionSpec is a tuple, but one target; pytree nodes (tuples, dicts, a library's
  # registered containers such as flax's State) are prefixes.
  is_spec = lambda s: (isinstance(s, (Sharding, PartitionSpec))
                       or not tree_util.is_tree_node(s))
  leaves, treedef = tree_util.tree_flatten(x)
  targets = tree_util.prefix_per_leaf(shardings, x, is_leaf=is_spec)
  return treedef.unflatten([_constrain(v, t) for v, t in zip(leaves, targets)])


def _constrain(x, target):
  if target is None:
    return x
  if isinstance(target, PartitionSpec):
    mesh = get_mesh()
    if mesh is None:
      raise ValueError("with_sharding_constraint: a PartitionSpec needs a mesh in context; "
                       "use `jax.set_mesh(mesh)` or pass a NamedSharding")
    target = NamedSharding(mesh, target)
  if isinstance(target, NamedSharding) and target.mesh.abstract_mesh.explicit_axes:
    aval = core.get_aval(x)
    have = core.explicit_sharding(aval)
    want = canonical_sharding(target, aval.ndim)
    have_spec = aval.sharding.spec if have is None else have.spec
    # No explicit sharding is a replicated value: it matches a spec that names no axes.
    if have_spec.axes_by_dim(aval.ndim) != want.spec.axes_by_dim(aval.ndim):
      raise AssertionError(
          "`with_sharding_constraint` acts as an assert when all axes of mesh are of type "
          f"`Explicit`. The array sharding: {have_spec} did not match the sharding provided: "
          f"{target.spec}. Please use `jax.sharding.reshard` to shard your input to the "
          "sharding you want.")
    return x
  return place(x, target)
