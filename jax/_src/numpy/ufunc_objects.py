"""`jnp.ufunc`: callable objects with NumPy's ufunc methods (reduce, accumulate, ...).

Ufuncs that have a dedicated reduction (`add` -> `sum`, `maximum` -> `max`, ...)
or cumulative primitive use it; any other binary ufunc is reduced or accumulated
by applying it along the axis one slice at a time.
"""

from __future__ import annotations

import inspect
import operator
from typing import Any, Callable

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.api import PjitFunction
from jax._src.lax import shape as lax_shape
from jax._src.lax import reductions as lax_reductions
from jax._src.numpy.util import canonical_axis
from jax._src.numpy import reductions
from jax._src.numpy.reductions import sum_dtype
from jax._src.numpy.creation import asarray
from jax._src.numpy.shape_ops import stack

# ufunc name -> name of the jnp reduction with NumPy's `reduce` semantics
_REDUCERS = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
             "logical_and": "all", "logical_or": "any"}
# ufunc name -> name of the lax cumulative function with `accumulate` semantics
_ACCUMULATORS = {"add": "cumsum", "multiply": "cumprod", "maximum": "cummax",
                 "minimum": "cummin", "logaddexp": "cumlogsumexp"}
# ufunc name -> method of `x.at[idx]` that applies it at (possibly repeated) indices
_AT_METHODS = {"add": "add", "multiply": "multiply", "maximum": "max", "minimum": "min"}


def _asarray(x):
  return asarray(x)


def _take(x, i: int, axis: int):
  """x[..., i, ...] along `axis` (static i), dropping that axis."""
  aval = core.get_aval(x)
  start = [0] * aval.ndim
  limit = list(aval.shape)
  start[axis], limit[axis] = i, i + 1
  piece = lax_shape.slice(x, start, limit)
  return lax_shape.reshape(piece, aval.shape[:axis] + aval.shape[axis + 1:])


def _slice_axis(x, start: int, stop: int, axis: int):
  aval = core.get_aval(x)
  starts = [0] * aval.ndim
  limits = list(aval.shape)
  starts[axis], limits[axis] = start, stop
  return lax_shape.slice(x, starts, limits)


