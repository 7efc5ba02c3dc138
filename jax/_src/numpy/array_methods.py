"""Operators and methods of jax arrays, installed on both ArrayImpl and Tracer."""

from __future__ import annotations

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src import prng
from jax._src.array import ArrayImpl
from jax._src.lax import elementwise as lax_ew
from jax._src.numpy import creation, indexing, reductions, shape_ops, ufuncs
from jax._src.numpy import cumulative
from jax._src.numpy.at import IndexUpdateHelper
from jax._src.numpy import indexing_funcs, sorting, statistics
from jax._src.execution import device_put


def _swap(f):
  return lambda self, other: f(other, self)


def _defer(f):
  """Return NotImplemented for operands jax does not know, so Python tries the other side.
  An operand with `__jax_array__` (a library's wrapper of an array) is first replaced by
  the array it stands for, as in JAX."""
  def op(self, other):
    if hasattr(type(other), "__jax_array__"):
      other = other.__jax_array__()
    if type(other) is not ArrayImpl and not (core.is_valid_jaxval(other)
                                             or isinstance(other, (list, tuple))):
      return NotImplemented
    return f(self, other)
  return op


def _astype(self, dtype):
  old = core.get_aval(self).dtype
  if dtypes.canonicalize_dtype(dtype) == dtypes.bool_ and dtypes.is_complex(old):
    # numpy's truth of a complex number looks at both parts; lax's cast keeps the real one.
    return lax_ew.ne(self, lax_ew.convert_element_type(0, old, True))
  return lax_ew.convert_element_type(self, dtype, False)


_OPERATORS = {
    "__add__": _defer(ufuncs.add), "__radd__": _defer(_swap(ufuncs.add)),
    "__sub__": _defer(ufuncs.subtract), "__rsub__": _defer(_swap(ufuncs.subtract)),
    "__mul__": _defer(ufuncs.multiply), "__rmul__": _defer(_swap(ufuncs.multiply)),
    "__truediv__": _defer(ufuncs.true_divide), "__rtruediv__": _defer(_swap(ufuncs.true_divide)),
    "__floordiv__": _defer(ufuncs.floor_divide),
    "__rfloordiv__": _defer(_swap(ufuncs.floor_divide)),
    "__mod__": _defer(ufuncs.remainder), "__rmod__": _defer(_swap(ufuncs.remainder)),
    "__pow__": _defer(ufuncs.power), "__rpow__": _defer(_swap(ufuncs.power)),
    "__matmul__": _defer(shape_ops.matmul), "__rmatmul__": _defer(_swap(shape_ops.matmul)),
    "__and__": _defer(ufuncs.bitwise_and), "__rand__": _defer(_swap(ufuncs.bitwise_and)),
    "__or__": _defer(ufuncs.bitwise_or), "__ror__": _defer(_swap(ufuncs.bitwise_or)),
    "__xor__": _defer(ufuncs.bitwise_xor), "__rxor__": _defer(_swap(ufuncs.bitwise_xor)),
    "__eq__": _defer(ufuncs.equal), "__ne__": _defer(ufuncs.not_equal),
    "__lt__": _defer(ufuncs.less), "__le__": _defer(ufuncs.less_equal),
    "__gt__": _defer(ufuncs.greater), "__ge__": _defer(ufuncs.greater_equal),
    # negative is a ufunc object (not bound as a method), so it is called explicitly.
    "__neg__": lambda self: ufuncs.negative(self), "__pos__": ufuncs.positive,
    "__abs__": ufuncs.absolute,
    "__invert__": ufuncs.invert,
    "__getitem__": indexing.getitem,
    "__lshift__": _defer(ufuncs.left_shift), "__rlshift__": _defer(_swap(ufuncs.left_shift)),
    "__rshift__": _defer(ufuncs.right_shift),
    "__rrshift__": _defer(_swap(ufuncs.right_shift)),
    "__divmod__": _defer(ufuncs.divmod), "__rdivmod__": _defer(_swap(ufuncs.divmod)),
    "__round__": lambda self, ndigits=None: (
        ufuncs.round(self).astype(int) if ndigits is None else ufuncs.round(self, ndigits)),
}

