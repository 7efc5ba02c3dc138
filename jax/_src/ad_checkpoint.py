"""Names for intermediate values and the rematerialization policies that use them.

`checkpoint_name(x, name)` is the identity, staged as the primitive `name` so
that a policy can recognise the value. A policy is called as
`policy(prim, *avals, **params)` for each equation of a checkpointed function
and says whether its result may be saved for the backward pass (True) or must be
recomputed (False). `checkpoint`/`remat` accept any such policy.
"""

from __future__ import annotations

from typing import Callable

from jax._src import core
from jax._src import tree_util
from jax._src.interpreters import ad
from jax._src.interpreters import batching
from jax._src.lowering import hlo

name_p = core.Primitive("name")
name_p.def_impl(lambda x, *, name: x)
name_p.def_abstract_eval(lambda x, *, name: x)
ad.deflinear(name_p, lambda ct, x, *, name: [ct])
batching.defvectorized(name_p)
hlo.lowering_rules[name_p] = lambda ctx, x, *, name: x


def checkpoint_name(x, name: str):
  """`x` unchanged, tagged with `name` for rematerialization policies (pytrees allowed)."""
  if not isinstance(name, str):
    raise TypeError(f"checkpoint_name expects a string name, got {name!r}")
  return tree_util.tree_map(lambda leaf: name_p.bind(leaf, name=name), x)


class Saveable:
  """A policy result: the value may be kept for the backward pass."""


class Recompute:
  """A policy result: the value is recomputed in the backward pass."""


class Offloadable:
  """A policy result: the value may be kept, moved from `src` to `dst` memory."""

  def __init__(self, src: str, dst: str):
    self.src, self.dst = src, dst


_DOT_PRIMITIVES = ("dot_general",)


def _is_dot(prim) -> bool:
  return getattr(prim, "name", None) in _DOT_PRIMITIVES


def _has_batch_dims(params) -> bool:
  dims = params.get("dimension_numbers")
  return bool(dims and len(dims) > 1 and dims[1] and any(dims[1]))


def everything_saveable(prim, *avals, **params) -> bool:
  return True


def nothing_saveable(prim, *avals, **params) -> bool:
  return False


def dots_saveable(prim, *avals, **params) -> bool:
  return _is_dot(prim)


def dots_with_no_batch_dims_saveable(prim, *avals, **params) -> bool:
  return _is_dot(prim) and not _has_batch_dims(params)


def _named(prim, params) -> str | None:
  return params.get("name") if prim is name_p else None


def save_any_names_but_these(*names_not_to_save: str) -> Callable:
  """Save every named value except those named here."""
  excluded = frozenset(names_not_to_save)
  return lambda prim, *_, **params: (_named(prim, params) is not None
                                     and _named(prim, params) not in excluded)


def save_only_these_names(*names_which_can_be_saved: str) -> Callable:
  """Save the values named here; recompute everything else."""
  allowed = frozenset(names_which_can_be_saved)
  return lambda prim, *_, **params: _named(prim, params) in allowed


def save_and_offload_only_these_names(*, names_which_can_be_saved=(),
                                      names_which_can_be_offloaded=(), offload_src="device",
                                      offload_dst="pinned_host") -> Callable:
  """Like save_only_these_names; offloaded names are saved too (one memory space here)."""
  del offload_src, offload_dst
  return save_only_these_names(*names_which_can_be_saved, *names_which_can_be_offloaded)


def save_from_both_policies(policy_1: Callable, policy_2: Callable) -> Callable:
  """Save what either policy saves."""
  return lambda prim, *avals, **params: (bool(policy_1(prim, *avals, **params))
                                         or bool(policy_2(prim, *avals, **params)))


class _Policies:
  """The rematerialization policies by name (`jax.checkpoint_policies`)."""

  everything_saveable = staticmethod(everything_saveable)
  nothing_saveable = staticmethod(nothing_saveable)
  dots_saveable = staticmethod(dots_saveable)
  checkpoint_dots = staticmethod(dots_saveable)
  dots_with_no_batch_dims_saveable = staticmethod(dots_with_no_batch_dims_saveable)
  checkpoint_dots_with_no_batch_dims = staticmethod(dots_with_no_batch_dims_saveable)
  save_any_names_but_these = staticmethod(save_any_names_but_these)
  save_only_these_names = staticmethod(save_only_these_names)
  save_and_offload_only_these_names = staticmethod(save_and_offload_only_these_names)
  save_from_both_policies = staticmethod(save_from_both_policies)


checkpoint_policies = _Policies()


def saved_residuals(f: Callable, *args, **kwargs) -> list[tuple[core.ShapedArray, str]]:
  """The values reverse-mode differentiation of `f` at `args` keeps for the backward pass:
  (type, where it comes from) for each."""
  leaves, in_tree = tree_util.tree_flatten((args, kwargs))

  def flat(*xs):
    a, k = tree_util.tree_unflatten(in_tree, xs)
    return tree_util.tree_leaves(f(*a, **k))

  _, _, residuals = ad.linearize_flat(flat, leaves)
  by_id = {id(x): i for i, x in enumerate(leaves)}
  out = []
  for r in residuals:
    aval = core.get_aval(r)
    i = by_id.get(id(r))
    where = f"from the argument at flat index {i}" if i is not None else "from an intermediate"
    out.append((aval.update(weak_type=False) if hasattr(aval, "update") else aval, where))
  return out


def print_saved_residuals(f: Callable, *args, **kwargs) -> None:
  """Prints what `saved_residuals(f, *args, **kwargs)` finds, one residual per line."""
  for aval, where in saved_residuals(f, *args, **kwargs):
    print(f"{aval.str_short(short_dtypes=True)} {where}")
