"""Rank of the first retrieved chunk holding a gold answer, per question, on two indexes.
usage: python retr_screen.py DATA OLD_INDEX NEW_INDEX OUT   (answerable rows only)"""
import json, sys, re
from pathlib import Path
from judged_rag.indexing import open_index
data, old, new, out = sys.argv[1:5]
rs = {"old": open_index(Path(old), k=10), "new": open_index(Path(new), k=10)}
def norm(t): return " ".join(re.sub(r"[^\w\s.,-]", " ", t.casefold()).split())
rows = []
for line in open(data):
    q = json.loads(line)
    golds = q.get("answers") or []
    if not golds: continue
    rec = {"id": q["id"], "category": q.get("category"), "question": q["question"]}
    for name, r in rs.items():
        docs = r.invoke(q["question"])
        rank = next((i + 1 for i, d in enumerate(docs) if any(norm(g) in norm(d.page_content) for g in golds)), None)
        rec[name] = rank
        rec[name + "_chars"] = sum(len(d.page_content) for d in docs)
    rows.append(rec)
with open(out, "w") as f:
    for r in rows: f.write(json.dumps(r) + "\n")
def hit(k, name): return sum(1 for r in rows if r[name] is not None and r[name] <= k)
print(data, len(rows), "answerable")
for k in (1, 3, 5, 10):
    print(f"  hit@{k}: old {hit(k,'old')} new {hit(k,'new')}")
better = sum(1 for r in rows if (r["new"] or 99) < (r["old"] or 99)); worse = sum(1 for r in rows if (r["new"] or 99) > (r["old"] or 99))
print("  rank better", better, "worse", worse, "chars top10 mean old", sum(r["old_chars"] for r in rows)//len(rows), "new", sum(r["new_chars"] for r in rows)//len(rows))
