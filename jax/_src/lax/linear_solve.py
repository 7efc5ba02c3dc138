"""custom_root and custom_linear_solve: solvers differentiated implicitly.

The solver runs as written; reverse-mode derivatives come from the implicit function
theorem instead of from differentiating the solver's iterations. Values `f`/`matvec`
close over (parameters being differentiated) are made explicit with closure
conversion so their cotangents can be returned.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

from jax._src import core
from jax._src import tree_util
from jax._src.custom_derivatives import convert_closure, custom_vjp, stop_gradient
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lax import elementwise as ew
from jax._src.lax.utils import standard_primitive
from jax._src.lowering import hlo


def _vjp(fun: Callable, primal):
  """The VJP of a pytree-to-pytree `fun` at `primal`, as a pytree function."""
  leaves, tree = tree_util.tree_flatten(primal)
  out_tree = []

  def flat(*xs):
    out, t = tree_util.tree_flatten(fun(tree.unflatten(xs)))
    out_tree.append(t)
    return out

  _, f_vjp = ad.vjp_flat(flat, leaves)

  def pullback(ct):
    return tree.unflatten(f_vjp(*out_tree[0].flatten_up_to(ct)))

  return pullback


def _neg(tree):
  return tree_util.tree_map(ew.neg, tree)


def _split_aux(out, has_aux):
  return (out[0], out[1]) if has_aux else (out, None)


def custom_root(f: Callable, initial_guess, solve: Callable, tangent_solve: Callable,
                has_aux: bool = False):
  """`solve(f, initial_guess)`, a root x of f, with derivatives through f's parameters
  from f(x(theta), theta) = 0: `tangent_solve(g, y)` must solve the linear g(x) = y."""
  f_conv, consts = convert_closure(f, initial_guess)
  # What solve closes over (besides f) is held constant, as in JAX.
  solve_conv, solve_consts = convert_closure(lambda g: solve(f, g), initial_guess)

  @custom_vjp
  def root(consts, solve_consts, guess):
    return solve_conv(guess, *solve_consts)

  def fwd(consts, solve_consts, guess):
    out = solve_conv(guess, *solve_consts)
    return out, (consts, solve_consts, _split_aux(out, has_aux)[0], guess)

  def bwd(res, ct):
    consts, solve_consts, sol, guess = res
    ct_sol, _ = _split_aux(ct, has_aux)
    # w = J_x^-T ct, then the parameters get -(df/dtheta)^T w.
    vjp_x = _vjp(lambda x: f_conv(x, *consts), sol)
    w = tangent_solve(vjp_x, ct_sol)
    vjp_c = _vjp(lambda c: f_conv(sol, *c), consts)
    zeros = tree_util.tree_map(ad.zeros_like, guess)
    return _neg(vjp_c(w)), [ad.zeros_like(c) for c in solve_consts], zeros

  root.defvjp(fwd, bwd)
  return root(consts, solve_consts, stop_gradient(initial_guess))


def custom_linear_solve(matvec: Callable, b, solve: Callable, transpose_solve=None,
                        symmetric: bool = False, has_aux: bool = False):
  """x = solve(matvec, b) for the linear `matvec`, differentiated as A^-1 b is:
  b's cotangent is A^-T ct (from `transpose_solve(vecmat, ct)`, or `solve` when
  `symmetric`), and matvec's parameters get -(d(A x)/dtheta)^T of it."""
  mv_conv, consts = convert_closure(matvec, b)
  # What solve closes over is held constant (not differentiated), as in JAX.
  solve_conv, solve_consts = convert_closure(lambda rhs: solve(matvec, rhs), b)

  @custom_vjp
  def linear_solve(consts, solve_consts, b):
    return solve_conv(b, *solve_consts)

  def fwd(consts, solve_consts, b):
    out = solve_conv(b, *solve_consts)
    return out, (consts, solve_consts, _split_aux(out, has_aux)[0])

  def bwd(res, ct):
    consts, solve_consts, x = res
    ct_x, _ = _split_aux(ct, has_aux)
    if symmetric:
      ct_b = _split_aux(solve_conv(ct_x, *solve_consts), has_aux)[0]
    elif transpose_solve is None:
      raise TypeError("custom_linear_solve: reverse-mode differentiation needs "
                      "transpose_solve (or symmetric=True)")
    else:
      vecmat = _vjp(lambda v: mv_conv(v, *consts), x)
      ct_b = _split_aux(transpose_solve(vecmat, ct_x), has_aux)[0]
    vjp_c = _vjp(lambda c: mv_conv(x, *c), consts)
    zeros = [ad.zeros_like(c) for c in solve_consts]
    return _neg(vjp_c(ct_b)), zeros, ct_b

  linear_solve.defvjp(fwd, bwd)
  return linear_solve(consts, solve_consts, b)


