"""Convolution: conv_general_dilated (HLO `convolution`) and its front ends.

Dimension numbers say where the batch, feature and spatial axes of each operand
live: `ConvDimensionNumbers(lhs_spec, rhs_spec, out_spec)`, each a tuple
(batch or out-feature axis, feature or in-feature axis, spatial axes...). They
print as XLA's `dim_labels` (`b01f_01io->b01f`).

Derivatives are convolutions too. With respect to the input, the cotangent is
convolved with the spatially reversed kernel whose in/out feature roles are
swapped: the forward strides become input (lhs) dilation and the forward input
dilation becomes the stride. With respect to the kernel, the input is
convolved with the cotangent, batch and feature roles exchanged, the forward
strides becoming kernel (rhs) dilation. Feature groups of one become batch
groups of the other.
"""

from __future__ import annotations

import operator
from typing import NamedTuple, Union

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.core import ShapedArray
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lax import elementwise as ew
from jax._src.lax import reductions
from jax._src.lax import shape as lax_shape
from jax._src.lax.utils import place, standard_primitive
from jax._src.lowering import hlo


class ConvDimensionNumbers(NamedTuple):
  """Axis positions: lhs (batch, feature, spatial...), rhs (out feature, in feature,
  spatial...), out (batch, feature, spatial...)."""
  lhs_spec: tuple[int, ...]
  rhs_spec: tuple[int, ...]
  out_spec: tuple[int, ...]


def _spec_from_string(spec: str, chars: tuple[str, str], rhs_spec: str, name: str):
  if len(set(spec)) != len(spec):
    raise TypeError(f"conv_general_dilated: {name} spec {spec!r} repeats a dimension")
  for c in chars:
    if c not in spec:
      raise TypeError(f"conv_general_dilated: {name} spec {spec!r} lacks dimension {c!r}")
  spatial = [i for i, c in enumerate(spec) if c not in chars]
  if spec is not rhs_spec:
    # Spatial axes are matched to the kernel's by letter, in the kernel's order.
    try:
      spatial.sort(key=lambda i: rhs_spec.index(spec[i]))
    except ValueError:
      raise TypeError(f"conv_general_dilated: spatial dimensions of {name} spec {spec!r} must "
                      f"appear in the kernel spec {rhs_spec!r}") from None
  return (spec.index(chars[0]), spec.index(chars[1]), *spatial)


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
  """Resolve None, a ConvDimensionNumbers, or three spec strings like ('NHWC', 'HWIO', 'NHWC')."""
  lhs_shape, rhs_shape = tuple(lhs_shape), tuple(rhs_shape)
  if len(lhs_shape) != len(rhs_shape):
    raise TypeError(f"convolution requires lhs and rhs ndim to be equal, got {len(lhs_shape)} "
                    f"and {len(rhs_shape)}.")
  ndim = len(lhs_shape)
  if dimension_numbers is None:
    iota = tuple(range(ndim))
    return ConvDimensionNumbers(iota, iota, iota)
  if isinstance(dimension_numbers, ConvDimensionNumbers):
    return ConvDimensionNumbers(*(tuple(map(int, s)) for s in dimension_numbers))
  if len(dimension_numbers) != 3:
    raise TypeError(f"conv_general_dilated: dimension_numbers must have three entries, got "
                    f"{dimension_numbers!r}")
  lhs, rhs, out = dimension_numbers
  if all(isinstance(s, str) for s in (lhs, rhs, out)):
    for s, what in ((lhs, "lhs"), (rhs, "rhs"), (out, "out")):
      if len(s) != ndim:
        raise TypeError(f"conv_general_dilated: {what} spec {s!r} has {len(s)} dimensions, the "
                        f"operands have {ndim}")
    return ConvDimensionNumbers(_spec_from_string(lhs, ("N", "C"), rhs, "lhs"),
                                _spec_from_string(rhs, ("O", "I"), rhs, "rhs"),
                                _spec_from_string(out, ("N", "C"), rhs, "out"))
  return ConvDimensionNumbers(tuple(map(int, lhs)), tuple(map(int, rhs)), tuple(map(int, out)))


def _dilate(size: int, d: int) -> int:
  return 0 if size == 0 else 1 + d * (size - 1)


