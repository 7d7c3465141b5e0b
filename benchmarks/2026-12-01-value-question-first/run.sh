#!/usr/bin/env bash
# The question for the value a yes/no question asks after it, written before judging and
# used by the judge and the first draft (value-question-first.patch, the setting
# value_question_first=true on top of c8a270e's package), against c8a270e's package
# itself, on every row of seeds 7, 8 and 9 whose question has that form (ids.py).
# S: a scratch folder outside the repository holding each seed's set and index, built as
# ../2026-12-01-heldout-seed{7,8,9}/run.sh build them (the traces here used those runs' own).
set -e
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
T="$REPO/benchmarks/2026-11-28-unchanged-and-query-duplicates/traces.py"
SLIM="$REPO/benchmarks/2026-12-01-decline-fallback/slim.py"  # with parse: the value question written
cd "$S"
. "$REPO/benchmarks/freeze.sh"
freeze c8a270e
if [ ! -d src-vq ]; then
  cp -r src-c8a270e src-vq && patch -d src-vq -p2 < "$HERE/value-question-first.patch"
fi
declare -A ids
for s in 9 8 7; do
  ids[$s]=$(PYTHONPATH="$S/src-c8a270e" python "$HERE/ids.py" "hb$s/eval-data-handbook.jsonl")
  PYTHONPATH="$S/src-vq" python "$T" "hb$s/eval-data-handbook.jsonl" "hb$s-index-g" "vq$s.jsonl" \
    ${ids[$s]} value_question_first=true
done
for s in 8 7; do  # seed 9's stored run is at c8a270e: its rows are the baseline
  PYTHONPATH="$S/src-c8a270e" python "$T" "hb$s/eval-data-handbook.jsonl" "hb$s-index-g" "base$s.jsonl" ${ids[$s]}
done
# after the traces: grade9.txt against the stored run, grade8.txt and grade7.txt against the baselines
export PYTHONPATH="$S/src-c8a270e"
python "$REPO/benchmarks/2026-12-01-somewhat-relevant-too/grade.py" hb9/eval-data-handbook.jsonl \
  "$REPO/benchmarks/2026-12-01-heldout-seed9/whole-c8a270e/results.jsonl" vq9.jsonl > "$HERE/grade9.txt"
for s in 8 7; do
  python "$REPO/benchmarks/2026-12-01-somewhat-relevant-too/grade.py" "hb$s/eval-data-handbook.jsonl" \
    "base$s.jsonl" "vq$s.jsonl" > "$HERE/grade$s.txt"
  python "$SLIM" "base$s.jsonl" parse > "$HERE/base$s.jsonl"
done
for s in 9 8 7; do python "$SLIM" "vq$s.jsonl" parse > "$HERE/vq$s.jsonl"; done
