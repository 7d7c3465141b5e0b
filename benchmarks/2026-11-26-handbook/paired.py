"""Paired outcomes of plain RAG, judged-rag and judged-rag with subject_grounding on the handbook dev set (run from the folder holding the three run directories)."""
import json, collections, statistics, sys
def load(p):
    try: return [json.loads(l) for l in open(p)]
    except FileNotFoundError: return []
main = load("e2e-hb1/results.jsonl"); gr = load("e2e-hb1-grounding/results.jsonl")
by = collections.defaultdict(dict)
for r in main: by[r["item_id"]][r["system"]] = r
for r in gr: by[r["item_id"]]["judged+grounding"] = r
systems = ["plain_rag", "judged", "judged+grounding"]
items = [i for i, s in by.items() if all(k in s for k in systems)]
def good(r): return r["abstention_correct"] if r["must_abstain"] else r["correct"]
print("items with all three:", len(items))
for sysname in systems:
    rs = [by[i][sysname] for i in items]
    ans = [r for r in rs if not r["must_abstain"]]; una = [r for r in rs if r["must_abstain"]]
    calls = [r["cost"]["llm_calls"] for r in rs]
    happy = [r["cost"]["llm_calls"] for r in ans if r["correct"]]
    print(f"{sysname:18} answerable correct {sum(r['correct'] for r in ans)}/{len(ans)}, abstained {sum(r['abstained'] for r in ans)}, "
          f"unanswerable abstained {sum(r['abstained'] for r in una)}/{len(una)}; all right {sum(good(r) for r in rs)}/{len(rs)}; "
          f"calls mean {statistics.mean(calls):.1f} median {statistics.median(calls)}; happy-path median {statistics.median(happy) if happy else '-'}")
def paired(a, b):
    x = sum(1 for i in items if good(by[i][a]) and not good(by[i][b]))
    y = sum(1 for i in items if good(by[i][b]) and not good(by[i][a]))
    return x, y
for a, b in [("judged", "plain_rag"), ("judged+grounding", "plain_rag"), ("judged+grounding", "judged")]:
    print(f"{a} right where {b} wrong / reverse: {paired(a, b)}")
cats = collections.defaultdict(lambda: collections.Counter())
for i in items:
    c = by[i]["judged"]["category"]
    for s in systems:
        cats[c][s] += good(by[i][s]); 
    cats[c]["n"] += 1
print(f"{'category':20} n  plain judged grounded")
for c, k in sorted(cats.items()):
    print(f"{c:20} {k['n']:2} {k['plain_rag']:5} {k['judged']:6} {k['judged+grounding']:8}")
