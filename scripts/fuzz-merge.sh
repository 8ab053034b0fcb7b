#!/usr/bin/env bash
# Folds what `npm run fuzz` found (build/fuzz-corpus/<target>) into
# the committed corpus (tests/fuzz/corpus/<target>): libFuzzer's -merge=1 adds only the
# inputs that reach new coverage, so the committed corpus grows slowly and stays small.
# -use_counters=0: coverage counts edges only, not hit counts (which kept ~2,000 inputs
# after the first 20 minutes of fuzzing instead of ~450).
#   scripts/fuzz-merge.sh [target ...]   (default: every target; needs build/asan)
set -euo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
if ((${#targets[@]} == 0)); then
  for f in tests/fuzz/fuzz_*.cpp; do targets+=("$(basename "$f" .cpp)"); done
fi
mkdir -p build/asan/fuzz-logs
for t in "${targets[@]}"; do
  found=build/fuzz-corpus/$t
  [[ -d $found ]] || { echo "$t: nothing found yet ($found)"; continue; }
  before=$(find "tests/fuzz/corpus/$t" -type f | wc -l)
  "build/asan/$t" -merge=1 -use_counters=0 -max_len=8192 "tests/fuzz/corpus/$t" "$found" >"build/asan/fuzz-logs/$t.merge.log" 2>&1
  after=$(find "tests/fuzz/corpus/$t" -type f | wc -l)
  bytes=$(find "tests/fuzz/corpus/$t" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
  echo "$t: $((after - before)) inputs added ($after in tests/fuzz/corpus/$t, $bytes bytes)"
done
