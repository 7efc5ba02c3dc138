"""jnp.einsum and the tensor products built like it: tensordot, inner, kron, cross.

einsum normalises its subscripts (string or interleaved sublists, with `...`),
then per operand takes diagonals of repeated labels and sums labels nobody else
needs, and contracts operands pairwise with `dot_general` (batch dimensions for
labels that survive, contracting ones for labels that do not). The contraction
order is left to right; `optimize` is accepted for compatibility.
"""

from __future__ import annotations

import operator
import string
import numpy as np

from jax._src import core
from jax._src import dtypes
from jax._src.lax import elementwise as lax_ew
from jax._src.lax import linalg as lax_linalg
from jax._src.lax import reductions as lax_red
from jax._src.lax import shape as lax_shape
from jax._src.numpy.util import (asarray_like, broadcast_shapes, broadcast_to, canonical_axis,
                                 promote_dtypes)
from jax._src.numpy.util import place as _place
from jax._src.numpy.creation import asarray
from jax._src.numpy.ufuncs import multiply, subtract

_LETTERS = string.ascii_letters


def _ndim(x) -> int:
  return core.get_aval(x).ndim


def _shape(x) -> tuple[int, ...]:
  return core.get_aval(x).shape


# ----------------------------------------------------------------------------- parsing


def _sublist_to_str(sublist) -> str:
  out = []
  for s in sublist:
    if s is Ellipsis:
      out.append("...")
    else:
      i = operator.index(s)
      if not 0 <= i < len(_LETTERS):
        raise ValueError(f"einsum: subscript {i} is out of range [0, {len(_LETTERS)})")
      out.append(_LETTERS[i])
  return "".join(out)


def _interleaved_to_str(args):
  """einsum(op0, sub0, op1, sub1, ..., [sublist_out]) -> ('sub0,sub1->out', operands)."""
  args = list(args)
  out_sub = args.pop() if len(args) % 2 == 1 else None
  operands = args[0::2]
  subs = ",".join(_sublist_to_str(s) for s in args[1::2])
  if out_sub is not None:
    subs += "->" + _sublist_to_str(out_sub)
  return subs, operands


def _expand_ellipses(inputs: list[str], output: str | None, operands):
  """Replace `...` by fresh labels for the broadcast dimensions of each operand."""
  used = set("".join(inputs) + (output or "")) - {"."}
  fresh = [c for c in _LETTERS if c not in used]
  max_ell = 0
  for term, op in zip(inputs, operands):
    if "..." in term:
      max_ell = max(max_ell, _ndim(op) - (len(term) - 3))
  ell_labels = "".join(fresh[:max_ell])
  expanded = []
  for term, op in zip(inputs, operands):
    if "..." in term:
      n = _ndim(op) - (len(term) - 3)
      if n < 0:
        raise ValueError(f"einsum: operand has fewer dimensions than subscripts '{term}'")
      term = term.replace("...", ell_labels[max_ell - n:])
    if len(term) != _ndim(op):
      raise ValueError(f"einsum: subscripts '{term}' do not match an operand of rank "
                       f"{_ndim(op)}")
    expanded.append(term)
  if output is None:
    counts = {}
    for c in "".join(expanded):
      counts[c] = counts.get(c, 0) + 1
    output = ell_labels + "".join(sorted(c for c, k in counts.items()
                                         if k == 1 and c not in ell_labels))
  else:
    output = output.replace("...", ell_labels)
  return expanded, output


def _parse(subscripts: str, operands):
  subscripts = subscripts.replace(" ", "")
  if "->" in subscripts:
    lhs, output = subscripts.split("->")
  else:
    lhs, output = subscripts, None
  inputs = lhs.split(",")
  if len(inputs) != len(operands):
    raise ValueError(f"einsum: {len(inputs)} subscript terms but {len(operands)} operands")
  # Any other character is a label, digits included ('kh1d'), as in JAX (opt_einsum).
  for c in lhs.replace(",", "").replace("...", "") + (output or "").replace("...", ""):
    if c in ".->":
      raise ValueError(f"einsum: invalid subscript character '{c}'")
  inputs, output = _expand_ellipses(inputs, output, operands)
  if len(set(output)) != len(output):
    raise ValueError(f"einsum: output subscript '{output}' has repeated labels")
  for c in output:
    if c not in "".join(inputs):
      raise ValueError(f"einsum: output label '{c}' does not appear in any input")
  return inputs, output


# ----------------------------------------------------------------------------- contraction


