"""`.ci/run` runs exactly the README's test command."""

import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def _readme_test_command() -> str:
  with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
    lines = f.read().splitlines()
  start = next(i for i, line in enumerate(lines) if line.startswith("Run the whole test suite"))
  fence = next(i for i in range(start, len(lines)) if lines[i].startswith("```"))
  return lines[fence + 1].strip()


def test_ci_run_calls_the_readme_test_command():
  command = _readme_test_command()
  assert command == "bash .ci/setup.sh && bash .ci/test.sh"
  with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
    body = [line.strip() for line in f if line.strip() and not line.lstrip().startswith("#")]
  assert body[-1] == command, body
