"""Each row of two traces.py runs side by side, then the totals.

usage: python rows.py BEFORE.jsonl AFTER.jsonl
right: the gold answer is in the answer (case aside); for a row nothing answers,
abstained or answered. `other_happening`: the documents the check relabelled, by round.
"""

import json
import sys


def load(path):
    return {json.loads(line)["id"]: json.loads(line) for line in open(path)}


def grade(row):
    gold = row.get("gold") or []
    answer = (row.get("answer") or "").lower()
    if not gold:
        return "abstained" if row.get("abstained") else "answered"
    if any(g.lower() in answer for g in gold):
        return "right"
    return "abstained" if row.get("abstained") else "wrong"


before, after = load(sys.argv[1]), load(sys.argv[2])
totals = {"before": {}, "after": {}}
calls = {"before": 0, "after": 0}
for key, row in after.items():
    fired = [e["detail"]["documents"] for e in row["trace"] if e["event"] == "other_happening"]
    print(f"{key} | {row['question']} | gold {row['gold']}")
    for name, run in (("before", before[key]), ("after", row)):
        g = grade(run)
        totals[name][g] = totals[name].get(g, 0) + 1
        calls[name] += run["cost"]["llm_calls"]
        extra = f" | other_happening {fired}" if name == "after" else ""
        print(f"   {name:6} {g:9} {run['cost']['llm_calls']:3} calls | {run['answer'][:100]!r}{extra}")
for name in ("before", "after"):
    print(f"{name}: {totals[name]}, {calls[name]} calls in all")
