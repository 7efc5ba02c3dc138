"""Structured control flow: cond (and switch), while_loop, scan; one block per primitive.

The user functions trace their Python callables to jaxprs ("initial style"): every
value a callable closes over becomes an explicit leading operand, so the jaxprs
carried in params are closed with no tracer consts and the primitives compose
with every transformation. Lowering follows what JAX prints: `conditional` with
one `branch_computations` region per branch, and `while` whose regions take the
whole `(consts..., carry...)` tuple. scan lowers to a while loop over an index,
slicing xs with dynamic-slice and writing ys with dynamic-update-slice.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src import tree_util
from jax._src.core import ClosedJaxpr, Jaxpr, JaxprEqn, ShapedArray, Var
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.interpreters import partial_eval as pe
from jax._src.lax import elementwise as ew
from jax._src.lax import reductions
from jax._src.lax import shape as lax_shape
from jax._src.lax import slicing
from jax._src.lax.utils import register_late_ops, standard_primitive
from jax._src.lowering import hlo
from jax._src.util import weakref_lru_cache

# ----------------------------------------------------------------------------- helpers


def _split(xs: Sequence, sizes: Sequence[int]) -> list[list]:
  out, start = [], 0
  for n in sizes:
    out.append(list(xs[start:start + n]))
    start += n
  out.append(list(xs[start:]))
  return out


def _trace_fun(fun: Callable, in_tree, avals, flatten_out=tree_util.tree_flatten):
  """Trace `fun(*unflattened args)`; -> (ClosedJaxpr taking consts + args, consts, out info).

  `flatten_out(out) -> (leaves, info)`; info is returned as the third result. Outside any
  transformation the result is cached on the function (weakly) and the argument types,
  as JAX's control flow does: calling `scan` twice with the same body traces it once.
  Inside one the body may close over that transformation's tracers, so it is traced anew
  (an enclosing jit caches the whole trace anyway).
  """
  avals = tuple(avals)
  if core.trace_state_clean():
    try:
      hash((in_tree, avals, flatten_out))
    except TypeError:
      pass
    else:
      return _trace_fun_cached(fun, in_tree, avals, flatten_out)
  return _trace_fun_uncached(fun, in_tree, avals, flatten_out)


def _trace_fun_uncached(fun: Callable, in_tree, avals, flatten_out):
  store = []

  def flat(*leaves):
    args = in_tree.unflatten(leaves)
    leaves_out, info = flatten_out(fun(*args))
    store.append(info)
    return leaves_out

  jaxpr, consts = pe.trace_to_jaxpr_dynamic(flat, list(avals))
  return ClosedJaxpr(pe.convert_constvars_jaxpr(jaxpr), []), consts, store[0]


_trace_fun_cached = weakref_lru_cache(_trace_fun_uncached, maxsize=256)


def _closed_from(fun: Callable, avals) -> ClosedJaxpr:
  """Trace an internal wrapper (it closes over no tracers) to a ClosedJaxpr."""
  jaxpr, consts = pe.trace_to_jaxpr_dynamic(lambda *a: list(fun(*a)), avals)
  closed, hoisted = pe.close_jaxpr(jaxpr, consts)
  assert not hoisted, "control-flow wrapper closed over a tracer"
  return closed


def _eval(closed: ClosedJaxpr, args) -> list:
  return core.eval_jaxpr(closed.jaxpr, closed.consts, list(args))


def _avals(xs) -> list[ShapedArray]:
  return [x.aval if ad.is_undefined_primal(x) else core.get_aval(x) for x in xs]


def _check_same_types(what: str, a_avals, b_avals) -> None:
  for a, b in zip(a_avals, b_avals):
    if a.shape != b.shape or a.dtype != b.dtype:
      raise TypeError(f"{what} must have identical types, got {a.str_short(short_dtypes=True)} and {b.str_short(short_dtypes=True)}")


def _promote_weak(vals, in_avals, out_avals):
  """Weakly typed inputs whose dtype the body changes take the body's dtype (as JAX)."""
  changed = False
  vals = list(vals)
  for i, (a, b) in enumerate(zip(in_avals, out_avals)):
    if a.weak_type and (a.dtype != b.dtype) and a.shape == b.shape:
      vals[i] = ew.convert_element_type(vals[i], dtypes.promote_types(a.dtype, b.dtype))
      changed = True
  return vals, changed


def _slice_in_dim(x, start: int, stop: int, step: int = 1, axis: int = 0):
  aval = core.get_aval(x)
  starts, limits, strides = [0] * aval.ndim, list(aval.shape), [1] * aval.ndim
  starts[axis], limits[axis], strides[axis] = start, max(stop, start), step
  return lax_shape.slice(x, starts, limits, strides)


def _zeros(aval: ShapedArray):
  return lax_shape.full(aval.shape, 0, aval.dtype)


# ----------------------------------------------------------------------------- cond


def _cond_abstract_eval(index, *ops, branches):
  outs = branches[0].out_avals
  for b in branches[1:]:
    _check_same_types("cond branch outputs", outs, b.out_avals)
  return [a.update(weak_type=all(b.out_avals[i].weak_type for b in branches))
          for i, a in enumerate(outs)]


cond_p = standard_primitive("cond", _cond_abstract_eval, multiple_results=True)


_NO_OPERAND = object()  # `operand=None` passes None (an empty pytree) to the branches


