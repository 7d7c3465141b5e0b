# The web step beside one's own documents: the runs of this folder, one command each,
# from the folder holding the data and indexes (see README.md). J = judged-rag; the code
# of each step is named in README.md (frozen copies of src, on PYTHONPATH).
set -ex
J=judged-rag
# 1. RDQ answerable questions whose stored run at ce78419 searched the web (37), at f823546:
python3 - <<'P'
import json
ids = {json.loads(l)["item_id"] for l in open("benchmarks/2026-11-28-rdq-new-default/at-ce78419/results.jsonl")
       if (json.loads(l).get("route") or {}).get("web_searched")}
open("web37.jsonl", "w").writelines(l for l in open("rdq/eval-data-rdq.jsonl") if json.loads(l)["id"] in ids)
P
$J eval --suite e2e --data web37.jsonl --index rdq-index --systems judged --model local:qwen2.5-coder-1.5b --variants open --out rdq-answerable-f823546 --no-progress
# 2. RDQ's 100 no-evidence questions of the headline, the web off (f823546):
$J eval --suite e2e --data rdq/eval-data-rdq.jsonl --index rdq-index --systems judged --model local:qwen2.5-coder-1.5b --variants unanswerable --limit 100 --set web_search=none --out rdq-none-weboff-f823546 --no-progress
# 3. The held-out handbook's kinds behind plain RAG (full_to_abbrev, uncovered, yes_no; 50 rows) at 8b027d6,
#    then the rows of it that searched the web again with the web off:
python3 -c "import json; open('behind.jsonl','w').writelines(l for l in open('hb2/eval-data-handbook.jsonl') if json.loads(l)['category'] in ('full_to_abbrev','uncovered','yes_no'))"
$J eval --suite e2e --data behind.jsonl --index hb2-index --systems judged --variants open,unanswerable --out hb2-behind-8b027d6 --no-progress
python3 ../2026-11-29-web-off-seed3/pick_web.py behind.jsonl hb2-behind-8b027d6/results.jsonl behind-web.jsonl
$J eval --suite e2e --data behind-web.jsonl --index hb2-index --systems judged --variants open,unanswerable --set web_search=none --out hb2-behind-weboff-8b027d6 --no-progress
