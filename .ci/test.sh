#!/usr/bin/env bash
# The whole test suite (the README's second command): builds the wheels, runs the
# C++ unit tests with Bazel, then every Python test against the installed wheels
# while the C++ tests and jaxlib's C++ run again under the sanitizers, then
# fuzzes the HLO parser and runs the JAX libraries' fast checks. From the Python
# tests to the fuzzer every stage runs even when another fails; the run fails if
# any did.
#
# Wheels: jax, every plugin, and jaxlib for the oldest and newest supported Python
# plus python3's own (pytest runs in a fresh virtualenv of python3 with the wheels
# installed from dist/; the wheel tests also install them for 3.10 and 3.13).
# The release workflow builds the complete matrix.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

CONFORMANCE_DIR="${CONFORMANCE_DIR:-$(cd .. && pwd)/shared/conformance}"
export CONFORMANCE_DIR

# Lines per top-level folder and the largest files; fails on a source file
# over 1,500 lines.
python3 build/size_table.py

PYTHONS="3.10,$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])'),3.13"
python3 build/build.py build --wheels=all --python="$PYTHONS"

# C++ unit tests beside their sources (parser, verifier, evaluator, passes, CPU backend).
bazel test //xla/... --test_env=CONFORMANCE_DIR="$CONFORMANCE_DIR"

# The sanitizer stage compiles for most of an hour on two cores, while the Python
# suite mostly waits on its subprocesses: the two run side by side, the
# compilers at lower priority (Bazel's server spawns them), and the stage's output
# is printed when it ends. Its steps:
#  - the C++ tests again under AddressSanitizer and UndefinedBehaviorSanitizer
#    (.bazelrc), building only what they need;
#  - jaxlib's C++ (the extension, the CPU plugin, its collectives engine) built
#    with the same sanitizers and driven by a selection of the Python tests.
sanitizer_log="$(mktemp)"
renice -n 10 -p "$(bazel info server_pid 2>/dev/null)" > /dev/null 2>&1 || true
(
  bazel test --config=asan --build_tests_only //xla/... --test_env=CONFORMANCE_DIR="$CONFORMANCE_DIR" &&
  bash .ci/sanitized_jaxlib.sh
) > "$sanitizer_log" 2>&1 &
sanitizers=$!
failed=()

# The Debian 11 (glibc 2.31) root that tests/wheels/test_old_glibc.py runs the
# plugins in (cached under ~/.cache after the first run).
bash tests/wheels/make_bullseye_root.sh

# Runs `pytest tests -q` in a fresh virtualenv with jax installed from dist/;
# missing wheels fail instead of skipping, and exit status 5 (no tests) fails.
# The tests that ask Bazel about the build graph wait for the sanitizer stage
# (one Bazel server answers one command at a time).
python3 build/build.py test -- tests -q --deselect tests/build/test_incremental.py "$@" ||
  failed+=("python tests")

wait "$sanitizers" || failed+=("sanitizers")
echo "---- sanitizer stage ----"
cat "$sanitizer_log"
rm -f "$sanitizer_log"
python3 build/build.py test -- tests/build/test_incremental.py -q || failed+=("build graph tests")

# The HLO parser's coverage-guided fuzzer (clang + libFuzzer) for a bounded time,
# with a fixed seed so that the gate is repeatable; long runs with fresh seeds are
# `FUZZ_SECONDS=1800 bash .ci/fuzz.sh`.
FUZZ_SEED=1 bash .ci/fuzz.sh || failed+=("fuzzing")

if [ "${#failed[@]}" -gt 0 ]; then
  echo "FAILED: ${failed[*]}" >&2
  exit 1
fi

# The JAX libraries on our wheels, the fast part (ecosystem/README.md; 3.5 minutes on
# a busy two-core machine once pip's cache is warm): each pinned library installed
# with --no-deps into a virtualenv made from dist/, imported, one training step each,
# a bounded selection of their own tests, and the flax/equinox examples against real
# JAX's numbers; exits non-zero on any failure. The full suites: ecosystem/run.py.
python3 ecosystem/run.py --ci
