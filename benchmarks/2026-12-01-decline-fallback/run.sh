#!/usr/bin/env bash
# Would answering with the judge's Highly Relevant copy, when the generator declines,
# gain answers? The rows seed 8's stored judged-rag run abstained from (every answerable
# one, and every nothing-answers one declined by the model), run again at CODE keeping
# the trace; then the copies on the documents shown to the generator, and the generator
# alone on a few of those documents (probes.py).
# S: a scratch folder outside the repository. The set and index are seed 8's, built as
# ../2026-12-01-heldout-seed8/run.sh builds them (the traces here used that run's own).
set -e
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
CODE="${CODE:-4b98d7e}"
SET_CODE=7eed29d
cd "$S"
. "$REPO/benchmarks/freeze.sh"
freeze "$SET_CODE" "$CODE"
J=judged-rag
[ -d hb8 ] || PYTHONPATH="$S/src-$SET_CODE" $J eval-data build-handbook --out hb8 --seed 8
[ -f hb8-index-g/manifest.json ] || PYTHONPATH="$S/src-$SET_CODE" $J index hb8/corpus --index hb8-index-g --gate now --quiet
export PYTHONPATH="$S/src-$CODE"
python "$REPO/benchmarks/2026-11-28-unchanged-and-query-duplicates/traces.py" \
  hb8/eval-data-handbook.jsonl hb8-index-g decl8.jsonl \
  $(python "$HERE/rows.py" "$REPO/benchmarks/2026-12-01-heldout-seed8/whole-7eed29d/results.jsonl")
python "$HERE/slim.py" decl8.jsonl > "$HERE/tr8-declined.jsonl"
python "$HERE/copies.py" "$HERE/tr8-declined.jsonl" > "$HERE/copies.txt"
python "$HERE/probes.py" hb8-index-g > "$HERE/probes.txt"
