#!/usr/bin/env bash
# Long runs of the compile-and-run fuzzer (xla/backends/cpu/fuzz): mutated HLO
# modules through parse -> verify -> compile -> run on the CPU backend, built
# with AddressSanitizer and UndefinedBehaviorSanitizer. CI runs the same binary
# as a test for 30 s in both builds (bazel test //xla/...); this is for hours.
#   FUZZ_SECONDS    how long to fuzz (default 1800)
#   FUZZ_SEED       the mutation seed (default: the time)
#   FUZZ_ARTIFACTS  where the input being run is kept (current.hlo): after a
#                   crash it is the finding (default fuzz-artifacts/ in the checkout)
#   FUZZ_ENGINE     "mutator" (default): the gcc ASan build above, random
#                   structure-aware mutations; "libfuzzer": the same pipeline
#                   and mutations, coverage-guided, built with clang
#                   (compile_run_libfuzzer, --config=fuzz-compile-run, an output base of its
#                   own as in .ci/fuzz.sh); findings are saved as crash-* files
# Reproduce a finding by compiling the saved module through jax's or the C++
# client (or run the libFuzzer binary on the crash-* file), then add it to
# xla/backends/cpu/fuzz/seeds once fixed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

CONFORMANCE_DIR="${CONFORMANCE_DIR:-$(cd .. && pwd)/shared/conformance}"
FUZZ_SECONDS="${FUZZ_SECONDS:-1800}"
FUZZ_SEED="${FUZZ_SEED:-$(date +%s)}"
FUZZ_ARTIFACTS="${FUZZ_ARTIFACTS:-$PWD/fuzz-artifacts}"
mkdir -p "$FUZZ_ARTIFACTS"

if [ "${FUZZ_ENGINE:-mutator}" = libfuzzer ]; then
  output_base="$(bazel info output_base)-fuzz"
  fuzz_bazel() { bazel --output_base="$output_base" "$@"; }
  fuzz_bazel build --config=fuzz-compile-run //xla/backends/cpu/fuzz:compile_run_libfuzzer
  fuzzer="$(fuzz_bazel info --config=fuzz-compile-run bazel-bin)/xla/backends/cpu/fuzz/compile_run_libfuzzer"
  fuzz_bazel shutdown
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$work/corpus" "$work/seeds"
  for dir in "$CONFORMANCE_DIR"/hlo/*/; do
    if [ -f "$dir/module.hlo" ]; then cp "$dir/module.hlo" "$work/seeds/$(basename "$dir").hlo"; fi
  done
  cp xla/backends/cpu/fuzz/seeds/*.hlo "$work/seeds/"
  echo "fuzz_compile_run (libFuzzer): ${FUZZ_SECONDS}s, seed ${FUZZ_SEED}"
  # -timeout: a mutated while loop may never end, which is not a finding here
  # (the mutator driver does not run loops at all); -rss_limit_mb: compiling
  # the corpus's largest modules under ASan takes about 1 GB.
  exec env ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}" \
    "$fuzzer" -max_total_time="$FUZZ_SECONDS" -seed="$FUZZ_SEED" -timeout=30 \
    -rss_limit_mb=4096 -artifact_prefix="$FUZZ_ARTIFACTS/" -print_final_stats=1 \
    "$work/corpus" "$work/seeds"
fi

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
