"""`checkify`: checks inside jax code whose failures become values (or exceptions).

`check(pred, msg, *fmt_args)` asserts `pred` (a boolean array: every element must be
true). Inside `checkify(f)` failures are collected and returned as an `Error`
beside `f`'s result; outside, a failing check raises `JaxRuntimeError`.

Checks on traced values run when the computation runs: each is a jax.debug-style
effectful callback (never dropped; once per element under vmap) that records the
first failure with the innermost active `checkify` call. A `checkify` that is
itself staged out (`jit(checkify(f))`) is no longer active when the program runs,
so its failures raise `JaxRuntimeError` from the call instead of being returned.
Only user checks are supported: the automatic NaN, division and index checks
would need every primitive instrumented and raise NotImplementedError if requested.
"""

from __future__ import annotations

import functools
import threading
from typing import Callable

import numpy as np

from jax._src import core
from jax._src import debugging
from jax._src import tree_util
from jax._src.lib import _jax


# A failed check raises the runtime's error type, as every failed jax computation does
# (jax.errors.JaxRuntimeError).
JaxRuntimeError = _jax.XlaRuntimeError


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
  def __init__(self):
    self.first: str | None = None

  def record(self, message: str) -> None:
    if self.first is None:
      self.first = message


_state = threading.local()


def _collectors() -> list[_Collector]:
  stack = getattr(_state, "collectors", None)
  if stack is None:
    stack = _state.collectors = []
  return stack


def _fail(message: str) -> None:
  stack = _collectors()
  if stack:
    stack[-1].record(message)
  else:
    raise JaxRuntimeError(message)


def _check_on_host(msg: str, pred, fmt_args, fmt_kwargs) -> None:
  if not np.all(np.asarray(pred)):
    _fail(msg.format(*fmt_args, **fmt_kwargs))


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
    _fail(error.get())


def checkify(f: Callable, errors: frozenset = user_checks) -> Callable:
  """`f` returning `(Error, result)`: failed checks are returned instead of raised."""
  unsupported = set(errors) - set(user_checks)
  if unsupported:
    names = sorted(c.__name__ for c in unsupported)
    raise NotImplementedError(f"checkify supports user checks only; automatic checks "
                              f"{names} are not implemented")

  @functools.wraps(f)
  def checked(*args, **kwargs):
    collector = _Collector()
    stack = _collectors()
    stack.append(collector)
    try:
      out = f(*args, **kwargs)
      tree_util.tree_map(_block, out)  # run pending work so its checks report here
    finally:
      stack.remove(collector)
    return Error(collector.first), out

  return checked


def _block(x):
  ready = getattr(x, "block_until_ready", None)
  if callable(ready) and not isinstance(x, core.Tracer):
    ready()
  return x


def debug_check(pred, msg: str, *fmt_args, **fmt_kwargs) -> None:
  """Like `check`, but a no-op unless run under `checkify` (then it is a check)."""
  if _collectors():
    check(pred, msg, *fmt_args, **fmt_kwargs)
