# Chunks that never span two sections (chunker version 4) against the chunks before
# (version 3), on the development handbooks and the organisations set.
# Needs: S (a scratch folder), OLD (the folder holding hb1-index, hb3-gate-index,
# hb4-index and orgs-index built at version 3, with hb1/ hb3/ hb4/ orgs/ data sets beside
# them), PYTHONPATH pointing at the code to run (the same for both sides).
set -x
: "${S:?scratch folder}" "${OLD:?folder of the version-3 indexes and the data sets}"
cd "$OLD"
J=judged-rag
here=$(cd "$(dirname "$0")" && pwd)
# The seed-3 index with the default gate, timed; the other three without a gate (the
# retrieval screen does not use it; `--gate now` is what the e2e runs need).
[ -f $S/hb3-sec-index/manifest.json ] || /usr/bin/time -v $J index hb3/corpus --index $S/hb3-sec-index --gate now --quiet 2> $S/index-time.txt
for s in hb1 hb4 orgs; do
  [ -f $S/$s-sec-index/manifest.json ] || $J index $s/corpus --index $S/$s-sec-index --gate off --quiet
done
# Retrieval only, no LLM: the rank of the first chunk holding a gold answer.
for s in hb1 hb3 hb4 orgs; do
  old=$s-index; [ $s = hb3 ] && old=hb3-gate-index
  python "$here/retr_screen.py" $s/eval-data-*.jsonl $old $S/$s-sec-index $S/retr-$s.jsonl
done
# End to end, the same code on either index, one run at a time, alternating by part.
split -l 11 -d --additional-suffix=.jsonl "$here/slice.jsonl" $S/part-
for p in part-00 part-01 part-02; do
  $J eval --suite e2e --data $S/$p.jsonl --index hb3-gate-index --systems judged --variants open,unanswerable --out $S/old-$p --no-progress
  $J eval --suite e2e --data $S/$p.jsonl --index $S/hb3-sec-index --systems judged --variants open,unanswerable --out $S/new-$p --no-progress
done
