"""Helpers shared by the lax primitive modules."""

from __future__ import annotations

import functools
import inspect

from jax._src import core
from jax._src import util
from jax._src import execution


def standard_primitive(name: str, abstract_eval, multiple_results: bool = False) -> core.Primitive:
  """A primitive whose eager impl compiles and runs it alone (see execution.apply_primitive)."""
  prim = core.Primitive(name, multiple_results)
  prim.def_abstract_eval(abstract_eval)

  def impl(*args, **params):
    return execution.apply_primitive(prim, *args, **params)

  prim.def_impl(impl)
  return prim


# Functions a lax module needs from a lax module that builds on it (shape's transposes
# need reduce_sum, for one).
_late_ops = util.LateOps("lax")
register_late_ops = _late_ops.register
late_op = _late_ops.get


def same_shapes(name: str, *avals) -> None:
  shapes = {a.shape for a in avals}
  if len(shapes) > 1:
    raise TypeError(f"{name} requires arguments to have the same shape, got "
                    f"{', '.join(a.str_short(short_dtypes=True) for a in avals)}")


def same_dtypes(name: str, *avals) -> None:
  kinds = {a.dtype for a in avals}
  if len(kinds) > 1:
    raise TypeError(f"{name} requires arguments to have the same dtype, got "
                    f"{', '.join(a.str_short(short_dtypes=True) for a in avals)}")



place = execution.place_result


def takes_out_sharding(fun):
  """Adds JAX's keyword-only `out_sharding=` to `fun`: the result is placed with it."""

  @functools.wraps(fun)
  def wrapper(*args, out_sharding=None, **kwargs):
    return place(fun(*args, **kwargs), out_sharding)

  sig = inspect.signature(fun)
  params = list(sig.parameters.values())
  params.append(inspect.Parameter("out_sharding", inspect.Parameter.KEYWORD_ONLY, default=None))
  wrapper.__signature__ = sig.replace(parameters=params)
  return wrapper


def derived_primitive(name: str, fun, multiple_results: bool = False) -> core.Primitive:
  """A primitive defined by `fun(*operands, **params)`, written with other primitives.

  It appears in jaxprs under its own name (as JAX's does); its shape rule, lowering,
  derivative and batching are those of `fun`, traced when needed. Params must be
  hashable (they key the compilation cache).
  """
  from jax._src.interpreters import partial_eval as pe  # below lax; lazy to keep
  # lax/utils importable by the interpreters

  def abstract_eval(*avals, **params):
    jaxpr, _ = pe.trace_to_jaxpr_dynamic(_flat(fun, multiple_results, params), list(avals))
    outs = [v.aval for v in jaxpr.outvars]
    return outs if multiple_results else outs[0]

  prim = standard_primitive(name, abstract_eval, multiple_results)
  rules_by_expansion(prim, fun, multiple_results)
  return prim


def _flat(fun, multiple_results: bool, params):
  def run(*xs):
    out = fun(*xs, **params)
    return list(out) if multiple_results else [out]
  return run


def rules_by_expansion(prim: core.Primitive, fun, multiple_results: bool) -> None:
  """Gives `prim` the derivative, batching and lowering rules of `fun(*operands,
  **params)`, the ops it expands to (traced when a rule is needed)."""
  from jax._src.interpreters import ad, batching  # interpreters sit below lax; lazy to keep
  from jax._src.lowering import hlo  # lax/utils importable by them

  def jvp(primals, tangents, /, **params):
    tangents = [ad.zeros_like(p) if t is None else t for p, t in zip(primals, tangents)]
    outs, outs_dot = ad.jvp_flat(_flat(fun, multiple_results, params), primals, tangents)
    return (outs, outs_dot) if multiple_results else (outs[0], outs_dot[0])

  def batch(axis, vals, dims, /, **params):
    outs = batching.vmap_flat(_flat(fun, multiple_results, params), axis, dims, None, vals)
    return (outs, [0] * len(outs)) if multiple_results else (outs[0], 0)

  ad.jvp_rules[prim] = jvp
  batching.batch_rules[prim] = batch
  hlo.lowering_rules[prim] = hlo.lower_fun(fun, multiple_results)