def switch(index, branches: Sequence[Callable], *operands, operand=_NO_OPERAND):
  """Apply `branches[clamp(index)]` to `operands` (`operand=` is the older single-operand
  spelling)."""
  if operand is not _NO_OPERAND:
    if operands:
      raise TypeError("switch: pass the operands positionally or as operand=, not both")
    operands = (operand,)
  branches = list(branches)
  if not branches:
    raise ValueError("switch: empty branches")
  aval = core.get_aval(index)
  if aval.shape != () or not (dtypes.is_integer(aval.dtype) or aval.dtype == dtypes.bool_):
    raise TypeError(f"switch: index must be an integer scalar, got {aval.str_short(short_dtypes=True)}")
  if len(branches) == 1:
    return branches[0](*operands)
  index = ew.convert_element_type(index, np.int32)
  index = ew.max(ew.min(index, len(branches) - 1), 0)
  return _bind_cond(index, branches, operands, "switch")


def cond(pred, true_fun: Callable, false_fun: Callable, *operands, operand=_NO_OPERAND):
  """`true_fun(*operands)` if `pred` else `false_fun(*operands)`.

  The older form `cond(pred, true_operand, true_fun, false_operand, false_fun)` is
  accepted too: each branch gets its own operand.
  """
  if len(operands) == 2 and not callable(true_fun) and callable(false_fun) \
      and callable(operands[1]):
    true_op, true_f, (false_op, false_f) = true_fun, false_fun, operands
    return cond(pred, lambda ops: true_f(ops[0]), lambda ops: false_f(ops[1]),
                (true_op, false_op))
  if operand is not _NO_OPERAND:
    if operands:
      raise TypeError("if 'operand' keyword is passed then no positional operands can be "
                      f"passed, got operand={operand!r} and positional operands {operands}")
    operands = (operand,)
  aval = core.get_aval(pred)
  if aval.shape != ():
    raise TypeError(f"cond: pred must be a scalar, got {aval.str_short(short_dtypes=True)}")
  if aval.dtype != dtypes.bool_:
    if not dtypes.is_integer(aval.dtype) and not dtypes.is_float(aval.dtype):
      raise TypeError(f"cond: pred must be boolean or a number, got {aval.dtype.name}")
    pred = ew.ne(pred, 0)
  index = ew.convert_element_type(pred, np.int32)
  return _bind_cond(index, [false_fun, true_fun], operands, "cond")


def _branch_name(what: str, i: int) -> str:
  return ("false_fun", "true_fun")[i] if what == "cond" else f"branch {i}"


def _check_branches_agree(what: str, traced) -> None:
  """JAX's errors for branches whose outputs differ in structure or in type."""
  first = 1 if what == "cond" else 0  # name true_fun first, as JAX does
  ref_tree, ref_avals = traced[first][2], traced[first][0].out_avals
  for i, (closed, _, tree) in enumerate(traced):
    a, b = _branch_name(what, first), _branch_name(what, i)
    if tree != ref_tree:
      raise TypeError(
          f"{what} branch outputs must have the same pytree structure, but they differ:\n\n"
          f"{a} output has structure {ref_tree} but {b} output has structure {tree}.\n\n"
          f"Revise {a} and/or {b} so that they have the same pytree structure.")
    for x, y in zip(ref_avals, closed.out_avals):
      if x.shape != y.shape or x.dtype != y.dtype:
        kind = "dtypes" if x.shape == y.shape else "shapes"
        raise TypeError(
            f"{what} branches must have equal output types but they differ.\n\n"
            f"The output of {a} has type {x.str_short()} but the corresponding output of "
            f"{b} has type {y.str_short()}, so the {kind} do not match.\n\n"
            f"Revise {a} and/or {b} so that all output types match.")


def _bind_cond(index, funs, operands, what: str):
  ops, in_tree = tree_util.tree_flatten(operands)
  avals = [core.get_aval(x) for x in ops]
  traced = [_trace_fun(f, in_tree, avals) for f in funs]
  _check_branches_agree(what, traced)
  out_tree = traced[0][2]
  out_avals = [j.out_avals for j, _, _ in traced]
  weak = [all(o[i].weak_type for o in out_avals) for i in range(len(out_avals[0]))]
  all_consts = [c for _, consts, _ in traced for c in consts]
  const_avals = [core.get_aval(c) for c in all_consts]
  branches, offset = [], 0
  for closed, consts, _ in traced:
    n = len(consts)

    def branch(*args, closed=closed, lo=offset, n=n):
      cs, xs = args[:len(all_consts)], args[len(all_consts):]
      outs = _eval(closed, [*cs[lo:lo + n], *xs])
      return [ew.convert_element_type(o, core.get_aval(o).dtype, False)
              if core.get_aval(o).weak_type and not w else o for o, w in zip(outs, weak)]

    branches.append(_closed_from(branch, [*const_avals, *avals]))
    offset += n
  forwarded = _forwarded_operands(branches, len(all_consts))
  if any(k is not None for k in forwarded):
    branches = [_without_outputs(b, forwarded) for b in branches]
  outs = iter(cond_p.bind(index, *all_consts, *ops, branches=tuple(branches)))
  # A forwarded Python or numpy scalar comes back as an array, as the cond's outputs do.
  return out_tree.unflatten([
      next(outs) if k is None else
      ew.convert_element_type(ops[k], avals[k].dtype, avals[k].weak_type) for k in forwarded])


