"""Host-side constructors and helpers: frombuffer, fromstring, load, ufuncs from Python
functions (frompyfunc), einsum_path, the r_/c_ index tricks and print options.

Reading data happens on the host with NumPy and the result becomes a jax array; the
constructors that would hide side effects inside a traced function (fromfile, fromiter)
refuse, as in JAX.
"""

from __future__ import annotations

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.numpy.creation import arange, array, asarray, linspace
from jax._src.numpy.shape_ops import concatenate, reshape
from jax._src import dlpack
from jax._src.numpy.ufunc_objects import ufunc

get_printoptions = np.get_printoptions
printoptions = np.printoptions


def set_printoptions(*args, **kwargs):
  """NumPy's print options, which also govern how jax arrays print."""
  return np.set_printoptions(*args, **kwargs)


def frombuffer(buffer, dtype=float, count: int = -1, offset: int = 0):
  return asarray(np.frombuffer(buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string, dtype=float, count: int = -1, *, sep: str):
  return asarray(np.fromstring(string, dtype=dtype, count=count, sep=sep))


def fromfile(*args, **kwargs):
  raise NotImplementedError(
      "jnp.fromfile() is not implemented because it may be non-pure and thus unsafe for "
      "use with JIT and other JAX transformations. Consider using "
      "jnp.asarray(np.fromfile(...)) instead.")


def fromiter(*args, **kwargs):
  raise NotImplementedError(
      "jnp.fromiter() is not implemented because it may be non-pure and thus unsafe for "
      "use with JIT and other JAX transformations. Consider using "
      "jnp.asarray(np.fromiter(...)) instead.")


def load(file, *args, **kwargs):
  """np.load, with a loaded array (not an .npz archive) returned as a jax array."""
  out = np.load(file, *args, **kwargs)
  if isinstance(out, np.ndarray):
    if out.dtype == np.dtype("V2") and out.dtype.names is None:
      # bfloat16 arrays round-trip through np.save as raw 2-byte records.
      out = out.view(dtypes.bfloat16)
    try:
      return asarray(out)
    except (TypeError, ValueError):
      return out
  return out


def frompyfunc(func, /, nin: int, nout: int, *, identity=None):
  """A jnp.ufunc from a function of `nin` scalar-or-array arguments."""
  return ufunc(func, name=getattr(func, "__name__", "<lambda>"), nin=int(nin),
               nout=int(nout), identity=identity)


def einsum_path(subscripts, /, *operands, optimize="greedy"):
  """The contraction order NumPy's path finder picks for operands of these shapes."""
  stand_ins = [np.broadcast_to(np.zeros((), dtypes.dtype(op) if core.is_valid_jaxval(op)
                                         else np.asarray(op).dtype), np.shape(op))
               for op in operands]
  if optimize is True or optimize == "auto":
    optimize = "greedy"
  return np.einsum_path(subscripts, *stand_ins, optimize=optimize)


class _AxisConcat:
  """Concatenation along an axis through indexing syntax, as np.r_ / np.c_."""

  def __init__(self, axis: int, ndmin: int, trans1d: int):
    self.axis, self.ndmin, self.trans1d = axis, ndmin, trans1d

  def __len__(self):
    return 0

  def _directive(self, text: str):
    parts = [int(p) for p in text.split(",")]
    axis = parts[0]
    ndmin = parts[1] if len(parts) > 1 else self.ndmin
    trans1d = parts[2] if len(parts) > 2 else self.trans1d
    return axis, ndmin, trans1d

  def _as_item(self, item, ndmin: int, trans1d: int):
    if isinstance(item, slice):
      start = 0 if item.start is None else item.start
      step = 1 if item.step is None else item.step
      if isinstance(step, complex):
        out = linspace(start, item.stop, int(abs(step)))
      else:
        out = arange(start, item.stop, step)
      return _promote_ndim(out, ndmin, trans1d)
    out = array(item) if not core.is_valid_jaxval(item) or isinstance(item, (list, tuple)) \
        else asarray(item)
    return _promote_ndim(out, ndmin, trans1d)

  def __getitem__(self, key):
    if not isinstance(key, tuple):
      key = (key,)
    axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
    items = list(key)
    if items and isinstance(items[0], str):
      text = items.pop(0)
      if text in ("r", "c"):
        raise NotImplementedError("the matrix directives 'r' and 'c' are not supported")
      axis, ndmin, trans1d = self._directive(text)
    arrays = [self._as_item(it, ndmin, trans1d) for it in items]
    arrays = [a if a.ndim else reshape(a, (1,)) for a in arrays]
    return concatenate(arrays, axis=axis)


def _promote_ndim(x, ndmin: int, trans1d: int):
  """Raise x to ndmin dims: new unit axes go in front, then trans1d says where the
  original axes move (-1 leaves them last)."""
  if x.ndim >= ndmin or x.ndim == 0:
    return x
  added = ndmin - x.ndim
  x = reshape(x, (1,) * added + x.shape)
  if trans1d == -1:
    return x
  if trans1d < 0:
    trans1d += added + 1
  axes = list(range(ndmin))
  return x.transpose(tuple(axes[:trans1d] + axes[added:] + axes[trans1d:added]))


r_ = _AxisConcat(0, 1, -1)
c_ = _AxisConcat(-1, 2, 0)


def from_dlpack(x, /, *, device=None, copy=None):
  """jnp.from_dlpack: the Array API spelling (positional-only input) of jax.dlpack's."""
  return dlpack.from_dlpack(x, device=device, copy=copy)
