"""`checkify`: checks inside jax code whose failures become values (or exceptions).

`check(pred, msg, *fmt_args)` asserts `pred` (a boolean array: every element must be
true). Inside `checkify(f)` failures are collected and returned as an `Error`
beside `f`'s result; outside, a failing check raises `JaxRuntimeError`.

`checkify(f)` traces `f` to a jaxpr and evaluates it equation by equation at the
level it is called from. Each check (a `check`'s host callback, `check_error`, or an
automatic check added after a primitive it concerns) becomes a value there: whether
it failed and the values its message is formatted with. An `Error` is a pytree of
those values, so `jit(checkify(f))` and `vmap(checkify(f))` return it (under vmap
each mapped index has its own failure). Checks inside cond, while and scan bodies are
carried out of them as values; calls of jit-compiled functions are inlined when
`checkify` is itself traced. Elsewhere (a jitted call run eagerly, or bodies checkify
does not look into: pmap, shard_map, custom derivative rules) checks stay host
callbacks that record into the running `checkify`; under a jitted `checkify` such a
check raises `JaxRuntimeError` when it runs.

The automatic checks (`nan_checks`, `div_checks`, `index_checks`) are worded as JAX
words them.
"""

from __future__ import annotations

import functools
import itertools
import threading
from typing import Callable

import numpy as np

from jax._src import array
from jax._src import core
from jax._src import dtypes
from jax._src import debugging
from jax._src import tree_util
from jax._src.interpreters import partial_eval as pe
from jax._src.lax import control_flow
from jax._src.lax import elementwise as ew
from jax._src.lax import reductions
from jax._src.lax import shape as shape_ops
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


class _Check:
  """What one check reports when it failed: `render(payload) -> message`, and its
  category (None: an Error handed on by check_error, kept whatever is checked)."""

  def __init__(self, render: Callable, category: type | None):
    self.render, self.category = render, category


def _fixed(message: str) -> Callable:
  return lambda *payload: message


class Error:
  """The outcome of a checkified call: the first failed check's message, if any.

  Holds, per check in program order, whether it failed (`preds`, leaves of the
  pytree) and the values its message is formatted with (`payloads`). Under vmap the
  leaves gain the mapped axes, and each mapped index reports its own failure.

  Also built with JAX's fields: `_pred` maps error ids to whether that error happened,
  `_code` to which of its messages applies, `_metadata` a code to its message (a str
  or an exception), `_payload` to values the message is formatted with. The error
  reported is the first id (in order) whose predicate is true.
  """

  def __init__(self, _pred=None, _code=None, _metadata=None, _payload=None):
    if isinstance(_pred, str) or _pred is None:  # a message (or no error)
      message = _pred
    else:
      message = _first_failure(dict(_pred), dict(_code or {}), dict(_metadata or {}),
                               dict(_payload or {}))
    self._checks: tuple = ()
    self._preds: list = []
    self._payloads: list = []
    if message is not None:
      self._checks = (_Check(_fixed(message), None),)
      self._preds, self._payloads = [np.bool_(True)], [()]

  @classmethod
  def _of(cls, checks, preds, payloads) -> "Error":
    err = cls()
    err._checks, err._preds, err._payloads = tuple(checks), list(preds), list(payloads)
    return err

  def get(self) -> str | None:
    preds = [np.asarray(p) for p in self._preds]
    batch = np.broadcast_shapes(*(p.shape for p in preds)) if preds else ()
    if not batch:
      return self._message_at(preds, ())
    lines = []
    for idx in np.ndindex(*batch):  # vmapped: each mapped index has its own first failure
      message = self._message_at([np.broadcast_to(p, batch) for p in preds], idx)
      if message is not None:
        lines.append(f"at mapped index {', '.join(map(str, idx))}: {message}")
    return "\n".join(lines) or None

  def _message_at(self, preds, idx) -> str | None:
    for check, pred, payload in zip(self._checks, preds, self._payloads):
      if pred[idx]:
        return check.render(*(np.asarray(x)[idx] for x in payload))
    return None

  def get_exception(self) -> JaxRuntimeError | None:
    message = self.get()
    return None if message is None else JaxRuntimeError(message)

  def throw(self) -> None:
    message = self.get()
    if message is not None:
      raise JaxRuntimeError(message)

  def __repr__(self):
    message = self.get()
    return f"Error({message!r})" if message else "Error(no error)"

  def __str__(self):
    return f"Error({self.get()})"  # as JAX prints one