def _forwarded_operands(branches, num_consts: int) -> list:
  """Per output, the operand every branch returns unchanged there (else None). As in
  JAX, such outputs are the operand itself, not an output of the cond: under vmap an
  unbatched value passed through stays unbatched even when the predicate is batched."""
  forwarded = []
  for i in range(len(branches[0].jaxpr.outs)):
    sources = set()
    for b in branches:
      out = b.jaxpr.outs[i]
      invars = b.jaxpr.invars
      sources.add(invars.index(out) - num_consts
                  if isinstance(out, Var) and out in invars[num_consts:] else None)
    forwarded.append(sources.pop() if len(sources) == 1 else None)
  return forwarded


def _without_outputs(closed: ClosedJaxpr, dropped) -> ClosedJaxpr:
  jaxpr = closed.jaxpr
  outs = [o for o, k in zip(jaxpr.outs, dropped) if k is None]
  pruned = pe.dce_jaxpr(Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.eqns, outs))
  return ClosedJaxpr(pruned, closed.consts)


def _cond_jvp(primals, tangents, *, branches):
  index, *ops = primals
  new = tuple(ad.jvp_jaxpr(b) for b in branches)
  outs = cond_p.bind(index, *ops, *tangents[1:], branches=new)
  n = len(outs) // 2
  return outs[:n], outs[n:]


def _cond_partial_eval_jaxpr(eqn: JaxprEqn, unknowns):
  branches = eqn.params["branches"]
  nout = len(eqn.out_binders)
  if unknowns[0]:
    return [], [eqn], [True] * nout
  ops_uk = list(unknowns[1:])
  out_uks = [False] * nout
  for b in branches:
    _, _, uks, _ = pe.partial_eval_closed(b, ops_uk)
    out_uks = [a or u for a, u in zip(out_uks, uks)]
  splits = [pe.partial_eval_closed(b, ops_uk, instantiate=out_uks) for b in branches]
  n_known = out_uks.count(False)
  res_avals = [k.out_avals[n_known:] for k, _, _, _ in splits]
  all_res = [a for r in res_avals for a in r]
  known_avals = [a for a, uk in zip(branches[0].in_avals, ops_uk) if not uk]
  uk_avals = [a for a, uk in zip(branches[0].in_avals, ops_uk) if uk]
  known_branches, unknown_branches, offset = [], [], 0
  for (known, unknown, _, _), res in zip(splits, res_avals):
    lo, hi = offset, offset + len(res)

    def kfun(*args, known=known, lo=lo, hi=hi):
      outs = _eval(known, args)
      pad = [_zeros(a) for a in all_res]
      return outs[:n_known] + pad[:lo] + outs[n_known:] + pad[hi:]

    def ufun(*args, unknown=unknown, lo=lo, hi=hi):
      return _eval(unknown, [*args[lo:hi], *args[len(all_res):]])

    known_branches.append(_closed_from(kfun, known_avals))
    unknown_branches.append(_closed_from(ufun, [*all_res, *uk_avals]))
    offset = hi
  res_vars = [Var(a) for a in all_res]
  ins = eqn.inputs[1:]
  known_eqn = JaxprEqn(cond_p, [eqn.inputs[0]] + [x for x, uk in zip(ins, ops_uk) if not uk],
                       dict(branches=tuple(known_branches)),
                       [v for v, uk in zip(eqn.out_binders, out_uks) if not uk] + res_vars)
  unknown_eqn = JaxprEqn(cond_p, [eqn.inputs[0]] + res_vars + [x for x, uk in zip(ins, ops_uk) if uk],
                         dict(branches=tuple(unknown_branches)),
                         [v for v, uk in zip(eqn.out_binders, out_uks) if uk])
  return [known_eqn], [unknown_eqn], out_uks


def _cond_transpose(cts, index, *ops, branches):
  linear = [ad.is_undefined_primal(x) for x in ops]
  cts = [ad.instantiate_zeros(c, a) for c, a in zip(cts, branches[0].out_avals)]
  new = tuple(ad.transpose_jaxpr(b, linear) for b in branches)
  res = [x for x in ops if not ad.is_undefined_primal(x)]
  outs = iter(cond_p.bind(index, *res, *cts, branches=new))
  return [None] + [next(outs) if lin else None for lin in linear]


def _cond_batch(axis, vals, dims, *, branches):
  index, *ops = vals
  idim, *odims = dims
  new = tuple(batching.vmap_jaxpr(b, axis, odims) for b in branches)
  if idim is batching.not_mapped:
    outs = cond_p.bind(index, *ops, branches=new)
    return outs, [0] * len(outs)
  # A batched index: run every branch and pick elementwise.
  index = batching.moveaxis(index, idim, 0)
  results = [_eval(b, ops) for b in new]
  outs = []
  for per_branch in zip(*results):
    shape = core.get_aval(per_branch[0]).shape
    which = lax_shape.broadcast_in_dim(index, shape, (0,))
    outs.append(ew.select_n(which, *per_branch))
  return outs, [0] * len(outs)


