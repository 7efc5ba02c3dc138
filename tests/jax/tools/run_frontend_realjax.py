"""OPTIONAL dev driver: run the frontend conformance corpus on our `jax`, executing
through the real-jaxlib adapter (tests/jax/tools/realjax_backend.py).

    JAX_NUM_CPU_DEVICES=4 python3 tests/jax/tools/run_frontend_realjax.py [runner args...]

Arguments are passed to the corpus runner run_frontend.py in shared/conformance (default: the whole
corpus). `--isolate` re-runs this driver per case, so the adapter is installed in the
child too.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
CONFORMANCE = os.environ.get("CONFORMANCE_DIR") or os.path.join(
    os.path.dirname(REPO), "shared", "conformance")


def main() -> int:
  sys.path.insert(0, REPO)
  sys.path.insert(0, HERE)
  sys.path.insert(0, CONFORMANCE)
  import realjax_backend
  if not realjax_backend.install():
    print("real jaxlib not found (set REALJAX_SITE)", file=sys.stderr)
    return 2
  import run_frontend
  args = sys.argv[1:]
  if not any(os.path.exists(a) for a in args):
    args = [os.path.join(CONFORMANCE, "frontend")] + args
  # In --isolate mode the runner re-invokes its own file; point it back at this driver.
  run_frontend.__file__ = os.path.abspath(__file__)
  sys.argv = [sys.argv[0]] + args
  return run_frontend.main()


if __name__ == "__main__":
  sys.exit(main())
