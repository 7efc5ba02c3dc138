"""User-defined derivatives: custom_jvp, custom_vjp; plus stop_gradient and checkpoint.

`custom_jvp_call` carries the traced function (a closed jaxpr, used by evaluation,
staging and lowering) and a *flat* Python JVP function used by its JVP rule, so
transformations above JVP never see the original function's derivative.
`custom_vjp_call`'s JVP rule runs the user's forward function and emits
`custom_lin`, a linear primitive with no evaluation rule whose transpose calls the
user's backward function. Batching vmaps the flat Python rules alongside the jaxpr.

A call is handled by the trace its arguments belong to, as in JAX: with no trace
the function simply runs; under a JVP trace (jvp, grad, jacfwd...) only the user's
rule runs, on the values one level down (concrete arrays when differentiating
eagerly), so neither the function nor a tracing of it happens; under any other
trace (jit, vmap, partial evaluation) the function is traced and the primitive
bound, keeping the rules for a later differentiation.
"""

from __future__ import annotations

import functools
import weakref
from typing import Any, Callable, NamedTuple

from jax._src import core
from jax._src import tree_util
from jax._src.core import ClosedJaxpr
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.interpreters import partial_eval as pe
from jax._src.lowering import hlo


def _trace(fun: Callable, leaves) -> tuple[ClosedJaxpr, list, Any]:
  """Trace `fun(*leaves) -> pytree`; consts become leading operands."""
  store = []

  def flat(*xs):
    out, tree = tree_util.tree_flatten(fun(*xs))
    store.append(tree)
    return out

  jaxpr, consts = pe.trace_to_jaxpr_dynamic(flat, [core.get_aval(x) for x in leaves])
  return ClosedJaxpr(pe.convert_constvars_jaxpr(jaxpr), []), consts, store[0]


def _resolve_args(fun, args, kwargs):
  """Positional arguments with keywords and defaults filled in, as JAX resolves them:
  a nondiff argument left at its default still has its position."""
  sig = _signature(fun)
  if sig is None:
    return tuple(args)
  bound = sig.bind(*args, **kwargs)
  bound.apply_defaults()
  return tuple(bound.args)


_SIGNATURES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _signature(fun):
  """inspect.signature of `fun` (None for callables without one), cached per function
  without keeping it alive."""
  try:
    return _SIGNATURES[fun]
  except (KeyError, TypeError):
    pass
  import inspect  # deferred: needed once per custom-derivative function
  try:
    sig = inspect.signature(fun)
  except (TypeError, ValueError):  # builtins without a signature
    sig = None
  try:
    _SIGNATURES[fun] = sig
  except TypeError:  # not weakly referenceable: resolved again next time
    pass
  return sig


def _nondiff_argnums(fun: Callable, nondiff_argnums, nondiff_argnames) -> tuple[int, ...]:
  nums = set(nondiff_argnums)
  if nondiff_argnames:
    import inspect  # only names need the signature
    params = list(inspect.signature(fun).parameters)
    for name in nondiff_argnames:
      if name not in params:
        raise ValueError(f"nondiff_argnames {name!r} is not a parameter of {fun}")
      nums.add(params.index(name))
  return tuple(sorted(nums))


# A zero tangent or cotangent kept symbolic: what `symbolic_zeros=True` rules receive for
# inputs that are not differentiated, and may return for zero outputs. One class with
# autodiff's own zeros, so that rules' type checks see what the machinery hands them.
SymbolicZero = ad.Zero


def zero_from_primal(x, symbolic_zeros: bool = False):
  """The zero tangent of each leaf of `x` (SymbolicZeros when `symbolic_zeros`)."""
  make = (lambda v: SymbolicZero(core.get_aval(v))) if symbolic_zeros else ad.zeros_like
  return tree_util.tree_map(make, x)


class CustomVJPPrimal:
  """What a `symbolic_zeros=True` fwd rule receives per input: the value, and whether
  it is being differentiated (False: its cotangent is not needed). Not a tuple, so
  tree_map over a rule's inputs sees one leaf per input, as in JAX."""

  __slots__ = ("value", "perturbed")

  def __init__(self, value: Any, perturbed: bool):
    self.value, self.perturbed = value, perturbed

  def __repr__(self):
    return f"CustomVJPPrimal(value={self.value!r}, perturbed={self.perturbed})"


