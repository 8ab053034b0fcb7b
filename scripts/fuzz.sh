#!/usr/bin/env bash
# npm run fuzz: open-ended fuzzing, the job `npm test` leaves out (its fuzz runs are bounded and seeded,
# so a commit always gets the same verdict). Each target runs under ASan+UBSan (build/asan) for the
# given time with a fresh random seed, from the committed corpus plus what earlier runs kept in
# build/fuzz-corpus/. A crash is kept in tests/fuzz/regressions/<target>/ with a one-line note in
# tests/fuzz/regressions/NOTES.md (npm test replays it from then on, so it must be fixed), and said.
#   npm run fuzz                         every target, 600 s each
#   npm run fuzz -- --seconds 60 fuzz_model fuzz_checkpoint
# Afterwards, scripts/fuzz-merge.sh folds the inputs that add coverage into tests/fuzz/corpus/.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=600
targets=()
while (($#)); do
  case $1 in
    --seconds)
      [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { echo "npm run fuzz: --seconds takes a positive whole number of seconds (got '${2:-}')" >&2; exit 2; }
      seconds=$2
      shift 2
      ;;
    fuzz_*)
      [[ -f tests/fuzz/$1.cpp ]] || { echo "npm run fuzz: no fuzz target '$1' (tests/fuzz/fuzz_*.cpp)" >&2; exit 2; }
      targets+=("$1")
      shift
      ;;
    *) echo "npm run fuzz: unknown argument '$1' (usage: npm run fuzz -- [--seconds N] [fuzz_target ...])" >&2; exit 2 ;;
  esac
done
if ((${#targets[@]} == 0)); then
  for f in tests/fuzz/fuzz_*.cpp; do targets+=("$(basename "$f" .cpp)"); done
fi

# build/asan, as npm test builds it (Debian packages and npm ci first)
bash scripts/setup.sh all >/dev/null || { echo "npm run fuzz: the build failed (run bash scripts/setup.sh all to see why)" >&2; exit 1; }

echo "npm run fuzz: ${#targets[@]} targets, $seconds s each, fresh seeds"
crashed=0
for t in "${targets[@]}"; do
  bash tests/fuzz/run-fuzz.sh explore "build/asan/$t" "$t" "$PWD" "$PWD/build/asan" "$seconds" || crashed=$((crashed + 1))
done
if ((crashed)); then
  echo "npm run fuzz: $crashed of ${#targets[@]} targets crashed; the inputs are in tests/fuzz/regressions/ (see NOTES.md)"
  exit 1
fi
echo "npm run fuzz: no crash in ${#targets[@]} targets"
