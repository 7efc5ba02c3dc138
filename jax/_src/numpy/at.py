"""The `x.at[idx]` property: functional versions of `x[idx] = y`, `x[idx] += y`, ...

Every method returns a new array. Out-of-bounds updates are dropped unless
`mode="clip"` (clamp the indices) or `mode="promise_in_bounds"` is given; `get`
promises in-bounds indices by default, and `mode="fill"` returns `fill_value`
for out-of-bounds reads.
"""

from __future__ import annotations

from jax._src import core
from jax._src.lax import elementwise as lax_ew
from jax._src.lax import shape as lax_shape
from jax._src.lax import slicing
from jax._src.numpy import indexing
from jax._src.numpy import ufuncs
from jax._src.interpreters import partial_eval as pe


class IndexUpdateHelper:
  """What `x.at` returns: indexing it gives an `_IndexUpdateRef`."""

  __slots__ = ("array",)

  def __init__(self, array):
    self.array = array

  def __getitem__(self, index):
    return _IndexUpdateRef(self.array, index)

  def __repr__(self):
    return f"IndexUpdateHelper({self.array!r})"


class _IndexUpdateRef:
  """`x.at[idx]`: call one of its methods to get the updated array."""

  __slots__ = ("array", "index")

  def __init__(self, array, index):
    self.array = array
    self.index = index

  def __repr__(self):
    return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

  def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None, fill_value=None):
    """`x[idx]`."""
    return indexing.rewriting_take(self.array, self.index, indices_are_sorted=indices_are_sorted,
                                   unique_indices=unique_indices, mode=mode, fill_value=fill_value)

  def _scatter(self, prim, values, indices_are_sorted, unique_indices, mode, update_jaxpr=None):
    return indexing.scatter_update(self.array, self.index, values, prim,
                                   indices_are_sorted=indices_are_sorted,
                                   unique_indices=unique_indices, mode=mode,
                                   update_jaxpr=update_jaxpr)

  def set(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
    """`x[idx] = values`."""
    return self._scatter(slicing.scatter_p, values, indices_are_sorted, unique_indices, mode)

  def add(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
    """`x[idx] += values` (duplicate indices accumulate)."""
    return self._scatter(slicing.scatter_add_p, values, indices_are_sorted, unique_indices, mode)

  def subtract(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
    """`x[idx] -= values`."""
    return self.add(ufuncs.negative(values), indices_are_sorted=indices_are_sorted,
                    unique_indices=unique_indices, mode=mode)

  def multiply(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
    """`x[idx] *= values`."""
    return self._scatter(slicing.scatter_mul_p, values, indices_are_sorted, unique_indices, mode)

  mul = multiply

  def min(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
    """`x[idx] = minimum(x[idx], values)`."""
    return self._scatter(slicing.scatter_min_p, values, indices_are_sorted, unique_indices, mode)

  def max(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
    """`x[idx] = maximum(x[idx], values)`."""
    return self._scatter(slicing.scatter_max_p, values, indices_are_sorted, unique_indices, mode)

  def _factor(self, values, indices_are_sorted, unique_indices, mode):
    """Ones, with the product of `values` at the indexed positions."""
    aval = core.get_aval(self.array)
    ones = lax_shape.full(aval.shape, 1, aval.dtype, aval.weak_type)
    return indexing.scatter_update(ones, self.index, values, slicing.scatter_mul_p,
                                   indices_are_sorted=indices_are_sorted,
                                   unique_indices=unique_indices, mode=mode)

  def divide(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
    """`x[idx] /= values`."""
    return ufuncs.divide(self.array, self._factor(values, indices_are_sorted, unique_indices, mode))

  def power(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
    """`x[idx] **= values`."""
    return ufuncs.power(self.array, self._factor(values, indices_are_sorted, unique_indices, mode))

  def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None):
    """`x[idx] = func(x[idx])`, with `func` a scalar function (applied once per index,
    so a repeated index applies it repeatedly)."""
    aval = core.get_aval(self.array)
    scalar = core.ShapedArray((), aval.dtype, aval.weak_type)
    jaxpr, consts = pe.trace_to_jaxpr_dynamic(
        lambda old, _: [lax_ew.convert_element_type(func(old), aval.dtype, aval.weak_type)],
        [scalar, scalar])
    closed, hoisted = pe.close_jaxpr(jaxpr, consts)
    if hoisted:
      raise TypeError("x.at[idx].apply: func must not close over traced values")
    return self._scatter(slicing.scatter_p, lax_shape.full((), 0, aval.dtype, aval.weak_type),
                         indices_are_sorted, unique_indices, mode, update_jaxpr=closed)