def padtype_to_pads(in_shape, window_shape, window_strides, padding) -> list[tuple[int, int]]:
  """Explicit (lo, hi) pads for 'VALID', 'SAME' or 'SAME_LOWER'."""
  kind = padding.upper()
  if kind == "VALID":
    return [(0, 0)] * len(in_shape)
  if kind not in ("SAME", "SAME_LOWER"):
    raise ValueError(f"Unknown padding type: {padding}.")
  pads = []
  for n, w, s in zip(in_shape, window_shape, window_strides):
    out = -(-n // s)
    total = max((out - 1) * s + w - n, 0)
    small, large = total // 2, total - total // 2
    pads.append((small, large) if kind == "SAME" else (large, small))
  return pads


def _conv_out_shape(lhs_shape, rhs_shape, dn, strides, padding, lhs_dilation, rhs_dilation,
                    batch_group_count):
  spatial = []
  for i in range(len(dn.lhs_spec) - 2):
    n = _dilate(lhs_shape[dn.lhs_spec[2 + i]], lhs_dilation[i])
    k = _dilate(rhs_shape[dn.rhs_spec[2 + i]], rhs_dilation[i])
    lo, hi = padding[i]
    padded = n + lo + hi
    if padded < 0:
      raise ValueError("Negative padding is larger than the size of the corresponding dimension: "
                       f"got padding={tuple(map(tuple, padding))} for lhs_shape[2:]="
                       f"{tuple(lhs_shape[d] for d in dn.lhs_spec[2:])}")
    spatial.append(max((padded - k) // strides[i] + 1, 0) if padded >= k else 0)
  out = [0] * len(dn.out_spec)
  out[dn.out_spec[0]] = lhs_shape[dn.lhs_spec[0]] // batch_group_count
  out[dn.out_spec[1]] = rhs_shape[dn.rhs_spec[0]]
  for i, s in enumerate(spatial):
    out[dn.out_spec[2 + i]] = s
  return tuple(out)


def _conv_abstract_eval(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count, precision,
                        preferred_element_type):
  dn = dimension_numbers
  if lhs.ndim != rhs.ndim:
    raise TypeError(f"convolution requires lhs and rhs ndim to be equal, got {lhs.ndim} and "
                    f"{rhs.ndim}.")
  if lhs.dtype != rhs.dtype:
    raise TypeError(f"conv_general_dilated requires arguments to have the same dtypes, got "
                    f"{lhs.dtype.name}, {rhs.dtype.name}.")
  if lhs.ndim < 2:
    raise TypeError(f"convolution requires operands of rank at least 2, got {lhs.str_short(short_dtypes=True)}")
  nsp = lhs.ndim - 2
  for name, v in (("window_strides", window_strides), ("padding", padding),
                  ("lhs_dilation", lhs_dilation), ("rhs_dilation", rhs_dilation)):
    if len(v) != nsp:
      raise ValueError(f"conv_general_dilated: {name} must have {nsp} entries, got {len(v)}")
  if any(s <= 0 for s in window_strides):
    raise ValueError(f"All window strides must be positive, got {window_strides}.")
  for name, v in (("lhs_dilation", lhs_dilation), ("rhs_dilation", rhs_dilation)):
    if any(d <= 0 for d in v):
      raise ValueError(f"All {name} values must be positive, got {v}.")
  in_features = lhs.shape[dn.lhs_spec[1]]
  kernel_in, kernel_out = rhs.shape[dn.rhs_spec[1]], rhs.shape[dn.rhs_spec[0]]
  if feature_group_count < 1 or batch_group_count < 1:
    raise ValueError("feature_group_count and batch_group_count must be positive")
  if feature_group_count > 1 and batch_group_count > 1:
    raise ValueError(f"At most one of batch_group_count and feature_group_count may be > 1, got "
                     f"batch_group_count={batch_group_count} and "
                     f"feature_group_count={feature_group_count}")
  if in_features % feature_group_count:
    raise ValueError(f"conv_general_dilated lhs feature dimension size must be divisible by "
                     f"feature_group_count, got lhs feature dimension size {in_features} and "
                     f"feature_group_count {feature_group_count}.")
  if in_features // feature_group_count != kernel_in:
    raise ValueError(f"conv_general_dilated lhs feature dimension size divided by "
                     f"feature_group_count must equal the rhs input feature dimension size, but "
                     f"{in_features} // {feature_group_count} != {kernel_in}.")
  if kernel_out % feature_group_count:
    raise ValueError(f"conv_general_dilated rhs output feature dimension size must be a multiple "
                     f"of feature_group_count, but {kernel_out} is not a multiple of "
                     f"{feature_group_count}.")
  batch = lhs.shape[dn.lhs_spec[0]]
  if batch % batch_group_count:
    raise ValueError(f"conv_general_dilated lhs batch dimension size must be divisible by "
                     f"batch_group_count, got lhs batch dimension size {batch} and "
                     f"batch_group_count {batch_group_count}.")
  if kernel_out % batch_group_count:
    raise ValueError(f"conv_general_dilated rhs output feature dimension size must be a multiple "
                     f"of batch_group_count, but {kernel_out} is not a multiple of "
                     f"{batch_group_count}.")
  shape = _conv_out_shape(lhs.shape, rhs.shape, dn, window_strides, padding, lhs_dilation,
                          rhs_dilation, batch_group_count)
  dtype = preferred_element_type if preferred_element_type is not None else lhs.dtype
  return ShapedArray(shape, dtype, lhs.weak_type and rhs.weak_type)


conv_general_dilated_p = standard_primitive("conv_general_dilated", _conv_abstract_eval)


def _ints(name, v, n):
  if v is None:
    return (1,) * n
  v = tuple(operator.index(x) for x in v)
  if len(v) != n:
    raise ValueError(f"conv_general_dilated: {name} must have {n} entries, got {v}")
  return v


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None, rhs_dilation=None,
                         dimension_numbers=None, feature_group_count: int = 1,
                         batch_group_count: int = 1, precision=None, preferred_element_type=None,
                         out_sharding=None):
  """General N-d convolution with strides, padding, input/kernel dilation and groups."""
  return place(_conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation,
                                     rhs_dilation, dimension_numbers, feature_group_count,
                                     batch_group_count, precision, preferred_element_type),
               out_sharding)


def _conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                          dimension_numbers, feature_group_count, batch_group_count, precision,
                          preferred_element_type):
  lhs_aval, rhs_aval = core.get_aval(lhs), core.get_aval(rhs)
  dn = conv_dimension_numbers(lhs_aval.shape, rhs_aval.shape, dimension_numbers)
  nsp = lhs_aval.ndim - 2
  strides = _ints("window_strides", window_strides, nsp)
  lhs_dilation = _ints("lhs_dilation", lhs_dilation, nsp)
  rhs_dilation = _ints("rhs_dilation", rhs_dilation, nsp)
  if isinstance(padding, str):
    if any(d != 1 for d in lhs_dilation):
      raise ValueError("String padding is not implemented for transposed convolution using this "
                       "op. Please either exactly specify the required padding or use "
                       "conv_transpose.")
    in_shape = [lhs_aval.shape[d] for d in dn.lhs_spec[2:]]
    window = [_dilate(rhs_aval.shape[d], r) for d, r in zip(dn.rhs_spec[2:], rhs_dilation)]
    padding = padtype_to_pads(in_shape, window, strides, padding)
  padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
  pet = None if preferred_element_type is None else dtypes.canonicalize_dtype(preferred_element_type)
  return conv_general_dilated_p.bind(
      lhs, rhs, window_strides=strides, padding=padding, lhs_dilation=lhs_dilation,
      rhs_dilation=rhs_dilation, dimension_numbers=dn,
      feature_group_count=operator.index(feature_group_count),
      batch_group_count=operator.index(batch_group_count), precision=precision,
      preferred_element_type=pet)


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
  """NCHW/OIHW convolution without dilation."""
  return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                              preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                              precision=None, preferred_element_type=None):
  return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                              precision=precision, preferred_element_type=preferred_element_type)