def _zero_if_symbolic(t, like):
  # Zeros take the primal's type (a SymbolicZero of an integer may say float0).
  if t is None or isinstance(t, SymbolicZero):
    return ad.zeros_like(like)
  return t


def _perturbed(trace, leaves) -> list[bool]:
  """Which leaves carry a nonzero tangent of `trace`."""
  return [isinstance(x, ad.JVPTracer) and core.traced_by(x, trace)
          and type(x.tangent) is not ad.Zero for x in leaves]


def _top_trace(leaves) -> core.Trace:
  """The trace that processes an operation on `leaves` (the eval trace when none)."""
  return core.find_top_trace(leaves)


def _split_nondiff(args, nondiff_argnums):
  static = [args[i] for i in nondiff_argnums]
  dyn = [a for i, a in enumerate(args) if i not in nondiff_argnums]
  return static, dyn


def _call_jaxpr_lowering(ctx, *args, call_jaxpr, **_):
  return hlo.lower_jaxpr_into(ctx.comp, call_jaxpr.jaxpr, call_jaxpr.consts, args)


def _call_jaxpr_impl(*args, call_jaxpr, **_):
  return core.eval_jaxpr(call_jaxpr.jaxpr, call_jaxpr.consts, args)


def _vmap_flat_fn(fn: Callable, axis) -> Callable:
  """A flat function batched at axis 0 on every input and output (zero tangents are
  batched as arrays)."""
  def batched(*args, **kwargs):
    args = [ad.instantiate(a) for a in args]
    return batching.vmap_flat(lambda *a: list(fn(*a, **kwargs)), axis, [0] * len(args), None,
                              args)
  return batched


def _front(axis, vals, dims):
  return [batching.bdim_at_front(v, d, axis.size) for v, d in zip(vals, dims)]


# ----------------------------------------------------------------------------- custom_jvp


custom_jvp_call_p = core.Primitive("custom_jvp_call", multiple_results=True)
custom_jvp_call_p.def_impl(_call_jaxpr_impl)
custom_jvp_call_p.def_abstract_eval(lambda *avals, call_jaxpr, jvp, num_consts: call_jaxpr.out_avals)


def _custom_jvp_call_jvp(primals, tangents, *, call_jaxpr, jvp, num_consts):
  outs = jvp(*primals[num_consts:], *tangents[num_consts:])
  n = len(outs) // 2
  return outs[:n], outs[n:]


def _batch_custom_call(prim, what, axis, vals, dims, call_jaxpr, num_consts, **rules):
  """vmap of a custom_jvp/custom_vjp call: the primal jaxpr and each user rule
  (jvp, or fwd and bwd) are vmapped with every operand batched at the front."""
  # Constants the function closes over stay unbatched (the rules never see them); only a
  # closed-over value that is itself batched cannot be handled.
  if any(d is not batching.not_mapped for d in dims[:num_consts]):
    raise NotImplementedError(f"vmap of a {what} function that closes over traced values")
  vals = list(vals[:num_consts]) + _front(axis, vals[num_consts:], dims[num_consts:])
  new_jaxpr = batching.vmap_jaxpr(call_jaxpr, axis,
                                  [batching.not_mapped] * num_consts + [0] * (len(vals) - num_consts))
  outs = prim.bind(*vals, call_jaxpr=new_jaxpr, num_consts=num_consts,
                   **{name: _vmap_flat_fn(fn, axis) for name, fn in rules.items()})
  return outs, [0] * len(outs)


def _custom_jvp_call_batch(axis, vals, dims, *, call_jaxpr, jvp, num_consts):
  return _batch_custom_call(custom_jvp_call_p, "custom_jvp", axis, vals, dims, call_jaxpr,
                            num_consts, jvp=jvp)


ad.jvp_rules[custom_jvp_call_p] = _custom_jvp_call_jvp
ad.symbolic_zero_rules.add(custom_jvp_call_p)
batching.batch_rules[custom_jvp_call_p] = _custom_jvp_call_batch
hlo.lowering_rules[custom_jvp_call_p] = _call_jaxpr_lowering


