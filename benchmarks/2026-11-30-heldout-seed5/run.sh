#!/usr/bin/env bash
# A second held-out handbook company (seed 5): index with the default gate, then plain RAG
# and judged-rag at 50ecf59's src (a frozen copy on PYTHONPATH), default settings.
# S: a scratch folder outside the repository; resumable (the eval skips the rows it has).
set -e
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$S"
if [ ! -d src-50ecf59 ]; then  # the code of 50ecf59, whatever is checked out
  mkdir src-50ecf59 && git -C "$REPO" archive 50ecf59 src | tar -x --strip-components=1 -C src-50ecf59
fi
export PYTHONPATH="$S/src-50ecf59"
J=judged-rag
[ -d hb5 ] || $J eval-data build-handbook --out hb5 --seed 5
if [ ! -f hb5-index-g/manifest.json ]; then
  ( time $J index hb5/corpus --index hb5-index-g --gate now --quiet ) > index.log 2>&1
fi
$J eval --suite e2e --data hb5/eval-data-handbook.jsonl --index hb5-index-g \
  --systems plain_rag,judged --variants open,unanswerable --out hb5-50ecf59 --no-progress
