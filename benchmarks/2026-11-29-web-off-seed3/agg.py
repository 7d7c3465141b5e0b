"""Paired: default run (wd-*) against web off (wn-*) on the rows that searched the web.

Reads the run folders of the folder given (default: the current one).
"""
import json, glob, collections, statistics, os, sys
here = sys.argv[1] if len(sys.argv) > 1 else "."
def load(pat):
    out = {}
    for f in glob.glob(pat):
        for l in open(f):
            r = json.loads(l); out[r["item_id"]] = r
    return out
d, n = load(os.path.join(here, "wd-*/results.jsonl")), load(os.path.join(here, "wn-*/results.jsonl"))
def outcome(r):
    if r["answerable"]:
        return "right" if r["correct"] else ("abstained" if r["abstained"] else "wrong")
    return "abstained" if r["abstained"] else "answered"
print("default rows", len(d), "web rows", sum(1 for r in d.values() if r["route"].get("web_searched")), "web-off rows", len(n))
t = collections.Counter()
for i, r in n.items():
    a, b = outcome(d[i]), outcome(r)
    t[(r["category"], a, b)] += 1
    if a != b:
        print(f"{i}: {a} -> {b} | {r['question']} | web: {d[i]['answer'][:100]!r} | off: {r['answer'][:100]!r} ({r['reason']})")
for k, v in sorted(t.items()): print(k, v)
for name, rows in (("default", [d[i] for i in n]), ("web off", list(n.values()))):
    print(name, "calls mean", round(statistics.mean(r["cost"]["llm_calls"] for r in rows), 1), "median", statistics.median(r["cost"]["llm_calls"] for r in rows), "s mean", round(statistics.mean(r["wall_seconds"] for r in rows)))
nd = [r for r in d.values() if not r["answerable"]]
print("default nothing-answers abstained", sum(r["abstained"] for r in nd), "of", len(nd))
ad = [r for r in d.values() if r["answerable"]]
print("default answerable right", sum(r["correct"] for r in ad), "of", len(ad))