class custom_jvp:
  """A function with a user-given JVP: `@custom_jvp def f(...)`, then `@f.defjvp`.

  Called outside any transformation, `f` runs as written. Under forward or reverse
  differentiation only the JVP rule runs (the primal function does not), on the
  values of the trace below: concrete arrays when differentiating eagerly. Under
  jit and vmap the primal function is traced and the rule is kept for later.
  """

  def __init__(self, fun: Callable, nondiff_argnums=(), nondiff_argnames=()):
    functools.update_wrapper(self, fun)
    self.fun = fun
    self.nondiff_argnums = _nondiff_argnums(fun, nondiff_argnums, nondiff_argnames)
    self.jvp: Callable | None = None
    self.symbolic_zeros = False

  def __get__(self, obj, objtype=None):
    # A custom_jvp stored on a class is a method, as a plain function would be.
    return self if obj is None else functools.partial(self, obj)

  def defjvp(self, jvp: Callable, symbolic_zeros: bool = False) -> Callable:
    """Set the rule `jvp(*nondiff_args, primals, tangents) -> (primal_out, tangent_out)`."""
    self.jvp = jvp
    self.symbolic_zeros = symbolic_zeros
    return jvp

  def defjvps(self, *jvps: Callable | None) -> None:
    """One rule per argument, `rule(tangent, primal_out, *primals) -> tangent_out`."""
    if self.nondiff_argnums:
      raise TypeError("Can't use ``defjvps`` with ``nondiff_argnums``.")

    def jvp(primals, tangents):
      ans = self(*primals)
      total = None
      for fn, t in zip(jvps, tangents):
        if fn is not None:
          d = fn(t, ans, *primals)
          total = d if total is None else tree_util.tree_map(lambda a, b: a + b, total, d)
      return ans, total if total is not None else tree_util.tree_map(ad.zeros_like, ans)
    self.jvp = jvp

  def __call__(self, *args, **kwargs):
    if self.jvp is None:
      raise AttributeError(f"No JVP defined for custom_jvp function {self.__name__} using defjvp.")
    args = _resolve_args(self.fun, args, kwargs)
    static, dyn = _split_nondiff(args, self.nondiff_argnums)
    leaves, in_tree = tree_util.tree_flatten(tuple(dyn))
    rebuild = functools.partial(_rebuild, args, self.nondiff_argnums)
    trace = _top_trace(leaves)
    if isinstance(trace, core.EvalTrace):
      return self.fun(*args)
    user_jvp, out_tree_box, symbolic = self.jvp, [], self.symbolic_zeros

    def jvp_flat(*primals_and_tangents):
      n = len(primals_and_tangents) // 2
      primals = in_tree.unflatten(primals_and_tangents[:n])
      tangents = primals_and_tangents[n:]
      if not symbolic:
        tangents = [ad.instantiate(t) for t in tangents]
      tangents = in_tree.unflatten(tangents)
      out, t_out = user_jvp(*static, tuple(primals), tuple(tangents))
      out_leaves, out_tree = tree_util.tree_flatten(out)
      if out_tree_box and out_tree_box[0] != out_tree:
        raise TypeError("Custom JVP rule must produce primal outputs with the same structure "
                        f"as the custom_jvp function: {out_tree_box[0]} vs {out_tree}")
      out_tree_box[:] = [out_tree]
      t_leaves = _tangents_like(t_out, out_tree, out_leaves)
      return [*out_leaves, *t_leaves]

    if isinstance(trace, ad.JVPTrace):
      if not any(_perturbed(trace, leaves)):
        return self(*rebuild(in_tree.unflatten(_primals_below(trace, leaves))))
      outs = _jvp_direct(trace, leaves, jvp_flat)
      return out_tree_box[0].unflatten(outs)
    fun = lambda *xs: self.fun(*rebuild(in_tree.unflatten(xs)))
    closed, consts, out_tree = _trace(fun, leaves)
    out_tree_box.append(out_tree)
    outs = custom_jvp_call_p.bind(*consts, *leaves, call_jaxpr=closed, jvp=jvp_flat,
                                  num_consts=len(consts))
    return out_tree.unflatten(outs)