def _flatten_error(err: Error):
  return (err._preds, err._payloads), err._checks


def _unflatten_error(checks, children) -> Error:
  preds, payloads = children
  return Error._of(checks, preds, [tuple(p) for p in payloads])


# An Error is a pytree of its checks' outcomes (it crosses jit and vmap as JAX's does);
# what each check reports is the static part.
tree_util.register_pytree_node(Error, _flatten_error, _unflatten_error)


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
  """The failures host callbacks record while a `checkify` runs, each with the code
  (program order) of its check; also hands out those codes."""

  def __init__(self, errors: frozenset = all_checks):
    self.errors = errors
    self.codes = itertools.count()
    self.failures: list[tuple[float, int, str]] = []  # (code, arrival, message)

  def wants(self, category: type | None) -> bool:
    # category None: an already-checked Error handed on by check_error, always kept
    return category is None or category in self.errors

  def record(self, message: str, category: type | None = UserCheckError,
             code: int | None = None) -> None:
    if self.wants(category):
      order = float("inf") if code is None else code  # unnumbered: after the numbered
      self.failures.append((order, len(self.failures), message))


_state = threading.local()


def _collectors() -> list[_Collector]:
  stack = getattr(_state, "collectors", None)
  if stack is None:
    stack = _state.collectors = []
  return stack


def _fail(message: str, category: type | None = UserCheckError, code: int | None = None) -> None:
  stack = _collectors()
  if stack:
    stack[-1].record(message, category, code)
  else:
    raise JaxRuntimeError(message)


# JAX marks the message of a failed `check` with this suffix (the automatic checks' have none).
_USER_SUFFIX = " (`check` failed)"


def _format(msg: str, fmt_args, fmt_kwargs) -> str:
  # The failed values are formatted as jax Arrays, as JAX hands them over: a repr inside
  # a container reads `Array(nan, dtype=float32)`, not numpy's `array(...)`.
  fmt_args, fmt_kwargs = tree_util.tree_map(_as_array, (fmt_args, fmt_kwargs))
  return msg.format(*fmt_args, **fmt_kwargs)


def _as_array(x):
  return array.host_array(x) if isinstance(x, (np.ndarray, np.generic)) else x


class _UserCheck:
  """The host side of a traced `check`; checkify's evaluation recognizes it and makes
  the check a value instead."""

  def __init__(self, msg: str):
    self.msg = msg

  def __call__(self, pred, fmt_args, fmt_kwargs) -> None:
    if not np.all(np.asarray(pred)):
      _fail(_format(self.msg, fmt_args, fmt_kwargs) + _USER_SUFFIX)

  def add_to(self, checks: "_Checks", pred, fmt_args, fmt_kwargs) -> None:
    leaves, tree = tree_util.tree_flatten((fmt_args, fmt_kwargs))

    def render(*values):
      args, kwargs = tree_util.tree_unflatten(tree, values)
      return _format(self.msg, args, kwargs) + _USER_SUFFIX

    checks.add(_Check(render, UserCheckError), ew.bitwise_not(_all(pred)), leaves, source=self)


class _ErrorCheck:
  """The host side of `check_error` on a traced Error (recognized like _UserCheck)."""

  def __init__(self, checks: tuple):
    self.checks = checks

  def __call__(self, preds, payloads) -> None:
    message = Error._of(self.checks, preds, payloads).get()
    if message is not None:
      _fail(message, None)

  def add_to(self, checks: "_Checks", preds, payloads) -> None:
    for check, pred, payload in zip(self.checks, preds, payloads):
      checks.add(_Check(check.render, None), pred, payload)


class _NumberedCheck:
  """A check left as a host callback inside a nested body, numbered in program order."""

  def __init__(self, check: _Check, code: int):
    self.check, self.code = check, code

  def __call__(self, failed, *payload) -> None:
    if np.any(np.asarray(failed)):
      message = self.check.render(*payload)
      if message is not None:
        _fail(message, self.check.category, self.code)


