"""Primitives that keep a value as it is while saying something about it: a copy, a
placement, a sharding constraint, a change of varying-ness over mesh axes, a sink that
keeps a value from being removed as dead. Each computes the identity (placement itself
happens outside traced code; see device_put)."""

from __future__ import annotations

from jax._src import tree_util
from jax._src.interpreters import ad
from jax._src.lax.utils import derived_primitive


def _identity(x, **_):
  return x


copy_p = derived_primitive("copy", _identity)
# Linear: a copy's tangent is the copy of its tangent, its transpose a copy of the cotangent.
ad.deflinear(copy_p, lambda ct, x: [copy_p.bind(ct)])
device_put_p = derived_primitive("device_put", lambda *xs, **_: list(xs), multiple_results=True)
sharding_constraint_p = derived_primitive("sharding_constraint", _identity)
pcast_p = derived_primitive("pcast", _identity)
dce_sink_p = derived_primitive("dce_sink", lambda x, **_: [], multiple_results=True)


def pcast(x, axis_name, *, to: str):
  """x marked as varying (`to='varying'`) or invariant over the mesh axes `axis_name`.

  Values are not tracked by varying-ness here, so the value is unchanged; the arguments
  are checked as JAX checks them."""
  if to not in ("varying", "unreduced", "reduced"):
    raise ValueError("Got unexpected `to` value. Allowed `to` values are: {'varying', "
                     "'reduced', 'unreduced'}")
  names = tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)
  leaves, treedef = tree_util.tree_flatten(x)
  return treedef.unflatten([pcast_p.bind(v, axis_name=names, to=to) for v in leaves])


def dce_sink(val, prevent_mlir_dce: bool = True):
  """Keeps `val` (a pytree) alive in the program even if nothing else uses it."""
  for v in tree_util.tree_leaves(val):
    dce_sink_p.bind(v, prevent_mlir_dce=bool(prevent_mlir_dce))

