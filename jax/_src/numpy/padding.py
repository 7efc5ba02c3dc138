"""jnp.pad with NumPy's modes.

The index-moving modes (edge, reflect, symmetric, wrap) are computed per axis from
the static index map NumPy's own rule gives for `arange(n)`; the map is cut into
runs of consecutive (or reversed, or repeated) indices, each one a slice.
"""

from __future__ import annotations

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.lax import elementwise as lax_ew
from jax._src.lax import reductions as lax_red
from jax._src.lax import shape as lax_shape
from jax._src.numpy.util import asarray_like
from jax._src.numpy.creation import asarray
from jax._src.numpy import reductions, statistics

_INDEX_MODES = ("edge", "reflect", "symmetric", "wrap")
_STAT_MODES = ("maximum", "minimum", "mean", "median")
_MODES = ("constant", "empty", "linear_ramp", *_INDEX_MODES, *_STAT_MODES)


def _as_array(x):
  return asarray(asarray_like(x))


def _pairs(value, ndim: int, name: str, integral: bool = True) -> list[tuple]:
  """NumPy's broadcasting of pad_width-like arguments to ndim (before, after) pairs."""
  arr = np.asarray(value)
  if integral:
    if not (arr.dtype.kind in "iu" or (arr.size and np.all(np.mod(arr, 1) == 0))):
      raise TypeError(f"`{name}` must be of integral type.")
    arr = arr.astype(np.int64)
  try:
    arr = np.broadcast_to(arr, (ndim, 2))
  except ValueError:
    raise ValueError(f"{name} given unexpected structure: {value}. See docstring for "
                     "valid values.") from None
  return [tuple(row) for row in arr.tolist()]


def _slice_axis(x, lo: int, hi: int, axis: int):
  shape = core.get_aval(x).shape
  start, limit = [0] * len(shape), list(shape)
  start[axis], limit[axis] = lo, hi
  return lax_shape.slice(x, start, limit)


def _repeat_axis(x, count: int, axis: int):
  """Broadcast a size-1 axis to `count`."""
  shape = list(core.get_aval(x).shape)
  shape[axis] = count
  return lax_shape.broadcast_in_dim(x, tuple(shape), tuple(range(len(shape))))


def _gather_runs(x, index_map: np.ndarray, axis: int):
  """x taken at the static `index_map` along `axis`, as slices of runs."""
  pieces = []
  i = 0
  n = len(index_map)
  while i < n:
    j = i + 1
    step = int(index_map[j] - index_map[i]) if j < n else 1
    if step not in (-1, 0, 1):
      step = 1
    else:
      while j < n and index_map[j] - index_map[j - 1] == step:
        j += 1
    run = index_map[i:j]
    if step == 0:
      pieces.append(_repeat_axis(_slice_axis(x, int(run[0]), int(run[0]) + 1, axis),
                                 len(run), axis))
    elif step == 1:
      pieces.append(_slice_axis(x, int(run[0]), int(run[-1]) + 1, axis))
    else:
      pieces.append(lax_shape.rev(_slice_axis(x, int(run[-1]), int(run[0]) + 1, axis), (axis,)))
    i = j
  return lax_shape.concatenate(pieces, axis) if len(pieces) > 1 else pieces[0]


def _pad_index_mode(x, widths, mode: str, reflect_type: str):
  for axis, (lo, hi) in enumerate(widths):
    n = core.get_aval(x).shape[axis]
    if lo == 0 and hi == 0:
      continue
    if n == 0:
      raise ValueError(f"can't extend empty axis {axis} using modes other than 'constant' "
                       "or 'empty'")
    kwargs = {"reflect_type": reflect_type} if mode in ("reflect", "symmetric") else {}
    if kwargs.get("reflect_type") == "odd":
      x = _pad_odd_reflect(x, axis, lo, hi, mode)
      continue
    index_map = np.pad(np.arange(n), (lo, hi), mode=mode)
    x = _gather_runs(x, index_map, axis)
  return x


