"""`checkify`: checks inside jax code whose failures become values (or exceptions).

`check(pred, msg, *fmt_args)` asserts `pred` (a boolean array: every element must be
true). Inside `checkify(f)` failures are collected and returned as an `Error`
beside `f`'s result; outside, a failing check raises `JaxRuntimeError`.

Checks on traced values run when the computation runs: each is a jax.debug-style
effectful callback (never dropped; once per element under vmap) that records the
first failure with the innermost active `checkify` call. A `checkify` that is
itself staged out (`jit(checkify(f))`) is no longer active when the program runs,
so its failures raise `JaxRuntimeError` from the call instead of being returned.

The automatic checks (`nan_checks`, `div_checks`, `index_checks`) trace `f` to a
jaxpr and evaluate it equation by equation, adding after each primitive they
concern a check of its inputs or outputs, worded as JAX words them. Jaxprs nested
in jit, cond, while and scan are checked too (re-staged with their checks inside).
"""

from __future__ import annotations

import functools
import threading
from typing import Callable

import numpy as np

from jax._src import array
from jax._src import core
from jax._src import debugging
from jax._src import tree_util
from jax._src.interpreters import partial_eval as pe
from jax._src.lax import elementwise as ew
from jax._src.lax import reductions
from jax._src.lax import slicing


class JaxRuntimeError(ValueError):
  """A failed check (JAX makes it a ValueError, which libraries catching failed checks rely on)."""


class ErrorCategory:
  """The kinds of errors `checkify` can be asked to check for."""


class UserCheckError(ErrorCategory):
  """Failures of explicit `check` calls."""


class NaNError(ErrorCategory):
  """A floating-point operation produced a NaN."""


class DivisionByZeroError(ErrorCategory):
  """An integer division by zero."""


class OOBError(ErrorCategory):
  """An out-of-bounds index."""


user_checks = frozenset({UserCheckError})
nan_checks = frozenset({NaNError})
div_checks = frozenset({DivisionByZeroError})
index_checks = frozenset({OOBError})
float_checks = nan_checks | div_checks
automatic_checks = float_checks | index_checks
all_checks = automatic_checks | user_checks


class Error:
  """The outcome of a checkified call: the first failed check's message, if any.

  Built with JAX's fields: `_pred` maps error ids to whether that error happened,
  `_code` to which of its messages applies, `_metadata` a code to its message (a str
  or an exception), `_payload` to values the message is formatted with. The error
  reported is the first id (in order) whose predicate is true.
  """

  def __init__(self, _pred=None, _code=None, _metadata=None, _payload=None):
    if isinstance(_pred, str) or _pred is None:  # a message (or no error), as checkify makes
      self._message = _pred
      return
    self._message = _first_failure(dict(_pred), dict(_code or {}), dict(_metadata or {}),
                                   dict(_payload or {}))

  def get(self) -> str | None:
    return self._message

  def get_exception(self) -> JaxRuntimeError | None:
    return None if self._message is None else JaxRuntimeError(self._message)

  def throw(self) -> None:
    if self._message is not None:
      raise JaxRuntimeError(self._message)

  def __repr__(self):
    return f"Error({self._message!r})" if self._message else "Error(no error)"


# An Error is a pytree (it crosses vmap and jit boundaries as JAX's does); its message
# is the static part, as the failures it reports are found when the checks run.
tree_util.register_pytree_node(Error, lambda e: ((), e._message), lambda msg, _: Error(msg))


def _first_failure(pred: dict, code: dict, metadata: dict, payload: dict) -> str | None:
  for key, happened in pred.items():
    if not np.any(np.asarray(happened)):
      continue
    c = int(np.asarray(code.get(key, 0)))
    if c not in metadata:
      raise ValueError(f"checkify.Error: no metadata for error code {c} (of {key!r})")
    message = str(metadata[c])
    args = payload.get(key)
    return message.format(*np.atleast_1d(np.asarray(args))) if args is not None else message
  return None


# The Error of a computation whose checks all passed.
init_error = Error()


