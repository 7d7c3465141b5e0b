"""For traced rows the generator declined: what the Highly Relevant chosen documents copied."""
import json, sys
from judged_rag.core.asked import of_kind
from judged_rag.core.conflicts import same_value
cat = {json.loads(l)["id"]: json.loads(l) for l in open("hb2/eval-data-handbook.jsonl")}
for line in open(sys.argv[1]):
    t = json.loads(line)
    judged, chosen, declined = {}, [], None
    for e in t["trace"] or []:
        d = e.get("detail", {})
        if e["node"] == "judge" and e["event"] == "judged":
            judged[d["doc_id"]] = d
        if e["node"] == "combine" and e["event"] == "combined":
            chosen = d.get("chosen", [])
        if e["node"] == "verify" and e["event"] == "declined":
            declined = d.get("draft")
    hs = [judged[c] for c in chosen if c in judged and judged[c]["label"] == "highly_relevant"]
    copies = [" ".join(h.get("evidence", "").split()) for h in hs]
    ok = copies and all(c and of_kind(t["question"], c) for c in copies) and all(same_value(copies[0], c) for c in copies)
    gold = t.get("gold") or []
    right = ok and any(g.lower() in max(copies, key=len).lower() for g in gold) if gold else None
    print(f'{t["id"]:28} ans={bool(gold)!s:5} reason={t["reason"]!s:16} declined={declined is not None!s:5} '
          f'H={len(hs)} copies={copies} fallback={"-" if not ok else max(copies, key=len)!r} gold={gold} right={right} | {t["answer"][:60]!r}')
