#!/usr/bin/env bash
# Seed 7's questions asking a value after a yes/no question (14 answerable, 2 nothing
# answers), judged-rag at 3e16b9d, default settings, one run, alone, with traces; and
# the no-model screens over handbook seeds 1-7 (and the organisations and RDQ sets).
# S: a scratch folder outside the repository holding seed 7's hb7/ and hb7-index-g/
# (../2026-12-01-heldout-seed7/run.sh) and seeds 1-6 built with
# `judged-rag eval-data build-handbook --out hbN --seed N`, orgs/ (`judged-rag eval-data
# build-orgs --out orgs`) and rdq/ (`judged-rag eval-data build --out rdq`). Resumable:
# traces.py skips the rows it has.
set -e
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
HERE="$REPO/benchmarks/2026-12-01-yes-no-value"
CODE=3e16b9d
cd "$S"
export JUDGED_RAG_HOME="$S/home"
. "$REPO/benchmarks/freeze.sh"
freeze "$CODE"
export PYTHONPATH="$S/src-$CODE"
python -c 'import json, sys
from judged_rag.core.asked import asked_about, what_happens
for line in open(sys.argv[1]):
    q = json.loads(line)["question"]
    if asked_about(q) and not what_happens(q):
        print(line, end="")' hb7/eval-data-handbook.jsonl > yn7.jsonl
python "$REPO/benchmarks/2026-11-28-unchanged-and-query-duplicates/traces.py" \
  yn7.jsonl hb7-index-g "yn7-$CODE.jsonl" all
python "$HERE/rows.py" "$REPO/benchmarks/2026-12-01-heldout-seed7/whole-89765f0/results.jsonl" \
  "yn7-$CODE.jsonl" > rows.txt
python "$HERE/screen.py" hb1 hb2 hb3 hb4 hb5 hb6 hb7 > screen.txt
# Wider (not built): the same words for every question asking a value.
{
  echo "# handbook seeds 1-7"; python "$HERE/wider.py" hb1 hb2 hb3 hb4 hb5 hb6 hb7
  echo; echo "# organisations"; python "$HERE/wider.py" orgs
  echo; echo "# RDQ"; python "$HERE/wider.py" rdq
} > wider.txt
