#!/usr/bin/env bash
# One libFuzzer target, three ways. `npm test` uses the first two (through CTest, cmake/sanitize.cmake),
# which give the same verdict on the same commit every time; `npm run fuzz` (scripts/fuzz.sh) uses the third.
#
#   run-fuzz.sh replay <binary> <target> <source dir> <build dir>
#       Runs every input of tests/fuzz/regressions/<target> and of the committed corpus
#       tests/fuzz/corpus/<target> once (each crash ever found must stay fixed).
#   run-fuzz.sh check  <binary> <target> <source dir> <build dir> <runs> <seed>
#       A bounded, deterministic fuzz run: <runs> executions with libFuzzer's -seed=<seed>,
#       starting from the committed corpus only. New inputs go to a fresh temporary directory that is
#       deleted afterwards, so no run depends on an earlier one. Prints one summary line.
#   run-fuzz.sh explore <binary> <target> <source dir> <build dir> <seconds>
#       Open-ended fuzzing for <seconds> with a fresh random seed, from the committed corpus plus
#       what earlier explore runs kept in build/fuzz-corpus/<target> (scripts/fuzz-merge.sh folds the
#       inputs that add coverage into the committed corpus). A crash is copied into
#       tests/fuzz/regressions/<target>/ with a one-line note in tests/fuzz/regressions/NOTES.md.
#
# Logs: <build dir>/fuzz-logs/<target>.<mode>.log (scripts/test.js reads the check logs' counts).
# A target's largest input is 4096 bytes unless its source says otherwise in a line "// fuzz-max-len: N",
# and a check run's count is <runs> unless the source says "// fuzz-runs: N" (a fast target runs more).
set -uo pipefail
mode=$1 binary=$2 target=$3 src=$4 build=$5

max_len=$(sed -n 's|^// fuzz-max-len: *\([0-9][0-9]*\).*|\1|p' "$src/tests/fuzz/$target.cpp" | head -1)
max_len=${max_len:-4096}
source_runs=$(sed -n 's|^// fuzz-runs: *\([0-9][0-9]*\).*|\1|p' "$src/tests/fuzz/$target.cpp" | head -1)
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
logs=$build/fuzz-logs
mkdir -p "$logs"
log=$logs/$target.$mode.log
corpus=$src/tests/fuzz/corpus/$target
regressions=$src/tests/fuzz/regressions/$target

fail() {
  echo "fuzz $target: $1 (log: $log)"
  grep -E "ERROR|SUMMARY|runtime error|contract violated|Test unit written" "$log" | head -20
  exit 1
}
count() { find "$1" -type f 2>/dev/null | wc -l; }
stat_of() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }

case $mode in
  replay)
    inputs=()
    for dir in "$regressions" "$corpus"; do
      [[ -d $dir ]] && while IFS= read -r f; do inputs+=("$f"); done < <(find "$dir" -type f | sort)
    done
    if ((${#inputs[@]} == 0)); then echo "fuzz $target: nothing to replay"; exit 0; fi
    "$binary" -rss_limit_mb=2048 -timeout=60 "${inputs[@]}" >"$log" 2>&1 || fail "an input crashes"
    echo "fuzz $target: replayed ${#inputs[@]} inputs ($(count "$regressions") regressions)"
    ;;
  check)
    runs=${POSENC_FUZZ_RUNS:-${source_runs:-$6}} seed=$7  # the count can be changed for one run; the seed cannot
    no_aslr="setarch $(uname -m) -R"
    $no_aslr true 2>/dev/null || { no_aslr=""; echo "fuzz $target: note: setarch -R is not allowed here; coverage may vary between runs"; }
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    mkdir -p "$scratch/new" "$scratch/artifacts"
    # -timeout is generous: a slow input is a finding for `npm run fuzz`, not a coin toss here.
    # Address-space randomisation off: coverage of code that depends on addresses (alignment paths of the
    # kernels) would otherwise differ between runs, and so would the inputs explored. -reload=0: no
    # time-based corpus re-reads. With both, the run's coverage and corpus are identical every time.
    $no_aslr "$binary" -seed="$seed" -runs="$runs" -reload=0 -max_len="$max_len" -timeout=120 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$scratch/artifacts/" "$scratch/new" "$corpus" >"$log" 2>&1 ||
      fail "crash or sanitizer report at -seed=$seed (reproduce: $binary -seed=$seed -runs=$runs $corpus)"
    [[ -n $(stat_of number_of_executed_units) ]] || fail "no final stats in the log"
    echo "fuzz $target: $(stat_of number_of_executed_units) executions (-seed=$seed -runs=$runs, $(stat_of average_exec_per_sec)/s), no crash"
    ;;
  explore)
    seconds=$6
    kept=$src/build/fuzz-corpus/$target
    artifacts=$build/fuzz-artifacts/$target
    mkdir -p "$kept" "$artifacts"
    before=$(count "$kept")
    # -seed=0: libFuzzer picks a fresh seed and prints it ("Seed: N").
    "$binary" -seed=0 -max_total_time="$seconds" -max_len="$max_len" -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$artifacts/" "$kept" "$corpus" >"$log" 2>&1
    status=$?
    seed=$(sed -n 's/^INFO: Seed: *//p' "$log" | head -1)
    if ((status)); then
      crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
      what=$(grep -m1 -E "contract violated|runtime error|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)" "$log" | sed 's/^[ *=0-9]*//')
      if [[ -n $crash && -f $crash ]]; then
        mkdir -p "$regressions"
        name=$(date -u +%Y%m%d)-$(sha1sum "$crash" | cut -c1-12)
        cp "$crash" "$regressions/$name"
        echo "- $target/$name: ${what:-crash} (found by npm run fuzz, seed $seed, $(date -u +%F))" >>"$src/tests/fuzz/regressions/NOTES.md"
        echo "fuzz $target: NEW CRASH after $(stat_of number_of_executed_units) executions (seed $seed): ${what:-see the log}"
        echo "  kept as tests/fuzz/regressions/$target/$name, noted in tests/fuzz/regressions/NOTES.md; log: $log"
      else
        echo "fuzz $target: the fuzzer failed without writing a crash input (seed $seed); log: $log"
      fi
      exit 1
    fi
    echo "fuzz $target: $(stat_of number_of_executed_units) executions in $seconds s (seed $seed, $(stat_of average_exec_per_sec)/s), $(($(count "$kept") - before)) new inputs kept, no crash"
    ;;
  *)
    echo "run-fuzz.sh: unknown mode '$mode' (replay, check or explore)" >&2
    exit 2
    ;;
esac