def _target(callback):
  """The _UserCheck or _ErrorCheck a debug_callback equation calls, if any."""
  func = getattr(callback, "callback_func", None)
  func = getattr(func, "__wrapped__", func)
  return func if isinstance(func, (_UserCheck, _ErrorCheck)) else None


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
  for x in tree_util.tree_leaves((fmt_args, fmt_kwargs)):
    if not _is_array(x):
      raise TypeError("Formatting arguments to checkify.check need to be PyTrees of arrays, "
                      f"but got {x!r} of type {type(x)}.")
  leaves = tree_util.tree_leaves((pred, fmt_args, fmt_kwargs))
  if not any(isinstance(x, core.Tracer) for x in leaves):
    _UserCheck(msg)(pred, fmt_args, fmt_kwargs)
    return
  debugging.debug_callback(_UserCheck(msg), pred, fmt_args, fmt_kwargs)


def check_error(error: Error) -> None:
  """Raise (outside checkify) or record (inside) the failure `error` carries."""
  if not isinstance(error, Error):
    raise TypeError(f"check_error takes an Error, got {error!r}")
  leaves = tree_util.tree_leaves((error._preds, error._payloads))
  if any(isinstance(x, core.Tracer) for x in leaves):
    debugging.debug_callback(_ErrorCheck(error._checks), error._preds, error._payloads)
  elif error.get() is not None:
    _fail(error.get(), None)


def checkify(f: Callable, errors: frozenset = user_checks) -> Callable:
  """`f` returning `(Error, result)`: failed checks are returned instead of raised.

  `errors` picks the categories reported: user `check`s, and the automatic NaN,
  division-by-zero and out-of-bounds index checks; failures of other categories are
  ignored. Works under jit and vmap (the Error is a pytree of arrays).
  """
  if not callable(f):
    raise TypeError(f"checkify expects a callable, got {f!r}")
  errors = frozenset(errors)
  automatic = errors & automatic_checks

  @functools.wraps(f)
  def checked(*args, **kwargs):
    collector = _Collector(errors)
    stack = _collectors()
    stack.append(collector)  # also while tracing: concrete checks and debug_check see it
    try:
      all_leaves, in_tree = tree_util.tree_flatten((args, kwargs))
      dynamic = [_is_array(x) for x in all_leaves]
      leaves = [x for x, d in zip(all_leaves, dynamic) if d]
      jaxpr, consts, out_tree = _trace(f, in_tree, all_leaves, dynamic)
      staged = any(isinstance(x, core.Tracer) for x in [*leaves, *consts])
      checks = _Checks(collector, as_values=True, inline=staged)
      outs = _eval_checked(jaxpr, consts, leaves, automatic, checks)
      # Run pending work now, so that its callbacks record into this collector.
      tree_util.tree_map(_block, (outs, checks.preds))
    finally:
      stack.remove(collector)
    return checks.error(), tree_util.tree_unflatten(out_tree, outs)

  return checked


def _is_array(x) -> bool:
  """Arrays are traced; other arguments (Python scalars, strings, ...) reach `f` as they
  are, as JAX's checkify passes them (a static argument of a jit inside stays static)."""
  return isinstance(x, (core.Tracer, np.ndarray, np.generic, array.ArrayImpl))


def _trace(f: Callable, in_tree, all_leaves, dynamic):
  out_tree = []

  def flat(*xs):
    it = iter(xs)
    full = [next(it) if d else x for x, d in zip(all_leaves, dynamic)]
    a, kw = tree_util.tree_unflatten(in_tree, full)
    out_leaves, tree = tree_util.tree_flatten(f(*a, **kw))
    out_tree.append(tree)
    return out_leaves

  avals = [core.get_aval(x) for x, d in zip(all_leaves, dynamic) if d]
  jaxpr, consts = pe.trace_to_jaxpr_dynamic(flat, avals)
  return jaxpr, consts, out_tree[0]


