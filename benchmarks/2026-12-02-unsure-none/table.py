"""How sure the judge is when it replies NONE, on chunks that answer and on chunks that do not.
usage: python table.py PROBE.jsonl [PROBE.jsonl ...]   (probe.py's output)
"""
import json
import sys

rows = [json.loads(line) for path in sys.argv[1:] for line in open(path)]
CUTS = (0.5, 0.6, 0.7, 0.8, 0.9)


def nones(judged):
    return [j["p_none"] for j in judged if j["none"] and j["p_none"] is not None]


def share(values, cut):
    return sum(1 for v in values if v < cut)


answering = [j for r in rows if r["answerable"] for j in r["judged"] if j["holds_gold"]]
print(f"rows: {len(rows)} ({sum(r['answerable'] for r in rows)} answerable)")
unreadable = sum(1 for j in answering if j["none"] is None)
print(f"chunks holding a gold answer, judged: {len(answering)}; replied NONE: "
      f"{sum(1 for j in answering if j['none'])}; unreadable: {unreadable}")
groups = {
    "answerable: chunk holds the gold, NONE": nones(answering),
    "nothing answers: first batch, NONE": nones(
        [j for r in rows if not r["answerable"] for j in r["judged"]]
    ),
}
print("\n| NONE replies | n | " + " | ".join(f"P(NONE) < {c}" for c in CUTS) + " |")
print("|---|---|" + "---|" * len(CUTS))
for name, values in groups.items():
    print(f"| {name} | {len(values)} | " + " | ".join(str(share(values, c)) for c in CUTS) + " |")

# Per row: would an unsure NONE in the first batch (or on a gold chunk) mark the row?
print("\n| rows | n | " + " | ".join(f"an unsure NONE at < {c}" for c in CUTS) + " |")
print("|---|---|" + "---|" * len(CUTS))
missed = [r for r in rows if r["answerable"]
          and any(j["holds_gold"] for j in r["judged"])
          and not any(j["holds_gold"] and not j["none"] for j in r["judged"])]
for name, subset, pick in (
    ("answerable, every gold chunk NONE: one of them unsure", missed,
     lambda r: [j for j in r["judged"] if j["holds_gold"]]),
    ("nothing answers, no copy in the first batch: an unsure NONE there",
     [r for r in rows if not r["answerable"] and all(j["none"] for j in r["judged"])],
     lambda r: r["judged"]),
):
    counts = [sum(1 for r in subset if share(nones(pick(r)), c)) for c in CUTS]
    print(f"| {name} | {len(subset)} | " + " | ".join(map(str, counts)) + " |")

print("\nanswerable rows whose every gold chunk was NONE:")
for r in missed:
    gold = [(j["rank"], j["p_none"]) for j in r["judged"] if j["holds_gold"]]
    print(f"  {r['id']}: {r['question']} | {r['gold']} | gold chunks (rank, P(NONE)): {gold}")
no_gold = [r for r in rows if r["answerable"] and not any(j["holds_gold"] for j in r["judged"])]
print(f"\nanswerable rows with no retrieved chunk holding the gold as written: {len(no_gold)}")
seconds = [j["seconds"] for r in rows for j in r["judged"]]
print(f"judge calls: {len(seconds)}, mean {sum(seconds) / max(len(seconds), 1):.2f} s")