def _rebuild(args, nondiff_argnums, dyn_args) -> list:
  """The full argument list from the differentiable ones (nondiff ones kept from `args`)."""
  full, it = [], iter(dyn_args)
  for i in range(len(args)):
    full.append(args[i] if i in nondiff_argnums else next(it))
  return full


def _tangents_like(t_out, out_tree, out_leaves) -> list:
  """The tangent leaves of a rule's output; None leaves and a None tree mean zeros."""
  if t_out is None:
    return [ad.zeros_like(x) for x in out_leaves]
  if isinstance(t_out, SymbolicZero):
    return [ad.zeros_like(x) for x in out_leaves]
  t_leaves = out_tree.flatten_up_to(t_out)
  return [_zero_if_symbolic(t, x) for t, x in zip(t_leaves, out_leaves)]


def _primals_below(trace, leaves) -> list:
  """The values of `leaves` one level below `trace` (what its rules run on)."""
  return [core.full_lower(core.full_raise(trace, x).primal) for x in leaves]


def _jvp_direct(trace, leaves, jvp_flat) -> list:
  """Differentiate a custom_jvp call at `trace` by running the rule on the values below."""
  tracers = [core.full_raise(trace, x) for x in leaves]
  primals = [core.full_lower(t.primal) for t in tracers]
  outs = jvp_flat(*primals, *(t.tangent for t in tracers))
  n = len(outs) // 2
  return [ad.JVPTracer(trace, p, t) for p, t in zip(outs[:n], outs[n:])]


# ----------------------------------------------------------------------------- custom_vjp


custom_vjp_call_p = core.Primitive("custom_vjp_call", multiple_results=True)
custom_vjp_call_p.def_impl(_call_jaxpr_impl)
custom_vjp_call_p.def_abstract_eval(lambda *avals, call_jaxpr, fwd, bwd, num_consts: call_jaxpr.out_avals)

custom_lin_p = core.Primitive("custom_lin", multiple_results=True)
custom_lin_p.def_abstract_eval(lambda *avals, num_res, bwd, out_avals: list(out_avals))


def _custom_lin_impl(*args, **_):
  raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


custom_lin_p.def_impl(_custom_lin_impl)


def _cotangent_leaves(ct, x) -> list:
  """The leaves of a bwd rule's cotangent `ct` for the argument `x`, one per leaf of `x`.

  As in JAX, `ct` may stop where `x` goes on into a node with a single leaf (flax's
  variables wrap one array): that leaf's cotangent is the array at the node's place.
  """
  try:
    return tree_util.tree_structure(x).flatten_up_to(ct)
  except ValueError as e:
    error = e
  ct_leaves, ct_tree = tree_util.tree_flatten(ct, is_leaf=lambda c: c is None)
  try:
    x_parts = ct_tree.flatten_up_to(x)
  except ValueError:
    raise error from None
  out = []
  for c, part in zip(ct_leaves, x_parts):
    n = len(tree_util.tree_leaves(part))
    if c is not None and n != 1:
      raise error
    out += [c] if c is not None else [None] * n
  return out


def _custom_lin_transpose(cts, *args, num_res, bwd, out_avals):
  res = args[:num_res]
  cts = [ad.Zero(a) if c is None else c for c, a in zip(cts, out_avals)]
  cts_in = bwd(*res, *cts)
  return [None] * num_res + list(cts_in)


ad.transpose_rules[custom_lin_p] = _custom_lin_transpose


def _custom_vjp_call_jvp(primals, tangents, *, call_jaxpr, fwd, bwd, num_consts):
  primals, tangents = primals[num_consts:], tangents[num_consts:]
  outs = fwd(*primals, perturbed=[type(t) is not ad.Zero for t in tangents])
  n_out = len(call_jaxpr.out_avals)
  out, res = outs[:n_out], outs[n_out:]
  t_out = custom_lin_p.bind(*res, *map(ad.instantiate, tangents), num_res=len(res), bwd=bwd,
                            out_avals=tuple(core.get_aval(o) for o in out))
  return out, t_out