class _Checks:
  """The checks met while evaluating a jaxpr. As values (the jaxpr at checkify's own
  level): each check's failure flag and payload, returned in the Error. Otherwise (a
  nested body that is staged again): each becomes a numbered host callback."""

  def __init__(self, collector: _Collector, as_values: bool, inline: bool = False):
    self.collector, self.as_values, self.inline = collector, as_values, inline
    self.entries: list[tuple[int, _Check]] = []
    self.sources: list = []  # the check call each entry comes from (None: no merging)
    self.preds: list = []
    self.payloads: list = []

  def add(self, check: _Check, failed, payload=(), source=None) -> None:
    if not self.collector.wants(check.category):
      return
    if self.as_values and source is not None and self.sources and self.sources[-1] is source:
      self._merge_batched(failed, payload)
      return
    code = next(self.collector.codes)
    if self.as_values:
      self.sources.append(source)
      self.entries.append((code, check))
      self.preds.append(failed)
      self.payloads.append(tuple(payload))
    else:
      debugging.debug_callback(_NumberedCheck(check, code), failed, *payload)

  def _merge_batched(self, failed, payload) -> None:
    """One `check` met again at once: vmap unrolled it over the mapped elements. As
    JAX's batched check, it failed if any element did, with the last failing
    element's values."""
    old_pred, old_payload = self.preds[-1], self.payloads[-1]
    self.payloads[-1] = tuple(
        ew.select(shape_ops.broadcast_in_dim(failed, core.get_aval(n).shape, ()), n, o)
        for o, n in zip(old_payload, payload))
    self.preds[-1] = ew.bitwise_or(old_pred, failed)

  def nested(self) -> "_Checks":
    return _Checks(self.collector, as_values=False)

  def error(self) -> Error:
    """The Error of the value checks and of the failures callbacks recorded, in order."""
    rows = [(code, i, check, pred, payload) for i, ((code, check), pred, payload)
            in enumerate(zip(self.entries, self.preds, self.payloads))]
    rows += [(order, len(rows) + i, _Check(_fixed(message), None), np.bool_(True), ())
             for order, i, message in self.collector.failures]
    rows.sort(key=lambda r: (r[0], r[1]))
    return Error._of([r[2] for r in rows], [r[3] for r in rows], [r[4] for r in rows])


# ----------------------------------------------------------------------------- evaluation


# Calls whose jaxprs are staged again with their automatic checks inside (as numbered
# callbacks) when they run eagerly; cond, while and scan carry theirs (_CARRIED).
_NESTED = frozenset({"jit", "pjit", "closed_call", "core_call", "checkpoint", "remat"})
# Calls evaluated in line when checkify is itself traced (the enclosing trace stages them
# anyway), so that the checks inside them become values: primitive -> its jaxpr param.
_INLINED = {"jit": "jaxpr", "pjit": "jaxpr", "closed_call": "call_jaxpr", "call": "call_jaxpr",
            "checkpoint": "jaxpr", "remat": "jaxpr"}


def _eval_checked(jaxpr: core.Jaxpr, consts, args, automatic: frozenset, checks: _Checks) -> list:
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
    target = _target(eqn.params.get("callback")) if prim is debugging.debug_callback_p else None
    if target is not None:
      cb_args, cb_kwargs = eqn.params["callback"].in_tree.unflatten(invals)
      target.add_to(checks, *cb_args, **cb_kwargs)
      outs = []
    elif checks.inline and _inlinable(eqn):
      outs = _eval_inline(eqn, invals, automatic, checks)
    elif prim.name in _CARRIED and any(_has_checks(j.jaxpr, automatic)
                                       for j in _carried_inputs(eqn)):
      outs = _eval_carried(eqn, invals, automatic, checks)
    else:
      params = eqn.params
      if automatic and prim.name in _NESTED:
        params = {k: _checked_param(v, automatic, checks) for k, v in params.items()}
      outs = prim.bind(*invals, **params)
      outs = list(outs) if prim.multiple_results else [outs]
      _add_checks(prim.name, eqn.params, invals, outs, automatic, checks)
    for v, val in zip(eqn.out_binders, outs):
      env[v] = val
  return [read(x) for x in jaxpr.outs]


def _inlinable(eqn) -> bool:
  param = _INLINED.get(eqn.primitive.name)
  return param is not None and isinstance(eqn.params.get(param), (core.ClosedJaxpr, core.Jaxpr))


