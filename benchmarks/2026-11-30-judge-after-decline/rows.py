"""The rows a stored judged-rag run declined (reason model_declined), answerable first,
then by the calls they took. usage: python rows.py RESULTS.jsonl"""
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
declined = [r for r in rows if r.get("system") == "judged" and r.get("reason") == "model_declined"]
declined.sort(key=lambda r: (not r["answerable"], r["cost"]["llm_calls"]))
print(" ".join(r["item_id"] for r in declined))
