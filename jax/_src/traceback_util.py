"""Marking the boundary between user code and jax internals in tracebacks.

`api_boundary` wraps a public entry point. When an exception escapes it, the frames from
inside jax's own source files (and from files registered with `register_exclusion`, as
libraries built on jax register theirs) are hidden, as the `jax_traceback_filtering`
option says:

- "off": the traceback is left whole;
- "tracebackhide": hidden frames get a `__tracebackhide__` local, which pytest and
  IPython honour;
- "remove_frames": hidden frames are dropped, and the exception's cause is an
  `UnfilteredStackTrace` holding the whole traceback;
- "quiet_remove_frames": dropped too, with a note saying so instead of the cause;
- "auto" (the default): "tracebackhide" under IPython, else "quiet_remove_frames".
"""

from __future__ import annotations

import functools
import inspect
import os
import types
from typing import Callable

from jax._src.config import config

_exclude_paths: list[str] = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]


def register_exclusion(path: str) -> None:
  """Hide frames from the file `path`, or the files under the folder `path` (a library
  built on jax registers its own), in tracebacks."""
  _exclude_paths.append(path)


_SIMPLIFIED_TB_MSG = ("For simplicity, JAX has removed its internal frames from the "
                      "traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off "
                      "to include these.")


class UnfilteredStackTrace(Exception):
  """The cause of an exception whose traceback was filtered ("remove_frames"): it carries
  the whole traceback."""


def _running_under_ipython() -> bool:
  try:
    return get_ipython() is not None  # type: ignore[name-defined]  # noqa: F821
  except NameError:
    return False


def filtering_mode() -> str:
  """The `jax_traceback_filtering` mode in effect ("auto" resolved)."""
  env = os.environ.get("JAX_TRACEBACK_FILTERING")
  mode = config.read("jax_traceback_filtering")
  if mode in (None, "auto") and env:
    mode = env.lower()
  if mode in ("false", "0"):
    mode = "off"
  if mode in (None, "auto"):
    mode = "tracebackhide" if _running_under_ipython() else "quiet_remove_frames"
  return mode


def _is_internal(frame: types.FrameType) -> bool:
  # Real paths: an install reached through a symlinked folder is still jax's own.
  filename = os.path.realpath(frame.f_code.co_filename)
  return any(_within(filename, os.path.realpath(p)) for p in _exclude_paths)


def _within(filename: str, path: str) -> bool:
  return filename == path or filename.startswith(path + os.sep)


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


def _hide_frames(tb: types.TracebackType | None) -> None:
  """Marks the frames filtering would drop with `__tracebackhide__`."""
  while tb is not None:
    if _is_internal(tb.tb_frame):
      tb.tb_frame.f_locals["__tracebackhide__"] = True
    tb = tb.tb_next


def api_boundary(fun: Callable) -> Callable:
  """Wrap `fun` so that exceptions leaving it show the user's frames, not jax's."""

  @functools.wraps(fun)
  def reraise_with_filtered_traceback(*args, **kwargs):
    __tracebackhide__ = True  # pytest hides this frame too
    try:
      return fun(*args, **kwargs)
    except Exception as e:
      mode = filtering_mode()
      # The outermost boundary filters: it sees every hidden frame below it.
      if mode == "off" or _under_another_boundary(inspect.currentframe().f_back):
        raise
      if mode == "tracebackhide":
        _hide_frames(e.__traceback__)
        raise
      filtered = filter_traceback(e.__traceback__)
      if filtered is None:
        raise
      if mode == "quiet_remove_frames":
        e.add_note("--------------------\n" + _SIMPLIFIED_TB_MSG)
      else:
        unfiltered = UnfilteredStackTrace(
            "The preceding stack trace is the source of the JAX exception that follows; "
            "the exception below has its internal frames removed.")
        unfiltered.__cause__ = e.__cause__
        e.__cause__ = unfiltered.with_traceback(e.__traceback__)
      # A bare raise: `raise e` would put this frame back on top of the traceback.
      e.with_traceback(filtered)
      raise

  return reraise_with_filtered_traceback


_BOUNDARY_CODE = api_boundary(lambda: None).__code__


def _under_another_boundary(frame: types.FrameType | None) -> bool:
  while frame is not None:
    if frame.f_code is _BOUNDARY_CODE:
      return True
    frame = frame.f_back
  return False
