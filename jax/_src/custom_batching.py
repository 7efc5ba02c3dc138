"""`custom_vmap`: a function whose behaviour under vmap is given by the user.

Calling it binds `custom_vmap_call`, a primitive carrying the function's jaxpr
(used to evaluate, stage, lower and differentiate it) and the user's rule. The
primitive's batching rule moves batched arguments' axes to the front and calls
`rule(axis_size, in_batched, *args)`, which returns `(out, out_batched)`.
"""

from __future__ import annotations

import functools
from typing import Callable

from jax._src import core
from jax._src import tree_util
from jax._src.core import ClosedJaxpr
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.interpreters import partial_eval as pe
from jax._src.lowering import hlo
from jax._src.lax import shape as lax_shape

custom_vmap_call_p = core.Primitive("custom_vmap_call", multiple_results=True)


def _run(call_jaxpr: ClosedJaxpr, args):
  return core.eval_jaxpr(call_jaxpr.jaxpr, call_jaxpr.consts, args)


custom_vmap_call_p.def_impl(lambda *args, call_jaxpr, **_: _run(call_jaxpr, args))
custom_vmap_call_p.def_abstract_eval(lambda *avals, call_jaxpr, **_: list(call_jaxpr.out_avals))
hlo.lowering_rules[custom_vmap_call_p] = (
    lambda ctx, *args, call_jaxpr, **_: hlo.lower_jaxpr_into(ctx.comp, call_jaxpr.jaxpr,
                                                             call_jaxpr.consts, args))


def _jvp(primals, tangents, *, call_jaxpr, **_):
  # Differentiation goes through the function itself; the rule only concerns vmap.
  return ad.jvp_flat(lambda *xs: _run(call_jaxpr, xs), primals, tangents)


ad.jvp_rules[custom_vmap_call_p] = _jvp


def _batch(axis, vals, dims, *, call_jaxpr, rule, in_tree, out_tree):
  args = [batching.moveaxis(x, d, 0) if d is not batching.not_mapped else x
          for x, d in zip(vals, dims)]
  in_batched = tree_util.tree_unflatten(in_tree, [d is not batching.not_mapped for d in dims])
  args_tree = tree_util.tree_unflatten(in_tree, args)
  out, out_batched = rule(axis.size, in_batched, *args_tree)
  out_leaves, tree = tree_util.tree_flatten(out)
  if tree != out_tree:
    raise ValueError(f"custom_vmap rule returned output of structure {tree}, but the function "
                     f"returns structure {out_tree}")
  batched_leaves = _broadcast_prefix(out_batched, out, "out_batched")
  dims_out = []
  for x, b, aval in zip(out_leaves, batched_leaves, call_jaxpr.out_avals):
    want = (axis.size, *aval.shape) if b else aval.shape
    if tuple(core.get_aval(x).shape) != tuple(want):
      raise ValueError(f"custom_vmap rule output has shape {core.get_aval(x).shape}, expected "
                       f"{tuple(want)} (batched={b})")
    dims_out.append(0 if b else batching.not_mapped)
  return out_leaves, dims_out


def _broadcast_prefix(prefix, full, what: str) -> list[bool]:
  if isinstance(prefix, bool):
    return [prefix] * len(tree_util.tree_leaves(full))
  leaves, tree = tree_util.tree_flatten(prefix)
  _, full_tree = tree_util.tree_flatten(full)
  if tree != full_tree:
    raise ValueError(f"custom_vmap rule's {what} must be a bool or match the output "
                     f"structure {full_tree}, got {prefix!r}")
  return [bool(b) for b in leaves]


batching.batch_rules[custom_vmap_call_p] = _batch


class custom_vmap:
  """Wrap `fun` so that `jax.vmap` of it runs the rule given with `def_vmap`."""

  def __init__(self, fun: Callable):
    functools.update_wrapper(self, fun)
    self.fun = fun
    self.vmap_rule: Callable | None = None

  def def_vmap(self, vmap_rule: Callable) -> Callable:
    """`vmap_rule(axis_size, in_batched, *args) -> (out, out_batched)`."""
    self.vmap_rule = vmap_rule
    return vmap_rule

  def __call__(self, *args, **kwargs):
    if kwargs:
      raise TypeError("custom_vmap functions take positional arguments only")
    if self.vmap_rule is None:
      raise AttributeError(f"No batching rule defined for custom_vmap function "
                           f"{getattr(self.fun, '__name__', self.fun)} using def_vmap.")
    leaves, in_tree = tree_util.tree_flatten(args)
    store = {}

    def flat(*xs):
      out = self.fun(*tree_util.tree_unflatten(in_tree, xs))
      out_leaves, store["tree"] = tree_util.tree_flatten(out)
      return out_leaves

    avals = [core.get_aval(x) for x in leaves]
    jaxpr, consts = pe.trace_to_jaxpr_dynamic(flat, avals)
    closed, hoisted = pe.close_jaxpr(jaxpr, consts)
    if hoisted:
      raise TypeError("custom_vmap functions may not close over traced values; pass them "
                      "as arguments")
    outs = custom_vmap_call_p.bind(*leaves, call_jaxpr=closed, rule=self.vmap_rule,
                                   in_tree=in_tree, out_tree=store["tree"])
    return tree_util.tree_unflatten(store["tree"], outs)


def sequential_vmap(f: Callable) -> custom_vmap:
  """`f` under vmap runs once per batch element, results stacked (for host callbacks...)."""

  f = custom_vmap(f)

  @f.def_vmap
  def rule(axis_size, in_batched, *args):
    leaves, tree = tree_util.tree_flatten(args)
    flags = tree_util.tree_leaves(in_batched)
    rows = []
    for i in range(axis_size):
      sliced = [x[i] if b else x for x, b in zip(leaves, flags)]
      rows.append(f.fun(*tree_util.tree_unflatten(tree, sliced)))
    stacked = tree_util.tree_map(
        lambda *xs: lax_shape.concatenate(
            [lax_shape.broadcast_in_dim(x, (1, *core.get_aval(x).shape),
                                        tuple(range(1, core.get_aval(x).ndim + 1))) for x in xs],
            0), *rows)
    return stacked, True

  return f