class _Collector:
  def __init__(self, errors: frozenset = all_checks):
    self.errors = errors
    self.first: str | None = None

  def record(self, message: str, category: type = UserCheckError) -> None:
    # category None: an already-checked Error handed on by check_error, always kept
    if self.first is None and (category is None or category in self.errors):
      self.first = message


_state = threading.local()


def _collectors() -> list[_Collector]:
  stack = getattr(_state, "collectors", None)
  if stack is None:
    stack = _state.collectors = []
  return stack


def _fail(message: str, category: type = UserCheckError) -> None:
  stack = _collectors()
  if stack:
    stack[-1].record(message, category)
  else:
    raise JaxRuntimeError(message)


# JAX marks the message of a failed `check` with this suffix (the automatic checks' have none).
_USER_SUFFIX = " (`check` failed)"


def _check_on_host(msg: str, pred, fmt_args, fmt_kwargs) -> None:
  if not np.all(np.asarray(pred)):
    _fail(_format(msg, fmt_args, fmt_kwargs) + _USER_SUFFIX)


def _format(msg: str, fmt_args, fmt_kwargs) -> str:
  # The failed values are formatted as jax Arrays, as JAX hands them over: a repr inside
  # a container reads `Array(nan, dtype=float32)`, not numpy's `array(...)`.
  fmt_args, fmt_kwargs = tree_util.tree_map(_as_array, (fmt_args, fmt_kwargs))
  return msg.format(*fmt_args, **fmt_kwargs)


def _as_array(x):
  return array.host_array(x) if isinstance(x, (np.ndarray, np.generic)) else x


def check(pred, msg: str, *fmt_args, **fmt_kwargs) -> None:
  """Require every element of `pred` to be true; otherwise report `msg.format(...)`."""
  if not isinstance(msg, str):
    raise TypeError(f"check expects a string message, got {msg!r}")
  try:
    dtype = core.get_aval(pred).dtype
  except TypeError:
    raise TypeError(f"check takes a boolean array as predicate, got {pred!r}") from None
  if dtype != np.bool_:
    raise TypeError(f"check takes a boolean scalar or array as predicate, got dtype {dtype}")
  leaves = tree_util.tree_leaves((pred, fmt_args, fmt_kwargs))
  if not any(isinstance(x, core.Tracer) for x in leaves):
    _check_on_host(msg, pred, fmt_args, fmt_kwargs)
    return
  debugging.debug_callback(functools.partial(_check_on_host, msg), pred, fmt_args, fmt_kwargs)


def check_error(error: Error) -> None:
  """Raise (outside checkify) or record (inside) the failure `error` carries."""
  if not isinstance(error, Error):
    raise TypeError(f"check_error takes an Error, got {error!r}")
  if error.get() is not None:
    _fail(error.get(), None)


def checkify(f: Callable, errors: frozenset = user_checks) -> Callable:
  """`f` returning `(Error, result)`: failed checks are returned instead of raised.

  `errors` picks the categories reported: user `check`s, and the automatic NaN,
  division-by-zero and out-of-bounds index checks; failures of other categories are
  ignored.
  """
  if not callable(f):
    raise TypeError(f"checkify expects a callable, got {f!r}")
  errors = frozenset(errors)
  automatic = errors & automatic_checks

  @functools.wraps(f)
  def checked(*args, **kwargs):
    collector = _Collector(errors)
    stack = _collectors()
    stack.append(collector)
    try:
      out = _call_with_checks(f, args, kwargs, automatic) if automatic else f(*args, **kwargs)
      tree_util.tree_map(_block, out)  # run pending work so its checks report here
    finally:
      stack.remove(collector)
    return Error(collector.first), out

  return checked


# ----------------------------------------------------------------------------- automatic checks


