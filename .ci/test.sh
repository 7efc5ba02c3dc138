#!/usr/bin/env bash
# The whole test suite (the README's second command): builds the wheels, runs the
# C++ unit tests with Bazel (plain, then sanitized), jaxlib's C++ sanitized under
# Python tests, fuzzes the HLO parser, then
# every Python test against the installed wheels.
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

# The same tests under AddressSanitizer and UndefinedBehaviorSanitizer (.bazelrc),
# building only what they need.
bazel test --config=asan --build_tests_only //xla/... --test_env=CONFORMANCE_DIR="$CONFORMANCE_DIR"

# jaxlib's C++ (the extension, the CPU plugin, its collectives engine) built with
# the same sanitizers and driven by a selection of the Python tests.
bash .ci/sanitized_jaxlib.sh

# The HLO parser's coverage-guided fuzzer (clang + libFuzzer) for a bounded time,
# with a fixed seed so that the gate is repeatable; long runs with fresh seeds are
# `FUZZ_SECONDS=1800 bash .ci/fuzz.sh`.
FUZZ_SEED=1 bash .ci/fuzz.sh

# The Debian 11 (glibc 2.31) root that tests/wheels/test_old_glibc.py runs the
# plugins in (cached under ~/.cache after the first run).
bash tests/wheels/make_bullseye_root.sh

# Runs `pytest tests -q` in a fresh virtualenv with jax installed from dist/;
# missing wheels fail instead of skipping, and exit status 5 (no tests) fails.
python3 build/build.py test -- tests -q "$@"

# The JAX libraries on our wheels, the fast part (ecosystem/README.md; 3.5 minutes on
# a busy two-core machine once pip's cache is warm): each pinned library installed
# with --no-deps into a virtualenv made from dist/, imported, one training step each,
# a bounded selection of their own tests, and the flax/equinox examples against real
# JAX's numbers; exits non-zero on any failure. The full suites: ecosystem/run.py.
python3 ecosystem/run.py --ci
