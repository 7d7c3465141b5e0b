#!/usr/bin/env bash
# Seed 7's three rows the value checks act on (rows7.jsonl), judged-rag at 63dab80 (a
# frozen copy of its src), default settings, on seed 7's index built by
# ../2026-12-01-heldout-seed7/run.sh in the same scratch folder S.
set -e
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
CODE=63dab80
cd "$S"
. "$REPO/benchmarks/freeze.sh"
freeze "$CODE"
export PYTHONPATH="$S/src-$CODE"
judged-rag eval --suite e2e --data "$REPO/benchmarks/2026-12-01-answer-states-value/rows7.jsonl" \
  --index hb7-index-g --systems judged --variants open,unanswerable --out "rows7-$CODE" --no-progress
