#!/usr/bin/env bash
# A fifth held-out handbook company (seed 8), built for this run and not read before it:
# index with the default gate, then plain RAG and judged-rag at 7eed29d's src (a frozen
# copy on PYTHONPATH), default settings.
# S: a scratch folder outside the repository; resumable (the eval skips the rows it has).
set -e
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
CODE=7eed29d
cd "$S"
if [ ! -d "src-$CODE" ]; then  # the code of $CODE, whatever is checked out
  mkdir "src-$CODE" && git -C "$REPO" archive "$CODE" src | tar -x --strip-components=1 -C "src-$CODE"
fi
export PYTHONPATH="$S/src-$CODE"
J=judged-rag
[ -d hb8 ] || $J eval-data build-handbook --out hb8 --seed 8
if [ ! -f hb8-index-g/manifest.json ]; then
  ( time $J index hb8/corpus --index hb8-index-g --gate now --quiet ) > index.log 2>&1
fi
$J eval --suite e2e --data hb8/eval-data-handbook.jsonl --index hb8-index-g \
  --systems plain_rag,judged --variants open,unanswerable --out "hb8-$CODE" --no-progress
