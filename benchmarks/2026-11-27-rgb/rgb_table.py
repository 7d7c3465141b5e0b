"""RGB outcomes of several noise-suite runs on the items every system finished."""
import collections, json, sys

runs = {}
for spec in sys.argv[1:]:
    label, path = spec.split("=", 1)
    for line in open(path):
        r = json.loads(line)
        if r.get("error"):
            continue
        name = label or r["system"]
        runs.setdefault(name, {})[r["item_id"]] = r
common = set.intersection(*(set(v) for v in runs.values()))
print(f"items finished by every system: {len(common)}")
for setting, outcomes in (("mixed", ["both", "evidence", "conflict", "abstained", "neither"]),
                          ("counterfactual", ["conflict", "abstained", "neither", "evidence", "both"])):
    print(f"\n{setting}:")
    print("| system | n | " + " | ".join(outcomes) + " | error detected | conflict route |")
    for name, recs in runs.items():
        part = [recs[i] for i in sorted(common) if recs[i]["setting"] == setting]
        c = collections.Counter(r.get("conflict_outcome") for r in part)
        det = sum(1 for r in part if r.get("error_detected"))
        routed = sum(1 for r in part if (r.get("route") or {}).get("conflict"))
        print(f"| {name} | {len(part)} | " + " | ".join(str(c[o]) for o in outcomes) + f" | {det if setting == 'counterfactual' else '-'} | {routed} |")
    calls = {n: sum(recs[i]["cost"]["llm_calls"] for i in common) / len(common) for n, recs in runs.items()}
print("\nmean LLM calls:", {n: round(v, 1) for n, v in calls.items()})
