"""Stored answers and gold answers against the how-many check (core.asked.other_measure)."""
import collections, glob, json, sys
from judged_rag.core.asked import asks_count, of_kind, other_measure
from judged_rag.core.citations import without_citations
seen = {}
for f in sorted(set(glob.glob("benchmarks/**/results.jsonl", recursive=True))):
    for line in open(f):
        try: r = json.loads(line)
        except ValueError: continue
        q, a = r.get("question") or "", r.get("answer") or ""
        if not a or r.get("abstained") or not asks_count(q): continue
        flagged = other_measure(q, without_citations(a)) is not None
        seen[(r.get("system"), q, a)] = (flagged, r.get("correct"))
c = collections.Counter(("FLAGGED" if v[0] else "passed", "right" if v[1] else "wrong") for v in seen.values())
print("stored answers to how-many questions (distinct system, question, answer):", sorted(c.items()))
for (s, q, a), v in seen.items():
    if v[0]: print("  flagged", "right" if v[1] else "wrong", s, "|", q, "|", a[:100])
asked = rejected = 0
for f in sys.argv[1:]:
    for line in open(f):
        row = json.loads(line)
        q, golds = row.get("question"), row.get("answers") or []
        if not q or not golds or not asks_count(q): continue
        asked += 1
        if not any(of_kind(q, g) for g in golds):
            rejected += 1; print("  GOLD REJECTED", f, q, golds)
print(len(sys.argv[1:]), "built sets; how-many questions", asked, "; gold rejected", rejected)
