#!/usr/bin/env bash
# `npm run train`: trains every encoding on every task natively (build/native/posenc_train),
# writes web/checkpoints/*.ckpt and docs/results.json, then docs/results.md and docs/figures/.
# Extra arguments go to posenc_train (e.g. --quick, --seeds 1, --tasks copy). `npm run train -- --check-shipped`
# checks instead that the shipped checkpoints come from this code.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh all
# --check-shipped [options]: retrains seed 0 of each shipped checkpoint into a temporary directory and compares
# them byte for byte with web/checkpoints/ (scripts/check-shipped.js; writes nothing; the tests do not run it)
if [[ "${1:-}" == --check-shipped ]]; then
  shift
  exec node scripts/check-shipped.js "$@"
fi
start=$(date +%s)
build/native/posenc_train --out . "$@"
# tasks (floors at each length) and checkpointProbe (the shipped checkpoints: sink mass, log-length scaling): no training
node scripts/results-refresh.js
# RoPE scaling on the real stories260K model, zero shot (skipped without ../shared/models)
node scripts/lm-zero-shot.js
node scripts/results-md.js
node scripts/readme-results.js --write # the README's learned counts
node scripts/figures.js
# The page reads its words about results, the measured grids and the list of shipped checkpoints from
# web/checkpoints/ (a static host has no directory listing, so the list is a file): the subset it needs.
node scripts/page-results.js
node scripts/checkpoint-index.js   # index.json and index.js (literal URLs that bundlers copy)
echo "posenc: npm run train took $(( $(date +%s) - start )) s"