def _conv_transpose_padding(k: int, s: int, padding: str) -> tuple[int, int]:
  """Pads making conv_transpose the gradient of a 'SAME'/'VALID' strided convolution."""
  if padding == "SAME":
    total = k + s - 2
    lo = k - 1 if s > k - 1 else -(-total // 2)
  elif padding == "VALID":
    total = k + s - 2 + max(k - s, 0)
    lo = k - 1
  else:
    raise ValueError("Padding mode must be `SAME` or `VALID`.")
  return lo, total - lo


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None,
                   transpose_kernel: bool = False, precision=None, preferred_element_type=None,
                   use_consistent_padding: bool = False):
  """A fractionally strided convolution (the adjoint shape-wise of a strided one).

  String padding is already the one that makes this the transpose of the strided
  convolution with that padding, so `use_consistent_padding` changes nothing here.
  """
  del use_consistent_padding
  lhs_aval, rhs_aval = core.get_aval(lhs), core.get_aval(rhs)
  ndim = lhs_aval.ndim
  if dimension_numbers is None:
    defaults = {3: ("NHC", "HIO", "NHC"), 4: ("NHWC", "HWIO", "NHWC"),
                5: ("NHWDC", "HWDIO", "NHWDC")}
    if ndim not in defaults:
      raise ValueError("No 4+ dimensional dimension_number defaults.")
    dimension_numbers = defaults[ndim]
  dn = conv_dimension_numbers(lhs_aval.shape, rhs_aval.shape, dimension_numbers)
  nsp = ndim - 2
  rhs_dilation = _ints("rhs_dilation", rhs_dilation, nsp)
  strides = _ints("strides", strides, nsp)
  kernel = [rhs_aval.shape[d] for d in dn.rhs_spec[2:]]
  if isinstance(padding, str):
    window = [_dilate(k, r) for k, r in zip(kernel, rhs_dilation)]
    pads = [_conv_transpose_padding(k, s, padding) for k, s in zip(window, strides)]
  else:
    pads = padding
  if transpose_kernel:
    rhs = lax_shape.rev(rhs, tuple(dn.rhs_spec[2:]))
    perm = list(range(ndim))
    perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = perm[dn.rhs_spec[1]], perm[dn.rhs_spec[0]]
    rhs = lax_shape.transpose(rhs, tuple(perm))
  return conv_general_dilated(lhs, rhs, (1,) * nsp, pads, strides, rhs_dilation, dn,
                              precision=precision, preferred_element_type=preferred_element_type)