def _eval_inline(eqn, invals, automatic: frozenset, checks: _Checks) -> list:
  inner = eqn.params[_INLINED[eqn.primitive.name]]
  if isinstance(inner, core.ClosedJaxpr):
    return _eval_checked(inner.jaxpr, inner.consts, invals, automatic, checks)
  return _eval_checked(inner, [], invals, automatic, checks)


def _checked_param(value, automatic: frozenset, checks: _Checks):
  if isinstance(value, tuple) and value and all(isinstance(v, core.ClosedJaxpr) for v in value):
    return tuple(_checked_closed(v, automatic, checks) for v in value)
  if isinstance(value, core.ClosedJaxpr):
    return _checked_closed(value, automatic, checks)
  if isinstance(value, core.Jaxpr) and not value.constvars:
    return _checked_closed(core.ClosedJaxpr(value, []), automatic, checks).jaxpr
  return value


def _checked_closed(closed: core.ClosedJaxpr, automatic: frozenset,
                    checks: _Checks) -> core.ClosedJaxpr:
  nested = checks.nested()
  jaxpr, consts = pe.trace_to_jaxpr_dynamic(
      lambda *xs: _eval_checked(closed.jaxpr, closed.consts, xs, automatic, nested),
      closed.in_avals)
  checked, hoisted = pe.close_jaxpr(jaxpr, consts)
  if hoisted:  # the nested jaxpr's consts are concrete, so its checks add no traced ones
    raise AssertionError("checkify: a nested jaxpr's checks closed over a tracer")
  return checked


# ----------------------------------------------------------------------------- control flow
#
# A check inside a cond, while or scan body is carried out of it as values: the body
# is evaluated with its checks as values (at the body's level), and the loop carries,
# per check, whether it failed so far and the payload of its first failure (or the
# branch returns those of its own checks, the other branches' left unfailed).

_CARRIED = frozenset({"cond", "while", "scan"})


def _has_checks(jaxpr: core.Jaxpr, automatic: frozenset) -> bool:
  if automatic:
    return True
  for eqn in jaxpr.eqns:
    if eqn.primitive is debugging.debug_callback_p and _target(eqn.params.get("callback")):
      return True
    for value in eqn.params.values():
      for sub in value if isinstance(value, tuple) else (value,):
        inner = sub.jaxpr if isinstance(sub, core.ClosedJaxpr) else sub
        if isinstance(inner, core.Jaxpr) and _has_checks(inner, automatic):
          return True
  return False


def _carried_inputs(eqn) -> list[core.ClosedJaxpr]:
  p, name = eqn.params, eqn.primitive.name
  if name == "cond":
    return list(p["branches"])
  return [p["body_jaxpr"], p["cond_jaxpr"]] if name == "while" else [p["jaxpr"]]


def _no_weak(x):
  aval = core.get_aval(x)
  return ew.convert_element_type(x, aval.dtype, False) if aval.weak_type else x


class _Body:
  """A body jaxpr evaluated with its checks as values; `found` keeps what the last
  evaluation (the trace that is staged) met, in order."""

  def __init__(self, closed: core.ClosedJaxpr, automatic: frozenset, collector: _Collector):
    self.closed, self.automatic, self.collector = closed, automatic, collector
    self.found: list = []

  def __call__(self, args) -> tuple[list, list, list]:
    sub = _Checks(self.collector, as_values=True, inline=True)
    outs = _eval_checked(self.closed.jaxpr, self.closed.consts, args, self.automatic, sub)
    self.found = [check for _, check in sub.entries]
    return outs, [_no_weak(p) for p in sub.preds], [
        [_no_weak(x) for x in payload] for payload in sub.payloads]

  def signature(self) -> list[tuple[core.ShapedArray, list]]:
    """(pred aval, payload avals) of each check the body has."""
    got = []

    def probe(*xs):
      _, preds, payloads = self(list(xs))
      got.extend((core.get_aval(p), [core.get_aval(x) for x in pl])
                 for p, pl in zip(preds, payloads))
      return []

    pe.trace_to_jaxpr_dynamic(probe, self.closed.in_avals)
    return got


def _unfailed(signature) -> list[tuple]:
  return [(np.zeros(p.shape, np.bool_), [np.zeros(a.shape, a.dtype) for a in pl])
          for p, pl in signature]


