#!/usr/bin/env bash
# One libFuzzer target as a CTest test (registered by cmake/sanitize.cmake).
#
#   run-fuzz.sh run    <binary> <target> <source dir> <build dir> <seconds>
#       Fuzzes for <seconds> (the environment's POSENC_FUZZ_SECONDS wins) from the
#       committed corpus tests/fuzz/corpus/<target> plus what earlier runs found in
#       build/fuzz-corpus/<target>, where new inputs go (scripts/fuzz-merge.sh folds the
#       interesting ones back into the committed corpus). Crashes land in
#       <build dir>/fuzz-artifacts/<target>/. Prints one summary line
#       ("fuzz <target>: N executions in S s ...") and keeps the full log in
#       <build dir>/fuzz-logs/<target>.log, which scripts/test.js reads.
#   run-fuzz.sh replay <binary> <target> <source dir> <build dir>
#       Runs every input of tests/fuzz/regressions/<target> and of the committed
#       corpus once (each crash ever found must stay fixed).
set -uo pipefail
mode=$1 binary=$2 target=$3 src=$4 build=$5
seconds=${POSENC_FUZZ_SECONDS:-${6:-60}}

case $target in
  fuzz_checkpoint) max_len=8192 ;;  # real checkpoints of small models are 1-3 KB
  fuzz_llama2c | fuzz_gguf) max_len=16384 ;;  # tiny models: 1-11 KB
  *) max_len=4096 ;;
esac
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
logs=$build/fuzz-logs
artifacts=$build/fuzz-artifacts/$target
mkdir -p "$logs" "$artifacts"
log=$logs/$target.log
[[ $mode == replay ]] && log=$logs/$target.replay.log

fail() {
  echo "fuzz $target: $1 (log: $log)"
  grep -E "ERROR|SUMMARY|runtime error|contract violated|Test unit written" "$log" | head -20
  exit 1
}

if [[ $mode == replay ]]; then
  inputs=()
  for dir in "$src/tests/fuzz/regressions/$target" "$src/tests/fuzz/corpus/$target"; do
    [[ -d $dir ]] && while IFS= read -r f; do inputs+=("$f"); done < <(find "$dir" -type f | sort)
  done
  if ((${#inputs[@]} == 0)); then echo "fuzz $target: nothing to replay"; exit 0; fi
  "$binary" -rss_limit_mb=2048 -timeout=60 "${inputs[@]}" >"$log" 2>&1 || fail "an input crashes"
  echo "fuzz $target: replayed ${#inputs[@]} inputs ($(find "$src/tests/fuzz/regressions/$target" -type f 2>/dev/null | wc -l) regressions)"
  exit 0
fi

corpus=$src/build/fuzz-corpus/$target
mkdir -p "$corpus"
before=$(find "$corpus" -type f | wc -l)
"$binary" -max_total_time="$seconds" -max_len="$max_len" -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$artifacts/" "$corpus" "$src/tests/fuzz/corpus/$target" >"$log" 2>&1 || fail "crash or sanitizer report"
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
[[ -n $runs ]] || fail "no final stats in the log"
echo "fuzz $target: $runs executions in ${seconds} s ($rate/s), $(($(find "$corpus" -type f | wc -l) - before)) new corpus inputs, no crash"
