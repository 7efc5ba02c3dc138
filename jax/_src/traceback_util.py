"""Marking the boundary between user code and jax internals in tracebacks.

`api_boundary` wraps a public entry point. When an exception escapes it, the
frames from inside jax's own source files are dropped from its traceback (unless
`JAX_TRACEBACK_FILTERING=off`), so the user sees their own code first. Modules
registered with `register_exclusion` are filtered like jax's own.
"""

from __future__ import annotations

import functools
import os
import types
from typing import Callable

_exclude_paths: list[str] = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]


def register_exclusion(path: str) -> None:
  """Hide frames from files under `path` (e.g. a library built on jax) in tracebacks."""
  _exclude_paths.append(os.path.abspath(path))


def _filtering_enabled() -> bool:
  return os.environ.get("JAX_TRACEBACK_FILTERING", "auto").lower() not in ("off", "false", "0")


def _is_internal(frame: types.FrameType) -> bool:
  filename = os.path.abspath(frame.f_code.co_filename)
  return any(filename.startswith(p + os.sep) for p in _exclude_paths)


def include_frame(frame: types.FrameType) -> bool:
  """Whether a filtered traceback keeps `frame` (it is not from an excluded file)."""
  return not _is_internal(frame)


def filter_traceback(tb: types.TracebackType | None) -> types.TracebackType | None:
  """The traceback `tb` without frames of excluded (internal) files."""
  frames = []
  while tb is not None:
    if include_frame(tb.tb_frame):
      frames.append((tb.tb_frame, tb.tb_lasti, tb.tb_lineno))
    tb = tb.tb_next
  out = None
  for frame, lasti, lineno in reversed(frames):
    out = types.TracebackType(out, frame, lasti, lineno)
  return out


def api_boundary(fun: Callable) -> Callable:
  """Wrap `fun` so that exceptions leaving it show the user's frames, not jax's."""

  @functools.wraps(fun)
  def reraise_with_filtered_traceback(*args, **kwargs):
    __tracebackhide__ = True  # pytest hides this frame too
    try:
      return fun(*args, **kwargs)
    except Exception as e:
      if not _filtering_enabled() or getattr(e, "_jax_filtered", False):
        raise
      filtered = filter_traceback(e.__traceback__)
      try:
        e._jax_filtered = True
      except AttributeError:
        pass  # exceptions with __slots__ keep their full traceback
      if filtered is None:
        raise
      raise e.with_traceback(filtered) from e.__cause__

  return reraise_with_filtered_traceback