def _pad_odd_reflect(x, axis, lo, hi, mode):
  # Odd reflection mirrors the values through the edge value: 2 * edge - reflected.
  # NumPy applies it one period at a time, so we do the same in a loop.
  n = core.get_aval(x).shape[axis]
  while lo or hi:
    period = n - 1 if mode == "reflect" else n
    if period <= 0:
      return _pad_index_mode(x, [(0, 0)] * axis + [(lo, hi)], "edge", "even")
    take_lo, take_hi = min(lo, period), min(hi, period)
    pieces = []
    if take_lo:
      idx = np.pad(np.arange(n), (take_lo, 0), mode=mode)[:take_lo]
      mirrored = _gather_runs(x, idx, axis)
      edge = _repeat_axis(_slice_axis(x, 0, 1, axis), take_lo, axis)
      pieces.append(lax_ew.sub(lax_ew.mul(edge, lax_shape.full_like(edge, 2)), mirrored))
    pieces.append(x)
    if take_hi:
      idx = np.pad(np.arange(n), (0, take_hi), mode=mode)[n:]
      mirrored = _gather_runs(x, idx, axis)
      edge = _repeat_axis(_slice_axis(x, n - 1, n, axis), take_hi, axis)
      pieces.append(lax_ew.sub(lax_ew.mul(edge, lax_shape.full_like(edge, 2)), mirrored))
    x = lax_shape.concatenate(pieces, axis)
    n = core.get_aval(x).shape[axis]
    lo, hi = lo - take_lo, hi - take_hi
  return x


def _pad_constant(x, widths, constant_values):
  dtype = core.get_aval(x).dtype
  values = np.asarray(core.concrete_value(constant_values)
                      if isinstance(constant_values, core.Tracer) else constant_values) \
      if not _is_traced(constant_values) else None
  if values is not None and values.ndim == 0:
    fill = lax_ew.convert_element_type(values.item(), dtype)
    return lax_shape.pad(x, fill, [(lo, hi, 0) for lo, hi in widths])
  if values is None:
    cv = _as_array(constant_values)
    if core.get_aval(cv).ndim:
      raise NotImplementedError("traced per-axis constant_values are not supported")
    return lax_shape.pad(x, lax_ew.convert_element_type(cv, dtype),
                         [(lo, hi, 0) for lo, hi in widths])
  pairs = _pairs(values, core.get_aval(x).ndim, "constant_values", integral=False)
  for axis, ((lo, hi), (vlo, vhi)) in enumerate(zip(widths, pairs)):
    for width, value, before in ((lo, vlo, True), (hi, vhi, False)):
      if not width:
        continue
      config = [(0, 0, 0)] * core.get_aval(x).ndim
      config[axis] = (width, 0, 0) if before else (0, width, 0)
      x = lax_shape.pad(x, lax_ew.convert_element_type(value, dtype), config)
  return x


def _is_traced(x) -> bool:
  return isinstance(x, core.Tracer) and core.concrete_value(x) is None


def _pad_linear_ramp(x, widths, end_values):
  dtype = core.get_aval(x).dtype
  calc = dtypes.to_inexact_dtype(dtype)
  ends = _pairs(end_values, core.get_aval(x).ndim, "end_values", integral=False)
  for axis, ((lo, hi), (elo, ehi)) in enumerate(zip(widths, ends)):
    n = core.get_aval(x).shape[axis]
    if not lo and not hi:
      continue
    if n == 0:
      raise ValueError(f"can't extend empty axis {axis} using modes other than 'constant' "
                       "or 'empty'")
    pieces = []
    if lo:
      edge = _slice_axis(x, 0, 1, axis)
      pieces.append(_ramp(edge, elo, lo, axis, calc, dtype, reverse=False))
    pieces.append(x)
    if hi:
      edge = _slice_axis(x, n - 1, n, axis)
      pieces.append(_ramp(edge, ehi, hi, axis, calc, dtype, reverse=True))
    x = lax_shape.concatenate(pieces, axis)
  return x


