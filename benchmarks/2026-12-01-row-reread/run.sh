#!/usr/bin/env bash
# Seed 7's 36 rows whose evidence page has a table (lower case, table, two documents,
# role; the selection of ../2026-12-01-table-row/, its tab7.jsonl), judged-rag at
# 6f65688, default settings, one run, alone, with traces; and the no-model screen over
# handbook seeds 1-7 and the organisations set.
# S: a scratch folder outside the repository holding seed 7's hb7/ and hb7-index-g/
# (../2026-12-01-heldout-seed7/run.sh), seeds 1-6 built with `judged-rag eval-data
# build-handbook --out hbN --seed N` and orgs/ (`judged-rag eval-data build-orgs --out
# orgs`). Resumable: traces.py skips the rows it has.
set -e
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
HERE="$REPO/benchmarks/2026-12-01-row-reread"
CODE=6f65688
cd "$S"
export JUDGED_RAG_HOME="$S/home"
. "$REPO/benchmarks/freeze.sh"
freeze "$CODE"
export PYTHONPATH="$S/src-$CODE"
python "$REPO/benchmarks/2026-11-28-unchanged-and-query-duplicates/traces.py" \
  "$REPO/benchmarks/2026-12-01-table-row/tab7.jsonl" hb7-index-g "tab7-$CODE.jsonl" all
python "$REPO/benchmarks/2026-12-01-yes-no-value/rows.py" \
  "$REPO/benchmarks/2026-12-01-heldout-seed7/whole-89765f0/results.jsonl" "tab7-$CODE.jsonl" > rows.txt
python "$HERE/screen.py" hb1 hb2 hb3 hb4 hb5 hb6 hb7 orgs > screen.txt
