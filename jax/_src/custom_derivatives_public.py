"""Types that custom derivative rules may meet (`jax.custom_derivatives`).

Rules defined with `symbolic_zeros=True` receive a `SymbolicZero` for each input that
is not differentiated (and for each zero cotangent), as in JAX; other rules receive
arrays.
"""

from __future__ import annotations

from typing import Any

from jax._src import core
from jax._src import custom_derivatives
from jax._src import tree_util
from jax._src.interpreters import ad


# One class each for the rules' machinery and the public names, so that rules'
# isinstance checks see what the machinery hands them.
SymbolicZero = custom_derivatives.SymbolicZero
CustomVJPPrimal = custom_derivatives.CustomVJPPrimal


def zero_from_primal(val, symbolic_zeros: bool = False):
  """Zero tangents shaped like `val` (symbolic ones if `symbolic_zeros`)."""
  def zero(x):
    aval = core.get_aval(x)
    return SymbolicZero(aval) if symbolic_zeros else ad.zeros_like_aval(aval)

  return tree_util.tree_map(zero, val)


def _is_primal_box(x) -> bool:
  return hasattr(x, "perturbed") and hasattr(x, "value")


def custom_vjp_primal_tree_values(tree):
  """`tree` with each CustomVJPPrimal (what a symbolic_zeros fwd rule receives) replaced by
  its value."""
  return tree_util.tree_map(lambda x: x.value if _is_primal_box(x) else x, tree,
                            is_leaf=_is_primal_box)


def linear_call(fun, fun_transpose, residual_args, linear_args):
  """`fun(residual_args, linear_args)`, a function linear in `linear_args`, whose transpose
  (used by reverse-mode differentiation) is `fun_transpose(residual_args, cotangent)`.

  The residual arguments are not differentiated (their cotangent is zero)."""
  @custom_derivatives.custom_vjp
  def call(res, lin):
    return fun(res, lin)

  def fwd(res, lin):
    return fun(res, lin), res

  def bwd(res, ct):
    lin_ct = fun_transpose(res, ct)
    return tree_util.tree_map(ad.zeros_like, res), lin_ct

  call.defvjp(fwd, bwd)
  return call(residual_args, linear_args)
