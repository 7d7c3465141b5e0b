"""Rows of a trace file where some judged evidence could come from the words rule."""
import json, sys
from judged_rag.core.asked import states_in_words
out = []
for l in open(sys.argv[1]):
    r = json.loads(l)
    ev = [e["detail"].get("evidence", "") for e in r["trace"] if e["event"] == "judged"]
    hit = [x for x in ev if x and not any(c.isdigit() for c in x) and len(x.split()) >= 3 and states_in_words(r["question"], x)]
    if hit:
        out.append(r["id"]); print(r["id"], r["question"], hit, file=sys.stderr)
print(" ".join(out))
