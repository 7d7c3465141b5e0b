set -x
cd /work/runs/s47
export JUDGED_RAG_HOME=/work/runs/s47/home
export PYTHONPATH="${SRC:?a frozen copy of the commit src}"
J=/work/main/.venv/bin/judged-rag
: "${S:?the scratch folder holding chunk-NN}"
for c in $S/chunk-*; do
  n=$(basename $c)
  date; $J eval --suite e2e --data $c --index rdq-index --systems judged --model local:qwen2.5-coder-1.5b --variants unanswerable --out $S/wd-$n --no-progress
  python3 "$(dirname "$0")"/../2026-11-29-web-off-seed3/pick_web.py $c $S/wd-$n/results.jsonl $S/web-$n.jsonl
  if [ -s $S/web-$n.jsonl ]; then
    date; $J eval --suite e2e --data $S/web-$n.jsonl --index rdq-index --systems judged --model local:qwen2.5-coder-1.5b --variants unanswerable --set web_search=none --out $S/wn-$n --no-progress
  fi
done
echo DONE