def _call_with_checks(f: Callable, args, kwargs, automatic: frozenset):
  """Run `f` as its jaxpr, each equation followed by the automatic checks it needs."""
  leaves, in_tree = tree_util.tree_flatten((args, kwargs))
  out_tree = []

  def flat(*xs):
    a, kw = tree_util.tree_unflatten(in_tree, xs)
    out_leaves, tree = tree_util.tree_flatten(f(*a, **kw))
    out_tree.append(tree)
    return out_leaves

  jaxpr, consts = pe.trace_to_jaxpr_dynamic(flat, [core.get_aval(x) for x in leaves])
  outs = _eval_checked(jaxpr, consts, leaves, automatic)
  return tree_util.tree_unflatten(out_tree[0], outs)


# Primitives whose equations hold jaxprs that are re-staged with their checks inside.
_NESTED = frozenset({"jit", "pjit", "closed_call", "core_call", "cond", "while", "scan",
                     "checkpoint", "remat"})


def _eval_checked(jaxpr: core.Jaxpr, consts, args, automatic: frozenset) -> list:
  env: dict = {}

  def read(x):
    return core.literal_value(x) if isinstance(x, core.Literal) else env[x]

  for v, val in zip(jaxpr.constvars, consts):
    env[v] = val
  for v, val in zip(jaxpr.invars, args):
    env[v] = val
  for eqn in jaxpr.eqns:
    prim = eqn.primitive
    invals = [read(x) for x in eqn.inputs]
    params = eqn.params
    if prim.name in _NESTED:
      params = {k: _checked_param(v, automatic) for k, v in params.items()}
    outs = prim.bind(*invals, **params)
    outs = list(outs) if prim.multiple_results else [outs]
    _add_checks(prim.name, eqn.params, invals, outs, automatic)
    for v, val in zip(eqn.out_binders, outs):
      env[v] = val
  return [read(x) for x in jaxpr.outs]


def _checked_param(value, automatic: frozenset):
  if isinstance(value, tuple) and value and all(isinstance(v, core.ClosedJaxpr) for v in value):
    return tuple(_checked_closed(v, automatic) for v in value)
  if isinstance(value, core.ClosedJaxpr):
    return _checked_closed(value, automatic)
  if isinstance(value, core.Jaxpr) and not value.constvars:
    return _checked_closed(core.ClosedJaxpr(value, []), automatic).jaxpr
  return value


def _checked_closed(closed: core.ClosedJaxpr, automatic: frozenset) -> core.ClosedJaxpr:
  jaxpr, consts = pe.trace_to_jaxpr_dynamic(
      lambda *xs: _eval_checked(closed.jaxpr, closed.consts, xs, automatic), closed.in_avals)
  checked, hoisted = pe.close_jaxpr(jaxpr, consts)
  if hoisted:  # the nested jaxpr's consts are concrete, so its checks add no traced ones
    raise AssertionError("checkify: a nested jaxpr's checks closed over a tracer")
  return checked


# The primitives JAX checks for a NaN in their outputs.
_NAN_PRIMITIVES = frozenset({
    "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "bessel_i0e",
    "bessel_i1e", "cbrt", "conv_general_dilated", "cos", "cosh", "cumlogsumexp", "cummax",
    "cummin", "cumprod", "cumsum", "digamma", "div", "dot_general", "erf", "erf_inv", "erfc",
    "exp", "exp2", "expm1", "igamma", "igamma_grad_a", "igammac", "integer_pow", "lgamma",
    "log", "log1p", "logistic", "max", "min", "mul", "nextafter", "pow", "random_gamma_grad",
    "reduce_max", "reduce_min", "reduce_prod", "reduce_sum", "regularized_incomplete_beta",
    "rem", "rsqrt", "sin", "sinh", "sqrt", "sub", "tan", "tanh"})


