"""Python lists and tuples are not arrays to jax.numpy: as in JAX, passing one where an
array is expected raises TypeError (convert it with jnp.asarray first), so that a list
is never silently turned into many traced scalars.

`install` wraps the public functions of a jax.numpy module whose parameters of the
usual array names (a, x, x1, ...) are checked on every call; functions that take
sequences of arrays by design (concatenate, stack, einsum, ...) are left as they are.
Functions built on jnp ufuncs and promote_args are checked there instead.
"""

from __future__ import annotations

import functools
import inspect
import types

from jax._src.numpy.util import check_arraylike_strict

# Parameter names that hold one array in jax.numpy's signatures.
ARRAY_PARAMS = frozenset({
    "a", "x", "x1", "x2", "arr", "array", "ar", "ar1", "ar2", "ary", "m", "v", "y", "p",
    "condition", "xp", "fp", "indices", "values", "weights", "b", "A", "B", "q", "element",
    "test_elements", "fweights", "aweights", "c", "x0", "u", "w", "operand", "M", "N_arr",
})

# Functions that take sequences (or lists) by design, as in JAX.
ACCEPTS_SEQUENCES = frozenset({
    "array", "asarray", "concatenate", "concat", "stack", "hstack", "vstack", "dstack",
    "column_stack", "row_stack", "block", "einsum", "einsum_path", "select", "piecewise",
    "choose", "lexsort", "array_equal", "array_equiv", "broadcast_shapes", "result_type",
    "ix_", "unravel_index", "ravel_multi_index", "shape", "ndim", "size", "isscalar",
    "iscomplexobj", "isrealobj", "from_dlpack", "frombuffer", "fromiter", "fromfunction",
    "fromstring", "load", "save", "savez", "can_cast", "issubdtype", "promote_types",
    "dtype", "iinfo", "finfo", "zeros", "ones", "empty", "full", "eye", "identity",
    "arange", "linspace", "logspace", "geomspace", "tri", "indices", "diag_indices",
    "tril_indices", "triu_indices", "mask_indices", "printoptions", "set_printoptions",
    "get_printoptions", "vectorize", "frompyfunc", "apply_along_axis",
    "apply_over_axes", "atleast_1d", "atleast_2d", "atleast_3d", "poly", "polyadd",
    "polysub", "polymul", "polydiv", "polyval", "polyder", "polyint", "polyfit", "roots",
    "trapezoid", "isdtype", "astype", "copy",
})


def _positions(fn) -> list[tuple[int | None, str]]:
  code = _plain_code(fn)
  if code is None:
    return _positions_from_signature(fn)
  # Read from the code object: install() runs for every jax.numpy function during
  # `import jax`, where inspect.signature would cost several milliseconds.
  n_positional = code.co_argcount
  names = code.co_varnames
  out = [(i, n) for i, n in enumerate(names[:n_positional]) if n in ARRAY_PARAMS]
  kwonly = names[n_positional:n_positional + code.co_kwonlyargcount]
  out += [(None, n) for n in kwonly if n in ARRAY_PARAMS]
  return out


def _plain_code(fn):
  """fn's code object when it alone defines fn's signature (what inspect.signature would
  read), else None: wrappers and explicit __signature__s go through inspect."""
  if (isinstance(fn, types.FunctionType) and not hasattr(fn, "__wrapped__")
      and not hasattr(fn, "__signature__")):
    return fn.__code__
  return None


def _positions_from_signature(fn) -> list[tuple[int | None, str]]:
  try:
    params = list(inspect.signature(fn).parameters.values())
  except (TypeError, ValueError):
    return []
  out = []
  for i, p in enumerate(params):
    if p.name in ARRAY_PARAMS and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD,
                                             p.KEYWORD_ONLY):
      out.append((i if p.kind != p.KEYWORD_ONLY else None, p.name))
  return out


def _wrap(name: str, fn):
  checked = _positions(fn)
  if not checked:
    return fn

  @functools.wraps(fn)
  def wrapper(*args, **kwargs):
    for pos, pname in checked:
      if pos is not None and pos < len(args):
        value = args[pos]
      elif pname in kwargs:
        value = kwargs[pname]
      else:
        continue
      if isinstance(value, (list, tuple)):
        check_arraylike_strict(name, value)
    return fn(*args, **kwargs)

  return wrapper


def install(namespace: dict) -> None:
  """Wrap the public functions of a jax.numpy module namespace in place."""
  for name, value in list(namespace.items()):
    if name.startswith("_") or name in ACCEPTS_SEQUENCES:
      continue
    if isinstance(value, types.FunctionType):
      namespace[name] = _wrap(name, value)