# ----------------------------------------------------------------------------- lowering


def _dim_labels(dn: ConvDimensionNumbers) -> str:
  def labels(spec, first, second):
    out = [""] * len(spec)
    out[spec[0]], out[spec[1]] = first, second
    for i, d in enumerate(spec[2:]):
      out[d] = str(i)
    return "".join(out)
  return (f"{labels(dn.lhs_spec, 'b', 'f')}_{labels(dn.rhs_spec, 'o', 'i')}->"
          f"{labels(dn.out_spec, 'b', 'f')}")


def window_attr(size, strides, padding, lhs_dilation, rhs_dilation) -> str:
  """XLA's `window={...}` text; fields at their defaults are left out."""
  x = lambda vs: "x".join(map(str, vs))
  parts = [f"size={x(size)}"] if size else []
  if any(s != 1 for s in strides):
    parts.append(f"stride={x(strides)}")
  if any(p != (0, 0) for p in padding):
    parts.append("pad=" + "x".join(f"{lo}_{hi}" for lo, hi in padding))
  if any(d != 1 for d in lhs_dilation):
    parts.append(f"lhs_dilate={x(lhs_dilation)}")
  if any(d != 1 for d in rhs_dilation):
    parts.append(f"rhs_dilate={x(rhs_dilation)}")
  return "window={" + " ".join(parts) + "}"


def _conv_lowering(ctx, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                   dimension_numbers, feature_group_count, batch_group_count, precision,
                   preferred_element_type):
  dn = dimension_numbers
  size = [rhs.aval.shape[d] for d in dn.rhs_spec[2:]]
  attrs = [window_attr(size, window_strides, padding, lhs_dilation, rhs_dilation),
           f"dim_labels={_dim_labels(dn)}"]
  if feature_group_count != 1:
    attrs.append(f"feature_group_count={feature_group_count}")
  if batch_group_count != 1:
    attrs.append(f"batch_group_count={batch_group_count}")
  from jax._src.lax.linalg import operand_precision_names  # shared with dot's lowering
  names = operand_precision_names(precision)
  if names is not None:
    attrs.append("operand_precision={" + ",".join(names) + "}")
  return ctx.op("convolution", ctx.avals_out[0], lhs, rhs, attrs=", ".join(attrs))