def _take_diagonal(x, labels: str):
  """Merge repeated labels of one operand by taking the diagonal."""
  while True:
    dup = next((c for c in labels if labels.count(c) > 1), None)
    if dup is None:
      return x, labels
    i = labels.index(dup)
    j = labels.index(dup, i + 1)
    shape = _shape(x)
    if shape[i] != shape[j]:
      raise ValueError(f"einsum: label '{dup}' has sizes {shape[i]} and {shape[j]}")
    eye = lax_ew.eq(lax_shape.broadcasted_iota(np.int32, shape, i),
                    lax_shape.broadcasted_iota(np.int32, shape, j))
    masked = lax_ew.select(eye, x, lax_shape.full_like(x, 0))
    x = lax_red.reduce_sum(masked, (j,)) if core.get_aval(x).dtype != dtypes.bool_ else \
        lax_red.reduce_or(masked, (j,))
    labels = labels[:j] + labels[j + 1:]


def _sum_labels(x, labels: str, keep: set):
  axes = tuple(i for i, c in enumerate(labels) if c not in keep)
  if not axes:
    return x, labels
  reduce = lax_red.reduce_or if core.get_aval(x).dtype == dtypes.bool_ else lax_red.reduce_sum
  return reduce(x, axes), "".join(c for c in labels if c in keep)


def _contract_pair(a, la: str, b, lb: str, keep: set, dot_general):
  """dot_general of two operands; returns the result and its labels."""
  sizes = dict(zip(la, _shape(a)))
  for c, n in zip(lb, _shape(b)):
    if c in sizes and sizes[c] != n and 1 not in (sizes[c], n):
      raise ValueError(f"einsum: label '{c}' has sizes {sizes[c]} and {n}")
  shared = [c for c in la if c in lb]
  # A shared label of size 1 on one side broadcasts: sum it there first.
  for c in shared:
    na, nb = _shape(a)[la.index(c)], _shape(b)[lb.index(c)]
    if na != nb:
      if na == 1:
        a, la = lax_red.reduce_sum(a, (la.index(c),)), la.replace(c, "")
      else:
        b, lb = lax_red.reduce_sum(b, (lb.index(c),)), lb.replace(c, "")
  shared = [c for c in la if c in lb]
  batch = [c for c in shared if c in keep]
  contract = [c for c in shared if c not in keep]
  dn = ((tuple(la.index(c) for c in contract), tuple(lb.index(c) for c in contract)),
        (tuple(la.index(c) for c in batch), tuple(lb.index(c) for c in batch)))
  out = dot_general(a, b, dn)
  free_a = [c for c in la if c not in shared]
  free_b = [c for c in lb if c not in shared]
  return out, "".join(batch + free_a + free_b)


def _einsum(operands, inputs: list[str], output: str, dot_general=lax_linalg.dot_general):
  terms = []
  for k, (op, labels) in enumerate(zip(operands, inputs)):
    op, labels = _take_diagonal(op, labels)
    others = set(output).union(*(set(t) for i, t in enumerate(inputs) if i != k))
    op, labels = _sum_labels(op, labels, others)
    terms.append((op, labels))
  acc, acc_labels = terms[0]
  for k in range(1, len(terms)):
    op, labels = terms[k]
    later = set(output).union(*(set(t[1]) for t in terms[k + 1:]))
    acc, acc_labels = _contract_pair(acc, acc_labels, op, labels, later, dot_general)
    acc, acc_labels = _sum_labels(acc, acc_labels, later | set(output))
  acc, acc_labels = _sum_labels(acc, acc_labels, set(output))
  perm = tuple(acc_labels.index(c) for c in output)
  return lax_shape.transpose(acc, perm) if perm != tuple(range(len(perm))) else acc


def einsum(subscripts, /, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None, _dot_general=lax_linalg.dot_general,
           out_sharding=None):
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
  if not isinstance(subscripts, str):
    subscripts, operands = _interleaved_to_str((subscripts, *operands))
  operands = [asarray_like(op) for op in operands]
  operands = [asarray(op) for op in operands]
  inputs, output = _parse(subscripts, operands)
  if len(operands) > 1:
    operands = promote_dtypes(*operands)
  # Each contraction is asked for the result type, as JAX asks it (an f8 einsum
  # accumulates in f32; a custom _dot_general such as flax's fp8 one sees the type).
  contract_type = (preferred_element_type if preferred_element_type is not None
                   else dtypes.result_type(*operands))
  def contract(a, b, dn):
    if out_sharding is not None and _dot_general is lax_linalg.dot_general:
      # The result is placed below: operands split along contracted labels are fine.
      return lax_linalg.dot_general_placed(a, b, dn, precision, contract_type, placed=True)
    return _dot_general(a, b, dn, precision, preferred_element_type=contract_type)
  result = _einsum(list(operands), inputs, output, contract)
  if preferred_element_type is not None:
    result = lax_ew.convert_element_type(result, preferred_element_type)
  if out_sharding is not None:
    result = _place(result, out_sharding=out_sharding)
  return result


# ----------------------------------------------------------------------------- tensor products


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None,
              out_sharding=None):
  out = _tensordot(a, b, axes, precision, preferred_element_type, out_sharding is not None)
  if out_sharding is not None:
    out = _place(out, out_sharding=out_sharding)
  return out