def _keep_first(old: list[tuple], preds, payloads) -> list[tuple]:
  """Per check: failed so far, and the payload of the first failure."""
  merged = []
  for (old_pred, old_payload), pred, payload in zip(old, preds, payloads):
    kept = [ew.select(shape_ops.broadcast_in_dim(old_pred, core.get_aval(n).shape, ()), o, n)
            for o, n in zip(old_payload, payload)]
    merged.append((ew.bitwise_or(old_pred, pred), kept))
  return merged


def _eval_carried(eqn, invals, automatic: frozenset, checks: _Checks) -> list:
  name, p = eqn.primitive.name, eqn.params
  if name == "scan":
    return _scan_carried(p, invals, automatic, checks)
  if name == "while":
    return _while_carried(p, invals, automatic, checks)
  return _cond_carried(p, invals, automatic, checks)


def _report(checks: _Checks, found: list, errs: list[tuple]) -> None:
  for check, (pred, payload) in zip(found, errs):
    checks.add(check, pred, payload)


def _scan_carried(p, invals, automatic, checks) -> list:
  nc, nk = p["num_consts"], p["num_carry"]
  consts, init, xs = invals[:nc], invals[nc:nc + nk], invals[nc + nk:]
  body = _Body(p["jaxpr"], automatic, checks.collector)

  def step(carry, x):
    k, errs = carry
    outs, preds, payloads = body([*consts, *k, *x])
    return (outs[:nk], _keep_first(errs, preds, payloads)), outs[nk:]

  (k, errs), ys = control_flow.scan(step, (list(init), _unfailed(body.signature())), list(xs),
                                    length=p["length"], reverse=p["reverse"],
                                    unroll=p["unroll"])
  _report(checks, body.found, errs)
  return [*k, *ys]


def _while_carried(p, invals, automatic, checks) -> list:
  """The condition's checks run on the initial value and after each step, in the body,
  so that they are carried like the body's; the condition itself drops them."""
  ncc, nbc = p["cond_nconsts"], p["body_nconsts"]
  cond_consts, body_consts, init = invals[:ncc], invals[ncc:ncc + nbc], invals[ncc + nbc:]
  body = _Body(p["body_jaxpr"], automatic, checks.collector)
  cond = _Body(p["cond_jaxpr"], automatic, checks.collector)
  _, first_preds, first_payloads = cond([*cond_consts, *init])
  cond_found = cond.found

  def cond_fun(carry):
    return cond([*cond_consts, *carry[0]])[0][0]

  def body_fun(carry):
    k, (cond_errs, body_errs) = carry
    outs, preds, payloads = body([*body_consts, *k])
    _, c_preds, c_payloads = cond([*cond_consts, *outs])
    return outs, (_keep_first(cond_errs, c_preds, c_payloads),
                  _keep_first(body_errs, preds, payloads))

  first = list(zip(first_preds, first_payloads))
  k, (cond_errs, body_errs) = control_flow.while_loop(
      cond_fun, body_fun, (list(init), (first, _unfailed(body.signature()))))
  _report(checks, cond_found, cond_errs)
  _report(checks, body.found, body_errs)
  return list(k)


def _cond_carried(p, invals, automatic, checks) -> list:
  index, ops = invals[0], invals[1:]
  bodies = [_Body(b, automatic, checks.collector) for b in p["branches"]]
  signatures = [b.signature() for b in bodies]
  slots = [sum(len(s) for s in signatures[:i]) for i in range(len(bodies))]
  unfailed = [e for s in signatures for e in _unfailed(s)]

  def branch(i):
    def run(*xs):
      outs, preds, payloads = bodies[i](list(xs))
      errs = list(unfailed)
      errs[slots[i]:slots[i] + len(preds)] = [(pr, list(pl)) for pr, pl in zip(preds, payloads)]
      return outs, errs
    return run

  outs, errs = control_flow.switch(index, [branch(i) for i in range(len(bodies))], *ops)
  _report(checks, [c for b in bodies for c in b.found], errs)
  return list(outs)