# ----------------------------------------------------------------------------- autodiff


def _swap_first_two(spec):
  return (spec[1], spec[0], *spec[2:])


def _split_axis(x, axis: int, outer: int):
  """Reshape axis `axis` (size outer * inner) into two axes (outer, inner)."""
  shape = list(core.get_aval(x).shape)
  shape[axis:axis + 1] = [outer, shape[axis] // outer]
  return lax_shape.reshape(x, tuple(shape))


def _merge_into(x, src: int, dst: int):
  """Move axis `src` to just before axis `dst` and merge the two (src major)."""
  aval = core.get_aval(x)
  perm = [i for i in range(aval.ndim) if i != src]
  pos = perm.index(dst)
  perm.insert(pos, src)
  x = lax_shape.transpose(x, tuple(perm))
  shape = [aval.shape[p] for p in perm]
  shape[pos:pos + 2] = [shape[pos] * shape[pos + 1]]
  return lax_shape.reshape(x, tuple(shape))


def _move_group_out_to_in(rhs, rhs_spec, groups: int):
  """Kernel (O = G*O', I) -> (O', G*I): a grouped kernel seen from the other side."""
  o, i = rhs_spec[0], rhs_spec[1]
  rhs = _split_axis(rhs, o, groups)  # the group axis is now at o, O' at o + 1
  i_after = i + 1 if i > o else i
  merged = _merge_into(rhs, o, i_after)
  return merged


def lhs_vjp_padding(in_shape, window, strides, out_shape, padding, lhs_dilation, rhs_dilation):
  pads = []
  for n, k, s, o, (lo, _), ld, rd in zip(in_shape, window, strides, out_shape, padding,
                                         lhs_dilation, rhs_dilation):
    kd = _dilate(k, rd)
    before = kd - lo - 1
    after = _dilate(n, ld) + kd - 1 - _dilate(o, s) - before
    pads.append((before, after))
  return tuple(pads)


def _rhs_vjp_padding(in_shape, window, strides, out_shape, padding, lhs_dilation, rhs_dilation):
  pads = []
  for n, k, s, o, (lo, _), ld, rd in zip(in_shape, window, strides, out_shape, padding,
                                         lhs_dilation, rhs_dilation):
    hi = _dilate(o, s) - _dilate(n, ld) + _dilate(k, rd) - lo - 1
    pads.append((lo, hi))
  return tuple(pads)


def _conv_transpose_lhs(ct, rhs, lhs_aval, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count, precision,
                        preferred_element_type):
  dn = dimension_numbers
  rhs_aval = core.get_aval(rhs)
  in_sp = [lhs_aval.shape[d] for d in dn.lhs_spec[2:]]
  k_sp = [rhs_aval.shape[d] for d in dn.rhs_spec[2:]]
  out_sp = [core.get_aval(ct).shape[d] for d in dn.out_spec[2:]]
  pads = lhs_vjp_padding(in_sp, k_sp, window_strides, out_sp, padding, lhs_dilation,
                          rhs_dilation)
  groups = 1
  if feature_group_count > 1:
    rhs = _move_group_out_to_in(rhs, dn.rhs_spec, feature_group_count)
    groups = feature_group_count
  elif batch_group_count > 1:
    rhs = _move_group_out_to_in(rhs, dn.rhs_spec, batch_group_count)
    groups = batch_group_count
  trans_dn = ConvDimensionNumbers(dn.out_spec, _swap_first_two(dn.rhs_spec), dn.lhs_spec)
  flipped = lax_shape.rev(rhs, tuple(dn.rhs_spec[2:]))
  out = conv_general_dilated(ct, flipped, lhs_dilation, pads, window_strides, rhs_dilation,
                             trans_dn, feature_group_count=groups, precision=precision,
                             preferred_element_type=preferred_element_type)
  if batch_group_count > 1:
    # The batch groups were folded into features; unfold them back into the batch axis.
    b, f = dn.lhs_spec[0], dn.lhs_spec[1]
    out = _split_axis(out, f, batch_group_count)
    src, dst = (f, b) if f > b else (f, b + 1)
    out = _merge_into(out, src, dst)
  return ew.convert_element_type(out, lhs_aval.dtype)


def _conv_transpose_rhs(ct, lhs, rhs_aval, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count, precision,
                        preferred_element_type):
  dn = dimension_numbers
  lhs_aval = core.get_aval(lhs)
  in_sp = [lhs_aval.shape[d] for d in dn.lhs_spec[2:]]
  k_sp = [rhs_aval.shape[d] for d in dn.rhs_spec[2:]]
  out_sp = [core.get_aval(ct).shape[d] for d in dn.out_spec[2:]]
  pads = _rhs_vjp_padding(in_sp, k_sp, window_strides, out_sp, padding, lhs_dilation,
                          rhs_dilation)
  fgc, bgc = 1, 1
  if batch_group_count > 1:
    fgc = batch_group_count
  elif feature_group_count > 1:
    bgc = feature_group_count
  trans_dn = ConvDimensionNumbers(_swap_first_two(dn.lhs_spec), _swap_first_two(dn.out_spec),
                                  _swap_first_two(dn.rhs_spec))
  out = conv_general_dilated(lhs, ct, rhs_dilation, pads, lhs_dilation, window_strides, trans_dn,
                             feature_group_count=fgc, batch_group_count=bgc, precision=precision,
                             preferred_element_type=preferred_element_type)
  return ew.convert_element_type(out, rhs_aval.dtype)


def _conv_transpose_rule(ct, lhs, rhs, **params):
  outs = [None, None]
  if ad.is_undefined_primal(lhs):
    outs[0] = _conv_transpose_lhs(ct, rhs, lhs.aval, **params)
  if ad.is_undefined_primal(rhs):
    outs[1] = _conv_transpose_rhs(ct, lhs, rhs.aval, **params)
  return outs


def _conv_jvp(primals, tangents, **params):
  lhs, rhs = primals
  tl, tr = tangents
  out = conv_general_dilated_p.bind(lhs, rhs, **params)
  return out, ad.add_tangents(conv_general_dilated_p.bind(tl, rhs, **params),
                              conv_general_dilated_p.bind(lhs, tr, **params))


# ----------------------------------------------------------------------------- batching


def _conv_batch(axis, vals, dims, **params):
  lhs, rhs = vals
  ld, rd = dims
  dn = params["dimension_numbers"]
  size = axis.size
  fgc, bgc = params["feature_group_count"], params["batch_group_count"]
  if rd is batching.not_mapped and bgc == 1:
    # Fold the vmapped axis into the batch axis.
    new_lhs = _merge_into(lhs, ld, dn.lhs_spec[0] + (1 if ld <= dn.lhs_spec[0] else 0))
    out = conv_general_dilated_p.bind(new_lhs, rhs, **params)
    return _split_axis(out, dn.out_spec[0], size), dn.out_spec[0]
  if ld is batching.not_mapped and fgc == 1 and bgc == 1:
    # Fold it into the kernel's output features.
    new_rhs = _merge_into(rhs, rd, dn.rhs_spec[0] + (1 if rd <= dn.rhs_spec[0] else 0))
    out = conv_general_dilated_p.bind(lhs, new_rhs, **params)
    return _split_axis(out, dn.out_spec[1], size), dn.out_spec[1]
  if ld is not batching.not_mapped and rd is not batching.not_mapped and bgc == 1:
    # Each vmapped instance becomes its own feature group.
    new_lhs = _merge_into(lhs, ld, dn.lhs_spec[1] + (1 if ld <= dn.lhs_spec[1] else 0))
    new_rhs = _merge_into(rhs, rd, dn.rhs_spec[0] + (1 if rd <= dn.rhs_spec[0] else 0))
    out = conv_general_dilated_p.bind(new_lhs, new_rhs,
                                      **{**params, "feature_group_count": fgc * size})
    return _split_axis(out, dn.out_spec[1], size), dn.out_spec[1]
  # Remaining combinations (batch groups with a vmapped kernel): one convolution per instance.
  lhs = batching.bdim_at_front(lhs, ld, size)
  rhs = batching.bdim_at_front(rhs, rd, size)
  outs = []
  for b in range(size):
    pick = lambda x: lax_shape.reshape(
        lax_shape.slice(x, (b,) + (0,) * (core.get_aval(x).ndim - 1),
                        (b + 1,) + core.get_aval(x).shape[1:]), core.get_aval(x).shape[1:])
    out = conv_general_dilated_p.bind(pick(lhs), pick(rhs), **params)
    outs.append(lax_shape.broadcast_in_dim(out, (1, *core.get_aval(out).shape),
                                           tuple(range(1, core.get_aval(out).ndim + 1))))
  return lax_shape.concatenate(outs, 0), 0


ad.jvp_rules[conv_general_dilated_p] = _conv_jvp
ad.transpose_rules[conv_general_dilated_p] = _conv_transpose_rule
batching.batch_rules[conv_general_dilated_p] = _conv_batch
hlo.lowering_rules[conv_general_dilated_p] = _conv_lowering


# ----------------------------------------------------------------------------- shape helpers

ConvGeneralDilatedDimensionNumbers = Union[None, ConvDimensionNumbers, tuple]


def conv_general_permutations(dimension_numbers):
  """(lhs_perm, rhs_perm, out_perm): where N/C, O/I and the spatial dimensions (in the
  kernel spec's order) sit in each spec string."""
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  if len({len(lhs_spec), len(rhs_spec), len(out_spec)}) != 1:
    raise TypeError(f"conv_general_permutations: specs of one length expected, got "
                    f"{dimension_numbers}")
  for spec, chars in ((lhs_spec, "NC"), (rhs_spec, "OI"), (out_spec, "NC")):
    if any(c not in spec for c in chars):
      raise TypeError(f"conv_general_permutations: {spec!r} needs the dimensions {chars}")
  spatial = [c for c in rhs_spec if c not in "OI"]
  lhs = (lhs_spec.index("N"), lhs_spec.index("C")) + tuple(lhs_spec.index(c) for c in spatial)
  rhs = (rhs_spec.index("O"), rhs_spec.index("I")) + tuple(rhs_spec.index(c) for c in spatial)
  out = (out_spec.index("N"), out_spec.index("C")) + tuple(out_spec.index(c) for c in spatial)
  return lhs, rhs, out


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count: int = 1):
  """The output shape of an NC..., OI... convolution with explicit pads."""
  if isinstance(pads, str):
    pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
  n = len(lhs_shape) - 2
  dn = ConvDimensionNumbers(tuple(range(n + 2)), tuple(range(n + 2)), tuple(range(n + 2)))
  return _conv_out_shape(lhs_shape, rhs_shape, dn, tuple(strides), tuple(map(tuple, pads)),
                         (1,) * n, (1,) * n, batch_group_count)