def _ramp(edge, end, width: int, axis: int, calc, dtype, reverse: bool):
  """`width` values from `end` toward `edge` (edge excluded); reversed for the end side."""
  edge = lax_ew.convert_element_type(edge, calc)
  shape = list(core.get_aval(edge).shape)
  shape[axis] = width
  shape = tuple(shape)
  t = lax_ew.div(lax_shape.broadcasted_iota(calc, shape, axis), lax_shape.full(shape, width, calc))
  end_b = lax_shape.full(shape, end, calc)
  edge_b = _repeat_axis(edge, width, axis)
  ramp = lax_ew.add(end_b, lax_ew.mul(lax_ew.sub(edge_b, end_b), t))
  if reverse:
    ramp = lax_shape.rev(ramp, (axis,))
  if dtypes.is_integer(dtype):
    ramp = lax_ew.round(ramp)  # NumPy rounds integer ramps
  return lax_ew.convert_element_type(ramp, dtype)


def _pad_stat(x, widths, mode: str, stat_length):
  dtype = core.get_aval(x).dtype
  nd = core.get_aval(x).ndim
  lengths = None if stat_length is None else _pairs(stat_length, nd, "stat_length")
  for axis, (lo, hi) in enumerate(widths):
    n = core.get_aval(x).shape[axis]
    if not lo and not hi:
      continue
    if n == 0:
      raise ValueError(f"can't extend empty axis {axis} using modes other than 'constant' "
                       "or 'empty'")
    slo, shi = (n, n) if lengths is None else (min(max(lengths[axis][0], 1), n),
                                              min(max(lengths[axis][1], 1), n))
    pieces = []
    if lo:
      pieces.append(_repeat_axis(_stat(_slice_axis(x, 0, slo, axis), mode, axis, dtype),
                                 lo, axis))
    pieces.append(x)
    if hi:
      pieces.append(_repeat_axis(_stat(_slice_axis(x, n - shi, n, axis), mode, axis, dtype),
                                 hi, axis))
    x = lax_shape.concatenate(pieces, axis)
  return x


def _stat(chunk, mode: str, axis: int, dtype):
  shape = list(core.get_aval(chunk).shape)
  shape[axis] = 1
  if mode == "maximum":
    out = lax_red.reduce_max(chunk, (axis,))
  elif mode == "minimum":
    out = lax_red.reduce_min(chunk, (axis,))
  else:
    fn = reductions.mean if mode == "mean" else statistics.median
    out = fn(chunk, axis=axis)
    if dtypes.is_integer(dtype):
      out = lax_ew.round(out, 1)  # round half to even, as NumPy does
    out = lax_ew.convert_element_type(out, dtype)
  return lax_shape.reshape(out, tuple(shape))


def pad(array, pad_width, mode="constant", **kwargs):
  x = _as_array(array)
  nd = core.get_aval(x).ndim
  if callable(mode):
    raise NotImplementedError("jnp.pad with a callable mode is not supported")
  if mode not in _MODES:
    raise ValueError(f"Unimplemented padding mode '{mode}' for np.pad.")
  allowed = {"constant": {"constant_values"}, "empty": set(), "linear_ramp": {"end_values"},
             "reflect": {"reflect_type"}, "symmetric": {"reflect_type"},
             "edge": set(), "wrap": set()}.get(mode, {"stat_length"})
  bad = set(kwargs) - allowed
  if bad:
    raise ValueError(f"unsupported keyword arguments for mode '{mode}': {sorted(bad)}")
  if _is_traced(pad_width):
    raise core.errors.ConcretizationTypeError(
        pad_width, "jnp.pad needs a concrete pad_width (the output shape depends on it).")
  widths = _pairs(core.concrete_value(pad_width) if isinstance(pad_width, core.Tracer)
                  else pad_width, nd, "pad_width")
  if any(w < 0 for pair in widths for w in pair):
    raise ValueError("index can't contain negative values")
  if nd == 0:
    return x
  if mode == "constant":
    return _pad_constant(x, widths, kwargs.get("constant_values", 0))
  if mode == "empty":
    return _pad_constant(x, widths, 0)
  if mode == "linear_ramp":
    return _pad_linear_ramp(x, widths, kwargs.get("end_values", 0))
  if mode in _INDEX_MODES:
    reflect_type = kwargs.get("reflect_type", "even")
    if reflect_type not in ("even", "odd"):
      raise ValueError(f"reflect_type must be 'even' or 'odd', got {reflect_type!r}")
    return _pad_index_mode(x, widths, mode, reflect_type)
  return _pad_stat(x, widths, mode, kwargs.get("stat_length"))
