"""How often the measure check would reject a gold answer, on every built set."""
import json, sys
from judged_rag.core.asked import of_kind, measure_asked, measures_stated
# python gold_measure.py DIR: DIR holds the built sets as hb1/, hb2/, orgs/ and rdq/
# (`judged-rag eval-data build`, `build-orgs`, `build-handbook --seed 1` and `--seed 2`).
root = sys.argv[1] if len(sys.argv) > 1 else "."
sets = {
    "handbook-dev": f"{root}/hb1/eval-data-handbook.jsonl",
    "handbook-heldout": f"{root}/hb2/eval-data-handbook.jsonl",
    "orgs": f"{root}/orgs/eval-data-orgs.jsonl",
    "rdq": f"{root}/rdq/eval-data-rdq.jsonl",
}
for name, path in sets.items():
    rows = [json.loads(l) for l in open(path)]
    rows = [r for r in rows if r.get("answers")]
    asked = rejected = 0
    for r in rows:
        q = r["question"]
        m = measure_asked(q)
        if m is None: continue
        asked += 1
        golds = r["answers"]
        if not any(of_kind(q, g) for g in golds):
            rejected += 1; print("   REJECT", name, q, golds)
        else:
            print("   ok", name, m, '|', q, '|', golds[:2], [measures_stated(g) for g in golds[:2]])
    print(f"{name}: {len(rows)} with answers; a measure asked in {asked}; gold rejected {rejected}")