def _tuple_param(sub: hlo.ComputationBuilder, avals, prefix: str,
                 force_tuple: bool = False) -> list[hlo.HloValue]:
  """One parameter: the value itself if there is one (unless forced), else a tuple taken apart."""
  if len(avals) == 1 and not force_tuple:
    return [sub.parameter(0, avals[0], prefix)]
  tname = sub.emit("arg_tuple", hlo.tuple_str([hlo.shape_str(a) for a in avals]), "parameter", ["0"])
  return [hlo.HloValue(sub.emit("get-tuple-element", hlo.shape_str(a), "get-tuple-element",
                                [tname], f"index={i}"), a) for i, a in enumerate(avals)]


def _untuple(ctx: hlo.LoweringContext, name: str, avals) -> list[hlo.HloValue]:
  return [hlo.HloValue(ctx.comp.emit(ctx.prefix, hlo.shape_str(a), "get-tuple-element", [name],
                                     f"index={i}"), a) for i, a in enumerate(avals)]


def _cond_lowering(ctx: hlo.LoweringContext, index, *ops, branches):
  regions, operands = [], []
  avals = [o.aval for o in ops]
  for b in branches:
    name = ctx.module.region_name()
    sub = hlo.ComputationBuilder(ctx.module, name)
    params = _tuple_param(sub, avals, ctx.prefix)
    outs = hlo.lower_jaxpr_into(sub, b.jaxpr, b.consts, params)
    ctx.module.computations.append(sub.finish(outs[0] if len(outs) == 1 else outs))
    regions.append(name)
    if len(ops) == 1:
      operands.append(ops[0].name)
    else:
      operands.append(ctx.comp.emit(ctx.prefix, hlo.tuple_str([hlo.shape_str(a) for a in avals]),
                                    "tuple", [o.name for o in ops]))
  out_avals = ctx.avals_out
  single = len(out_avals) == 1
  shape = hlo.shape_str(out_avals[0]) if single else hlo.tuple_str(
      [hlo.shape_str(a) for a in out_avals])
  name = ctx.comp.emit(ctx.prefix, shape, "conditional", [index.name, *operands],
                       f"branch_computations={{{', '.join(regions)}}}")
  return [hlo.HloValue(name, out_avals[0])] if single else _untuple(ctx, name, out_avals)


ad.jvp_rules[cond_p] = _cond_jvp
pe.def_partial_eval_jaxpr_rule(cond_p, _cond_partial_eval_jaxpr)
ad.transpose_rules[cond_p] = _cond_transpose
batching.batch_rules[cond_p] = _cond_batch
hlo.lowering_rules[cond_p] = _cond_lowering


# ----------------------------------------------------------------------------- while


