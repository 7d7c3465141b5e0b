#!/usr/bin/env bash
# RDQ's headline and the organisations set at one commit: `rdq-orgs.sh CODE`.
# RDQ: judged-rag on 150 answerable and 100 no-evidence questions; then the organisations
# set, plain RAG and judged-rag, 60 + 60. CODE's src (a frozen copy on PYTHONPATH), default
# settings, the bundled model.
# S: a scratch folder outside the repository; resumable (the eval skips the rows it has).
set -e
CODE="$1"
[ -n "$CODE" ] || { echo "usage: S=DIR $0 CODE" >&2; exit 2; }
. "$(dirname "$0")/freeze.sh"
cd "${S:?set S to a scratch folder outside the repository}"
freeze "$CODE"
export PYTHONPATH="$S/src-$CODE"
J=judged-rag
M=local:qwen2.5-coder-1.5b
[ -d rdq ] || $J eval-data build --out rdq
if [ ! -f rdq-index/manifest.json ]; then
  ( time $J index rdq/corpus --index rdq-index --pseudo-queries 0 --quiet ) > rdq-index.log 2>&1
fi
$J eval --suite e2e --data rdq/eval-data-rdq.jsonl --index rdq-index --systems judged \
  --model $M --variants open --limit 150 --out "rdq-$CODE" --no-progress
$J eval --suite e2e --data rdq/eval-data-rdq.jsonl --index rdq-index --systems judged \
  --model $M --variants unanswerable --limit 100 --out "rdq-$CODE" --no-progress
[ -d orgs ] || $J eval-data build-orgs --out orgs
if [ ! -f orgs-index/manifest.json ]; then
  ( time $J index orgs/corpus --index orgs-index --pseudo-queries 0 --quiet ) > orgs-index.log 2>&1
fi
$J eval --suite e2e --data orgs/eval-data-orgs.jsonl --index orgs-index \
  --systems plain_rag,judged --model $M --variants open,unanswerable --limit 60 \
  --out "orgs-$CODE" --no-progress
