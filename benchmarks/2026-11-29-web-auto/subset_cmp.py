"""Per kind: a subset run against stored full runs on the same rows (right / n; abstained for nothing-answers)."""
import json, sys, collections
new = {json.loads(l)["item_id"]: json.loads(l) for l in open(sys.argv[1])}
others = [(a.split("=")[0], {json.loads(l)["item_id"]: json.loads(l) for l in open(a.split("=")[1])}) for a in sys.argv[2:]]
ok = lambda r: bool(r["correct"] if r["answerable"] else r["abstention_correct"])
k = collections.defaultdict(lambda: collections.Counter())
for i, r in new.items():
    c = r["category"]; k[c]["n"] += 1; k[c]["new"] += ok(r)
    for name, o in others:
        k[c][name] += ok(o[i])
        if ok(o[i]) != ok(r): k[c][f"{name} only"] += ok(o[i]); k[c][f"new only vs {name}"] += ok(r)
for c, v in sorted(k.items()): print(c, dict(v))
print("calls mean new", sum(r["cost"]["llm_calls"] for r in new.values()) / len(new))
for name, o in others:
    print("calls mean", name, sum(o[i]["cost"]["llm_calls"] for i in new) / len(new))
