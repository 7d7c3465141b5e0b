"""The rows a stored judged-rag run abstained from that a decline fallback could change:
every answerable row it abstained from, and every nothing-answers row it abstained from
as `model_declined`. usage: python rows.py RESULTS.jsonl  (prints the ids, one line)"""
import json
import sys

ids = []
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["system"] == "judged" and r["abstained"]:
        if r["answerable"] or r["reason"] == "model_declined":
            ids.append(r["item_id"])
print(" ".join(ids))
