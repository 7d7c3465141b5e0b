#!/usr/bin/env bash
# The rows four stored runs declined (model_declined), again with judge_after_decline on,
# keeping each run's trace: whether the decline reopened the judging, and what came of it.
# S: a scratch folder outside the repository; CODE: the commit under test (9e247f3).
# Resumable: traces.py skips the rows its output file already holds.
set -e
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
CODE="${CODE:-9e247f3}"
cd "$S"
. "$REPO/benchmarks/freeze.sh"
freeze "$CODE"
export PYTHONPATH="$S/src-$CODE"
J=judged-rag
[ -d hb5 ] || $J eval-data build-handbook --out hb5 --seed 5
[ -d hb2 ] || $J eval-data build-handbook --out hb2 --seed 2
[ -d orgs ] || $J eval-data build-orgs --out orgs
[ -d rdq ] || $J eval-data build --out rdq
[ -f hb5-index-g/manifest.json ] || $J index hb5/corpus --index hb5-index-g --gate now --quiet
[ -f hb2-index-g/manifest.json ] || $J index hb2/corpus --index hb2-index-g --gate now --quiet
[ -f orgs-index/manifest.json ] || $J index orgs/corpus --index orgs-index --pseudo-queries 0 --quiet
[ -f rdq-index/manifest.json ] || $J index rdq/corpus --index rdq-index --pseudo-queries 0 --quiet
B="$REPO/benchmarks"
run() {  # DATA INDEX OUT STORED-RESULTS [setting ...]
  local data=$1 index=$2 out=$3 stored=$4; shift 4
  python "$B/2026-11-28-unchanged-and-query-duplicates/traces.py" "$data" "$index" "$out" \
    $(python "$HERE/rows.py" "$stored") judge_after_decline=true "$@"
  python "$HERE/grade.py" "$data" "$out" > "${out%.jsonl}.txt"
}
run hb5/eval-data-handbook.jsonl hb5-index-g tr5-reopen.jsonl \
  "$B/2026-11-30-heldout-seed5/whole-50ecf59/results.jsonl"
run hb2/eval-data-handbook.jsonl hb2-index-g tr2-reopen.jsonl \
  "$B/2026-11-29-heldout-ce30f9e/whole.jsonl"
run orgs/eval-data-orgs.jsonl orgs-index tr-orgs-reopen.jsonl \
  "$B/2026-11-30-orgs-ce30f9e/results.jsonl"
run rdq/eval-data-rdq.jsonl rdq-index tr-rdq-reopen.jsonl \
  "$B/2026-11-30-rdq-ce30f9e/results.jsonl" model=local:qwen2.5-coder-1.5b
