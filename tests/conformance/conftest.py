"""The conformance corpora sit beside the repository (../shared/conformance) or
where CONFORMANCE_DIR says. A missing corpus fails the tests that need it: a
run that checked nothing must not pass."""

import os

import pytest


@pytest.fixture(scope="session")
def conformance_dir() -> str:
  root = os.environ.get("CONFORMANCE_DIR") or os.path.join(
      os.path.dirname(__file__), "..", "..", "..", "shared", "conformance")
  root = os.path.abspath(root)
  for corpus in ("hlo", "frontend"):
    assert os.path.isdir(os.path.join(root, corpus)), (
        f"conformance corpus not found at {root}: set CONFORMANCE_DIR to the folder holding "
        f"hlo/ and frontend/")
  return root
