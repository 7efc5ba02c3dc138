#!/usr/bin/env bash
# Runs the HLO parser's coverage-guided fuzzer (xla/hlo/parser/parser_fuzzer.cc,
# libFuzzer with AddressSanitizer and UndefinedBehaviorSanitizer) for a bounded
# time, seeded with xla/hlo/parser/fuzz/corpus and the conformance modules.
#   FUZZ_SECONDS    how long to fuzz (default 60)
#   FUZZ_SEED       libFuzzer's seed (default: the time; CI passes a fixed one, so
#                   that its run explores the same inputs each time)
#   FUZZ_ARTIFACTS  where a crashing, leaking or hanging input is saved
#                   (default fuzz-artifacts/ in the checkout)
# A finding fails the run, and the log names the saved input and how to
# reproduce it. Needs clang-19 and libclang-rt-19-dev (.ci/setup.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

CONFORMANCE_DIR="${CONFORMANCE_DIR:-$(cd .. && pwd)/shared/conformance}"
FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
FUZZ_SEED="${FUZZ_SEED:-$(date +%s)}"
FUZZ_ARTIFACTS="${FUZZ_ARTIFACTS:-$PWD/fuzz-artifacts}"

# The clang build lives in an output base of its own beside the gcc one (.bazelrc).
output_base="$(bazel info output_base)-fuzz"
fuzz_bazel() { bazel --output_base="$output_base" "$@"; }
fuzz_bazel build --config=fuzz //xla/hlo/parser:parser_fuzzer
fuzzer="$(fuzz_bazel info --config=fuzz bazel-bin)/xla/hlo/parser/parser_fuzzer"
fuzz_bazel shutdown  # frees the second server's memory before the run

# libFuzzer writes what it learns into the first folder; the rest are read-only seeds.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/conformance" "$FUZZ_ARTIFACTS"
if [ -d "$CONFORMANCE_DIR/hlo" ]; then
  for dir in "$CONFORMANCE_DIR"/hlo/*/; do
    if [ -f "$dir/module.hlo" ]; then cp "$dir/module.hlo" "$work/conformance/$(basename "$dir").hlo"; fi
  done
else
  echo "fuzz: no conformance corpus at $CONFORMANCE_DIR/hlo; seeding from the checked-in corpus only"
fi

echo "fuzz: $fuzzer for ${FUZZ_SECONDS}s, seed ${FUZZ_SEED}"
status=0
# libFuzzer prints a line per coverage gain (thousands a minute): kept in a log,
# of which the end is shown, and all of it saved beside the inputs on a finding.
"$fuzzer" -max_total_time="$FUZZ_SECONDS" -seed="$FUZZ_SEED" -timeout=10 -rss_limit_mb=2048 \
  -dict=xla/hlo/parser/fuzz/hlo.dict -artifact_prefix="$FUZZ_ARTIFACTS/" -print_final_stats=1 \
  "$work/corpus" xla/hlo/parser/fuzz/corpus "$work/conformance" > "$work/fuzz.log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  tail -n 100 "$work/fuzz.log"
  cp "$work/fuzz.log" "$FUZZ_ARTIFACTS/fuzz.log"
  echo "fuzz: FAILED (exit $status). Saved inputs and fuzz.log in $FUZZ_ARTIFACTS:"
  ls -l "$FUZZ_ARTIFACTS"
  echo "fuzz: reproduce with $fuzzer <input> (the run: FUZZ_SEED=$FUZZ_SEED); add the input to xla/hlo/parser/fuzz/corpus once fixed"
  exit 1
fi
tail -n 20 "$work/fuzz.log"
echo "fuzz: no findings in ${FUZZ_SECONDS}s"
