import json
from judged_rag.core.asked import pinned, names_pinned
chunks = json.load(open("orgs-index/chunks.json"))
chunks = chunks["kept"] + chunks["dropped"]
rows = [json.loads(l) for l in open("orgs/eval-data-orgs.jsonl")]
n = ok = 0
for r in rows:
    if r.get("abstain") or not pinned(r["question"]): continue
    golds = [g.lower() for g in (r.get("answers") or [r.get("answer")]) if g]
    ev = set(r.get("evidence") or [])
    bearing = [c for c in chunks if c["title"] in ev and any(g in c["text"].lower() for g in golds)]
    if not bearing: continue
    n += 1
    if any(names_pinned(r["question"], c["text"]) for c in bearing): ok += 1
    else: print("REJECTED:", r["question"], golds, "|", bearing[0]["text"][:300].replace("\n"," / "))
print(f"pinned questions with an answer-bearing chunk: {n}; a bearing chunk passes: {ok}")
