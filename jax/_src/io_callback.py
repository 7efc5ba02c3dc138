"""`io_callback`: a host callback with side effects that returns values.

Unlike `pure_callback` it is never dropped or deduplicated: its primitive is
effectful (see `partial_eval.effectful_primitives`). Under vmap it runs once per
batch element, in order; it has no derivative.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from jax._src import callback as callback_lib
from jax._src import core
from jax._src import tree_util
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.interpreters import partial_eval as pe
from jax._src.interpreters import physical
from jax._src.lowering import hlo
from jax._src.array import host_array
from jax._src.lax import shape as lax_shape
from jax._src.debugging import index_in_axis

io_callback_p = core.Primitive("io_callback", multiple_results=True)


def _impl(*args, callback, result_avals, ordered):
  return [host_array(o) for o in callback(*(np.array(x) for x in args))]


def _jvp(primals, tangents, **params):
  raise ValueError("IO callbacks do not support JVP.")


def _batch(axis, vals, dims, *, callback, result_avals, ordered):
  rows = []
  for i in range(axis.size):
    sliced = [x if d is batching.not_mapped else index_in_axis(x, i, d) for x, d in zip(vals, dims)]
    rows.append(io_callback_p.bind(*sliced, callback=callback, result_avals=result_avals,
                                   ordered=ordered))
  outs = []
  for k, aval in enumerate(result_avals):
    parts = [lax_shape.broadcast_in_dim(r[k], (1, *aval.shape), tuple(range(1, aval.ndim + 1)))
             for r in rows]
    outs.append(lax_shape.concatenate(parts, 0))
  return outs, [0] * len(result_avals)


io_callback_p.def_impl(_impl)
physical.rules[io_callback_p] = physical.callback_rule(io_callback_p)
io_callback_p.def_abstract_eval(lambda *avals, result_avals, **_: list(result_avals))
ad.jvp_rules[io_callback_p] = _jvp
batching.batch_rules[io_callback_p] = _batch
hlo.lowering_rules[io_callback_p] = (
    lambda ctx, *args, callback, result_avals, ordered:
    callback_lib.emit_host_call(ctx, args, callback, result_avals))
pe.effectful_primitives.add(io_callback_p)
callback_lib.callback_primitives.add(io_callback_p)


def io_callback(callback: Callable, result_shape_dtypes, *args, sharding=None,
                ordered: bool = False, **kwargs):
  """Call the host function `callback(*args, **kwargs)` for its effect and its results
  (which must match `result_shape_dtypes`, a pytree of shape/dtype structs)."""
  del sharding  # callbacks run where the computation runs
  leaves, in_tree = tree_util.tree_flatten((args, kwargs))
  res_leaves, out_tree = tree_util.tree_flatten(result_shape_dtypes)
  result_avals = tuple(callback_lib.result_aval(x) for x in res_leaves)
  flat = callback_lib.FlatCallback(callback, in_tree, result_avals, out_tree)
  outs = io_callback_p.bind(*leaves, callback=flat, result_avals=result_avals,
                            ordered=bool(ordered))
  return out_tree.unflatten(outs)