def _add_checks(name: str, params, invals, outs, automatic: frozenset) -> None:
  if DivisionByZeroError in automatic and name in ("div", "rem"):
    _report_if(_any(ew.eq(invals[1], _zero_like(invals[1]))), "division by zero",
               DivisionByZeroError)
  if NaNError in automatic and name in _NAN_PRIMITIVES:
    floats = [o for o in outs if np.issubdtype(core.get_aval(o).dtype, np.inexact)]
    if floats:
      any_nan = _any_of([_any(ew.ne(o, o)) for o in floats])
      _report_if(any_nan, f"nan generated by primitive: {name}.", NaNError)
  if OOBError in automatic:
    bounds = _index_bounds(name, params, invals)
    if bounds is not None:
      shape, indices, axes, limits = bounds
      debugging.debug_callback(functools.partial(_oob_on_host, shape, axes, limits), indices)


def _any(x):
  return reductions.reduce_or(x, tuple(range(np.ndim(x)))) if np.ndim(x) else x


def _any_of(preds):
  out = preds[0]
  for p in preds[1:]:
    out = ew.bitwise_or(out, p)
  return out


def _zero_like(x):
  return np.zeros((), core.get_aval(x).dtype)


def _report_if(pred, message: str, category: type) -> None:
  if isinstance(pred, core.Tracer):
    debugging.debug_callback(functools.partial(_report_on_host, message, category), pred)
  else:
    _report_on_host(message, category, pred)


def _report_on_host(message: str, category: type, pred) -> None:
  if np.any(np.asarray(pred)):
    _fail(message, category)


def _index_bounds(name: str, params, invals):
  """(operand shape, index arrays, operand axis of each, largest valid start of each), or None.

  Each index array's last dimension runs over the axes (gather/scatter index vectors);
  dynamic slices pass one scalar per axis.
  """
  if name == "gather":
    dn, shape = params["dimension_numbers"], np.shape(invals[0])
    axes = tuple(dn.start_index_map)
    limits = tuple(shape[a] - params["slice_sizes"][a] for a in axes)
    return shape, invals[1], axes, limits
  if name.startswith("scatter") and isinstance(params.get("dimension_numbers"),
                                               slicing.ScatterDimensionNumbers):
    dn, shape = params["dimension_numbers"], np.shape(invals[0])
    window = _scatter_window(dn, shape, np.shape(invals[2]))
    axes = tuple(dn.scatter_dims_to_operand_dims)
    return shape, invals[1], axes, tuple(shape[a] - window[a] for a in axes)
  if name == "dynamic_slice":
    shape = np.shape(invals[0])
    limits = tuple(s - w for s, w in zip(shape, params["slice_sizes"]))
    return shape, list(invals[1:]), tuple(range(len(shape))), limits
  if name == "dynamic_update_slice":
    shape = np.shape(invals[0])
    limits = tuple(s - w for s, w in zip(shape, np.shape(invals[1])))
    return shape, list(invals[2:]), tuple(range(len(shape))), limits
  return None


def _scatter_window(dn, shape, updates_shape) -> list[int]:
  """The size of the update window along each operand axis."""
  window_sizes = iter(updates_shape[d] for d in dn.update_window_dims)
  single = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
  return [1 if a in single else next(window_sizes) for a in range(len(shape))]


def _oob_on_host(shape, axes, limits, indices) -> None:
  if isinstance(indices, (list, tuple)):  # one scalar start per axis (dynamic slices)
    vectors = np.asarray(indices, np.int64).reshape(1, len(axes))
  else:
    vectors = np.asarray(indices, np.int64).reshape(-1, len(axes))
  bad = (vectors < 0) | (vectors > np.asarray(limits, np.int64))
  if not bad.any():
    return
  row, col = np.argwhere(bad)[0]
  axis = axes[col]
  _fail(f"out-of-bounds indexing for array of shape {tuple(shape)}: index "
        f"{vectors[row, col]} is out of bounds for axis {axis} with size {shape[axis]}. ",
        OOBError)


def _block(x):
  ready = getattr(x, "block_until_ready", None)
  if callable(ready) and not isinstance(x, core.Tracer):
    ready()
  return x


def debug_check(pred, msg: str, *fmt_args, **fmt_kwargs) -> None:
  """Like `check`, but a no-op unless run under `checkify` (then it is a check)."""
  if _collectors():
    check(pred, msg, *fmt_args, **fmt_kwargs)