_METHODS = {
    "sum": reductions.sum, "prod": reductions.prod, "max": reductions.max,
    "argmax": reductions.argmax, "argmin": reductions.argmin,
    "min": reductions.min, "mean": reductions.mean, "var": reductions.var,
    "std": reductions.std, "all": reductions.all, "any": reductions.any,
    "reshape": lambda self, *shape, order="C", out_sharding=None: shape_ops.reshape(
        self, shape[0] if len(shape) == 1 else shape, order, out_sharding=out_sharding),
    "transpose": lambda self, *axes: shape_ops.transpose(
        self, None if not axes else axes[0] if len(axes) == 1 else axes),
    "squeeze": shape_ops.squeeze, "ravel": shape_ops.ravel, "flatten": shape_ops.ravel,
    "swapaxes": shape_ops.swapaxes, "dot": shape_ops.dot, "astype": _astype,
    "clip": ufuncs.clip, "round": ufuncs.round,
    "conj": ufuncs.conjugate, "conjugate": ufuncs.conjugate,
    "cumsum": lambda self, axis=None, dtype=None, out=None: cumulative.cumsum(
        self, axis, dtype, out),
    "cumprod": lambda self, axis=None, dtype=None, out=None: cumulative.cumprod(
        self, axis, dtype, out),
}


def _copy(self):
  return creation.array(self, copy=True)


def _device(self):
  """The one device the array is on, else its sharding (JAX's `Array.device`)."""
  devices = self.devices()
  return next(iter(devices)) if len(devices) == 1 else self.sharding


def _sharding_methods() -> dict:
  """Methods of concrete arrays about where their value lives."""
  return {
      "device": property(_device),
      "to_device": lambda self, device, *, stream=None: device_put(self, device),
      "tobytes": lambda self, order="C": np.asarray(self).tobytes(order),
      "__copy__": _copy,
      "__deepcopy__": lambda self, memo: _copy(self),
  }


def _tracer_iter(self):
  if not self.shape:
    raise TypeError("iteration over a 0-d array")
  return (self[i] for i in range(self.shape[0]))


def _at(self):
  return IndexUpdateHelper(self)


def _indexing_methods() -> dict:
  """Methods that forward to jax.numpy functions taking the array first (or as `a`)."""
  f = indexing_funcs
  return {
      "take": lambda self, indices, axis=None, out=None, mode=None, unique_indices=False,
      indices_are_sorted=False, fill_value=None: f.take(
          self, indices, axis, out, mode, unique_indices, indices_are_sorted, fill_value),
      "nonzero": lambda self, *, size=None, fill_value=None: f.nonzero(
          self, size=size, fill_value=fill_value),
      "compress": lambda self, condition, axis=None, *, size=None, fill_value=0, out=None:
      f.compress(condition, self, axis, size=size, fill_value=fill_value, out=out),
      "choose": lambda self, choices, out=None, mode="raise": f.choose(self, choices, out, mode),
      "sort": sorting.sort, "argsort": sorting.argsort, "repeat": shape_ops.repeat,
      "argpartition": sorting.argpartition,
      "searchsorted": lambda self, v, side="left", sorter=None, *, method="scan":
      sorting.searchsorted(self, v, side, sorter, method=method),
      "ptp": lambda self, axis=None, out=None, keepdims=False: statistics.ptp(
          self, axis, out, keepdims),
      "copy": _copy,
      "trace": shape_ops.trace, "diagonal": shape_ops.diagonal,
  }


# What typed key arrays have of the array methods: the structural ones (as in JAX).
_KEY_METHODS = ("__getitem__", "__eq__", "__ne__", "reshape", "transpose", "squeeze",
                "ravel", "flatten", "swapaxes")


def _install_key_methods() -> None:
  for name in _KEY_METHODS:
    setattr(prng.PRNGKeyArray, name, {**_OPERATORS, **_METHODS}[name])
  prng.PRNGKeyArray.T = property(lambda self: shape_ops.transpose(self))
  prng.PRNGKeyArray.take = _indexing_methods()["take"]
  prng.PRNGKeyArray.copy = lambda self: self  # immutable: a copy is the same keys


def install() -> None:
  for cls in (ArrayImpl, core.Tracer):
    for name, fn in {**_OPERATORS, **_METHODS}.items():
      setattr(cls, name, fn)
    cls.T = property(lambda self: shape_ops.transpose(self))
    cls.mT = property(shape_ops.matrix_transpose)
    cls.at = property(_at)
    for name, fn in _indexing_methods().items():
      if not hasattr(cls, name):  # methods installed elsewhere take precedence
        setattr(cls, name, fn)
    cls.itemsize = property(lambda self: self.dtype.itemsize)
    cls.nbytes = property(lambda self: self.size * self.dtype.itemsize)
    cls.real = property(ufuncs.real)
    cls.imag = property(ufuncs.imag)
  for name, fn in _sharding_methods().items():
    if name not in vars(ArrayImpl):
      setattr(ArrayImpl, name, fn)
  _install_key_methods()
  core.Tracer.__iter__ = _tracer_iter
  core.Tracer.__hash__ = ArrayImpl.__hash__
  ArrayImpl.__hash__ = None


install()
