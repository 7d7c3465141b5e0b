#!/usr/bin/env bash
# Judged-rag on the handbook rows of seed 11 whose question asks a value after a yes/no
# one (`core.asked.value_clause`, 18 rows: subset.py) and 12 such questions nothing in the
# handbook answers (ynx11.jsonl), at 90c988a's src (value_question="first", the default)
# and at bffb592's (rewritten only after a decline), default settings otherwise, one after
# the other; then table.py sets them side by side (table.txt). The set and its index are
# made with 90c988a's code (indexing is the same at both commits).
# S: a scratch folder outside the repository; resumable (the eval skips the rows it has).
set -e
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/../freeze.sh"
cd "${S:?set S to a scratch folder outside the repository}"
freeze 90c988a bffb592
J=judged-rag
export PYTHONPATH="$S/src-90c988a"
[ -d hb11 ] || $J eval-data build-handbook --out hb11 --seed 11
if [ ! -f hb11-index-g/manifest.json ]; then
  ( time $J index hb11/corpus --index hb11-index-g --gate now --quiet ) > index11.log 2>&1
fi
[ -f yy11.jsonl ] || { python "$HERE/subset.py" hb11/eval-data-handbook.jsonl yn11.jsonl \
  && cat yn11.jsonl "$HERE/ynx11.jsonl" > yy11.jsonl; }
for CODE in 90c988a bffb592; do
  PYTHONPATH="$S/src-$CODE" $J eval --suite e2e --data yy11.jsonl --index hb11-index-g \
    --systems judged --variants open,unanswerable --out "yy11-$CODE" --no-progress
done
python "$HERE/table.py" yy11-90c988a/results.jsonl yy11-bffb592/results.jsonl > table.txt
