#!/usr/bin/env bash
# Traces of the rows whose answers went through a conflict: seed 10's dated answers and
# its changed-value kind, and seed 9's, the organisations set's and RDQ's rows with a
# conflict in their stored runs, at 60346b4's src (before: its judged_rag package is
# c8a270e's); then the rows whose conflicts 1d163e1's rule dropped, at 1d163e1's src.
# S: a scratch folder outside the repository, holding (or given) the sets and indexes of
# ../heldout.sh 10 and 9 and ../2026-12-02-rdq-orgs-c8a270e/run.sh (built if missing;
# seed 9's set with c8a270e's builder, format 2, as its stored run).
set -e
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/../freeze.sh"
cd "${S:?set S to a scratch folder outside the repository}"
freeze c8a270e 60346b4 1d163e1 643d8ab
J=judged-rag
T="python $HERE/../2026-11-28-unchanged-and-query-duplicates/traces.py"
[ -d hb9 ] || PYTHONPATH="$S/src-c8a270e" $J eval-data build-handbook --out hb9 --seed 9
[ -f hb9-index-g/manifest.json ] || PYTHONPATH="$S/src-c8a270e" $J index hb9/corpus \
  --index hb9-index-g --gate now --quiet
export PYTHONPATH="$S/src-60346b4"
[ -d hb10 ] || $J eval-data build-handbook --out hb10 --seed 10
[ -f hb10-index-g/manifest.json ] || $J index hb10/corpus --index hb10-index-g --gate now --quiet
[ -d rdq ] || $J eval-data build --out rdq
[ -f rdq-index/manifest.json ] || $J index rdq/corpus --index rdq-index --pseudo-queries 0 --quiet
[ -d orgs ] || $J eval-data build-orgs --out orgs
[ -f orgs-index/manifest.json ] || $J index orgs/corpus --index orgs-index --pseudo-queries 0 --quiet
$T hb10/eval-data-handbook.jsonl hb10-index-g traces-seed10-2.jsonl \
  hb-abbrev-to-full-06 hb-abbrev-to-full-01
$T hb10/eval-data-handbook.jsonl hb10-index-g traces-seed10-27.jsonl \
  hb-changed-10 hb-changed-11 hb-full-to-abbrev-05 hb-table-06 hb-abbrev-to-full-06 \
  hb-changed-09 hb-changed-03 hb-abbrev-to-full-03 hb-changed-12 hb-pronoun-06 \
  hb-abbrev-to-full-10 hb-changed-02 hb-abbrev-to-full-01 hb-changed-05 hb-changed-15 \
  hb-changed-14 hb-no-name-01 hb-changed-06 hb-pronoun-03 hb-changed-07 hb-changed-08 \
  hb-full-to-abbrev-11 hb-imperative-12 hb-changed-01 hb-changed-13 hb-changed-04 \
  hb-full-to-abbrev-04
$T orgs/eval-data-orgs.jsonl orgs-index traces-orgs-17.jsonl org-018-employees \
  org-two-bridge-003 org-004-founded org-014-employees org-026-chair org-two-bridge-007 \
  org-029-listed org-026-ceo org-028-ceo org-004-chair org-019-chair org-013-ceo \
  org-001-employees org-027-ceo org-009-ceo org-023-ceo org-031-employees
$T rdq/eval-data-rdq.jsonl rdq-index traces-rdq-2.jsonl b38aed8c3de8c616 1cbda69cb45a5fc8
$T hb9/eval-data-handbook.jsonl hb9-index-g traces-seed9-11.jsonl hb-abbrev-to-full-06 \
  hb-changed-09 hb-changed-12 hb-changed-05 hb-full-to-abbrev-15 hb-pronoun-03 hb-changed-07 \
  hb-lowercase-07 hb-abbrev-to-full-12 hb-changed-01 hb-abbrev-to-full-15
export PYTHONPATH="$S/src-1d163e1"
$T hb10/eval-data-handbook.jsonl hb10-index-g traces-seed10-after.jsonl \
  hb-abbrev-to-full-06 hb-abbrev-to-full-01 hb-abbrev-to-full-10 hb-imperative-12
$T hb9/eval-data-handbook.jsonl hb9-index-g traces-seed9-after.jsonl \
  hb-abbrev-to-full-06 hb-full-to-abbrev-15
export PYTHONPATH="$S/src-643d8ab"
for f in traces-seed10-27 traces-seed10-2 traces-orgs-17 traces-rdq-2 traces-seed10-after \
  traces-seed9-11 traces-seed9-after; do
  echo "== $f"; python "$HERE/surest.py" "$f.jsonl"
done > surest.txt