# The primitives JAX checks for a NaN in their outputs.
_NAN_PRIMITIVES = frozenset({
    "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "bessel_i0e",
    "bessel_i1e", "cbrt", "conv_general_dilated", "cos", "cosh", "cumlogsumexp", "cummax",
    "cummin", "cumprod", "cumsum", "digamma", "div", "dot_general", "erf", "erf_inv", "erfc",
    "exp", "exp2", "expm1", "igamma", "igamma_grad_a", "igammac", "integer_pow", "lgamma",
    "log", "log1p", "logistic", "max", "min", "mul", "nextafter", "pow", "random_gamma_grad",
    "reduce_max", "reduce_min", "reduce_prod", "reduce_sum", "regularized_incomplete_beta",
    "rem", "rsqrt", "sin", "sinh", "sqrt", "sub", "tan", "tanh"})


def _add_checks(name: str, params, invals, outs, automatic: frozenset, checks: _Checks) -> None:
  if DivisionByZeroError in automatic and name in ("div", "rem"):
    checks.add(_Check(_fixed("division by zero"), DivisionByZeroError),
               _any(ew.eq(invals[1], _zero_like(invals[1]))))
  if NaNError in automatic and name in _NAN_PRIMITIVES:
    floats = [o for o in outs if dtypes.is_inexact(core.get_aval(o).dtype)]
    if floats:
      any_nan = _any_of([_any(ew.ne(o, o)) for o in floats])
      checks.add(_Check(_fixed(f"nan generated by primitive: {name}."), NaNError), any_nan)
  if OOBError in automatic:
    bounds = _index_bounds(name, params, invals)
    if bounds is not None:
      shape, indices, axes, limits = bounds
      render = functools.partial(_oob_message, shape, axes, limits)
      payload = list(indices) if isinstance(indices, (list, tuple)) else [indices]
      checks.add(_Check(render, OOBError), _out_of_bounds(indices, limits), payload)


def _all(x):
  return reductions.reduce_and(x, tuple(range(np.ndim(x)))) if np.ndim(x) else x


def _any(x):
  return reductions.reduce_or(x, tuple(range(np.ndim(x)))) if np.ndim(x) else x


def _any_of(preds):
  out = preds[0]
  for p in preds[1:]:
    out = ew.bitwise_or(out, p)
  return out


def _zero_like(x):
  return np.zeros((), core.get_aval(x).dtype)


def _out_of_bounds(indices, limits):
  """Whether any start index is below 0 or above its axis' largest valid start."""
  if isinstance(indices, (list, tuple)):  # one scalar start per axis (dynamic slices)
    return _any_of([ew.bitwise_or(ew.lt(i, _zero_like(i)),
                                  ew.gt(i, np.asarray(lim, core.get_aval(i).dtype)))
                    for i, lim in zip(indices, limits)])
  aval = core.get_aval(indices)
  upper = shape_ops.broadcast_in_dim(np.asarray(limits, aval.dtype), aval.shape,
                                     (len(aval.shape) - 1,))
  return _any(ew.bitwise_or(ew.lt(indices, _zero_like(indices)), ew.gt(indices, upper)))


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


def _oob_message(shape, axes, limits, *indices) -> str | None:
  """JAX's message for the first out-of-bounds start index (None if there is none)."""
  if len(indices) != 1 or np.ndim(indices[0]) == 0:  # one scalar start per axis
    vectors = np.asarray([np.asarray(i) for i in indices], np.int64).reshape(1, len(axes))
  else:
    vectors = np.asarray(indices[0], np.int64).reshape(-1, len(axes))
  bad = (vectors < 0) | (vectors > np.asarray(limits, np.int64))
  if not bad.any():
    return None
  row, col = np.argwhere(bad)[0]
  axis = axes[col]
  return (f"out-of-bounds indexing for array of shape {tuple(shape)}: index "
          f"{vectors[row, col]} is out of bounds for axis {axis} with size {shape[axis]}. ")


def _block(x):
  ready = getattr(x, "block_until_ready", None)
  if callable(ready) and not isinstance(x, core.Tracer):
    ready()
  return x


def debug_check(pred, msg: str, *fmt_args, **fmt_kwargs) -> None:
  """Like `check`, but a no-op unless run under `checkify` (then it is a check)."""
  if _collectors():
    check(pred, msg, *fmt_args, **fmt_kwargs)
