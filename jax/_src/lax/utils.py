"""Helpers shared by the lax primitive modules."""

from __future__ import annotations



from jax._src import core


def standard_primitive(name: str, abstract_eval, multiple_results: bool = False) -> core.Primitive:
  """A primitive whose eager impl compiles and runs it alone (see execution.apply_primitive)."""
  prim = core.Primitive(name, multiple_results)
  prim.def_abstract_eval(abstract_eval)

  def impl(*args, **params):
    from jax._src import execution  # lazy: keeps `import jax` free of backends
    return execution.apply_primitive(prim, *args, **params)

  prim.def_impl(impl)
  return prim


def same_shapes(name: str, *avals) -> None:
  shapes = {a.shape for a in avals}
  if len(shapes) > 1:
    raise TypeError(f"{name} requires arguments to have the same shape, got "
                    f"{', '.join(a.str_short() for a in avals)}")


def same_dtypes(name: str, *avals) -> None:
  kinds = {a.dtype for a in avals}
  if len(kinds) > 1:
    raise TypeError(f"{name} requires arguments to have the same dtype, got "
                    f"{', '.join(a.str_short() for a in avals)}")


