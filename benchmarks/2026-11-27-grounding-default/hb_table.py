"""Per-system and per-kind outcomes of handbook e2e runs, on the items every system finished."""
import collections, json, sys

runs = {}
for spec in sys.argv[1:]:
    label, path = spec.split("=", 1)
    for line in open(path):
        r = json.loads(line)
        if r.get("error"):
            continue
        runs.setdefault(label or r["system"], {})[r["item_id"]] = r
common = sorted(set.intersection(*(set(v) for v in runs.values())))
right = lambda r: r["abstention_correct"] if r["must_abstain"] else r["correct"]
print(f"items finished by every system: {len(common)}")
print("| system | answerable right (abstained) | nothing answers: abstained | all right | calls mean / median |")
for name, recs in runs.items():
    part = [recs[i] for i in common]
    ans = [r for r in part if not r["must_abstain"]]
    un = [r for r in part if r["must_abstain"]]
    calls = sorted(r["cost"]["llm_calls"] for r in part)
    print(f"| {name} | {sum(r['correct'] for r in ans)} / {len(ans)} ({sum(r['abstained'] for r in ans)}) "
          f"| {sum(r['abstained'] for r in un)} / {len(un)} | {sum(right(r) for r in part)} / {len(part)} "
          f"| {sum(calls)/len(calls):.1f} / {calls[len(calls)//2]} |")
names = list(runs)
print("\npaired (only first right, only second right):")
for i, a in enumerate(names):
    for b in names[i + 1:]:
        x = sum(1 for k in common if right(runs[a][k]) and not right(runs[b][k]))
        y = sum(1 for k in common if right(runs[b][k]) and not right(runs[a][k]))
        print(f"  {a} vs {b}: {x} - {y}")
print("\nper kind (right / n):")
kinds = sorted({runs[names[0]][k]["category"] for k in common})
print("| kind | " + " | ".join(names) + " |")
for kind in kinds:
    ks = [k for k in common if runs[names[0]][k]["category"] == kind]
    print(f"| {kind} | " + " | ".join(f"{sum(right(runs[n][k]) for k in ks)}/{len(ks)}" for n in names) + " |")
conf = {n: collections.Counter((r.get("route") or {}).get("conflict") for r in runs[n].values()) for n in names}
print("\nconflicts:", {n: {k: v for k, v in c.items() if k} for n, c in conf.items()})