def _custom_vjp_call_batch(axis, vals, dims, *, call_jaxpr, fwd, bwd, num_consts):
  return _batch_custom_call(custom_vjp_call_p, "custom_vjp", axis, vals, dims, call_jaxpr,
                            num_consts, fwd=fwd, bwd=bwd)


ad.jvp_rules[custom_vjp_call_p] = _custom_vjp_call_jvp
ad.symbolic_zero_rules.add(custom_vjp_call_p)
batching.batch_rules[custom_vjp_call_p] = _custom_vjp_call_batch
hlo.lowering_rules[custom_vjp_call_p] = _call_jaxpr_lowering


class custom_vjp:
  """A function with a user-given VJP: `@custom_vjp def f(...)`, then `f.defvjp(fwd, bwd)`.

  Called outside any transformation, `f` runs as written. Under differentiation only
  `fwd` runs (the primal function does not) and `bwd` runs in the backward pass;
  under jit and vmap the primal function is traced and the rules kept for later.
  """

  def __init__(self, fun: Callable, nondiff_argnums=(), nondiff_argnames=()):
    functools.update_wrapper(self, fun)
    self.fun = fun
    self.nondiff_argnums = _nondiff_argnums(fun, nondiff_argnums, nondiff_argnames)
    self.fwd: Callable | None = None
    self.bwd: Callable | None = None
    self.symbolic_zeros = False

  def __get__(self, obj, objtype=None):
    return self if obj is None else functools.partial(self, obj)

  def defvjp(self, fwd: Callable, bwd: Callable, symbolic_zeros: bool = False,
             optimize_remat: bool = False) -> None:
    """`fwd(*args) -> (out, residuals)`; `bwd(*nondiff_args, residuals, ct) -> input cts`.

    `optimize_remat` (JAX's memory optimisation for rematerialised fwd rules) is
    accepted; values are the same without it.
    """
    self.fwd, self.bwd = fwd, bwd
    self.symbolic_zeros = symbolic_zeros

  def __call__(self, *args, **kwargs):
    if self.fwd is None:
      raise AttributeError(f"No VJP defined for custom_vjp function {self.__name__} using defvjp.")
    args = _resolve_args(self.fun, args, kwargs)
    static, dyn = _split_nondiff(args, self.nondiff_argnums)
    leaves, in_tree = tree_util.tree_flatten(tuple(dyn))
    rebuild = functools.partial(_rebuild, args, self.nondiff_argnums)
    trace = _top_trace(leaves)
    if isinstance(trace, core.EvalTrace):
      return self.fun(*args)
    user_fwd, user_bwd = self.fwd, self.bwd
    res_tree_box, out_tree_box = [], []

    symbolic = self.symbolic_zeros

    def fwd_flat(*xs, perturbed=None):
      if symbolic:
        flags = [True] * len(xs) if perturbed is None else perturbed
        xs = [CustomVJPPrimal(x, p) for x, p in zip(xs, flags)]
      pair = user_fwd(*rebuild(in_tree.unflatten(xs)))
      if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
        raise TypeError("Custom VJP fwd rule must produce a pair (list or tuple of length two) "
                        f"of primal outputs and residuals, got {type(pair).__name__}.")
      out, res = pair
      out_leaves, out_tree = tree_util.tree_flatten(out)
      res_leaves, res_tree = tree_util.tree_flatten(res)
      out_tree_box[:], res_tree_box[:] = [out_tree], [res_tree]
      return [*out_leaves, *res_leaves]

    def bwd_flat(*res_and_cts):
      n_res = res_tree_box[0].num_leaves
      res = res_tree_box[0].unflatten(res_and_cts[:n_res])
      cts = res_and_cts[n_res:]
      if not symbolic:
        cts = [ad.instantiate(c) for c in cts]
      cts = out_tree_box[0].unflatten(cts)
      cts_in = user_bwd(*static, res, cts)
      if not isinstance(cts_in, (tuple, list)) or len(cts_in) != len(dyn):
        raise TypeError(f"Custom VJP bwd rule must produce a tuple of length {len(dyn)} (one "
                        f"cotangent per differentiable argument), got {cts_in!r}")
      flat = []
      for ct, x in zip(tuple(cts_in), dyn):
        x_leaves = tree_util.tree_leaves(x)
        if ct is None or isinstance(ct, SymbolicZero):
          flat += [ad.zeros_like(leaf) for leaf in x_leaves]
        else:
          ct_leaves = _cotangent_leaves(ct, x)
          flat += [_zero_if_symbolic(c, leaf) for c, leaf in zip(ct_leaves, x_leaves)]
      return flat

    if isinstance(trace, ad.JVPTrace):
      perturbed = _perturbed(trace, leaves)
      if not any(perturbed):
        return self(*rebuild(in_tree.unflatten(_primals_below(trace, leaves))))
      tracers = [core.full_raise(trace, x) for x in leaves]
      outs = fwd_flat(*[core.full_lower(t.primal) for t in tracers], perturbed=perturbed)
      n_out = out_tree_box[0].num_leaves
      out, res = outs[:n_out], outs[n_out:]
      t_out = custom_lin_p.bind(*res, *[ad.instantiate(t.tangent) for t in tracers],
                                num_res=len(res),
                                bwd=bwd_flat, out_avals=tuple(core.get_aval(o) for o in out))
      return out_tree_box[0].unflatten(
          [ad.JVPTracer(trace, p, t) for p, t in zip(out, t_out)])
    fun = lambda *xs: self.fun(*rebuild(in_tree.unflatten(xs)))
    closed, consts, out_tree = _trace(fun, leaves)
    outs = custom_vjp_call_p.bind(*consts, *leaves, call_jaxpr=closed, fwd=fwd_flat,
                                  bwd=bwd_flat, num_consts=len(consts))
    return out_tree.unflatten(outs)


