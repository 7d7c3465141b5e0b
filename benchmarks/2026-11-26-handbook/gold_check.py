"""How often the answer-form checks would reject a gold answer (a false rejection)."""
import json, sys, glob, re
from pathlib import Path
from judged_rag.core.asked import of_kind, names_pinned, asks_quantity, asks_time, pinned

def load(path):
    return [json.loads(l) for l in open(path)]

def corpus_text(corpus_dir):
    pages = {}
    for p in Path(corpus_dir).glob("*.md"):
        t = p.read_text()
        m = re.search(r"^title:\s*(.+)$", t, re.M)
        pages[(m.group(1).strip() if m else p.stem)] = t
    return pages

sets = {
    "handbook-dev": ("hb1/eval-data-handbook.jsonl", "hb1/corpus"),
    "orgs": ("orgs/eval-data-orgs.jsonl", "orgs/corpus"),
    "rdq": ("rdq/eval-data-rdq.jsonl", "rdq/corpus"),
}
for name, (data, corpus) in sets.items():
    rows = [r for r in load(data) if not r.get("abstain")]
    pages = corpus_text(corpus)
    asked = kind_fail = pin = pin_fail = 0
    fails = []
    for r in rows:
        q = r["question"]; golds = r.get("answers") or [r.get("answer")]
        golds = [g for g in golds if g]
        if asks_quantity(q) or asks_time(q):
            asked += 1
            if not any(of_kind(q, g) for g in golds):
                kind_fail += 1; fails.append(("kind", q, golds))
        if pinned(q):
            pin += 1
            ev = [pages.get(t, "") for t in (r.get("evidence") or [])]
            if ev and not any(names_pinned(q, t) for t in ev):
                pin_fail += 1; fails.append(("pin", q, r.get("evidence")))
    print(f"{name}: {len(rows)} answerable; kind checked {asked}, gold rejected {kind_fail}; "
          f"year/version named {pin}, evidence page lacks it {pin_fail}")
    for f in fails[:8]: print("   ", f)
