#!/usr/bin/env bash
# Rewrites the named seed inputs of tests/fuzz/corpus/ (tests/fuzz/make_seeds.cpp) from
# build/asan. Inputs added by scripts/fuzz-merge.sh (named by their SHA-1) are kept.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build build/asan --target posenc_fuzz_seeds >/dev/null
build/asan/posenc_fuzz_seeds tests/fuzz/corpus