def _tensordot(a, b, axes, precision, preferred_element_type, placed: bool = False):
  a, b = promote_dtypes(asarray_like(a), asarray_like(b))
  na, nb = _ndim(a), _ndim(b)
  if isinstance(axes, (int, np.integer)):
    n = operator.index(axes)
    if n < 0 or n > min(na, nb):
      raise TypeError(f"Number of tensordot axes (axes {n}) exceeds input ranks ({na} and {nb})")
    ca, cb = tuple(range(na - n, na)), tuple(range(n))
  else:
    if len(axes) != 2:
      raise TypeError(f"tensordot axes argument must be an int or a pair of sequences, "
                      f"got {axes}")
    ax_a, ax_b = axes
    ax_a = (ax_a,) if isinstance(ax_a, (int, np.integer)) else tuple(ax_a)
    ax_b = (ax_b,) if isinstance(ax_b, (int, np.integer)) else tuple(ax_b)
    if len(ax_a) != len(ax_b):
      raise TypeError(f"tensordot requires axes lists to have equal length, got {ax_a} and "
                      f"{ax_b}.")
    ca = tuple(canonical_axis(operator.index(i), na) for i in ax_a)
    cb = tuple(canonical_axis(operator.index(i), nb) for i in ax_b)
  return lax_linalg.dot_general_placed(a, b, ((ca, cb), ((), ())), precision,
                                       preferred_element_type, placed=placed)


def inner(a, b, *, precision=None, preferred_element_type=None):
  a, b = promote_dtypes(asarray_like(a), asarray_like(b))
  if _ndim(a) == 0 or _ndim(b) == 0:
    return multiply(a, b)
  return lax_linalg.dot_general(a, b, (((_ndim(a) - 1,), (_ndim(b) - 1,)), ((), ())),
                                precision, preferred_element_type)


def kron(a, b):
  a, b = promote_dtypes(asarray_like(a), asarray_like(b))
  nd = max(_ndim(a), _ndim(b))
  a = lax_shape.reshape(a, (1,) * (nd - _ndim(a)) + _shape(a))
  b = lax_shape.reshape(b, (1,) * (nd - _ndim(b)) + _shape(b))
  # Interleave: a[i0, 1, i1, 1, ...] * b[1, j0, 1, j1, ...], then merge each pair.
  a_exp = lax_shape.reshape(a, tuple(d for s in _shape(a) for d in (s, 1)))
  b_exp = lax_shape.reshape(b, tuple(d for s in _shape(b) for d in (1, s)))
  prod = multiply(a_exp, b_exp)
  return lax_shape.reshape(prod, tuple(x * y for x, y in zip(_shape(a), _shape(b))))


def _moveaxis(x, src: int, dst: int):
  perm = [i for i in range(_ndim(x)) if i != src]
  perm.insert(dst, src)
  return lax_shape.transpose(x, tuple(perm)) if perm != list(range(_ndim(x))) else x


def _component(v, i: int):
  """v[..., i] for the last axis."""
  shape = _shape(v)
  start = [0] * len(shape)
  limit = list(shape)
  start[-1], limit[-1] = i, i + 1
  return lax_shape.reshape(lax_shape.slice(v, start, limit), shape[:-1])


def cross(a, b, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: int | None = None):
  if axis is not None:
    axisa = axisb = axisc = axis
  a, b = promote_dtypes(asarray_like(a), asarray_like(b))
  a = _moveaxis(a, canonical_axis(operator.index(axisa), _ndim(a)), _ndim(a) - 1)
  b = _moveaxis(b, canonical_axis(operator.index(axisb), _ndim(b)), _ndim(b) - 1)
  if _shape(a)[-1] not in (2, 3) or _shape(b)[-1] not in (2, 3):
    raise ValueError("Dimension must be either 2 or 3 for cross product")
  if _shape(a)[-1] == 2 and _shape(b)[-1] == 2:
    return subtract(multiply(_component(a, 0), _component(b, 1)),
                    multiply(_component(a, 1), _component(b, 0)))
  zero = lambda v: lax_shape.full(_shape(v)[:-1], 0, core.get_aval(v).dtype)
  a0, a1 = _component(a, 0), _component(a, 1)
  a2 = _component(a, 2) if _shape(a)[-1] == 3 else zero(a)
  b0, b1 = _component(b, 0), _component(b, 1)
  b2 = _component(b, 2) if _shape(b)[-1] == 3 else zero(b)
  c = [subtract(multiply(a1, b2), multiply(a2, b1)),
       subtract(multiply(a2, b0), multiply(a0, b2)),
       subtract(multiply(a0, b1), multiply(a1, b0))]
  shape = broadcast_shapes(*(_shape(x) for x in c))
  c = [lax_shape.reshape(broadcast_to(x, shape), shape + (1,)) for x in c]
  out = lax_shape.concatenate(c, len(shape))
  return _moveaxis(out, _ndim(out) - 1, canonical_axis(operator.index(axisc), _ndim(out)))