# ----------------------------------------------------------------------------- linear_solve_p
# JAX's primitive form: operands are the constants of matvec, vecmat, solve and
# transpose_solve (in that order, `const_lengths` of each) then the leaves of b; `jaxprs`
# holds the four functions as ClosedJaxprs over flat leaves (vecmat/transpose_solve may
# be None). Solving is linear in b: the tangent is solve(b_dot - (d matvec) x) with the
# other functions' constants held fixed, and the transpose solves with transpose_solve.

class _LinearSolveTuple(NamedTuple):
  matvec: Any
  vecmat: Any
  solve: Any
  transpose_solve: Any

  def transpose(self) -> _LinearSolveTuple:
    return _LinearSolveTuple(self.vecmat, self.matvec, self.transpose_solve, self.solve)


def _split_operands(args, const_lengths: _LinearSolveTuple):
  consts, i = [], 0
  for n in const_lengths:
    consts.append(list(args[i:i + n]))
    i += n
  return _LinearSolveTuple(*consts), list(args[i:])


def _run(jaxpr: core.ClosedJaxpr, consts, xs) -> list:
  return core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, [*consts, *xs])


def _linear_solve_abstract_eval(*avals, const_lengths, jaxprs):
  _, b = _split_operands(avals, const_lengths)
  out = jaxprs.solve.out_avals
  if [(a.shape, a.dtype) for a in out] != [(a.shape, a.dtype) for a in b]:
    raise TypeError("linear_solve: solve must return values of b's types "
                    f"{[a.str_short(short_dtypes=True) for a in b]}, got {[a.str_short(short_dtypes=True) for a in out]}")
  return [core.ShapedArray(a.shape, a.dtype) for a in b]


def _linear_solve_expand(*args, const_lengths, jaxprs):
  consts, b = _split_operands(args, const_lengths)
  return _run(jaxprs.solve, consts.solve, b)


linear_solve_p = standard_primitive("linear_solve", _linear_solve_abstract_eval,
                                    multiple_results=True)


def _linear_solve_jvp(primals, tangents, *, const_lengths, jaxprs):
  tangents = [ad.zeros_like(p) if t is None else t for p, t in zip(primals, tangents)]
  x = linear_solve_p.bind(*primals, const_lengths=const_lengths, jaxprs=jaxprs)
  consts, _ = _split_operands(primals, const_lengths)
  consts_dot, b_dot = _split_operands(tangents, const_lengths)
  n = len(consts.matvec)
  # (d matvec) x: the change of A x when only matvec's constants move.
  _, dax = ad.jvp_flat(lambda *a: _run(jaxprs.matvec, a[:n], a[n:]), [*consts.matvec, *x],
                       [*consts_dot.matvec, *(ad.zeros_like(v) for v in x)])
  rhs = [ew.sub(bd, d) for bd, d in zip(b_dot, dax)]
  n_consts = sum(const_lengths)
  x_dot = linear_solve_p.bind(*primals[:n_consts], *rhs, const_lengths=const_lengths,
                              jaxprs=jaxprs)
  return x, x_dot


def _linear_solve_transpose(cts, *args, const_lengths, jaxprs):
  n_consts = sum(const_lengths)
  if any(ad.is_undefined_primal(a) for a in args[:n_consts]):
    raise NotImplementedError("linear_solve: transposing with respect to the functions' "
                              "constants is not supported (the solve is linear in b only)")
  if jaxprs.transpose_solve is None:
    raise TypeError("custom_linear_solve: reverse-mode differentiation needs transpose_solve "
                    "(or symmetric=True)")
  b = args[n_consts:]
  cts = [ad.instantiate_zeros(c, a.aval) for c, a in zip(cts, b)]
  consts, _ = _split_operands(args, const_lengths)
  flipped = consts.transpose()
  ct_b = linear_solve_p.bind(*[c for group in flipped for c in group], *cts,
                             const_lengths=const_lengths.transpose(), jaxprs=jaxprs.transpose())
  return [None] * n_consts + list(ct_b)


def _linear_solve_batch(axis, vals, dims, *, const_lengths, jaxprs):
  # Batched, the solve runs as written (vmapped); its values are those of the solve.
  fun = lambda *a: _linear_solve_expand(*a, const_lengths=const_lengths, jaxprs=jaxprs)
  outs = batching.vmap_flat(fun, axis, dims, None, vals)
  return outs, [0] * len(outs)


ad.jvp_rules[linear_solve_p] = _linear_solve_jvp
ad.transpose_rules[linear_solve_p] = _linear_solve_transpose
batching.batch_rules[linear_solve_p] = _linear_solve_batch
hlo.lowering_rules[linear_solve_p] = hlo.lower_fun(_linear_solve_expand, True)
