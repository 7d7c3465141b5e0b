#!/usr/bin/env bash
# judged-rag at 5792380 (an accepted answer from documents that cites none is cited to the
# documents whose judge's quote it restates) on the held-out seed-5 rows whose answer at
# 50ecf59 was accepted from documents with no citation. S: the scratch folder of
# ../2026-11-30-heldout-seed5/run.sh (its data hb5/ and index hb5-index-g); resumable.
set -e
HERE="$(cd "$(dirname "$0")" && pwd)"
cd "$S"
. "$HERE/../freeze.sh"
freeze 5792380
export PYTHONPATH="$S/src-5792380"
python - "$HERE/../2026-11-30-heldout-seed5/whole-50ecf59/results.jsonl" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
ids = {r["item_id"] for r in rows if r["system"] == "judged" and not r["abstained"]
       and r["basis"] in ("retrieval", "combined") and not r["cited_titles"]}
with open("hb5-uncited.jsonl", "w") as out:
    for line in open("hb5/eval-data-handbook.jsonl"):
        if json.loads(line)["id"] in ids:
            out.write(line)
PY
judged-rag eval --suite e2e --data hb5-uncited.jsonl --index hb5-index-g \
  --systems judged --variants open,unanswerable --out hb5-cite --no-progress