def _while_abstract_eval(*args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
  return body_jaxpr.out_avals


while_p = standard_primitive("while", _while_abstract_eval, multiple_results=True)


def while_loop(cond_fun: Callable, body_fun: Callable, init_val):
  """`while cond_fun(val): val = body_fun(val)`; returns the final `val`."""
  init, val_tree = tree_util.tree_flatten(init_val)
  in_tree = tree_util.tree_structure((init_val,))
  for _ in range(2):
    avals = [core.get_aval(x) for x in init]
    body, body_consts, out_tree = _trace_fun(body_fun, in_tree, avals)
    if out_tree != val_tree:
      raise TypeError(f"while_loop: body_fun output structure {out_tree} differs from the "
                      f"input structure {val_tree}")
    init, changed = _promote_weak(init, avals, body.out_avals[:len(init)])
    if not changed:
      break
  _check_same_types("while_loop body_fun input and output", avals, body.out_avals)
  cond, cond_consts, _ = _trace_fun(cond_fun, in_tree, avals)
  pred = cond.out_avals
  if len(pred) != 1 or pred[0].shape != () or pred[0].dtype != dtypes.bool_:
    raise TypeError("while_loop: cond_fun must return a boolean scalar, got "
                    f"{[a.str_short(short_dtypes=True) for a in pred]}")
  outs = while_p.bind(*cond_consts, *body_consts, *init, cond_jaxpr=cond, body_jaxpr=body,
                      cond_nconsts=len(cond_consts), body_nconsts=len(body_consts))
  return val_tree.unflatten(outs)


def _while_jvp(primals, tangents, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
  cc, bc, carry = _split(primals, [cond_nconsts, body_nconsts])
  _, bc_t, carry_t = _split(tangents, [cond_nconsts, body_nconsts])
  nb, nk = len(bc), len(carry)
  jvp_body = ad.jvp_jaxpr(body_jaxpr)
  bc_avals, k_avals = _avals(bc), _avals(carry)

  def body(*args):
    b, bt, k, kt = _split(args, [nb, nb, nk])[:4]
    return _eval(jvp_body, [*b, *k, *bt, *kt])

  def cond(*args):
    c, k, _ = _split(args, [cond_nconsts, nk])
    return _eval(cond_jaxpr, [*c, *k])

  new_body = _closed_from(body, [*bc_avals, *bc_avals, *k_avals, *k_avals])
  new_cond = _closed_from(cond, [*_avals(cc), *k_avals, *k_avals])
  outs = while_p.bind(*cc, *bc, *bc_t, *carry, *carry_t, cond_jaxpr=new_cond, body_jaxpr=new_body,
                      cond_nconsts=cond_nconsts, body_nconsts=2 * nb)
  return outs[:nk], outs[nk:]


def _while_batch(axis, vals, dims, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
  # Every carry is batched; the loop runs while any element's predicate holds and
  # elements that are done keep their value (select).
  size = axis.size
  cc, bc, carry = _split(vals, [cond_nconsts, body_nconsts])
  ccd, bcd, kd = _split(dims, [cond_nconsts, body_nconsts])
  front = lambda x, d: x if d is batching.not_mapped else batching.moveaxis(x, d, 0)
  cc = [front(x, d) for x, d in zip(cc, ccd)]
  bc = [front(x, d) for x, d in zip(bc, bcd)]
  carry = [batching.bdim_at_front(x, d, size) for x, d in zip(carry, kd)]
  ccd = [None if d is None else 0 for d in ccd]
  bcd = [None if d is None else 0 for d in bcd]
  nk = len(carry)
  vcond = batching.vmap_jaxpr(cond_jaxpr, axis, [*ccd, *[0] * nk])
  vbody = batching.vmap_jaxpr(body_jaxpr, axis, [*bcd, *[0] * nk])

  def cond(*args):
    pred, = _eval(vcond, args)
    return [reductions.reduce_or(pred, (0,))]

  def body(*args):
    c, b, k = _split(args, [len(cc), len(bc)])
    pred, = _eval(vcond, [*c, *k])
    new = _eval(vbody, [*b, *k])
    return [ew.select(lax_shape.broadcast_in_dim(pred, core.get_aval(o).shape, (0,)), n, o)
            for n, o in zip(new, k)]

  k_avals = _avals(carry)
  new_cond = _closed_from(cond, [*_avals(cc), *k_avals])
  new_body = _closed_from(body, [*_avals(cc), *_avals(bc), *k_avals])
  outs = while_p.bind(*cc, *cc, *bc, *carry, cond_jaxpr=new_cond, body_jaxpr=new_body,
                      cond_nconsts=len(cc), body_nconsts=len(cc) + len(bc))
  return outs, [0] * nk


def _while_lowering(ctx: hlo.LoweringContext, *args, cond_jaxpr, body_jaxpr, cond_nconsts,
                    body_nconsts):
  avals = [a.aval for a in args]
  tshape = hlo.tuple_str([hlo.shape_str(a) for a in avals])
  n_consts = cond_nconsts + body_nconsts
  # body region first, then the condition region, as JAX prints them
  body_name = ctx.module.region_name()
  sub = hlo.ComputationBuilder(ctx.module, body_name)
  parts = _tuple_param(sub, avals, ctx.prefix, force_tuple=True)
  outs = hlo.lower_jaxpr_into(sub, body_jaxpr.jaxpr, body_jaxpr.consts,
                              parts[cond_nconsts:])
  ctx.module.computations.append(sub.finish([*parts[:n_consts], *outs]))
  cond_name = ctx.module.region_name()
  sub = hlo.ComputationBuilder(ctx.module, cond_name)
  parts = _tuple_param(sub, avals, ctx.prefix, force_tuple=True)
  pred, = hlo.lower_jaxpr_into(sub, cond_jaxpr.jaxpr, cond_jaxpr.consts,
                               [*parts[:cond_nconsts], *parts[n_consts:]])
  ctx.module.computations.append(sub.finish(pred))
  init = ctx.comp.emit(ctx.prefix, tshape, "tuple", [a.name for a in args])
  loop = ctx.comp.emit(ctx.prefix, tshape, "while", [init],
                       f"condition={cond_name}, body={body_name}")
  return _untuple(ctx, loop, avals)[n_consts:]


ad.jvp_rules[while_p] = _while_jvp
batching.batch_rules[while_p] = _while_batch
hlo.lowering_rules[while_p] = _while_lowering


def fori_loop(lower, upper, body_fun: Callable, init_val, *, unroll=None):
  """`for i in range(lower, upper): val = body_fun(i, val)`.

  With concrete bounds this is a scan (so it is reverse-differentiable), else a while loop.
  """
  dt = dtypes.result_type(lower, upper)
  weak = dtypes.is_weakly_typed(lower) and dtypes.is_weakly_typed(upper)
  lo_c, hi_c = core.concrete_value(lower), core.concrete_value(upper)
  if lo_c is not None and hi_c is not None:
    lo_i, hi_i = int(lo_c), int(hi_c)
    i0 = ew.convert_element_type(lo_i, dt, weak)

    def step(carry, _):
      i, x = carry
      return (ew.add(i, ew.convert_element_type(1, dt, weak)), body_fun(i, x)), None

    (_, out), _ = scan(step, (i0, init_val), None, length=max(hi_i - lo_i, 0),
                       unroll=1 if unroll is None else unroll)
    return out
  lower = ew.convert_element_type(lower, dt, weak)
  upper = ew.convert_element_type(upper, dt, weak)
  _, _, out = while_loop(lambda c: ew.lt(c[0], c[1]),
                         lambda c: (ew.add(c[0], ew.convert_element_type(1, dt, weak)), c[1],
                                    body_fun(c[0], c[2])),
                         (lower, upper, init_val))
  return out


# ----------------------------------------------------------------------------- scan


def _scan_abstract_eval(*args, jaxpr, num_consts, num_carry, length, reverse, unroll):
  outs = jaxpr.out_avals
  return [*outs[:num_carry],
          *(ShapedArray((length, *a.shape), a.dtype, a.weak_type) for a in outs[num_carry:])]


scan_p = standard_primitive("scan", _scan_abstract_eval, multiple_results=True)


def _flatten_scan_out(out):
  if not isinstance(out, (tuple, list)) or len(out) != 2:
    raise TypeError("scan body must return a pair (carry, y)")
  c, c_tree = tree_util.tree_flatten(out[0])
  y, y_tree = tree_util.tree_flatten(out[1])
  return c + y, (c_tree, y_tree)


def scan(f: Callable, init, xs=None, length: int | None = None, reverse: bool = False,
         unroll=1, _split_transpose: bool = False):
  """`carry, y = f(carry, x)` over the leading axis of `xs`; returns (carry, stacked ys)."""
  xs_flat, xs_tree = tree_util.tree_flatten(xs)
  lengths = {core.get_aval(x).shape[0] for x in xs_flat if core.get_aval(x).ndim}
  if any(core.get_aval(x).ndim == 0 for x in xs_flat):
    raise ValueError("scan got a scalar in xs; every xs leaf needs a leading axis")
  if length is not None:
    lengths.add(int(length))
  if len(lengths) != 1:
    raise ValueError(f"scan got inconsistent or missing lengths: {sorted(lengths) or 'none'}; "
                     "pass length= when xs is None")
  length = lengths.pop()
  init_flat, init_tree = tree_util.tree_flatten(init)
  in_tree = tree_util.tree_structure((init, xs))
  x_avals = [core.get_aval(x) for x in xs_flat]
  x_avals = [a.update(shape=a.shape[1:]) for a in x_avals]

  for _ in range(2):
    avals = [core.get_aval(x) for x in init_flat] + x_avals
    jaxpr, consts, (c_tree, y_tree) = _trace_fun(f, in_tree, avals, _flatten_scan_out)
    if c_tree != init_tree:
      raise TypeError(f"scan: the carry output structure {c_tree} differs from the input "
                      f"structure {init_tree}")
    init_flat, changed = _promote_weak(init_flat, avals, jaxpr.out_avals[:len(init_flat)])
    if not changed:
      break
  _check_same_types("scan carry input and output", avals[:len(init_flat)],
                    jaxpr.out_avals[:len(init_flat)])
  outs = scan_p.bind(*consts, *init_flat, *xs_flat, jaxpr=jaxpr, num_consts=len(consts),
                     num_carry=len(init_flat), length=length, reverse=bool(reverse),
                     unroll=int(unroll) if not isinstance(unroll, bool) else int(unroll))
  carry, ys = outs[:len(init_flat)], outs[len(init_flat):]
  return init_tree.unflatten(carry), y_tree.unflatten(ys)


def map(f: Callable, xs, *, batch_size: int | None = None):  # noqa: A001 (lax name)
  """`stack([f(x) for x in xs])` as a scan (batch_size groups elements and vmaps f)."""
  if batch_size is not None:
    leaves, tree = tree_util.tree_flatten(xs)
    n = core.get_aval(leaves[0]).shape[0]
    nb, rem = divmod(n, batch_size)
    main = [lax_shape.reshape(_slice_in_dim(x, 0, nb * batch_size) if rem else x,
                              (nb, batch_size, *core.get_aval(x).shape[1:])) for x in leaves]
    ys = map(batching.vmap_fun(f), tree.unflatten(main))
    ys = tree_util.tree_map(lambda y: lax_shape.reshape(y, (nb * batch_size, *y.shape[2:])), ys)
    if rem:
      tail = [_slice_in_dim(x, nb * batch_size, n) for x in leaves]
      ys_tail = batching.vmap_fun(f)(tree.unflatten(tail))
      ys = tree_util.tree_map(lambda a, b: lax_shape.concatenate([a, b], 0), ys, ys_tail)
    return ys
  _, ys = scan(lambda _, x: ((), f(x)), (), xs)
  return ys


def _scan_loop(*args, jaxpr, num_consts, num_carry, length, reverse, unroll):
  """scan as a while loop over an index (used to lower scan_p)."""
  consts, init, xs = _split(args, [num_consts, num_carry])
  ys_avals = jaxpr.out_avals[num_carry:]
  ys_init = [lax_shape.full((length, *a.shape), 0, a.dtype) for a in ys_avals]
  if length == 0:
    # Nothing runs; a loop body slicing zero-length xs would not even be well typed.
    return [*init, *ys_init]
  i0 = ew.convert_element_type(0, np.int32)

  def body(c):
    i, carry, ys = c
    idx = ew.sub(ew.convert_element_type(length - 1, np.int32), i) if reverse else i
    x = [slicing.dynamic_index_in_dim(v, idx, 0, keepdims=False) for v in xs]
    outs = _eval(jaxpr, [*consts, *carry, *x])
    new_carry, y = outs[:num_carry], outs[num_carry:]
    ys = [slicing.dynamic_update_index_in_dim(b, v, idx, 0) for b, v in zip(ys, y)]
    return ew.add(i, ew.convert_element_type(1, np.int32)), new_carry, ys

  cond = lambda c: ew.lt(c[0], ew.convert_element_type(length, np.int32))
  _, carry, ys = while_loop(cond, body, (i0, list(init), ys_init))
  return [*carry, *ys]


def _scan_lowering(ctx: hlo.LoweringContext, *args, **params):
  jaxpr, consts = pe.trace_to_jaxpr_dynamic(lambda *a: _scan_loop(*a, **params), ctx.avals_in)
  return hlo.lower_jaxpr_into(ctx.comp, jaxpr, consts, args)


def _scan_jvp(primals, tangents, *, jaxpr, num_consts, num_carry, length, reverse, unroll):
  nc, nk = num_consts, num_carry
  c, k, x = _split(primals, [nc, nk])
  ct, kt, xt = _split(tangents, [nc, nk])
  nx, ny = len(x), len(jaxpr.out_avals) - nk
  jvp = ad.jvp_jaxpr(jaxpr)
  avals = jaxpr.in_avals
  ca, ka, xa = _split(avals, [nc, nk])

  def body(*args):
    c_, ct_, k_, kt_, x_, xt_ = _split(args, [nc, nc, nk, nk, nx])
    outs = _eval(jvp, [*c_, *k_, *x_, *ct_, *kt_, *xt_])
    ko, yo, kto, yto = _split(outs, [nk, ny, nk])
    return [*ko, *kto, *yo, *yto]

  new = _closed_from(body, [*ca, *ca, *ka, *ka, *xa, *xa])
  outs = scan_p.bind(*c, *ct, *k, *kt, *x, *xt, jaxpr=new, num_consts=2 * nc, num_carry=2 * nk,
                     length=length, reverse=reverse, unroll=unroll)
  ko, kto, yo, yto = _split(outs, [nk, nk, ny])
  return [*ko, *yo], [*kto, *yto]


def _scan_partial_eval_jaxpr(eqn: JaxprEqn, unknowns):
  p = eqn.params
  jaxpr, nc, nk, length = p["jaxpr"], p["num_consts"], p["num_carry"], p["length"]
  ny = len(jaxpr.out_avals) - nk
  c_uk, k_uk, x_uk = _split(list(unknowns), [nc, nk])
  while True:  # a carry is unknown if it is unknown after some iteration
    _, _, out_uks, _ = pe.partial_eval_closed(jaxpr, c_uk + k_uk + x_uk, k_uk + [False] * ny)
    new = [a or b for a, b in zip(k_uk, out_uks[:nk])]
    if new == k_uk:
      break
    k_uk = new
  uks = c_uk + k_uk + x_uk
  known, unknown, out_uks, num_res = pe.partial_eval_closed(jaxpr, uks, k_uk + [False] * ny)
  res_avals = known.out_avals[len(known.out_avals) - num_res:]
  res_vars = [Var(ShapedArray((length, *a.shape), a.dtype, a.weak_type)) for a in res_avals]
  c_in, k_in, x_in = _split(eqn.inputs, [nc, nk])
  k_out, y_out = _split(eqn.out_binders, [nk])[:2]
  pick = lambda xs, flags, want: [x for x, f in zip(xs, flags) if f == want]
  known_eqn = JaxprEqn(
      scan_p, pick(c_in, c_uk, False) + pick(k_in, k_uk, False) + pick(x_in, x_uk, False),
      dict(p, jaxpr=known, num_consts=c_uk.count(False), num_carry=k_uk.count(False)),
      pick(k_out, k_uk, False) + pick(y_out, out_uks[nk:], False) + res_vars)
  n_uc, n_uk = c_uk.count(True), k_uk.count(True)
  uk_in_avals = unknown.in_avals[num_res:]
  ua_c, ua_k, ua_x = _split(uk_in_avals, [n_uc, n_uk])

  def ufun(*args):
    uc, ukk, r, ux = _split(args, [n_uc, n_uk, num_res])
    return _eval(unknown, [*r, *uc, *ukk, *ux])

  new_unknown = _closed_from(ufun, [*ua_c, *ua_k, *res_avals, *ua_x])
  unknown_eqn = JaxprEqn(
      scan_p, pick(c_in, c_uk, True) + pick(k_in, k_uk, True) + res_vars + pick(x_in, x_uk, True),
      dict(p, jaxpr=new_unknown, num_consts=n_uc, num_carry=n_uk),
      pick(k_out, k_uk, True) + pick(y_out, out_uks[nk:], True))
  return [known_eqn], [unknown_eqn], k_uk + out_uks[nk:]


def _scan_transpose(cts, *args, jaxpr, num_consts, num_carry, length, reverse, unroll):
  nc, nk = num_consts, num_carry
  c, k, x = _split(args, [nc, nk])
  c_lin = [ad.is_undefined_primal(v) for v in c]
  k_lin = [ad.is_undefined_primal(v) for v in k]
  x_lin = [ad.is_undefined_primal(v) for v in x]
  # A carry whose init is known (the instantiated zero tangent of a constant
  # init, as in an RNN started from zeros) is still linear in the body: the
  # only known value a linear scan's carry can start from is zero. Its init
  # gets no cotangent.
  k_known = [not lin for lin in k_lin]
  k_lin = [True] * nk
  ny = len(jaxpr.out_avals) - nk
  out_avals = _scan_abstract_eval(jaxpr=jaxpr, num_consts=nc, num_carry=nk, length=length,
                                  reverse=reverse, unroll=unroll)
  cts = [ad.instantiate_zeros(ct, a) for ct, a in zip(cts, out_avals)]
  ct_k, ct_y = cts[:nk], cts[nk:]
  res_c = [v for v, lin in zip(c, c_lin) if not lin]
  res_x = [v for v, lin in zip(x, x_lin) if not lin]
  t = ad.transpose_jaxpr(jaxpr, c_lin + k_lin + x_lin)
  ca, ka, xa = _split(jaxpr.in_avals, [nc, nk])
  lin_ca = [a for a, lin in zip(ca, c_lin) if lin]
  n_lc = len(lin_ca)
  ya = jaxpr.out_avals[nk:]

  def body(*a):
    rc, acc, kc, cy, rx = _split(a, [len(res_c), n_lc, nk, ny])
    outs = _eval(t, [*rc, *rx, *kc, *cy])
    ctc, ctk, ctx = _split(outs, [n_lc, nk])
    return [*(ad.add_tangents(s, d) for s, d in zip(acc, ctc)), *ctk, *ctx]

  new = _closed_from(body, [*_avals(res_c), *lin_ca, *ka, *ya,
                            *(a.update(shape=a.shape[1:]) for a in _avals(res_x))])
  acc0 = [_zeros(a) for a in lin_ca]
  outs = scan_p.bind(*res_c, *acc0, *ct_k, *ct_y, *res_x, jaxpr=new, num_consts=len(res_c),
                     num_carry=n_lc + nk, length=length, reverse=not reverse, unroll=unroll)
  ct_c, ct_init, ct_x = _split(outs, [n_lc, nk])
  ct_init = [None if known else ct for ct, known in zip(ct_init, k_known)]
  ct_c, ct_x = iter(ct_c), iter(ct_x)
  return ([next(ct_c) if lin else None for lin in c_lin] + ct_init +
          [next(ct_x) if lin else None for lin in x_lin])


def _scan_batch(axis, vals, dims, *, jaxpr, num_consts, num_carry, length, reverse, unroll):
  c, k, x = _split(vals, [num_consts, num_carry])
  cd, kd, xd = _split(dims, [num_consts, num_carry])
  c = [v if d is None else batching.moveaxis(v, d, 0) for v, d in zip(c, cd)]
  k = [batching.bdim_at_front(v, d, axis.size) for v, d in zip(k, kd)]
  x = [v if d is None else batching.moveaxis(v, d, 1) for v, d in zip(x, xd)]
  in_dims = ([None if d is None else 0 for d in cd] + [0] * len(k) +
             [None if d is None else 0 for d in xd])
  new = batching.vmap_jaxpr(jaxpr, axis, in_dims)
  outs = scan_p.bind(*c, *k, *x, jaxpr=new, num_consts=num_consts, num_carry=num_carry,
                     length=length, reverse=reverse, unroll=unroll)
  return outs, [0] * num_carry + [1] * (len(outs) - num_carry)


ad.jvp_rules[scan_p] = _scan_jvp
pe.def_partial_eval_jaxpr_rule(scan_p, _scan_partial_eval_jaxpr)
ad.transpose_rules[scan_p] = _scan_transpose
batching.batch_rules[scan_p] = _scan_batch
hlo.lowering_rules[scan_p] = _scan_lowering


# ----------------------------------------------------------------------------- associative_scan


def associative_scan(fn: Callable, elems, reverse: bool = False, axis: int = 0):
  """Inclusive scan of an associative `fn` along `axis` (the parallel prefix algorithm)."""
  leaves, tree = tree_util.tree_flatten(elems)
  if reverse:
    leaves = [lax_shape.rev(x, (axis,)) for x in leaves]
  ndim = core.get_aval(leaves[0]).ndim
  axis = axis % ndim
  combine = lambda a, b: tree_util.tree_leaves(fn(tree.unflatten(a), tree.unflatten(b)))

  def sl(x, start, stop=None, step=1):
    n = core.get_aval(x).shape[axis]
    stop = n if stop is None else stop
    return _slice_in_dim(x, start, stop, step, axis)

  def interleave(a, b):
    # out[0::2] = a, out[1::2] = b; len(a) is len(b) or len(b) + 1
    na, nb = core.get_aval(a).shape[axis], core.get_aval(b).shape[axis]
    zero = lax_shape.full((), 0, core.get_aval(a).dtype)
    cfg = [(0, 0, 0)] * ndim
    cfg_a, cfg_b = list(cfg), list(cfg)
    cfg_a[axis] = (0, 1 if na == nb else 0, 1)
    cfg_b[axis] = (1, 0 if na == nb else 1, 1)
    join = ew.bitwise_or if core.get_aval(a).dtype == dtypes.bool_ else ew.add
    return join(lax_shape.pad(a, zero, cfg_a), lax_shape.pad(b, zero, cfg_b))

  def scan_rec(xs):
    n = core.get_aval(xs[0]).shape[axis]
    if n < 2:
      return xs
    reduced = combine([sl(x, 0, n - 1, 2) for x in xs], [sl(x, 1, None, 2) for x in xs])
    odd = scan_rec(reduced)
    if n % 2 == 0:
      even = combine([sl(o, 0, -1 + core.get_aval(o).shape[axis]) for o in odd],
                     [sl(x, 2, None, 2) for x in xs])
    else:
      even = combine(odd, [sl(x, 2, None, 2) for x in xs])
    even = [lax_shape.concatenate([sl(x, 0, 1), e], axis) for x, e in zip(xs, even)]
    return [interleave(e, o) for e, o in zip(even, odd)]

  outs = scan_rec(leaves)
  if reverse:
    outs = [lax_shape.rev(x, (axis,)) for x in outs]
  return tree.unflatten(outs)


# reductions and slicing, below this module, scan and map with these (see utils.late_op).
register_late_ops(associative_scan=associative_scan, map=map)
