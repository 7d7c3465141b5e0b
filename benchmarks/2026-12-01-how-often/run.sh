#!/usr/bin/env bash
# The "how often" questions of handbook seeds 7, 1 and 4, judged-rag at bf8af50 (before)
# and 0d221b2 (the check), default settings, one run each, serially, with their traces.
# S: a scratch folder outside the repository holding hb1/, hb4/ (built with
# `judged-rag eval-data build-handbook --seed N`) and seed 7's hb7/ and hb7-index-g/
# (../2026-12-01-heldout-seed7/run.sh). Resumable: traces.py skips the rows it has.
set -e
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
T="$REPO/benchmarks/2026-11-28-unchanged-and-query-duplicates/traces.py"
cd "$S"
export JUDGED_RAG_HOME="$S/home"
. "$REPO/benchmarks/freeze.sh"
freeze bf8af50 0d221b2
often() {  # the rows of a data set asking how often
  python -c 'import json, sys
for line in open(sys.argv[1]):
    if "how often" in json.loads(line)["question"].lower():
        print(line, end="")' "$1"
}
often hb7/eval-data-handbook.jsonl > often7.jsonl
for n in 1 4; do
  often "hb$n/eval-data-handbook.jsonl" > "often$n.jsonl"
  [ -f "hb$n-index/manifest.json" ] || judged-rag index "hb$n/corpus" --index "hb$n-index" --gate now --quiet
done
for n in 7 1 4; do
  index="hb$n-index"; [ "$n" = 7 ] && index=hb7-index-g
  for CODE in bf8af50 0d221b2; do
    PYTHONPATH="$S/src-$CODE" python "$T" "often$n.jsonl" "$index" "often$n-$CODE.jsonl" all
  done
done