def _permuted(shape, perm):
  return tuple(shape[p] for p in perm)


def _unpermuted(shape, perm):
  out = [0] * len(perm)
  for i, p in enumerate(perm):
    out[p] = shape[i]
  return tuple(out)


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
  """The output shape of conv_general_dilated (no dilation) in the output spec's layout."""
  lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
  out = conv_shape_tuple(_permuted(lhs_shape, lhs_perm), _permuted(rhs_shape, rhs_perm),
                         window_strides, padding)
  return _unpermuted(out, out_perm)


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                               dimension_numbers):
  """The output shape of conv_transpose in the output spec's layout."""
  lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
  lhs, rhs = _permuted(lhs_shape, lhs_perm), _permuted(rhs_shape, rhs_perm)
  kernel = rhs[2:]
  if isinstance(padding, str):
    padding = [_conv_transpose_padding(k, s, padding) for k, s in zip(kernel, window_strides)]
  spatial = tuple(max(0, _dilate(n, s) + lo + hi - k + 1)
                  for n, k, s, (lo, hi) in zip(lhs[2:], kernel, window_strides, padding))
  return _unpermuted((lhs[0], rhs[0]) + spatial, out_perm)


def conv_general_dilated_patches(lhs, filter_shape, window_strides, padding, lhs_dilation=None,
                                 rhs_dilation=None, dimension_numbers=None, precision=None,
                                 preferred_element_type=None):
  """The patches a convolution with a `filter_shape` window sees: output features are
  (input feature, window position) flattened, the input feature major."""
  lhs_aval = core.get_aval(lhs)
  filter_shape = tuple(int(k) for k in filter_shape)
  nsp = lhs_aval.ndim - 2
  if len(filter_shape) != nsp:
    raise ValueError(f"conv_general_dilated_patches: filter_shape {filter_shape} needs "
                     f"{nsp} entries")
  dn_in = dimension_numbers
  rhs_template = (1, 1) + filter_shape
  if dn_in is None or isinstance(dn_in, ConvDimensionNumbers):
    dn = conv_dimension_numbers(lhs_aval.shape, rhs_template, dn_in)
  else:  # spec strings: the kernel spec may put O and I anywhere
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dn_in)
    dn = ConvDimensionNumbers(lhs_perm, rhs_perm, out_perm)
  channels = lhs_aval.shape[dn.lhs_spec[1]]
  window = int(np.prod(filter_shape))
  eye = np.eye(window, dtype=lhs_aval.dtype).reshape((window, 1) + filter_shape)
  kernel = np.tile(eye, (channels,) + (1,) * (nsp + 1))  # (C * window, 1, *filter)
  inverse = [0] * (nsp + 2)
  for logical, position in enumerate(dn.rhs_spec):
    inverse[position] = logical
  kernel = np.transpose(kernel, inverse)
  return conv_general_dilated(lhs, kernel, window_strides, padding, lhs_dilation, rhs_dilation,
                              dn, feature_group_count=channels, precision=precision,
                              preferred_element_type=preferred_element_type)