class ufunc(PjitFunction):
  """A NumPy-style universal function over jax arrays.

  Calling one is calling a `jit(func, inline=True)`: an eager call on jax arrays is
  one cached native call, and inside other computations `func` is traced in place.
  """

  def __init__(self, func: Callable, nin: int, nout: int, *, name: str | None = None,
               nargs: int | None = None, identity: Any = None, call: Callable | None = None,
               reduce: Callable | None = None, accumulate: Callable | None = None,
               at: Callable | None = None, reduceat: Callable | None = None,
               positional: tuple[str, ...] | None = None):
    # `call`, `reduce`, ... replace the generic implementations of those methods.
    func = call if call is not None else func
    super().__init__(func, inline=True)
    self._func = func
    self.__name__ = name if name is not None else getattr(func, "__name__", "<ufunc>")
    self.__doc__ = func.__doc__
    self.nin = int(nin)
    self.nout = int(nout)
    self.nargs = int(nargs) if nargs is not None else self.nin
    self.identity = identity
    for method, impl in (("reduce", reduce), ("accumulate", accumulate), ("at", at),
                         ("reduceat", reduceat)):
      if impl is not None:
        setattr(self, method, impl)
    # How it is called: NumPy's (*args, out=None, where=None), or, for the functions that
    # JAX exposes as plain functions, their positional-only parameters.
    P = inspect.Parameter
    if positional is None:
      params = [P("args", P.VAR_POSITIONAL), P("out", P.KEYWORD_ONLY, default=None),
                P("where", P.KEYWORD_ONLY, default=None)]
    else:
      params = [P(n, P.POSITIONAL_ONLY) for n in positional]
    self.__signature__ = inspect.Signature(params)
    self._keyword_params: tuple[str, ...] = ()

  def set_plain_signature(self, names: tuple[str, ...], keywords: bool) -> None:
    """Called as a plain function with these parameters (positional-only unless
    `keywords`), as JAX exposes some ufuncs."""
    P = inspect.Parameter
    kind = P.POSITIONAL_OR_KEYWORD if keywords else P.POSITIONAL_ONLY
    self.__signature__ = inspect.Signature([P(n, kind) for n in names])
    self._keyword_params = tuple(names) if keywords else ()

  def __repr__(self):
    return f"<jnp.ufunc '{self.__name__}'>"

  def __get__(self, obj, objtype=None):
    return self  # like numpy's ufuncs, never bound as a method

  def _call_python(self, args, kwargs):
    if kwargs and self._keyword_params:
      # Keyword arguments of a plain-function signature become positional ones.
      args = list(args)
      for name in self._keyword_params[len(args):]:
        if name in kwargs:
          args.append(kwargs.pop(name))
      args = tuple(args)
    if kwargs:
      if kwargs.get("out") is not None:
        raise NotImplementedError(
            f"The 'out' argument to jnp.{self.__name__} is not supported.")
      kwargs.pop("out", None)
      if kwargs.pop("where", None) is not None:
        raise NotImplementedError(
            f"The 'where' argument to jnp.{self.__name__} is not supported.")
    return super()._call_python(args, kwargs)

  def __hash__(self):
    return hash((type(self), self.__name__))

  def __eq__(self, other):
    return isinstance(other, ufunc) and other.__name__ == self.__name__

  def _check_binary(self, method: str) -> None:
    if self.nin != 2 or self.nout != 1:
      raise ValueError(f"{method} only supported for binary ufuncs with a single output; "
                       f"{self.__name__} has nin={self.nin}, nout={self.nout}")

  # ------------------------------------------------------------------ reduce

  def reduce(self, a, axis=0, dtype=None, out=None, keepdims: bool = False, initial=None,
             where=None):
    self._check_binary("reduce")
    if out is not None:
      raise NotImplementedError(f"The 'out' argument to {self}.reduce is not supported.")
    reducer = _REDUCERS.get(self.__name__)
    if reducer is not None:
      kwargs = dict(axis=axis, keepdims=keepdims, where=where)
      if reducer in ("sum", "prod"):
        kwargs["dtype"] = dtype
      elif dtype is not None:
        a = _asarray(a).astype(dtype)
      if reducer in ("all", "any"):  # jnp.all/any take no initial: fold it in afterwards
        out_ = getattr(reductions, reducer)(a, **kwargs)
        return out_ if initial is None else self._func(out_, initial)
      return getattr(reductions, reducer)(a, initial=initial, **kwargs)
    if where is not None:
      raise NotImplementedError(f"{self}.reduce does not support 'where'.")
    a = _asarray(a)
    if dtype is not None:
      a = a.astype(dtype)
    ndim = core.get_aval(a).ndim
    axes = tuple(range(ndim)) if axis is None else (
        (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis))
    axes = sorted((operator.index(ax) % ndim if ndim else 0 for ax in axes), reverse=True)
    out_ = a
    for ax in axes:
      out_ = self._reduce_axis(out_, ax, initial)
    if keepdims:
      shape = tuple(1 if i in axes else s for i, s in enumerate(core.get_aval(a).shape))
      out_ = lax_shape.reshape(out_, shape)
    return out_

  def _reduce_axis(self, a, axis: int, initial):
    n = core.get_aval(a).shape[axis]
    acc = None if initial is None else initial
    if acc is None and n == 0:
      if self.identity is None:
        raise ValueError(f"zero-size array to reduction operation {self.__name__} "
                         "which has no identity")
      acc = self.identity
    start = 0
    if acc is None:
      acc, start = _take(a, 0, axis), 1
    else:
      shape = core.get_aval(a).shape[:axis] + core.get_aval(a).shape[axis + 1:]
      acc = lax_shape.full(shape, acc, core.get_aval(a).dtype)
    for i in range(start, n):
      acc = self._func(acc, _take(a, i, axis))
    return acc

  # ------------------------------------------------------------------ accumulate

  def accumulate(self, a, axis: int = 0, dtype=None, out=None):
    self._check_binary("accumulate")
    if out is not None:
      raise NotImplementedError(f"The 'out' argument to {self}.accumulate is not supported.")
    a = _asarray(a)
    if dtype is not None:
      a = a.astype(dtype)
    aval = core.get_aval(a)
    axis = canonical_axis(operator.index(axis), aval.ndim)
    name = _ACCUMULATORS.get(self.__name__)
    if name is not None and aval.dtype != dtypes.bool_:
      if self.__name__ in ("add", "multiply"):
        target = sum_dtype(aval.dtype) if dtype is None else aval.dtype
        a = a.astype(target) if target != aval.dtype else a
      return getattr(lax_reductions, name)(a, axis)
    pieces, acc = [], None
    for i in range(aval.shape[axis]):
      x = _take(a, i, axis)
      acc = x if acc is None else self._func(acc, x)
      pieces.append(acc)
    if not pieces:
      return a
    return stack(pieces, axis=axis)

  # ------------------------------------------------------------------ outer / at / reduceat

  def outer(self, A, B, /):
    self._check_binary("outer")
    A, B = _asarray(A), _asarray(B)
    a_shape, b_shape = core.get_aval(A).shape, core.get_aval(B).shape
    A = lax_shape.reshape(A, a_shape + (1,) * len(b_shape))
    return self._func(A, B)

  def at(self, a, indices, b=None, /, *, inplace: bool = True):
    if inplace:
      raise NotImplementedError(
          "jax.numpy.ufunc.at does not support inplace=True, because JAX arrays are immutable. "
          "Use inplace=False to return an updated copy.")
    a = _asarray(a)
    ref = a.at[indices]
    method = _AT_METHODS.get(self.__name__)
    if self.nin == 2 and method is not None:
      return getattr(ref, method)(b)
    current = a[indices]
    return ref.set(self._func(current) if b is None else self._func(current, b))

  def reduceat(self, a, indices, axis: int = 0, dtype=None, out=None):
    self._check_binary("reduceat")
    if out is not None:
      raise NotImplementedError(f"The 'out' argument to {self}.reduceat is not supported.")
    a = _asarray(a)
    if dtype is not None:
      a = a.astype(dtype)
    aval = core.get_aval(a)
    axis = canonical_axis(operator.index(axis), aval.ndim)
    idx = core.concrete_value(indices)
    if idx is None:
      raise core.errors.ConcretizationTypeError(
          indices, f"{self}.reduceat needs concrete indices (they decide the output pieces).")
    idx = [int(i) for i in np.asarray(idx).reshape(-1)]
    n = aval.shape[axis]
    pieces = []
    for k, start in enumerate(idx):
      if not 0 <= start < n:
        raise IndexError(f"index {start} out-of-bounds in {self.__name__}.reduceat [0, {n})")
      stop = idx[k + 1] if k + 1 < len(idx) else n
      if stop <= start:  # NumPy's rule: an empty or reversed range gives a[start]
        pieces.append(_take(a, start, axis))
      else:
        pieces.append(self.reduce(_slice_axis(a, start, stop, axis), axis=axis))
    return stack(pieces, axis=axis)
