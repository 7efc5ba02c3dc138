#!/usr/bin/env bash
# Long runs of the compile-and-run fuzzer (xla/backends/cpu/fuzz): mutated HLO
# modules through parse -> verify -> compile -> run on the CPU backend, built
# with AddressSanitizer and UndefinedBehaviorSanitizer. CI runs the same binary
# as a test for 30 s in both builds (bazel test //xla/...); this is for hours.
#   FUZZ_SECONDS    how long to fuzz (default 1800)
#   FUZZ_SEED       the mutation seed (default: the time)
#   FUZZ_ARTIFACTS  where the input being run is kept (current.hlo): after a
#                   crash it is the finding (default fuzz-artifacts/ in the checkout)
# Reproduce a finding by compiling the saved module through jax's or the C++
# client, then add it to xla/backends/cpu/fuzz/seeds once fixed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

CONFORMANCE_DIR="${CONFORMANCE_DIR:-$(cd .. && pwd)/shared/conformance}"
FUZZ_SECONDS="${FUZZ_SECONDS:-1800}"
FUZZ_SEED="${FUZZ_SEED:-$(date +%s)}"
FUZZ_ARTIFACTS="${FUZZ_ARTIFACTS:-$PWD/fuzz-artifacts}"
mkdir -p "$FUZZ_ARTIFACTS"

bazel build --config=asan //xla/backends/cpu/fuzz:compile_run_fuzz
binary="$(bazel info --config=asan bazel-bin)/xla/backends/cpu/fuzz/compile_run_fuzz"
export CONFORMANCE_DIR
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
echo "fuzz_compile_run: ${FUZZ_SECONDS}s, seed ${FUZZ_SEED}"
if ! "$binary" --seconds="$FUZZ_SECONDS" --seed="$FUZZ_SEED" --artifacts="$FUZZ_ARTIFACTS"; then
  echo "fuzz_compile_run: FAILED; the input that was running is $FUZZ_ARTIFACTS/current.hlo"
  exit 1
fi
