#!/usr/bin/env bash
# The same comparison as run.sh on held-out company 12, whose questions nothing here had
# read: its rows whose question asks a value after a yes/no one (subset.py), then the 12
# questions nothing answers of ynx11.jsonl against its documents; judged-rag at 90c988a's
# src and at bffb592's, one after the other (the set and index made with 90c988a's code).
# S: a scratch folder outside the repository; resumable (the eval skips the rows it has).
set -e
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/../freeze.sh"
cd "${S:?set S to a scratch folder outside the repository}"
freeze 90c988a bffb592
J=judged-rag
export PYTHONPATH="$S/src-90c988a"
[ -d hb12 ] || $J eval-data build-handbook --out hb12 --seed 12
if [ ! -f hb12-index-g/manifest.json ]; then
  ( time $J index hb12/corpus --index hb12-index-g --gate now --quiet ) > index12.log 2>&1
fi
[ -f yn12.jsonl ] || python "$HERE/subset.py" hb12/eval-data-handbook.jsonl yn12.jsonl
for DATA in yn12 ynx; do
  [ "$DATA" = ynx ] && DATA_FILE="$HERE/ynx11.jsonl" || DATA_FILE="$DATA.jsonl"
  for CODE in 90c988a bffb592; do
    PYTHONPATH="$S/src-$CODE" $J eval --suite e2e --data "$DATA_FILE" --index hb12-index-g \
      --systems judged --variants open,unanswerable --out "$DATA-hb12-$CODE" --no-progress
  done
done
for DATA in yn12 ynx; do
  python "$HERE/table.py" "$DATA-hb12-90c988a/results.jsonl" "$DATA-hb12-bffb592/results.jsonl"
done > table12.txt