def conv_general_dilated_local(lhs, rhs, window_strides, padding, filter_shape,
                               lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
                               precision=None):
  """A locally connected (unshared) convolution: every output position has its own
  filter. `rhs` has the output's spatial dimensions; its input-feature dimension holds
  (input feature, window position) flattened, the window positions in the order the
  rhs layout lists its spatial dimensions."""
  lhs_aval, rhs_aval = core.get_aval(lhs), core.get_aval(rhs)
  filter_shape = tuple(int(k) for k in filter_shape)
  nsp = lhs_aval.ndim - 2
  if rhs_aval.ndim != lhs_aval.ndim or len(filter_shape) != nsp:
    raise ValueError(f"conv_general_dilated_local: lhs {lhs_aval.shape}, rhs "
                     f"{rhs_aval.shape} and filter_shape {filter_shape} do not agree in rank")
  dn = conv_dimension_numbers(lhs_aval.shape, rhs_aval.shape, dimension_numbers)
  lhs_c = lax_shape.transpose(lhs, tuple(dn.lhs_spec))
  patches = conv_general_dilated_patches(lhs_c, filter_shape, window_strides, padding,
                                         lhs_dilation, rhs_dilation, precision=precision)
  w = lax_shape.transpose(rhs, tuple(dn.rhs_spec))
  n_out, fused = w.shape[0], w.shape[1]
  out_sp = tuple(core.get_aval(patches).shape[2:])
  channels = lhs_aval.shape[dn.lhs_spec[1]]
  if fused != channels * int(np.prod(filter_shape)) or tuple(w.shape[2:]) != out_sp:
    raise ValueError(f"conv_general_dilated_local: rhs of shape {rhs_aval.shape} must have "
                     f"{channels * int(np.prod(filter_shape))} fused input features and the "
                     f"output's spatial shape {out_sp}")
  order = sorted(range(nsp), key=lambda j: dn.rhs_spec[2 + j])
  if order != list(range(nsp)):
    # Bring the window positions of the fused dimension into the patches' order.
    w = lax_shape.reshape(w, (n_out, channels) + tuple(filter_shape[j] for j in order) + out_sp)
    perm = (0, 1) + tuple(2 + order.index(j) for j in range(nsp)) + tuple(
        range(2 + nsp, 2 + 2 * nsp))
    w = lax_shape.reshape(lax_shape.transpose(w, perm), (n_out, fused) + out_sp)
  batch = core.get_aval(patches).shape[0]
  full = (batch, n_out, fused) + out_sp
  prod = ew.mul(lax_shape.broadcast_in_dim(patches, full, (0, 2) + tuple(range(3, 3 + nsp))),
                lax_shape.broadcast_in_dim(w, full, (1, 2) + tuple(range(3, 3 + nsp))))
  out = reductions.reduce_sum(prod, (2,))
  return lax_shape.transpose(out, tuple(int(i) for i in np.argsort(dn.out_spec)))
