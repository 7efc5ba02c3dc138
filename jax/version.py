"""The one source of truth for the project's version numbers.

Bazel reads this file (third_party/repositories.bzl) to stamp every wheel, the
plugins' C++ code and jaxlib's version module.

The version carries the PEP 440 epoch "1!": every release of JAX on PyPI has
epoch 0, so a pin such as ``jaxlib==1!0.1.0`` can never resolve to a PyPI
release that shares our distribution names.
"""

_version = "1!0.1.0"
_minimum_jaxlib_version = "1!0.1.0"

__version__ = _version


def _version_as_tuple(version: str) -> tuple[int, ...]:
  """'1!0.1.0' -> (1, 0, 1, 0): epoch first, then the release numbers."""
  epoch, _, release = version.rpartition("!")
  release = release.split("+")[0]
  parts = []
  for piece in release.split("."):
    digits = "".join(ch for ch in piece if ch.isdigit()) if not piece.isdigit() else piece
    parts.append(int(digits) if digits else 0)
  return (int(epoch or 0), *parts)


__version_info__ = _version_as_tuple(_version)
_minimum_jaxlib_version_info = _version_as_tuple(_minimum_jaxlib_version)
