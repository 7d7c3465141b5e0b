"""The rows a stored judged-rag run got wrong or declined: every answerable row it did not
answer right, then every nothing-answers row it abstained from as `model_declined`.
usage: python rows.py RESULTS.jsonl  (prints the ids, one line)"""
import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1])]
judged = [r for r in rows if r["system"] == "judged"]
lost = [r["item_id"] for r in judged if r["answerable"] and not r["correct"]]
declined = [r["item_id"] for r in judged if not r["answerable"] and r["reason"] == "model_declined"]
print(" ".join(lost + declined))
