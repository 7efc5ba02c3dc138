"""Buffer donation for jit: which arguments a call donates and which outputs reuse them.

A donated argument lets the computation write an output into the argument's
memory. As in JAX, each donated flat argument is paired with the first free
output of the same shape and dtype (the module's `input_output_alias`); the
others become `buffer_donor`s when a free output has their byte size. After
the call the donated arrays are deleted. A donated argument no output can use
is not donated (a warning names it) and stays usable.
"""

from __future__ import annotations

import inspect
import warnings
from typing import NamedTuple, Sequence

from jax._src import tree_util
from jax._src.core import ShapedArray


def resolve_argnums(signature: inspect.Signature | None, static_argnums: Sequence[int],
                    static_argnames: Sequence[str], donate_argnums: Sequence[int],
                    donate_argnames: Sequence[str]) -> tuple[tuple[int, ...], tuple[str, ...]]:
  """`donate_argnums` and `donate_argnames` completed from each other through the signature.

  Raises ValueError when a donated argument is also static or does not exist.
  """
  nums, names = set(donate_argnums), set(donate_argnames)
  for n in nums:
    if not isinstance(n, int):
      raise TypeError(f"jit: donate_argnums must be integers, got {n!r}")
  positional: list[str] = []
  if signature is not None:
    params = list(signature.parameters.values())
    positional = [p.name for p in params
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    takes_varargs = any(p.kind == p.VAR_POSITIONAL for p in params)
    for n in sorted(nums):
      if n >= len(positional) and not takes_varargs:
        raise ValueError(f"jit: donate_argnums={tuple(sorted(nums))} but the function takes "
                         f"{len(positional)} positional argument(s)")
      if 0 <= n < len(positional):
        names.add(positional[n])
    nums |= {positional.index(name) for name in names if name in positional}
  static_names = set(static_argnames) | {positional[i] for i in static_argnums
                                         if 0 <= i < len(positional)}
  clash = sorted(names & static_names) or sorted(nums & set(static_argnums))
  if clash:
    raise ValueError(f"jit: argument(s) {clash} cannot be both static and donated: a static "
                     "argument is a Python value baked into the computation, not a buffer")
  return tuple(sorted(nums)), tuple(sorted(names))


def donated_leaves(dyn_args: Sequence, dyn_positions: Sequence[int], dyn_kwargs: dict,
                   donate_argnums: Sequence[int], donate_argnames: Sequence[str]) -> tuple[bool, ...]:
  """One flag per leaf of `(dyn_args, dyn_kwargs)`, in flattening order."""
  nums, names = set(donate_argnums), set(donate_argnames)
  flags = (tuple(tree_util.tree_map(lambda _, d=pos in nums: d, a)
                 for a, pos in zip(dyn_args, dyn_positions)),
           {k: tree_util.tree_map(lambda _, d=k in names: d, v) for k, v in dyn_kwargs.items()})
  return tuple(tree_util.tree_leaves(flags))


class Plan(NamedTuple):
  """How a computation's donated parameters are declared to the compiler."""
  aliases: tuple[tuple[int, int], ...] = ()  # (output, parameter): same shape and dtype
  donors: tuple[int, ...] = ()  # parameters that may give their memory to a same-size output

  @property
  def params(self) -> tuple[int, ...]:
    """Every parameter whose argument a call gives up."""
    return tuple(sorted({p for _, p in self.aliases} | set(self.donors)))


NO_DONATION = Plan()


def _type_name(aval: ShapedArray) -> str:
  return f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"


def _nbytes(aval: ShapedArray) -> int:
  return aval.size * aval.dtype.itemsize


def plan(in_avals: Sequence[ShapedArray], out_avals: Sequence[ShapedArray],
         donated: Sequence[bool] | None, warn: bool = True) -> Plan:
  """Pairs donated parameters with outputs; warns about those nothing can use.

  First each donated parameter takes the first free output of its shape and
  dtype; the rest become buffer donors when a free output has their byte size
  (the compiler then chooses), else they are not donated at all.
  """
  if not donated or not any(donated):
    return NO_DONATION
  free = list(range(len(out_avals)))
  aliases, rest = [], []
  for i, (aval, d) in enumerate(zip(in_avals, donated)):
    if not d:
      continue
    match = next((o for o in free if (out_avals[o].shape, out_avals[o].dtype)
                  == (aval.shape, aval.dtype)), None)
    if match is None:
      rest.append(i)
    else:
      free.remove(match)
      aliases.append((match, i))
  donors, unusable = [], []
  for i in rest:
    match = next((o for o in free if _nbytes(out_avals[o]) == _nbytes(in_avals[i])), None)
    if match is None:
      unusable.append(_type_name(in_avals[i]))
    else:
      free.remove(match)
      donors.append(i)
  if unusable and warn:
    warnings.warn(f"Some donated buffers were not usable: {', '.join(unusable)}. A donated "
                  "argument can only give its memory to an output of the same size; these "
                  "stay alive and usable.", UserWarning, stacklevel=4)
  return Plan(tuple(sorted(aliases)), tuple(donors))


def module_attrs(donation: Plan, num_outputs: int) -> str:
  """The HloModule attributes declaring `donation` (outputs are a tuple when there are several)."""
  attrs = []
  if donation.aliases:
    entries = ", ".join(f"{{{o if num_outputs != 1 else ''}}}: ({p}, {{}}, may-alias)"
                        for o, p in donation.aliases)
    attrs.append(f"input_output_alias={{ {entries} }}")
  if donation.donors:
    attrs.append("buffer_donor={ " + ", ".join(f"({p}, {{}})" for p in donation.donors) + " }")
  return ", ".join(attrs)
