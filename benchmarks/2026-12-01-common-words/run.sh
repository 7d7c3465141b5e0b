#!/usr/bin/env bash
# "how often are salaries reviewed?" (nothing answers) of handbook seeds 1, 4, 7 and 8, and
# every other "how often" row of seed 7, judged-rag at 011bf7c (before) and d207129 (words
# most retrieved pages state a value with, and the verifier's other-fact checks),
# default settings, one run each, serially, with their traces.
# S: a scratch folder outside the repository holding hb1/, hb4/, hb7/, hb8/ (built with
# `judged-rag eval-data build-handbook --seed N`) and their indexes hbN-index
# (`judged-rag index hbN/corpus --index hbN-index --gate now`). Resumable: traces.py
# skips the rows it has.
set -e
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
T="$REPO/benchmarks/2026-11-28-unchanged-and-query-duplicates/traces.py"
cd "$S"
export JUDGED_RAG_HOME="$S/home"
. "$REPO/benchmarks/freeze.sh"
freeze 011bf7c d207129
rows() {  # the salaries row of a data set, and for seed 7 every row asking how often
  python -c 'import json, sys
for line in open(sys.argv[1]):
    q = json.loads(line)["question"].lower()
    if "salaries" in q or (sys.argv[2] == "7" and "how often" in q):
        print(line, end="")' "$1" "$2"
}
for n in 1 4 7 8; do
  rows "hb$n/eval-data-handbook.jsonl" "$n" > "rows$n.jsonl"
  for CODE in 011bf7c d207129; do
    PYTHONPATH="$S/src-$CODE" python "$T" "rows$n.jsonl" "hb$n-index" "rows$n-$CODE.jsonl" all
  done
done
