"""Would 'a cited page must name the question's subject' keep the gold answer's chunk?

For each answerable question naming a subject: the index chunks of its evidence
documents that hold a gold answer; the check passes when one of them names the subject
(title, text and context notes, as the run sees them)."""
import json, sys
from pathlib import Path
from judged_rag.indexing.store import IndexStore
from judged_rag.core.quotes import names_subject, subject_names

data, index = sys.argv[1:3]
store = IndexStore.load(Path(index))
rows = [json.loads(l) for l in open(data)]
n = named = kept = nochunk = 0
misses = []
for r in rows:
    if r.get("abstain") or not r.get("answers"):
        continue
    n += 1
    if not subject_names(r["question"]):
        continue
    named += 1
    ev = set(r.get("evidence") or [])
    gold = [a.lower() for a in r["answers"]]
    chunks = [c for c in store.chunks if (not ev or c.title in ev) and any(g in c.text.lower() for g in gold)]
    if not chunks:
        nochunk += 1
        continue
    if any(names_subject(r["question"], c.title, c.text) for c in chunks):
        kept += 1
    else:
        misses.append((r.get("category"), r["question"], [c.title for c in chunks][:3]))
print(f"answerable {n}, naming a subject {named}, gold chunk found {named-nochunk}, a gold chunk names it {kept}")
for m in misses[:40]:
    print("  miss:", m)
