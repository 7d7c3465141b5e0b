#!/usr/bin/env bash
# The README's four sample questions, each its own `judged-rag ask --json` under
# /usr/bin/time, in two passes; one record per command in $OUT (p<pass>-q<n>.{json,time,load,err}).
#   JUDGED_RAG_SHARED_MODEL=0 OUT=runs/ask bash benchmarks/2026-11-26-latency/ask4.sh   # own model server
#   judged-rag model serve &  OUT=runs/shared bash benchmarks/2026-11-26-latency/ask4.sh
set -u
cd "$(dirname "$0")/../.."
out=${OUT:?set OUT to a folder for the records}
mkdir -p "$out"
for pass in 1 2; do
  i=0
  for q in "Who proved Fermat's Last Theorem?" "Who painted the Mona Lisa?" \
    "Which country has the largest population?" \
    "Who proved the Zorvath extension of Fermat's Last Theorem in 1987?"; do
    i=$((i+1))
    echo "load $(cut -d' ' -f1-3 /proc/loadavg)" > "$out/p$pass-q$i.load"
    /usr/bin/time -f "%e %M" -o "$out/p$pass-q$i.time" \
      .venv/bin/judged-rag ask "$q" --json > "$out/p$pass-q$i.json" 2> "$out/p$pass-q$i.err"
  done
done
