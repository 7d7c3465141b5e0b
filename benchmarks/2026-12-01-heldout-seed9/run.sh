#!/usr/bin/env bash
# A sixth held-out handbook company (seed 9, format version 2), built for this run and not
# read before it:
# index with the default gate, then plain RAG and judged-rag at $CODE's src (a frozen
# copy on PYTHONPATH), default settings.
# S: a scratch folder outside the repository; resumable (the eval skips the rows it has).
set -e
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
CODE=c8a270e
cd "$S"
if [ ! -d "src-$CODE" ]; then  # the code of $CODE, whatever is checked out
  mkdir "src-$CODE" && git -C "$REPO" archive "$CODE" src | tar -x --strip-components=1 -C "src-$CODE"
fi
export PYTHONPATH="$S/src-$CODE"
J=judged-rag
[ -d hb9 ] || $J eval-data build-handbook --out hb9 --seed 9
if [ ! -f hb9-index-g/manifest.json ]; then
  ( time $J index hb9/corpus --index hb9-index-g --gate now --quiet ) > index.log 2>&1
fi
$J eval --suite e2e --data hb9/eval-data-handbook.jsonl --index hb9-index-g \
  --systems plain_rag,judged --variants open,unanswerable --out "hb9-$CODE" --no-progress
