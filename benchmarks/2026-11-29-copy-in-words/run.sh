# A copy worded around the chunk's words (8b027d6) against the rule before it (b0be931).
# Needs: S (a scratch folder holding src-old = b0be931's src and src-new = 8b027d6's),
# D (the folder holding hb1/ hb2/ hb3/ hb4/ handbook sets and their indexes: hb3-gate-index
# built with `--gate now`, hb2-index, hb3-index, hb4-index), JUDGED_RAG_HOME as for any run.
set -x
: "${S:?scratch folder}" "${D:?data folder}"
here=$(cd "$(dirname "$0")" && pwd)
cd "$D"
# 1. Screen, no graph: the judge's replies on the top 4 chunks of every question asking a
#    quantity or a time (seeds 3 and 4), stored, then read by either rule.
for s in hb3 hb4; do
  ids=$(python -c "import json,sys
from judged_rag.core.asked import asks_time, asks_quantity
print(' '.join(r['id'] for r in map(json.loads, open('$s/eval-data-handbook.jsonl')) if asks_time(r['question']) or asks_quantity(r['question'])))")
  PYTHONPATH=$S/src-new python "$here/../2026-11-27-copy-within-words/screen.py" $s/eval-data-handbook.jsonl $s-index $S/$s-tq.jsonl v0 $ids
done
OLD_SRC=$S/src-old PYTHONPATH=$S/src-new python "$here/read_replies.py" $S/hb3-tq.jsonl $S/hb4-tq.jsonl "$here/../2026-11-27-copy-within-words/v0.jsonl"
# 2. End to end: questions asking a quantity or a time whose answer has no digit, and
#    those nothing answers; the new code on all, the old code on the rows where a judged
#    copy has the shape only the new rule gives (`affected.py`); every other row ran the
#    same path.
sel() { python -c "import json
from judged_rag.core.asked import asks_time, asks_quantity
print(' '.join(r['id'] for r in map(json.loads, open('$1')) if (asks_time(r['question']) or asks_quantity(r['question'])) and (r.get('abstain') or not any(c.isdigit() for a in r.get('answers', []) for c in a))))"; }
T="$here/../2026-11-28-unchanged-and-query-duplicates/traces.py"
for pair in "hb3 hb3-gate-index tr" "hb2 hb2-index ho"; do
  set -- $pair
  PYTHONPATH=$S/src-new python "$T" $1/eval-data-handbook.jsonl $2 $S/$3-new.jsonl $(sel $1/eval-data-handbook.jsonl)
  A=$(PYTHONPATH=$S/src-new python "$here/affected.py" $S/$3-new.jsonl)
  [ -n "$A" ] && PYTHONPATH=$S/src-old python "$T" $1/eval-data-handbook.jsonl $2 $S/$3-old.jsonl $A
  PYTHONPATH=$S/src-new python "$here/pair.py" $1/eval-data-handbook.jsonl $S/$3-new.jsonl $S/$3-old.jsonl
done