def custom_gradient(fun: Callable) -> Callable:
  """`fun(*args) -> (out, vjp)` with `vjp(ct) -> tuple of input cotangents` becomes a
  function returning `out` whose derivative is given by `vjp`."""

  @functools.wraps(fun)
  def wrapper(*args, **kwargs):
    pullback_box = []

    def primal(*xs):
      return fun(*xs, **kwargs)[0]

    def fwd(*xs):
      out, rule = fun(*xs, **kwargs)
      # The rule may close over traced values: they become explicit residuals.
      converted, residuals = convert_closure(rule, out)
      pullback_box[:] = [converted]
      return out, residuals

    def bwd(residuals, ct):
      cts = pullback_box[0](ct, *residuals)
      return tuple(cts) if isinstance(cts, (tuple, list)) else (cts,)

    f = custom_vjp(primal)
    f.defvjp(fwd, bwd)
    return f(*args)

  return wrapper


def convert_closure(fun: Callable, example):
  """`(converted, consts)` with `converted(x, *consts) == fun(x)`; traced closed-over
  values become `consts` (see `jax.closure_convert`)."""
  leaves, in_tree = tree_util.tree_flatten(example)
  out_store = []

  def flat(*xs):
    out, tree = tree_util.tree_flatten(fun(in_tree.unflatten(xs)))
    out_store.append(tree)
    return out

  jaxpr, consts = pe.trace_to_jaxpr_dynamic(flat, [core.get_aval(x) for x in leaves])

  def converted(x, *given):
    outs = core.eval_jaxpr(jaxpr, given, in_tree.flatten_up_to(x))
    return out_store[0].unflatten(outs)

  return converted, list(consts)


# ----------------------------------------------------------------------------- stop_gradient


stop_gradient_p = core.Primitive("stop_gradient")
stop_gradient_p.def_impl(lambda x: x)
stop_gradient_p.def_abstract_eval(lambda x: x)
ad.jvp_rules[stop_gradient_p] = lambda primals, tangents: (
    stop_gradient_p.bind(primals[0]), ad.Zero(core.get_aval(primals[0])))
batching.defvectorized(stop_gradient_p)
hlo.lowering_rules[stop_gradient_p] = lambda ctx, x: x


def stop_gradient(x):
  """The identity, with a zero derivative."""
  return tree_util.tree_map(stop_gradient_p.bind, x)
