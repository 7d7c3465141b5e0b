#!/usr/bin/env bash
# A seventh held-out handbook company (seed 10, format version 3), built for this run and
# not read before it: index with the default gate, then plain RAG and judged-rag at
# $CODE's src (a frozen copy on PYTHONPATH; its judged_rag package is c8a270e's), default
# settings.
# S: a scratch folder outside the repository; resumable (the eval skips the rows it has).
set -e
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
CODE=2655c1c
cd "$S"
if [ ! -d "src-$CODE" ]; then  # the code of $CODE, whatever is checked out
  mkdir "src-$CODE" && git -C "$REPO" archive "$CODE" src | tar -x --strip-components=1 -C "src-$CODE"
fi
export PYTHONPATH="$S/src-$CODE"
J=judged-rag
[ -d hb10 ] || $J eval-data build-handbook --out hb10 --seed 10
if [ ! -f hb10-index-g/manifest.json ]; then
  ( time $J index hb10/corpus --index hb10-index-g --gate now --quiet ) > index.log 2>&1
fi
$J eval --suite e2e --data hb10/eval-data-handbook.jsonl --index hb10-index-g \
  --systems plain_rag,judged --variants open,unanswerable --out "hb10-$CODE" --no-progress
