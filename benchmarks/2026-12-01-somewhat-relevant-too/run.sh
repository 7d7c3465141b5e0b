#!/usr/bin/env bash
# The generator beside the Somewhat Relevant documents too (open_strategy "D_H ∪ D_S",
# one of RJAG's combinations, already a setting) on the rows seed 9's stored judged-rag
# run lost or declined (rows.py), traced at CODE's src, graded against that run.
# S: a scratch folder outside the repository holding seed 9's set and index, built as
# ../2026-12-01-heldout-seed9/run.sh builds them (the traces here used that run's own).
set -e
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
CODE="${CODE:-8a5816b}"  # its package is c8a270e's, the code of the stored run
STORED="$REPO/benchmarks/2026-12-01-heldout-seed9/whole-c8a270e/results.jsonl"
cd "$S"
. "$REPO/benchmarks/freeze.sh"
freeze "$CODE"
export PYTHONPATH="$S/src-$CODE"
python "$REPO/benchmarks/2026-11-28-unchanged-and-query-duplicates/traces.py" \
  hb9/eval-data-handbook.jsonl hb9-index-g dhds9.jsonl \
  $(python "$HERE/rows.py" "$STORED") "open_strategy=D_H ∪ D_S"
python "$REPO/benchmarks/2026-12-01-decline-fallback/slim.py" dhds9.jsonl > "$HERE/tr9-dhds.jsonl"
python "$HERE/grade.py" hb9/eval-data-handbook.jsonl "$STORED" "$HERE/tr9-dhds.jsonl" > "$HERE/grade.txt"
