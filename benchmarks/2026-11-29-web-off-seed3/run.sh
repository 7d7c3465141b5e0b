set -x
cd /work/runs/s47
export JUDGED_RAG_HOME=/work/runs/s47/home
export PYTHONPATH=/work/runs/s47/src-d4d7f65/src
J=/work/main/.venv/bin/judged-rag
: "${S:?the scratch folder holding chunk-NN}"
if [ ! -f hb3-gate-index/manifest.json ]; then
  date; $J index hb3/corpus --index hb3-gate-index --gate now --quiet; date
fi
for c in $S/chunk-*; do
  n=$(basename $c)
  date; $J eval --suite e2e --data $c --index hb3-gate-index --systems judged --variants open,unanswerable --out $S/wd-$n --no-progress
  python3 "$(dirname "$0")"/pick_web.py $c $S/wd-$n/results.jsonl $S/web-$n.jsonl
  if [ -s $S/web-$n.jsonl ]; then
    date; $J eval --suite e2e --data $S/web-$n.jsonl --index hb3-gate-index --systems judged --variants open,unanswerable --set web_search=none --out $S/wn-$n --no-progress
  fi
done
date; $J eval --suite e2e --data hb2/eval-data-handbook.jsonl --index hb2-index --systems plain_rag --variants open,unanswerable --out hb2-full-plain-d4d7f65 --no-progress; date
echo DONE
