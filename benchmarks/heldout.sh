#!/usr/bin/env bash
# One held-out handbook company: `heldout.sh SEED CODE` builds the company of SEED and
# indexes it with the default gate (both with CODE's code: the set's format is that
# code's), then runs plain RAG and judged-rag at CODE's src (a frozen copy on
# PYTHONPATH), default settings, every question.
# S: a scratch folder outside the repository; resumable (the eval skips the rows it has).
set -e
SEED="$1" CODE="$2"
[ -n "$SEED" ] && [ -n "$CODE" ] || { echo "usage: S=DIR $0 SEED CODE" >&2; exit 2; }
. "$(dirname "$0")/freeze.sh"
cd "${S:?set S to a scratch folder outside the repository}"
freeze "$CODE"
export PYTHONPATH="$S/src-$CODE"
J=judged-rag
[ -d "hb$SEED" ] || $J eval-data build-handbook --out "hb$SEED" --seed "$SEED"
if [ ! -f "hb$SEED-index-g/manifest.json" ]; then
  ( time $J index "hb$SEED/corpus" --index "hb$SEED-index-g" --gate now --quiet ) > index.log 2>&1
fi
$J eval --suite e2e --data "hb$SEED/eval-data-handbook.jsonl" --index "hb$SEED-index-g" \
  --systems plain_rag,judged --variants open,unanswerable --out "hb$SEED-$CODE" --no-progress
